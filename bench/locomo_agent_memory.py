"""LoCoMo through the XMemo tools (issue 14): agent memory measured the way its peers publish.

    .venv/bin/python bench/locomo_agent_memory.py                 # ../shared/data/locomo/locomo10.json
    .venv/bin/python bench/locomo_agent_memory.py --data PATH --conversations 2

Each LoCoMo conversation gets its own workspace (a throwaway data directory and SQLite
database) and an agent key. Every turn is written with `remember` through the real MCP endpoint
(Django's test client), as an agent keeping notes would: the content is what the speaker said,
with the speaker and the session date (`<speaker> said on <date>: <text>`, a shared photo's
caption included), filed under `locomo/<conversation>/session_<n>`, with the turn's dialogue id
in the metadata. Then every question (categories 1-4; category 5 is adversarial, with no
evidence to find) is asked with `recall(query, limit=10)`; the references it returns are mapped
back to dialogue ids and scored with `memory.evaluation.runner`'s own functions: turn-level
recall@5/@10 (the share of a question's evidence turns in the top k) and session-level recall
(the ranked turns' distinct sessions), per category, for conversations 1-5 (the tuning half of
`evaluate`) and 6-10 (the test half) apart. Timing: the wall time to remember every turn,
`remember` and `recall` p50/p95.

The data is read where it lies and never copied into the repository; without it the script
says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedded import embedded_pam, tool_call  # noqa: E402
from engine_scale import latency, machine_busy_pct  # noqa: E402

K = 10
SUMMARY_CATEGORIES = ("multi_hop", "temporal", "open_domain", "single_hop")


def _content(message: dict[str, Any], when_text: str) -> str:
    return f"{message['author']} said on {when_text}: {message['text']}"


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 3) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--conversations", type=int, default=10)
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from memory.evaluation.datasets import DEFAULT_PATHS, TEST, TUNE, locomo

    path = args.data or DEFAULT_PATHS["locomo"]
    if not path.is_file():
        print(f"LoCoMo data not found at {path}: nothing to measure (pass --data).")
        return

    busy = machine_busy_pct()
    with embedded_pam("pam-bench-locomo-memory-"):
        from django.test import Client

        from developer_api.keys import api_key_rotate
        from memory.evaluation.runner import score, session_score
        from memory.services import workspace_create


        remember_s: list[float] = []
        recall_s: list[float] = []
        write_seconds = 0.0
        refused = merged = turns = 0
        # (half, category) -> turn-level and session-level scores
        turn_scores: dict[tuple[str, str], list[Any]] = defaultdict(list)
        session_scores: dict[tuple[str, str], list[Any]] = defaultdict(list)
        for number, corpus in enumerate(locomo(path)):
            if number >= args.conversations:
                break
            workspace = workspace_create(
                slug=f"locomo-{number + 1}", admin_email=f"admin@locomo{number + 1}.example",
                admin_password="pw-123456789", plan_name="unlimited",
            )
            key = api_key_rotate(workspace=workspace).api_key
            client = Client(SERVER_NAME="127.0.0.1")
            turns_of: dict[str, list[str]] = defaultdict(list)  # reference -> dialogue ids
            started_all = time.perf_counter()
            for item in corpus.items:
                session = item["external_id"].rsplit("/", 1)[1]
                when_text = item["title"].rsplit("(", 1)[-1].rstrip(")")
                for message in item["messages"]:
                    turns += 1
                    started = time.perf_counter()
                    result = tool_call(client, key, "remember", {
                        "path": f"locomo/{corpus.name}/{session}",
                        "content": _content(message, when_text),
                        "memory_type": "conversation",
                        "metadata": {"dia_id": message["id"], "speaker": message["author"], "session_date": when_text},
                    })
                    remember_s.append(time.perf_counter() - started)
                    if result["isError"]:
                        refused += 1
                        continue
                    written = result["structuredContent"]
                    merged += written.get("action") == "merged"
                    turns_of[written["reference"]].append(message["id"])
            write_seconds += time.perf_counter() - started_all
            half = corpus.cases[0].half if corpus.cases else TUNE
            for case in corpus.cases:
                if case.unanswerable:
                    continue
                started = time.perf_counter()
                result = tool_call(client, key, "recall", {"query": case.question, "limit": K})
                recall_s.append(time.perf_counter() - started)
                references = [r["reference"] for r in result["structuredContent"]["results"]]
                ranked = [set(turns_of.get(ref, [])) & set(case.gold) for ref in references]
                turn_scores[(half, case.category)].append(score(case, ranked, any_gold=False))
                units = [(turns_of[ref][0], "") for ref in references if turns_of.get(ref)]
                session_scores[(half, case.category)].append(session_score(case, units))
            print(f"  conversation {number + 1} ({corpus.name}, {half}): {sum(len(i['messages']) for i in corpus.items)} turns", flush=True)

        def row(scores: dict[tuple[str, str], list[Any]], half: str) -> str:
            pooled = [s for (h, c), rows in scores.items() if h == half and c in SUMMARY_CATEGORIES for s in rows]
            cells = [
                str(len(pooled)),
                f"{_mean([s.recall5 for s in pooled]):.3f} / {_mean([s.recall10 for s in pooled]):.3f} / "
                f"{_mean([s.mrr10 for s in pooled]):.3f}",
            ]
            for category in SUMMARY_CATEGORIES:
                rows = scores.get((half, category), [])
                cells.append(f"{_mean([s.recall5 for s in rows]):.3f} / {_mean([s.recall10 for s in rows]):.3f} ({len(rows)})")
            return " | ".join(cells)

        print(json.dumps({
            "machine_busy_pct": busy, "turns": turns, "refused_by_capture_policy": refused,
            "merged_as_near_duplicates": merged, "remember_all_turns_s": round(write_seconds, 1),
            "remember_ms": latency(remember_s), "recall_ms": latency(recall_s),
        }, indent=1))
        print("\n| level | half | questions | R@5 / R@10 / MRR@10 | " + " | ".join(f"{c} R@5 / R@10 (n)" for c in SUMMARY_CATEGORIES) + " |")
        print("|---|---|---:|---|" + "---|" * len(SUMMARY_CATEGORIES))
        for level, scores in (("turn", turn_scores), ("session", session_scores)):
            for half, label in ((TUNE, "conv. 1-5 (tune)"), (TEST, "conv. 6-10 (test)")):
                print(f"| {level} | {label} | {row(scores, half)} |")


if __name__ == "__main__":
    main()
