"""A real Celery worker on the Redis broker runs the sync pipeline (service run only)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from django.conf import settings
from django.db import connection

from memory.engine import retrieve
from memory.models import PipelineRun, Source, Workspace
from memory.pipelines.sync import run_create
from memory.tasks import sync_source_task

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL (service run)"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def worker(settings: Any) -> Iterator[subprocess.Popen[bytes]]:
    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["PAM_DATA_DIR"] = str(settings.PAM_DATA_DIR)
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "pam", "worker", "--pool", "solo", "--concurrency", "1",
         "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle", "--without-gossip"],
        cwd=REPO,
        env=env,
    )
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def test_a_worker_syncs_a_source_and_retrieval_finds_its_facts(
    worker: Any, workspace: Workspace, corpus_dir: Path
) -> None:
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    source = Source.objects.create(workspace=workspace, name="docs", kind="auto", location=str(corpus_dir))
    run = run_create(source=source)
    sync_source_task.delay(run.pk)

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in (PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED):
            break
        time.sleep(0.3)
    assert run.status == PipelineRun.Status.COMPLETED, run.errors

    result = retrieve(workspace, "Who owns the Meridian platform rollout?")
    assert any("Platform Engineering owns the Meridian" in f.statement for f in result.facts[:3])
