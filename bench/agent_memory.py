"""Agent memory (SPEC §2.4): `remember` latency and the delay until `recall` finds a memory.

    .venv/bin/python bench/agent_memory.py                    # 200 writes, 10k facts, embedded SQLite
    .venv/bin/python bench/agent_memory.py --writes 500 --facts 0 --preload 2000

A throwaway data directory (and SQLite database) gets a workspace with `--facts` generated
company facts (bench/engine_scale.py's generator) and a published index, plus `--preload`
agent memories already written (every one holding a query term is scored, through the term
index `AgentMemoryTerm`). Then,
through the real MCP endpoint (Django's test client, one process), each round calls
`remember` with a new memory and immediately `recall` from a second client (another session,
no shared state but the database) for that memory's distinctive words: the figures are
`remember` p50/p95, `recall` p50/p95 and how many memories the very next `recall` found
(target: all), then the same for `forget` and the next `recall` no longer finding it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedded import embedded_pam, tool_call  # noqa: E402
from engine_scale import latency, machine_busy_pct  # noqa: E402

WORDS = ["amber", "basalt", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]


def codename(n: int) -> str:
    return f"{WORDS[n % 10]}{WORDS[(n // 10) % 10]}{n}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--preload", type=int, default=0)
    args = parser.parse_args()

    busy = machine_busy_pct()
    with embedded_pam("pam-bench-agent-memory-"):
        from django.test import Client

        from developer_api.keys import api_key_rotate
        from engine_scale import generate_workspace
        from memory.engine.index import index_publish
        from memory.models import AgentMemory
        from memory.services import workspace_create

        workspace = workspace_create(
            slug="bench", admin_email="admin@bench.example", admin_password="pw-123456789", plan_name="unlimited"
        )
        if args.facts:
            generate_workspace(workspace, args.facts)
            index_publish(workspace=workspace)
        key = api_key_rotate(workspace=workspace).api_key
        if args.preload:
            from memory.engine.live import memory_index, memory_terms

            rows = []
            for n in range(args.preload):
                row = AgentMemory(
                    workspace=workspace, reference=f"mem_pre{n:020d}", path=f"preload/{n % 50}",
                    content=f"Preloaded note {n} about the {WORDS[n % 10]} migration and its owners.",
                    credential=key[:17],
                )
                memory_terms(row)
                rows.append(row)
            memory_index(AgentMemory.objects.bulk_create(rows))

        writer, reader = Client(SERVER_NAME="127.0.0.1"), Client(SERVER_NAME="127.0.0.1")

        def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = tool_call(client, key, name, arguments)
            assert result["isError"] is False, result
            return result

        remember_s, recall_s, forget_s, found, gone = [], [], [], 0, 0
        references = []
        for n in range(args.writes):
            name = codename(n)
            started = time.perf_counter()
            ref = call(writer, "remember", {"path": f"bench/{n % 20}", "content": f"The {name} migration is owned by team {n % 7}."})[
                "structuredContent"]["reference"]
            remember_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            results = call(reader, "recall", {"query": f"{name} migration owner"})["structuredContent"]["results"]
            recall_s.append(time.perf_counter() - started)
            found += int(bool(results) and results[0]["reference"] == ref)
            references.append((name, ref))
        for name, ref in references[: max(1, args.writes // 4)]:
            started = time.perf_counter()
            call(writer, "forget", {"target": ref, "reason": "bench"})
            forget_s.append(time.perf_counter() - started)
            results = call(reader, "recall", {"query": f"{name} migration owner"})["structuredContent"]["results"]
            gone += int(all(r["reference"] != ref for r in results))
        print(json.dumps({
            "facts": args.facts, "preloaded_memories": args.preload, "writes": args.writes, "machine_busy_pct": busy,
            "remember_ms": latency(remember_s), "recall_next_call_ms": latency(recall_s),
            "found_on_next_call": f"{found}/{args.writes}", "forget_ms": latency(forget_s),
            "gone_on_next_call": f"{gone}/{len(forget_s)}",
        }, indent=1))


if __name__ == "__main__":
    main()
