"""Plans and quotas (SPEC §3.2): the windows, the counters, reserve and release, the quota object.

Only `tools/call` of `retrieve_memory` is counted (SPEC §2.2), in two steps of the one tool-call
path (`memory.mcp.calls`):

- `quota_attempt`: every authenticated attempt increments the hour's counter, blocked ones
  included, and is refused once the count passes `hourly_limit`. Never released.
- `quota_reserve`: before retrieval, one unit of the week's and of the month's allowance is
  taken atomically, or neither is (the call is refused naming the window that is used up);
  `quota_release` gives both back when the call does not succeed. So N parallel callers with k
  calls left get exactly k successes: a check-then-consume pair could let all N pass.

The counters live in Redis when `REDIS_URL` is set (a Lua script makes check-and-increment
atomic) and otherwise in the `QuotaCounter` table, each change one SQL statement (an upsert
with a guard), whose row lock (PostgreSQL) or write lock (SQLite) serialises callers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone as dt_timezone
from typing import Any, Protocol

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from developer_api.models import UNLIMITED, QuotaCounter
from memory.models import Workspace
from pam.errors import QuotaExceeded

NEAR_LIMIT_PERCENT = 80  # SPEC §3.2: `near_limit` once any allowance is over 80 % used
COUNTER_KEEP = timedelta(days=40)  # a counter outlives its window by less than a month

HOUR, WEEK, MONTH = "hour", "week", "month"
WINDOW_NAMES = {HOUR: "Hourly", WEEK: "Weekly", MONTH: "Monthly"}


@dataclass(frozen=True)
class Window:
    """One UTC window (SPEC §3.2): the clock hour, the week from Monday 00:00, the month."""

    kind: str
    start: datetime
    reset_at: datetime

    @property
    def period(self) -> str:
        """The counter's name: the window's kind and start."""
        return f"{self.kind}:{self.start.strftime('%Y-%m-%dT%H')}"


def windows_at(now: datetime) -> dict[str, Window]:
    now = now.astimezone(dt_timezone.utc)
    hour = now.replace(minute=0, second=0, microsecond=0)
    day = hour.replace(hour=0)
    week = day - timedelta(days=day.weekday())
    month = day.replace(day=1)
    next_month = (month + timedelta(days=32)).replace(day=1)
    return {
        HOUR: Window(HOUR, hour, hour + timedelta(hours=1)),
        WEEK: Window(WEEK, week, week + timedelta(days=7)),
        MONTH: Window(MONTH, month, next_month),
    }


def _limits(workspace: Workspace) -> dict[str, int]:
    plan = workspace.plan
    return {HOUR: plan.hourly_limit, WEEK: plan.weekly_limit, MONTH: plan.monthly_limit}


def exceeded_message(window: Window) -> str:
    noun = "limit" if window.kind == HOUR else "quota"
    return f"{WINDOW_NAMES[window.kind]} retrieve_memory {noun} exceeded. Retry after {window.reset_at.isoformat()}."


# --- Counters -----------------------------------------------------------------------------


class Counters(Protocol):
    def hit(self, workspace_id: int, window: Window) -> int:
        """Increment unconditionally; the new count."""

    def reserve(self, workspace_id: int, slots: list[tuple[Window, int]]) -> Window | None:
        """Increment every window whose limit allows it, or none: the first full window."""

    def release(self, workspace_id: int, windows: list[Window]) -> None:
        """Give one unit back to each window (never below zero)."""

    def read(self, workspace_id: int, windows: list[Window]) -> dict[str, int]:
        """The counts by window kind."""

    def purge(self, before: datetime) -> int:
        """Drop counters of windows that ended before `before`."""


class SqlCounters:
    """The embedded default: `developer_api_quotacounter`, one guarded upsert per change."""

    TABLE = "developer_api_quotacounter"

    def _upsert(self, workspace_id: int, window: Window, limit: int) -> int | None:
        """+1 unless the count has reached `limit`: the new count, or None when full."""
        guard = "" if limit == UNLIMITED else f" WHERE {self.TABLE}.count < %s"
        params: list[Any] = [workspace_id, window.period, connection.ops.adapt_datetimefield_value(window.reset_at)]
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {self.TABLE} (workspace_id, period, expires_at, count) VALUES (%s, %s, %s, 1) "
                f"ON CONFLICT (workspace_id, period) DO UPDATE SET count = {self.TABLE}.count + 1{guard} "
                "RETURNING count",
                params if limit == UNLIMITED else [*params, limit],
            )
            row = cursor.fetchone()
        return None if row is None else int(row[0])

    def hit(self, workspace_id: int, window: Window) -> int:
        with transaction.atomic():
            count = self._upsert(workspace_id, window, UNLIMITED)
        assert count is not None
        return count

    def reserve(self, workspace_id: int, slots: list[tuple[Window, int]]) -> Window | None:
        full: list[Window] = []
        try:
            with transaction.atomic():
                for window, limit in slots:
                    if limit == 0 or self._upsert(workspace_id, window, limit) is None:
                        full.append(window)
                        raise _Rollback()
        except _Rollback:
            return full[0]
        return None

    def release(self, workspace_id: int, windows: list[Window]) -> None:
        QuotaCounter.objects.filter(
            workspace_id=workspace_id, period__in=[w.period for w in windows], count__gt=0
        ).update(count=F("count") - 1)

    def read(self, workspace_id: int, windows: list[Window]) -> dict[str, int]:
        counts = dict(
            QuotaCounter.objects.filter(workspace_id=workspace_id, period__in=[w.period for w in windows]).values_list(
                "period", "count"
            )
        )
        return {w.kind: int(counts.get(w.period, 0)) for w in windows}

    def purge(self, before: datetime) -> int:
        deleted, _ = QuotaCounter.objects.filter(expires_at__lt=before).delete()
        return deleted


class _Rollback(Exception):
    """Leaves the reservation's transaction so that neither window keeps its unit."""


# KEYS: the counters; ARGV: their limits, then their expiry times (Unix seconds).
RESERVE_LUA = """
local n = #KEYS
for i = 1, n do
  local limit = tonumber(ARGV[i])
  if limit >= 0 and tonumber(redis.call('GET', KEYS[i]) or '0') >= limit then return i end
end
for i = 1, n do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIREAT', KEYS[i], ARGV[n + i])
end
return 0
"""
RELEASE_LUA = """
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
"""


class RedisCounters:
    """With REDIS_URL: `pam:quota:<workspace>:<period>` keys that expire after their window."""

    def __init__(self) -> None:
        from django_redis import get_redis_connection

        self.redis = get_redis_connection("default")
        self._reserve = self.redis.register_script(RESERVE_LUA)
        self._release = self.redis.register_script(RELEASE_LUA)

    @staticmethod
    def key(workspace_id: int, window: Window) -> str:
        return f"pam:quota:{workspace_id}:{window.period}"

    @staticmethod
    def _expiry(window: Window) -> int:
        return int((window.reset_at + timedelta(hours=1)).timestamp())

    def hit(self, workspace_id: int, window: Window) -> int:
        key = self.key(workspace_id, window)
        pipe = self.redis.pipeline()
        pipe.incr(key)
        pipe.expireat(key, self._expiry(window))
        count, _ = pipe.execute()
        return int(count)

    def reserve(self, workspace_id: int, slots: list[tuple[Window, int]]) -> Window | None:
        keys = [self.key(workspace_id, w) for w, _ in slots]
        args = [limit for _, limit in slots] + [self._expiry(w) for w, _ in slots]
        full = int(self._reserve(keys=keys, args=args))
        return slots[full - 1][0] if full else None

    def release(self, workspace_id: int, windows: list[Window]) -> None:
        self._release(keys=[self.key(workspace_id, w) for w in windows])

    def read(self, workspace_id: int, windows: list[Window]) -> dict[str, int]:
        values = self.redis.mget([self.key(workspace_id, w) for w in windows])
        return {w.kind: int(v or 0) for w, v in zip(windows, values)}

    def purge(self, before: datetime) -> int:
        return 0  # keys expire on their own


def counters() -> Counters:
    return RedisCounters() if settings.REDIS_URL else SqlCounters()


# --- The steps of the tool-call path --------------------------------------------------------


@dataclass(frozen=True)
class Reservation:
    workspace_id: int
    windows: list[Window]


def quota_attempt(*, workspace: Workspace, now: datetime | None = None) -> None:
    """Count this attempt in its hour; QuotaExceeded past `hourly_limit`."""
    window = windows_at(now or timezone.now())[HOUR]
    count = counters().hit(workspace.pk, window)
    limit = workspace.plan.hourly_limit
    if limit != UNLIMITED and count > limit:
        raise QuotaExceeded(exceeded_message(window))


def quota_reserve(*, workspace: Workspace, now: datetime | None = None) -> Reservation:
    """Take one unit of the weekly and the monthly allowance, or QuotaExceeded naming the
    window that is used up (the monthly one first: it resets last)."""
    windows = windows_at(now or timezone.now())
    limits = _limits(workspace)
    slots = [(windows[MONTH], limits[MONTH]), (windows[WEEK], limits[WEEK])]
    full = counters().reserve(workspace.pk, slots)
    if full is not None:
        raise QuotaExceeded(exceeded_message(full))
    return Reservation(workspace.pk, [w for w, _ in slots])


def quota_release(*, reservation: Reservation) -> None:
    """The call did not succeed: its allowance units go back."""
    counters().release(reservation.workspace_id, reservation.windows)


def quota_counters_purge(*, now: datetime | None = None) -> int:
    return counters().purge((now or timezone.now()) - COUNTER_KEEP)


# --- The quota object (SPEC §3.2) -------------------------------------------------------------


def _remaining(limit: int, used: int) -> int:
    return UNLIMITED if limit == UNLIMITED else max(limit - used, 0)


def _percent(used: int, limit: int) -> int:
    if limit == UNLIMITED:
        return 0
    if limit == 0:
        return 100
    return min(100, math.floor(used * 100 / limit + 0.5))


def quota_get(*, workspace: Workspace, now: datetime | None = None) -> dict[str, Any]:
    """Both shapes clients use (the seed's and the product API's) and the hourly meter."""
    windows = windows_at(now or timezone.now())
    limits = _limits(workspace)
    used = counters().read(workspace.pk, list(windows.values()))
    allowances = (WEEK, MONTH)
    usage_percent = max(_percent(used[k], limits[k]) for k in allowances)
    if not workspace.entitled:
        status = "entitlement_required"
    elif all(limits[k] == UNLIMITED for k in (HOUR, WEEK, MONTH)):
        status = "unlimited"
    elif any(_remaining(limits[k], used[k]) == 0 for k in allowances):
        status = "limited"
    elif any(_percent(used[k], limits[k]) > NEAR_LIMIT_PERCENT for k in allowances):
        status = "near_limit"
    else:
        status = "ok"
    return {
        "plan": workspace.plan.name,
        "status": status,
        "requests_this_week": used[WEEK],
        "weekly_limit": limits[WEEK],
        "remaining_this_week": _remaining(limits[WEEK], used[WEEK]),
        "requests_this_month": used[MONTH],
        "monthly_limit": limits[MONTH],
        "remaining_this_month": _remaining(limits[MONTH], used[MONTH]),
        "usage_percent": usage_percent,
        "week_reset_at": windows[WEEK].reset_at.isoformat(),
        "month_reset_at": windows[MONTH].reset_at.isoformat(),
        "retrieve_requests_used": used[MONTH],
        "max_retrieve_requests": limits[MONTH],
        "retrieve_requests_left": _remaining(limits[MONTH], used[MONTH]),
        "reset_at": windows[MONTH].reset_at.isoformat(),
        "requests_this_hour": used[HOUR],
        "hourly_limit": limits[HOUR],
        "remaining_this_hour": _remaining(limits[HOUR], used[HOUR]),
        "hour_reset_at": windows[HOUR].reset_at.isoformat(),
    }
