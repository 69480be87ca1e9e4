"""The Usage page of the dashboard (SPEC §6, §3.2; issue 15): the quota meters, daily calls by
outcome, the weekday × hour heatmap, the status breakdown, average duration and tokens.

It reads the same selectors as `GET /v1/dev/mcp-usage-stats` (`developer_api.usage.usage_stats`,
the hourly roll-up: never a scan of the log) and the quota object (`quota_get`), for a range
of 7, 30 or 90 days (`?days=`; anything else shows the default with a message).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import path

from developer_api.models import UNLIMITED
from developer_api.quotas import quota_get
from developer_api.usage import DEFAULT_DAYS, usage_stats
from pam.dashboard.charts import OUTCOME_FIELDS, OUTCOME_LABELS, daily_calls_svg, heatmap_svg
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace

DAY_CHOICES = (7, 30, 90)
# The quota object's status (SPEC §3.2): its badge and its words.
QUOTA_STATUS = {
    "ok": ("ok", "Within quota"),
    "unlimited": ("ok", "Unlimited"),
    "near_limit": ("warn", "Near the limit"),
    "limited": ("bad", "Limit reached"),
    "entitlement_required": ("bad", "No access: the plan or workspace is disabled"),
}


@dataclass(frozen=True)
class Meter:
    """One quota window as the page shows it; `limit` None = unlimited."""

    label: str
    used: int
    limit: int | None
    remaining: int | None
    reset_at: datetime

    @property
    def high(self) -> int | None:
        """Where the meter turns amber (SPEC §3.2: over 80 % is near the limit)."""
        return None if self.limit is None else self.limit * 8 // 10


def _meter(label: str, used: int, limit: int, remaining: int, reset_at: str) -> Meter:
    unlimited = limit == UNLIMITED
    return Meter(label, used, None if unlimited else limit, None if unlimited else remaining, datetime.fromisoformat(reset_at))


def quota_meters(quota: dict[str, Any]) -> list[Meter]:
    return [
        _meter("This week", quota["requests_this_week"], quota["weekly_limit"], quota["remaining_this_week"], quota["week_reset_at"]),
        _meter("This month", quota["requests_this_month"], quota["monthly_limit"], quota["remaining_this_month"], quota["month_reset_at"]),
        _meter("This hour (burst)", quota["requests_this_hour"], quota["hourly_limit"], quota["remaining_this_hour"], quota["hour_reset_at"]),
    ]


def _days(request: HttpRequest) -> int:
    raw = request.GET.get("days")
    if raw is None:
        return DEFAULT_DAYS
    if raw.isdigit() and int(raw) in DAY_CHOICES:
        return int(raw)
    messages.warning(request, f"The range must be 7, 30 or 90 days; showing the last {DEFAULT_DAYS} days.")
    return DEFAULT_DAYS


def usage_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    days = _days(request)
    stats = usage_stats(workspace=workspace, days=days)
    quota = quota_get(workspace=workspace)
    total = stats["summary"]["total_calls"]
    breakdown = [
        {**row, "label": OUTCOME_LABELS.get(row["status"], row["status"]), "percent": round(row["count"] * 100 / total)}
        for row in stats["status_breakdown"]
    ]
    return render_page(
        request,
        "pam/dashboard/usage.html",
        title="Usage",
        nav="admin:pam-usage",
        workspace=workspace,
        days=days,
        day_choices=DAY_CHOICES,
        stats=stats,
        summary=stats["summary"],
        last_called_at=datetime.fromisoformat(last) if (last := stats["summary"]["last_called_at"]) else None,
        average_tokens=round(stats["summary"]["estimated_tokens"] / total) if total else 0,
        breakdown=breakdown,
        quota=quota,
        quota_badge=QUOTA_STATUS[quota["status"]],
        meters=quota_meters(quota),
        daily_chart=daily_calls_svg(stats["daily"]),
        heatmap=heatmap_svg(stats["hourly_heatmap"]),
        legend=[(outcome, OUTCOME_LABELS[outcome]) for outcome, _ in OUTCOME_FIELDS],
    )


urlpatterns = [path("usage/", usage_page, name="pam-usage")]
