"""Coverage calibration (issue 16 point 6): record what the engine found, then replay
`coverage_assessment` offline.

    .venv/bin/python bench/coverage_calibration.py run demo --out /tmp/demo.jsonl
    .venv/bin/python bench/coverage_calibration.py replay /tmp/demo.jsonl /tmp/harbourline.jsonl

`run` evaluates a dataset as `manage.py evaluate` does (its own throwaway data directory and
SQLite database), prints the same report and writes one line per question: its dataset, half,
category, whether it is answerable, whether all its evidence was in the top 10, the coverage
reported, the relevance scores of the facts returned, how each was reached (a chain's hop or
row), whether the prompt names something the memory never mentions, whether the fact the
dense stage holds clearly nearest is among them, and the facts' joint coverage of the prompt:
everything `assess` reads. `replay` applies today's
`memory.engine.rank.assess` to those figures and prints both calibration figures per dataset
and half — recorded (as the engine said when it ran) and replayed — and how many questions
are assessed otherwise (none with unchanged thresholds), so thresholds can be chosen on the
tuning halves without importing anything again. The ranking does not depend on `assess`, so
recall is unchanged by a replay.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedded import embedded_pam  # noqa: E402

STATEMENTS_KEPT = 3  # the best facts' statements written beside each question, to read misses by
STATEMENT_CHARS = 200


def run(dataset: str, data: Path | None, out: Path) -> None:
    with embedded_pam("pam-calibration-"):
        from memory.evaluation.datasets import DEFAULT_PATHS, LOADERS
        from memory.evaluation.runner import evaluate, is_hit, render

        report = evaluate(dataset, LOADERS[dataset](data or DEFAULT_PATHS[dataset]),
                          progress=lambda line: print(line, file=sys.stderr, flush=True))
        print("\n".join(render(report)))
        with out.open("w", encoding="utf-8") as handle:
            for o in report.outcomes:
                row = {
                    "dataset": dataset,
                    "half": o.case.half,
                    "category": o.case.category,
                    "unanswerable": o.case.unanswerable,
                    "hit": is_hit(o),
                    "recall10": o.pam.recall10,
                    "coverage": o.coverage,
                    "relevances": o.relevances,
                    "joint_coverage": o.joint_coverage,
                    "linked": o.linked,
                    "unknown_name": o.unknown_name,
                    "meant": o.meant,
                    "question": o.case.question,
                    "statements": [s[:STATEMENT_CHARS] for s in o.statements[:STATEMENTS_KEPT]],
                }
                handle.write(json.dumps(row) + "\n")


def _figures(rows: list[dict[str, Any]], key: str) -> str:
    answered = ("comprehensive", "partial")
    hits = [r for r in rows if r["hit"]]
    misses = [r for r in rows if not r["hit"]]
    a = sum(1 for r in hits if r[key] in answered)
    f = sum(1 for r in misses if r[key] not in answered)
    return (f"hits answered {a}/{len(hits)} ({a / len(hits) if hits else 0:.1%}), "
            f"misses flagged {f}/{len(misses)} ({f / len(misses) if misses else 0:.1%})")


def replay(files: list[Path]) -> None:
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
    import django

    django.setup()
    from memory.engine.rank import assess
    from memory.engine.types import FactHit

    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            linked = row.get("linked") or [""] * len(row["relevances"])
            facts = [FactHit("", r, "", "", "", "", None, 0, 0, 0, linked=how)
                     for r, how in zip(row["relevances"], linked)]
            row["replayed"] = assess(
                facts, row["joint_coverage"], row.get("unknown_name", False), row.get("meant", False)
            )
            groups[(row["dataset"], row["half"])].append(row)
    for (dataset, half), rows in sorted(groups.items()):
        print(f"{dataset}[{half}] ({len(rows)} questions)")
        print(f"  recorded: {_figures(rows, 'coverage')}")
        print(f"  replayed: {_figures(rows, 'replayed')}")
        differ = sum(1 for r in rows if r["replayed"] != r["coverage"])
        if differ:
            print(f"  {differ} question(s) assessed otherwise than when recorded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("run")
    record.add_argument("dataset")
    record.add_argument("--data", type=Path, default=None)
    record.add_argument("--out", type=Path, required=True)
    again = commands.add_parser("replay")
    again.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "run":
        run(args.dataset, args.data, args.out)
    else:
        replay(args.files)


if __name__ == "__main__":
    main()
