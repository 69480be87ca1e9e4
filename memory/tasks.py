"""Thin Celery wrappers: take ids, call one pipeline function, own only the retry policy."""

from __future__ import annotations

from celery import shared_task

from memory.pipelines.sync import source_sync


@shared_task(bind=True, acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=5)
def sync_source_task(self: object, run_id: int) -> int:
    run = source_sync(run_id=run_id)
    return run.pk
