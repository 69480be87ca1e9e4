"""Limits hold under concurrency (SPEC §3.2): with k calls left, 3k parallel retrieve_memory
calls against a real server give exactly k successes and 2k `quota_exceeded`.

The server is the e2e one (gunicorn, 2 processes × 4 threads): on a file-backed SQLite database
with the counter table in the embedded run, on PostgreSQL with Redis counters in the service run.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

K = 5
CALLERS = 3 * K


def _call(url: str, key: str, n: int) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "retrieve_memory", "arguments": {"prompt": f"Who owns the Meridian rollout? ({n})"}},
    }
    response = httpx.post(
        url,
        json=message,
        headers={"Authorization": key, "Accept": "application/json, text/event-stream"},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    return dict(response.json()["result"])


@pytest.mark.parametrize("window", ["monthly", "weekly"])
def test_k_calls_left_and_3k_parallel_callers_give_exactly_k_successes(
    live_server_process: Any, tmp_path: Path, window: str
) -> None:
    server = live_server_process
    slug, plan = f"quota-{window}", f"tight-{window}"
    limits = {"monthly": "-1", "weekly": "-1", "hourly": "-1"} | {window: str(K)}
    server.manage("create_plan", plan, "--weekly", limits["weekly"], "--monthly", limits["monthly"], "--hourly", limits["hourly"])
    server.manage("create_workspace", slug, "--admin-email", f"admin@{slug}.example", "--admin-password", "pw-123456789", "--plan", plan)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "meridian.md").write_text("# Meridian\n\nPlatform Engineering owns the Meridian platform rollout through Q3.\n")
    server.manage("import_source", str(corpus), "--workspace", slug)
    key = server.manage("rotate_key", "--workspace", slug).strip()

    url = f"{server.url}/v1/mcp/memory"
    with ThreadPoolExecutor(max_workers=CALLERS) as pool:
        results = list(pool.map(lambda n: _call(url, key, n), range(CALLERS)))

    codes = [r["structuredContent"].get("error_code") if r["isError"] else "ok" for r in results]
    assert codes.count("ok") == K, codes
    assert codes.count("quota_exceeded") == 2 * K, codes
    refused = next(r for r in results if r["isError"])
    assert refused["content"][0]["text"].startswith(f"{window.capitalize()} retrieve_memory quota exceeded. Retry after ")
    # One more after the rush is refused too: nothing was over-released.
    assert _call(url, key, 999)["structuredContent"]["error_code"] == "quota_exceeded"
    assert json.dumps(results).count('"isError": false') == K
