"""`make serve` (the last step of `make run`): one uvicorn process on pam.asgi holds 50
concurrent MCP clients, serves the admin's CSS and accepts the dashboard's websocket
(issue 17 defects 7 and 9). Loopback only, bounded: 50 clients x 4 calls.

It runs the Makefile's own command beside the gunicorn server of tests/e2e/conftest.py, on the
same data directory and database (the demo company, imported once).
"""

from __future__ import annotations

import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.e2e.conftest import REPO, LiveServer, _free_port, wait_for_port

pytestmark = pytest.mark.e2e

CLIENTS = 50
CALLS_PER_CLIENT = 4
PROMPTS = ["Who leads the Data team?", "What is a KSR?", "What is the current Pro plan price?", "Who owns Project Atlas?"]


@pytest.fixture(scope="module")
def make_serve(live_server_process: LiveServer) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        ["make", "-s", "serve", f"PY={sys.executable}", f"PORT={port}"],
        cwd=REPO, env=live_server_process.env, start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def _key(server: LiveServer) -> str:
    return Path(server.env["PAM_DATA_DIR"], "demo_agent_key").read_text().strip()


def test_it_holds_fifty_concurrent_mcp_clients(make_serve: str, live_server_process: LiveServer) -> None:
    key = _key(live_server_process)
    start = threading.Barrier(CLIENTS)
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        try:
            with httpx.Client(base_url=make_serve, headers={"Authorization": key}, timeout=120) as http:
                start.wait(timeout=60)  # every client connects at once
                for call in range(CALLS_PER_CLIENT):
                    message = {
                        "jsonrpc": "2.0", "id": call, "method": "tools/call",
                        "params": {"name": "retrieve_memory", "arguments": {"prompt": PROMPTS[(number + call) % len(PROMPTS)]}},
                    }
                    began = time.perf_counter()
                    response = http.post("/v1/mcp/memory", json=message)
                    elapsed = time.perf_counter() - began
                    result = response.json().get("result", {}) if response.status_code == 200 else {}
                    with lock:
                        latencies.append(elapsed)
                        if response.status_code != 200 or result.get("isError") is not False:
                            failures.append(f"client {number} call {call}: {response.status_code} {response.text[:200]}")
        except Exception as exc:  # a reset connection, a timeout: the point of this test
            with lock:
                failures.append(f"client {number}: {exc!r}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began

    print(
        f"\n{CLIENTS} concurrent clients x {CALLS_PER_CLIENT} retrieve_memory calls on make serve: "
        f"{len(latencies)} answered in {wall:.1f}s, median {statistics.median(latencies) * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms, {len(failures)} failures"
    )
    assert failures == []
    assert len(latencies) == CLIENTS * CALLS_PER_CLIENT


def test_it_serves_the_admins_stylesheets(make_serve: str) -> None:
    page = httpx.get(f"{make_serve}/admin/login/")
    stylesheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.text)

    assert page.status_code == 200 and stylesheets
    for href in stylesheets:
        response = httpx.get(f"{make_serve}{href}")
        assert response.status_code == 200, href
        assert response.headers["content-type"].startswith("text/css")


def test_it_accepts_the_dashboards_websocket_for_a_logged_in_admin(
    make_serve: str, live_server_process: LiveServer
) -> None:
    password = Path(live_server_process.env["PAM_DATA_DIR"], "demo_admin_password").read_text().strip()
    with httpx.Client(base_url=make_serve) as http:
        login_page = http.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page.text)
        assert token
        logged_in = http.post(
            "/admin/login/?next=/admin/",
            data={"username": "admin@demo.pam.local", "password": password, "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": f"{make_serve}/admin/login/"},
        )
        assert logged_in.status_code == 302, logged_in.text[:500]
        cookies = "; ".join(f"{name}={value}" for name, value in http.cookies.items())

    ws_url = make_serve.replace("http://", "ws://") + "/ws/pipeline/"
    # A browser sends its page's Origin; the server refuses a websocket without one of its hosts.
    with ws_connect(ws_url, origin=make_serve, additional_headers={"Cookie": cookies}, open_timeout=20) as websocket:
        websocket.ping().wait(timeout=10)
    with pytest.raises(Exception):  # no session: the consumer refuses the handshake
        with ws_connect(ws_url, origin=make_serve, open_timeout=20):
            pass
    with pytest.raises(Exception):  # a page of another site, even with the admin's cookie
        with ws_connect(ws_url, origin="https://evil.example", additional_headers={"Cookie": cookies}, open_timeout=20):
            pass
