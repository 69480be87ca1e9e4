"""Real Celery workers on the Redis broker run the sync pipeline (service run only)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from memory.engine import retrieve
from memory.models import IndexVersion, PipelineRun, Source, Workspace
from memory.tasks import runs_reap, sync_source_task
from tests.conftest import Mcp, run_create

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL (service run)"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def start_worker(settings: Any) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start workers on the test database; every one is stopped at the end of the test."""
    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["PAM_DATA_DIR"] = str(settings.PAM_DATA_DIR)
    started: list[subprocess.Popen[bytes]] = []

    def start(**extra_env: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "pam", "worker", "--pool", "solo", "--concurrency", "1",
             "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle", "--without-gossip"],
            cwd=REPO,
            env={**env, **extra_env},
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_for(run: PipelineRun, statuses: tuple[str, ...], timeout: float = 120) -> PipelineRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in statuses:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run.pk} stayed {run.status} ({run.stage}, {run.progress_done}/{run.progress_total})")


def test_an_upload_is_synced_by_a_worker_and_answered_over_mcp(
    start_worker: Any, client: Client, workspace: Workspace, agent_key: str
) -> None:
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    start_worker()
    token = client.post(
        "/v1/auth/token", {"email": "admin@acme.example", "password": "pw-123456789"}, content_type="application/json"
    ).json()["access"]
    auth = {"Authorization": f"Bearer {token}"}
    upload = (
        b"---\ntitle: Travel policy\ndate: 2026-06-01\n---\n# Travel policy\n\n"
        b"Economy class is required for every flight shorter than six hours.\n"
    )
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/v1/dev/sources", {"file": SimpleUploadedFile("travel.md", upload, "text/markdown")}, headers=auth
    )
    assert response.status_code == 201, response.content
    source_id = response.json()["id"]

    run = PipelineRun.objects.get(source_id=source_id)
    _wait_for(run, (PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED))
    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    readiness = client.get("/v1/dev/readiness", headers=auth).json()
    assert readiness["ready"] is True and readiness["latest_pipeline_status"] == "completed"

    result = Mcp(client, agent_key).call({"prompt": "Which class is required for flights shorter than six hours?"})
    statements = [f["statement"] for f in result["structuredContent"]["retrieval"]["facts"]]
    assert any("Economy class is required" in s for s in statements), statements


def test_a_run_whose_worker_was_killed_is_resumed_by_the_reaper(
    start_worker: Any, workspace: Workspace, tmp_path: Path, settings: Any
) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    for i in range(400):
        (folder / f"doc-{i:03}.md").write_text(
            f"# Note {i}\n\nTeam Orion{i} owns the quarterly widget review number {i}.\n"
            + "".join(f"- Item {j} of note {i} is tracked by the operations desk.\n" for j in range(30))
        )
    source = Source.objects.create(workspace=workspace, name="big", kind="auto", location=str(folder))
    run = run_create(source=source)
    # The lexical stage only: encoding the 12,400 facts' vectors at publish is not what is
    # tested, and took longer than the wait below on a 2-core machine running both CI legs.
    settings.PAM_DENSE = False
    lexical = {"PAM_DENSE": "false"}

    # A short lease so the test does not wait five minutes for the dead worker's to expire.
    first = start_worker(PAM_PIPELINE_LEASE_SECONDS="3", **lexical)
    sync_source_task.delay(run.pk)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status == PipelineRun.Status.RUNNING and run.progress_done >= 20:
            break
        time.sleep(0.05)
    assert run.status == PipelineRun.Status.RUNNING, (run.status, run.progress_done)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    run.refresh_from_db()
    assert run.status == PipelineRun.Status.RUNNING and run.progress_done < 400

    time.sleep(3.5)  # the lease expires
    start_worker(PAM_PIPELINE_LEASE_SECONDS="30", **lexical)
    counts = runs_reap()
    assert counts["resumed"] == 1

    _wait_for(run, (PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED), timeout=180)
    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert run.attempts == 2
    assert source.documents.count() == 400
    assert IndexVersion.objects.filter(workspace=workspace, status="published").exists()
    found = retrieve(workspace, "Who owns the quarterly widget review number 399?")
    assert any("Orion399" in f.statement for f in found.facts[:3])
