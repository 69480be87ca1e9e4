"""A real PAM server in a subprocess (gunicorn, the production HTTP stack) for end-to-end tests.

It gets its own data directory and its own database: a fresh SQLite file in the embedded run,
a throwaway PostgreSQL database when DATABASE_URL points at PostgreSQL (the service run).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
E2E_ACCESS_TOKEN_SECONDS = 4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], timeout: float = 60) -> None:
    """Return once 127.0.0.1:`port` accepts connections; raise if `process` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError("the server exited during start-up")
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


@dataclass
class LiveServer:
    url: str
    env: dict[str, str]

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, result.stderr
        return result.stdout


@contextmanager
def own_database(env: dict[str, str], prefix: str) -> Iterator[None]:
    """The server's own database, named in `env`: a throwaway PostgreSQL database (dropped at
    the end) when DATABASE_URL points at PostgreSQL, else a fresh SQLite file in its data
    directory."""
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")):
        env.pop("DATABASE_URL", None)
        yield
        return
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = urlunsplit(urlsplit(database_url)._replace(path=f"/{name}"))
    try:
        yield
    finally:
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def stop(processes: list[subprocess.Popen[Any]]) -> None:
    """Terminate every process, killing one that does not exit in 20 s."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def live_server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir = tmp_path_factory.mktemp("e2e-data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PAM_DATA_DIR"] = str(data_dir)
    port = _free_port()
    env["PAM_PUBLIC_BASE_URL"] = f"http://127.0.0.1:{port}"
    # Short OAuth access tokens: the SDK's OAuth test sees its client refresh on its own.
    env["PAM_OAUTH_ACCESS_TOKEN_SECONDS"] = str(E2E_ACCESS_TOKEN_SECONDS)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    with own_database(env, "pam_e2e"):
        server = LiveServer(url=f"http://127.0.0.1:{port}", env=env)
        server.manage("migrate", "--noinput", "-v", "0")
        server.manage("setup_demo")
        process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "pam.wsgi:application",
                "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4",
                "--worker-class", "gthread", "--log-level", "warning",
            ],
            cwd=REPO,
            env=env,
        )
        try:
            wait_for_port(port, process)
            yield server
        finally:
            stop([process])
