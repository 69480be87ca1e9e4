"""Celery beat tasks of the Developer API: the request log's retention (SPEC §3)."""

from __future__ import annotations

from celery import shared_task

from developer_api.quotas import quota_counters_purge
from developer_api.services import request_log_purge


@shared_task
def purge_request_log_task() -> int:
    deleted = request_log_purge()
    quota_counters_purge()
    return deleted
