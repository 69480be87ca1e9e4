"""Two runs of `manage.py evaluate` side by side (issue 16 point 1: measure generalisation, not
fit).

`--save PATH` writes what each question got: its half, category, recall@10, whether all its
evidence was in the top 10 and the coverage reported (a no-answer question is flagged when that
is "minimal" or "none"). `--against PATH` reads such a file back
and lists, half by half, the questions the two runs answer differently: evidence found or lost
(all of it in the top 10, the hit `calibration` counts), recall@10 moved without that changing,
no-answer questions flagged or no longer flagged. Beside the counts stands an exact two-sided
sign test over the questions gained and lost: on a 40-question half, one question either way
is 0.025 of recall and nothing a change can be credited with (p = 1.00), so a change chosen on
the tuning half is judged on the test half by what it moves there and how surely. The test
half's questions are listed by category only, their text withheld: what a change lost there is
counted, never read, so nobody tunes on it.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from memory.evaluation.datasets import TEST
from memory.evaluation.runner import NOT_ANSWERED, Outcome, Report, is_hit

SAVE_FORMAT = 1  # the "format" of a saved run; a file of another format is refused
QUESTION_CHARS = 100  # a listed question is cut to this length
WITHHELD = "(a test-half question: its text is withheld)"


def _keys(outcomes: list[Outcome]) -> list[tuple[str, int]]:
    """Each question's key: its text and which occurrence of that text it is (LoCoMo asks the
    same question of several conversations)."""
    seen: Counter[str] = Counter()
    keys = []
    for o in outcomes:
        keys.append((o.case.question, seen[o.case.question]))
        seen[o.case.question] += 1
    return keys


def saved(report: Report) -> dict[str, Any]:
    """The run as `--save` writes it."""
    return {
        "format": SAVE_FORMAT,
        "dataset": report.dataset,
        "questions": [
            {
                "question": question,
                "occurrence": occurrence,
                "half": o.case.half,
                "category": o.case.category,
                "unanswerable": o.case.unanswerable,
                "recall10": round(o.pam.recall10, 4),
                "hit": is_hit(o),
                "coverage": o.coverage,
            }
            for (question, occurrence), o in zip(_keys(report.outcomes), report.outcomes)
        ],
    }


def save(report: Report, path: Path) -> None:
    path.write_text(json.dumps(saved(report), indent=1) + "\n", encoding="utf-8")


def load(path: Path, dataset: str) -> dict[str, Any]:
    """A run saved by `--save` of the same dataset. ValueError says what is wrong."""
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a saved evaluation ({exc.__class__.__name__}: {exc})") from exc
    if not isinstance(run, dict) or run.get("format") != SAVE_FORMAT or not isinstance(run.get("questions"), list):
        raise ValueError(f"{path} is not a saved evaluation of format {SAVE_FORMAT} (write one with --save)")
    if run.get("dataset") != dataset:
        raise ValueError(f"{path} is a run of {run.get('dataset')!r}, not of {dataset!r}")
    needed: dict[str, type | tuple[type, ...]] = {
        "question": str, "occurrence": int, "half": str, "category": str, "unanswerable": bool,
        "recall10": (int, float), "hit": bool, "coverage": str,
    }
    for row in run["questions"]:
        if not isinstance(row, dict) or any(not isinstance(row.get(k), t) for k, t in needed.items()):
            raise ValueError(f"{path}: a question lacks one of {', '.join(needed)}: {str(row)[:QUESTION_CHARS]}")
    return run


def sign_test(gained: int, lost: int) -> float:
    """The exact two-sided sign test: the chance of a split at least this uneven between
    questions gained and lost if the change made no difference (each flip a fair coin)."""
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_lines(report: Report, earlier: dict[str, Any], label: str) -> list[str]:
    """The questions this run answers differently from `earlier` (a `load`ed run), by half."""
    before = {(row["question"], row["occurrence"]): row for row in earlier["questions"]}
    pairs = [(before.get(key), o) for key, o in zip(_keys(report.outcomes), report.outcomes)]
    matched = [(row, o) for row, o in pairs if row is not None]
    lines = [
        "",
        f"against {label} ({len(matched)} of {len(report.outcomes)} questions matched; "
        f"{len(earlier['questions'])} in the saved run)",
    ]
    by_half: dict[str, list[tuple[dict[str, Any], Outcome]]] = defaultdict(list)
    for row, o in matched:
        by_half[o.case.half].append((row, o))
    for half in sorted(by_half):
        lines += _half_lines(half, by_half[half])
    return lines


def _shown(o: Outcome) -> str:
    return WITHHELD if o.case.half == TEST else o.case.question[:QUESTION_CHARS]


def _half_lines(half: str, pairs: list[tuple[dict[str, Any], Outcome]]) -> list[str]:
    answerable = [(row, o) for row, o in pairs if not o.case.unanswerable]
    gained = [o for row, o in answerable if is_hit(o) and not row["hit"]]
    lost = [o for row, o in answerable if row["hit"] and not is_hit(o)]
    moved = [(row, o) for row, o in answerable
             if is_hit(o) == row["hit"] and round(o.pam.recall10, 4) != round(row["recall10"], 4)]
    hits_before = sum(1 for row, _ in answerable if row["hit"])
    hits_now = sum(1 for _, o in answerable if is_hit(o))
    lines = [
        f"[{half}] all evidence in the top 10: {hits_before} -> {hits_now} of {len(answerable)}; "
        f"gained {len(gained)}, lost {len(lost)} (sign test p = {sign_test(len(gained), len(lost)):.2f})"
    ]
    lines += [f"  + [{o.case.category}] {_shown(o)}" for o in gained]
    lines += [f"  - [{o.case.category}] {_shown(o)}" for o in lost]
    lines += [f"  ~ [{o.case.category}] recall@10 {row['recall10']:.2f} -> {o.pam.recall10:.2f}: {_shown(o)}"
              for row, o in moved]
    no_answer = [(row, o) for row, o in pairs if o.case.unanswerable]
    if no_answer:
        flagged_before = sum(1 for row, _ in no_answer if row["coverage"] in NOT_ANSWERED)
        flagged_now = sum(1 for _, o in no_answer if o.coverage in NOT_ANSWERED)
        lines.append(f"[{half}] no-answer questions flagged: {flagged_before} -> {flagged_now} of {len(no_answer)}")
        for row, o in no_answer:
            before, now = row["coverage"] in NOT_ANSWERED, o.coverage in NOT_ANSWERED
            if now != before:
                lines.append(f"  {'+' if now else '-'} {_shown(o)} ({row['coverage']} -> {o.coverage})")
    return lines
