"""Usage analytics of `GET /v1/dev/mcp-usage-stats` (SPEC §3): the hourly roll-up and its read.

Every request-log row adds itself to its `UsageHour` row (UTC hour × outcome × triage × full
retrieval) in the same commit (`usage_add`), so the stats of any range are two grouped queries
over at most `days × 24 × kinds` rows, never a scan of the log. `usage_rebuild` recomputes the
roll-up from the log (after a bulk load, or to check it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone as dt_timezone
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Max, Sum
from django.db.models.functions import ExtractHour, ExtractWeekDay, TruncDate, TruncHour
from django.utils import timezone

from developer_api.models import RequestLog, UsageHour
from memory.models import Workspace

UTC = dt_timezone.utc
MAX_DAYS = 90
DEFAULT_DAYS = 30
OUTCOMES = [choice.value for choice in RequestLog.Outcome]
# Django's ExtractWeekDay counts 1 = Sunday … 7 = Saturday; SPEC §3's heatmap 0 = Sunday.
WEEKDAY_OFFSET = 1

_TABLE = "developer_api_usagehour"
_ADD_SQL = f"""
INSERT INTO {_TABLE} (workspace_id, hour, outcome, triage_only, retrieval_ran, calls, estimated_tokens,
                      duration_ms, llm_calls, item_count, last_called_at)
VALUES (%s, %s, %s, %s, %s, 1, %s, %s, %s, %s, %s)
ON CONFLICT (workspace_id, hour, outcome, triage_only, retrieval_ran) DO UPDATE SET
  calls = {_TABLE}.calls + 1,
  estimated_tokens = {_TABLE}.estimated_tokens + excluded.estimated_tokens,
  duration_ms = {_TABLE}.duration_ms + excluded.duration_ms,
  llm_calls = {_TABLE}.llm_calls + excluded.llm_calls,
  item_count = {_TABLE}.item_count + excluded.item_count,
  last_called_at = CASE WHEN excluded.last_called_at > {_TABLE}.last_called_at
                        THEN excluded.last_called_at ELSE {_TABLE}.last_called_at END
"""


def usage_add(*, row: RequestLog) -> None:
    """Count one request-log row in its hour (call inside the row's transaction)."""
    hour = row.created_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            _ADD_SQL,
            [
                row.workspace_id, adapt(hour), row.outcome, row.triage_only, row.retrieval_ran,
                row.estimated_tokens, row.duration_ms, row.llm_calls, row.item_count, adapt(row.created_at),
            ],
        )


def usage_rebuild(*, workspace_ids: list[int] | None = None) -> int:
    """Recompute the roll-up from the request log; the number of roll-up rows written."""
    logs = RequestLog.objects.all()
    hours = UsageHour.objects.all()
    if workspace_ids is not None:
        logs, hours = logs.filter(workspace_id__in=workspace_ids), hours.filter(workspace_id__in=workspace_ids)
    grouped = (
        logs.annotate(hour=TruncHour("created_at", tzinfo=UTC))
        .values("workspace_id", "hour", "outcome", "triage_only", "retrieval_ran")
        .annotate(
            n=Count("id"),
            tokens=Sum("estimated_tokens"),
            duration=Sum("duration_ms"),
            llm=Sum("llm_calls"),
            items=Sum("item_count"),
            last=Max("created_at"),
        )
        .order_by()
    )
    rows = [
        UsageHour(
            workspace_id=g["workspace_id"], hour=g["hour"], outcome=g["outcome"], triage_only=g["triage_only"],
            retrieval_ran=g["retrieval_ran"], calls=g["n"], estimated_tokens=g["tokens"] or 0,
            duration_ms=g["duration"] or 0, llm_calls=g["llm"] or 0, item_count=g["items"] or 0, last_called_at=g["last"],
        )
        for g in grouped.iterator()
    ]
    with transaction.atomic():
        hours.delete()
        UsageHour.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def usage_calls(*, workspace: Workspace) -> int:
    """Every request-log row of the workspace, counted from the roll-up."""
    return int(UsageHour.objects.filter(workspace=workspace).aggregate(n=Sum("calls"))["n"] or 0)


# --- The read -------------------------------------------------------------------------------


@dataclass
class _Tally:
    total: int = 0
    success: int = 0
    tokens: int = 0
    duration: int = 0
    llm: int = 0
    items: int = 0
    triage_only: int = 0
    full_retrieval: int = 0

    def add(self, row: dict[str, Any]) -> None:
        self.total += row["n"]
        if row["outcome"] == RequestLog.Outcome.SUCCESS:
            self.success += row["n"]
        self.tokens += row["tokens"]
        self.duration += row["duration"]
        self.llm += row["llm"]
        self.items += row["items"]
        if row["triage_only"]:
            self.triage_only += row["n"]
        if row["retrieval_ran"]:
            self.full_retrieval += row["n"]

    @property
    def average_duration_ms(self) -> int:
        return round(self.duration / self.total) if self.total else 0


def _percent(part: int, whole: int) -> int:
    return round(part * 100 / whole) if whole else 0


def usage_stats(*, workspace: Workspace, days: int = DEFAULT_DAYS, today: date | None = None) -> dict[str, Any]:
    """SPEC §3 usage stats over `days` calendar days ending today (UTC), both inclusive."""
    end = today or timezone.now().astimezone(UTC).date()
    start = end - timedelta(days=days - 1)
    hours = UsageHour.objects.filter(
        workspace=workspace,
        hour__gte=datetime.combine(start, time.min, tzinfo=UTC),
        hour__lt=datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC),
    )
    grouped = list(
        hours.annotate(day=TruncDate("hour", tzinfo=UTC))
        .values("day", "outcome", "triage_only", "retrieval_ran")
        .annotate(
            n=Sum("calls"), tokens=Sum("estimated_tokens"), duration=Sum("duration_ms"),
            llm=Sum("llm_calls"), items=Sum("item_count"), last=Max("last_called_at"),
        )
        .order_by()
    )
    heat = (
        hours.annotate(weekday=ExtractWeekDay("hour", tzinfo=UTC), h=ExtractHour("hour", tzinfo=UTC))
        .values("weekday", "h")
        .annotate(n=Sum("calls"))
        .order_by("weekday", "h")
    )

    summary, by_day = _Tally(), {start + timedelta(days=i): _Tally() for i in range(days)}
    by_outcome = {outcome: {"n": 0} for outcome in OUTCOMES}
    outcome_by_day: dict[date, dict[str, int]] = {day: dict.fromkeys(OUTCOMES, 0) for day in by_day}
    last_called_at: datetime | None = None
    for row in grouped:
        summary.add(row)
        by_day[row["day"]].add(row)
        by_outcome[row["outcome"]]["n"] += row["n"]
        outcome_by_day[row["day"]][row["outcome"]] += row["n"]
        last_called_at = max(filter(None, (last_called_at, row["last"])), default=None)

    return {
        "range": {"days": days, "start_date": start.isoformat(), "end_date": end.isoformat()},
        "summary": {
            "total_calls": summary.total,
            "successful_calls": summary.success,
            "error_calls": summary.total - summary.success,
            "success_rate": _percent(summary.success, summary.total),
            "average_duration_ms": summary.average_duration_ms,
            "estimated_tokens": summary.tokens,
            "gemini_calls_estimate": summary.llm,
            "retrieved_items_count": summary.items,
            "triage_only_calls": summary.triage_only,
            "full_retrieval_calls": summary.full_retrieval,
            "last_called_at": last_called_at.astimezone(UTC).isoformat() if last_called_at else None,
        },
        "daily": [
            {
                "date": day.isoformat(),
                "total_calls": tally.total,
                "successful_calls": tally.success,
                "tool_error_calls": outcome_by_day[day][RequestLog.Outcome.TOOL_ERROR],
                "quota_exceeded_calls": outcome_by_day[day][RequestLog.Outcome.QUOTA_EXCEEDED],
                "entitlement_blocked_calls": outcome_by_day[day][RequestLog.Outcome.ENTITLEMENT_BLOCKED],
                "triage_only_calls": tally.triage_only,
                "full_retrieval_calls": tally.full_retrieval,
                "estimated_tokens": tally.tokens,
                "average_duration_ms": tally.average_duration_ms,
            }
            for day, tally in by_day.items()
        ],
        "hourly_heatmap": [
            {"weekday": cell["weekday"] - WEEKDAY_OFFSET, "hour": cell["h"], "total_calls": cell["n"]}
            for cell in heat
            if cell["n"]
        ],
        "status_breakdown": [
            {"status": outcome, "count": tally["n"]}
            for outcome, tally in sorted(by_outcome.items(), key=lambda item: (-item[1]["n"], item[0]))
            if tally["n"]
        ],
    }
