"""python manage.py purge_request_log [--days N]: delete request-log rows past the retention
(`PAM_REQUEST_LOG_RETENTION_DAYS`, SPEC §3) and expired quota counters. Celery beat runs the
same purge hourly (`developer_api.tasks`); the embedded default, which has no beat, runs this
from cron."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from developer_api.quotas import quota_counters_purge
from developer_api.services import request_log_purge


class Command(BaseCommand):
    help = "Delete request-log rows older than the retention period."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=None, help="override PAM_REQUEST_LOG_RETENTION_DAYS")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days is not None and days < 1:
            raise CommandError("--days must be 1 or more.")
        deleted = request_log_purge(retention_days=days)
        quota_counters_purge()
        self.stdout.write(f"Deleted {deleted} request-log rows.")
