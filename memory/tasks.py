"""Thin Celery wrappers that take ids and call one pipeline function, owning only the retry
policy, and the one place that hands runs to a worker (SPEC §7): pipelines never import this
module. With no `CELERY_BROKER_URL` the tasks run in-process (eager)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import transaction

from memory.models import PipelineRun, Source
from memory.pipelines.sync import Progress, TransientError, runs_reap_marks, source_sync
from memory.selectors import run_next_queued, sources_to_resync

FINISHED = (PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED)


def run_dispatch(run_id: int) -> None:
    """Hand a queued run to a worker once the current transaction commits."""
    transaction.on_commit(lambda: sync_source_task.delay(run_id))


def run_enqueue(*, source: Source) -> PipelineRun:
    """A queued run for the source, handed to Celery after the transaction commits; a run
    already queued is returned instead of queueing a second one."""
    with transaction.atomic():
        Source.objects.select_for_update().filter(pk=source.pk).first()
        # A queued run will read everything there is when it starts: reuse it. A running one
        # may have read the source already, so a new run is queued behind it (it starts when
        # the running one ends: runs of one source never overlap).
        queued = PipelineRun.objects.filter(source=source, status=PipelineRun.Status.QUEUED).first()
        if queued is not None:
            return queued
        run = PipelineRun.objects.create(workspace=source.workspace, source=source)
        run_dispatch(run.pk)
    return run


def run_sync(*, run_id: int, progress: Progress | None = None) -> PipelineRun | None:
    """Run one queued sync to its end in this process, then dispatch the run queued behind it
    (runs of one source never overlap: a run that finds another running waits for it)."""
    run = source_sync(run_id=run_id, progress=progress)
    if run is not None and run.status in FINISHED:
        waiting = run_next_queued(source_id=run.source_id)
        if waiting is not None:
            run_dispatch(waiting)
    return run


def runs_reap(*, now: Any = None) -> dict[str, int]:
    """Resume or fail runs whose worker died and resend lost messages; returns the counts."""
    reaped = runs_reap_marks(now=now)
    for run_id in reaped.to_send:
        sync_source_task.delay(run_id)
    return reaped.counts


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(TransientError, ConnectionError),
    retry_backoff=True,
    retry_backoff_max=300,
    max_retries=5,
)
def sync_source_task(self: Any, run_id: int) -> str | None:
    run = run_sync(run_id=run_id)
    return run.status if run is not None else None


@shared_task
def reap_stale_runs_task() -> dict[str, int]:
    """Periodic (Celery beat): resume or fail runs whose worker died; resend lost messages."""
    return runs_reap()


@shared_task
def resync_sources_task() -> int:
    """Periodic (Celery beat): queue a sync of every server-side folder source."""
    count = 0
    for source in sources_to_resync():
        run_enqueue(source=source)
        count += 1
    return count
