"""Reads of the request log for `GET /v1/dev/mcp-requests` and its detail (SPEC §3).

Newest first by (`created_at`, `id`) on the index `requestlog_ws_time`. A cursor
`"<created_at ISO>|<id>"` continues after that row by keyset (never OFFSET), so rows that
arrive meanwhile neither shift nor repeat a page; `page` (without a cursor) is an offset for
scripts that jump. `q` matches every word of the query in the tool name, prompt or response
text: PostgreSQL uses the stored tsvector `search_document` and its GIN index (whole words); SQLite a
case-insensitive substring match per word. Without `q`, `total_count` is the sum of the usage
roll-up, which every log row joins in its own commit (and the purge trims with it): exact,
without counting a million rows; with `q`, it is `search_counts.search_count`: exact, counting
only the rows written since the last search for the same words.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import DateTimeField, ExpressionWrapper, F, Q, QuerySet, Value

from developer_api.ids import row_id
from developer_api.models import RequestLog
from developer_api.search_counts import search_count
from developer_api.usage import usage_calls
from memory.models import Workspace
from pam.errors import PamError

# The stored, GIN-indexed tsvector of tool name, prompt and response (migration 0005,
# PostgreSQL only; not a model field).
SEARCH_DOCUMENT = "search_document"
# At most this many matches of `q` are sorted after the GIN lookup; more are found by walking
# the time index newest first (cheap when most rows match).
FEW_MATCHES = 10_000


@dataclass(frozen=True)
class Cursor:
    created_at: datetime
    id: int

    def __str__(self) -> str:
        return f"{self.created_at.isoformat()}|{self.id}"

    @classmethod
    def parse(cls, raw: str) -> Cursor:
        stamp, _, row = raw.rpartition("|")
        # An unencoded "+00:00" in a query string arrives as " 00:00"; isoformat() writes no spaces.
        stamp = stamp.replace(" ", "+")
        try:
            created_at: datetime | None = datetime.fromisoformat(stamp)
        except ValueError:
            created_at = None
        identifier = row_id(row)
        if created_at is None or created_at.tzinfo is None or identifier is None:
            raise PamError("invalid_request", "cursor: expected '<created_at ISO 8601 with offset>|<id>' from next_cursor.")
        return cls(created_at, identifier)


@dataclass
class Page:
    """The envelope of SPEC §3's request list, shared by every keyset-paged list."""

    items: list[Any]
    next_cursor: str | None
    page_size: int
    total_count: int
    current_page: int
    total_pages: int


def request_log_matching(rows: QuerySet[RequestLog], q: str) -> QuerySet[RequestLog]:
    """The rows matching every word of `q` (at least one)."""
    if connection.vendor == "postgresql":
        return rows.extra(where=[f"{SEARCH_DOCUMENT} @@ plainto_tsquery('simple'::regconfig, %s)"], params=[q])
    for word in q.split():
        rows = rows.filter(Q(tool_name__icontains=word) | Q(prompt__icontains=word) | Q(response_text__icontains=word))
    return rows


def cursor_after(cursor: Cursor) -> Q:
    return Q(created_at__lt=cursor.created_at) | Q(created_at=cursor.created_at, id__lt=cursor.id)


def request_page(
    *, workspace: Workspace, limit: int, page: int = 1, cursor: Cursor | None = None, q: str = ""
) -> Page:
    searching = bool(q.split())
    rows = RequestLog.objects.filter(workspace=workspace)
    if searching:
        rows = request_log_matching(rows, q)
    total = search_count(workspace=workspace, q=q, matching=rows) if searching else usage_calls(workspace=workspace)
    newest_first = rows.order_by("-created_at", "-id")
    if searching and connection.vendor == "postgresql" and total <= FEW_MATCHES:
        # PostgreSQL guesses that a rare word matches 0.5 % of rows and walks the time index,
        # testing every row (seconds at a million). The exact count says how few match: sort
        # those found by the GIN index instead (an expression the time index cannot serve).
        newest_first = rows.alias(sort_at=ExpressionWrapper(F("created_at") + Value(timedelta(0)), output_field=DateTimeField()))
        newest_first = newest_first.order_by(F("sort_at").desc(), "-id")
    return keyset_page(newest_first, total=total, limit=limit, page=page, cursor=cursor)


def keyset_page(
    newest_first: QuerySet[Any], *, total: int, limit: int, page: int = 1, cursor: Cursor | None = None
) -> Page:
    """One page of rows ordered newest first by (`created_at`, `id`): after `cursor` by keyset
    when given (`page` ignored), else the `page`-th by offset; `total` counts every row."""
    if cursor is not None:
        before = newest_first.exclude(cursor_after(cursor)).count()
        current_page = before // limit + 1
        window = list(newest_first.filter(cursor_after(cursor))[: limit + 1])
    else:
        current_page = page
        start = (page - 1) * limit
        window = list(newest_first[start : start + limit + 1])
    items = window[:limit]
    next_cursor = str(Cursor(items[-1].created_at, items[-1].pk)) if len(window) > limit else None
    return Page(
        items=items,
        next_cursor=next_cursor,
        page_size=limit,
        total_count=total,
        current_page=current_page,
        total_pages=math.ceil(total / limit),
    )


def request_get(*, workspace: Workspace, request_id: str) -> RequestLog:
    """One request of the workspace, or not_found (also for another workspace's id)."""
    try:
        key = uuid.UUID(request_id)
    except ValueError:
        key = None
    row = RequestLog.objects.filter(workspace=workspace, request_id=key).first() if key else None
    if row is None:
        raise PamError("not_found", "No request with this request_id in this workspace.")
    return row
