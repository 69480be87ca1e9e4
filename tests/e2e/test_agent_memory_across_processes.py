"""Read your writes across web processes (SPEC §2.4): a memory `remember`ed through one server
process is found by `recall` and `retrieve_memory` on the very next call to *another* process
sharing only the database, and a forgotten one is gone from the next call there too.

The writer is the e2e gunicorn server; the reader a second server, one uvicorn process on
`pam.asgi` as `make run` starts it, on the same database and data directory.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from tests.e2e.conftest import REPO, LiveServer, _free_port, wait_for_port

pytestmark = pytest.mark.e2e

ROUNDS = 5


@pytest.fixture(scope="module")
def second_process(live_server_process: LiveServer) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "pam.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off", "--log-level", "warning"],
        cwd=REPO,
        env=live_server_process.env,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def call(base: str, key: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    response = httpx.post(
        f"{base}/v1/mcp/memory", json=message,
        headers={"Authorization": key, "Accept": "application/json, text/event-stream"}, timeout=120,
    )
    assert response.status_code == 200, response.text
    result = dict(response.json()["result"])
    assert result["isError"] is False, result
    return result


def test_a_memory_written_in_one_process_is_read_and_forgotten_in_another(
    live_server_process: LiveServer, second_process: str
) -> None:
    server = live_server_process
    key = Path(server.env["PAM_DATA_DIR"], "demo_agent_key").read_text().strip()  # the ready demo workspace
    for n in range(ROUNDS):
        word = f"quokkaproject{n}"
        written = call(server.url, key, "remember", {"path": "projects/quokka", "content": f"The {word} kickoff is on Tuesday."})
        reference = written["structuredContent"]["reference"]
        found = call(second_process, key, "recall", {"query": f"{word} kickoff"})
        assert [item["reference"] for item in found["structuredContent"]["results"]][:1] == [reference]
        answer = call(second_process, key, "retrieve_memory", {"prompt": f"When is the {word} kickoff?"})
        assert f"The {word} kickoff is on Tuesday." in [f["statement"] for f in answer["structuredContent"]["retrieval"]["facts"]]
        call(server.url, key, "forget", {"target": reference, "reason": "test round over"})
        gone = call(second_process, key, "recall", {"query": f"{word} kickoff"})
        assert reference not in [item["reference"] for item in gone["structuredContent"]["results"]]
        answer = call(second_process, key, "retrieve_memory", {"prompt": f"When is the {word} kickoff?"})
        assert f"The {word} kickoff is on Tuesday." not in [f["statement"] for f in answer["structuredContent"]["retrieval"]["facts"]]
