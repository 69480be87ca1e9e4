"""The request log's retention (SPEC §3): `manage.py purge_request_log` and the beat task delete
rows older than PAM_REQUEST_LOG_RETENTION_DAYS, with their usage roll-up."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from io import StringIO
from typing import Any

from django.core.management import call_command

from developer_api.models import RequestLog, UsageHour
from developer_api.tasks import purge_request_log_task
from memory.models import Workspace
from tests.developer_api.test_mcp_requests import log

NOW = datetime.now(timezone.utc)


def test_it_deletes_rows_past_the_retention_and_keeps_the_rest(workspace: Workspace, settings: Any) -> None:
    settings.PAM_REQUEST_LOG_RETENTION_DAYS = 90
    log(workspace, 2, start=NOW - timedelta(days=120))
    kept = log(workspace, 3, start=NOW - timedelta(days=10))
    out = StringIO()
    call_command("purge_request_log", stdout=out)
    assert "Deleted 2 request-log rows." in out.getvalue()
    assert sorted(str(r) for r in RequestLog.objects.values_list("request_id", flat=True)) == sorted(kept)
    assert sum(UsageHour.objects.values_list("calls", flat=True)) == 3


def test_days_overrides_the_setting(workspace: Workspace) -> None:
    log(workspace, 1, start=NOW - timedelta(days=10))
    call_command("purge_request_log", "--days", "5", stdout=StringIO())
    assert not RequestLog.objects.exists() and not UsageHour.objects.exists()


def test_the_beat_task_purges_too(workspace: Workspace, settings: Any) -> None:
    settings.PAM_REQUEST_LOG_RETENTION_DAYS = 1
    log(workspace, 2, start=NOW - timedelta(days=3))
    assert purge_request_log_task() == 2


def test_the_beat_schedule_runs_it(settings: Any) -> None:
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "developer_api.tasks.purge_request_log_task" in tasks
