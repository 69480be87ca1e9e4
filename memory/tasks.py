"""Thin Celery wrappers: take ids, call one pipeline function, own only the retry policy."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from memory.pipelines.sync import TransientError, runs_reap, source_sync


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
    run = source_sync(run_id=run_id)
    return run.status if run is not None else None


@shared_task
def reap_stale_runs_task() -> dict[str, int]:
    """Periodic (Celery beat): resume or fail runs whose worker died; resend lost messages."""
    return runs_reap()


@shared_task
def resync_sources_task() -> int:
    """Periodic (Celery beat): queue a sync of every server-side folder source."""
    from memory.models import Source
    from memory.services import run_enqueue

    count = 0
    for source in Source.objects.exclude(kind="items").filter(status__in=[Source.Status.READY, Source.Status.FAILED]):
        if source.config.get("upload"):
            continue  # an uploaded file does not change
        run_enqueue(source=source)
        count += 1
    return count
