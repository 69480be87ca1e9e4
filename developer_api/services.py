"""Workspace-level writes of the Developer API: the request log and its retention (SPEC §2.2, §3).

Quotas are `developer_api.quotas`; the usage roll-up each log row feeds is `developer_api.usage`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from developer_api.models import AgentKey, RequestLog, UsageHour
from developer_api.usage import usage_add
from memory.models import Workspace
from pam.events import group_push
from pam.jsonbody import UNSTORABLE


# JSON has no NaN or Infinity (Python's parser accepts them); stored as JavaScript spells them.
NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def storable(value: Any) -> Any:
    """A copy safe for every database: lone surrogates and NULs (which PostgreSQL refuses in
    text and jsonb) become U+FFFD and NaN/Infinity become strings, so logging odd input never
    fails the request."""
    if isinstance(value, float) and not math.isfinite(value):
        return NON_FINITE.get(value, "NaN")
    if isinstance(value, str):
        # One C-speed scan: a log entry holds the whole result (several kB of text).
        return UNSTORABLE.sub("\ufffd", value) if UNSTORABLE.search(value) else value
    if isinstance(value, dict):
        return {storable(str(k)): storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(v) for v in value]
    return value


@dataclass
class LogEntry:
    request_id: str
    workspace: Workspace
    credential: str
    agent_key: AgentKey | None
    tool_name: str
    arguments: Any
    prompt: str = ""
    session_id: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    outcome: str = RequestLog.Outcome.SUCCESS
    error_code: str = ""
    retrieval_ran: bool = False
    triage_only: bool = False
    item_count: int = 0
    estimated_tokens: int = 0
    llm_calls: int = 0
    duration_ms: int = 0
    created_at: datetime | None = None  # now, unless replaying a call (benches, tests)


def requests_group(workspace_id: int) -> str:
    return f"workspace_{workspace_id}_requests"


def request_logged_event(row: RequestLog) -> dict[str, Any]:
    return {
        "type": "request.logged",
        "request_id": str(row.request_id),
        "tool_name": row.tool_name,
        "outcome": row.outcome,
        "duration_ms": row.duration_ms,
        "created_at": row.created_at.isoformat(),
    }


def request_log_create(*, entry: LogEntry) -> RequestLog:
    """Write one request-log row (SPEC §2.2) and, once committed, push it to the dashboard
    (SPEC §6)."""
    content = entry.result.get("content") or [{}]
    with transaction.atomic():
        row = _request_log_insert(entry, content)
        usage_add(row=row)
    transaction.on_commit(lambda: group_push(requests_group(row.workspace_id), request_logged_event(row)))
    return row


def _request_log_insert(entry: LogEntry, content: list[dict[str, Any]]) -> RequestLog:
    return RequestLog.objects.create(
        request_id=entry.request_id,
        workspace=entry.workspace,
        credential=entry.credential,
        agent_key=entry.agent_key,
        tool_name=storable(entry.tool_name)[:100],
        arguments=storable(entry.arguments if isinstance(entry.arguments, dict) else {"_": entry.arguments}),
        prompt=storable(entry.prompt),
        session_id=storable(entry.session_id)[:200],
        result=storable(entry.result),
        response_text=storable(content[0].get("text", "")),
        is_error=bool(entry.result.get("isError")),
        outcome=entry.outcome,
        error_code=entry.error_code,
        retrieval_ran=entry.retrieval_ran,
        triage_only=entry.triage_only,
        item_count=entry.item_count,
        estimated_tokens=entry.estimated_tokens,
        llm_calls=entry.llm_calls,
        duration_ms=entry.duration_ms,
        created_at=entry.created_at or timezone.now(),
    )


# A purge deletes in batches: one DELETE of millions of rows would hold its locks for minutes.
PURGE_BATCH = 10_000


def request_log_purge(*, now: datetime | None = None, retention_days: int | None = None) -> int:
    """Delete request-log rows (and their usage roll-up) older than the retention
    (`PAM_REQUEST_LOG_RETENTION_DAYS`), cut at a whole UTC hour so both stay consistent; the
    number of log rows deleted."""
    days = settings.PAM_REQUEST_LOG_RETENTION_DAYS if retention_days is None else retention_days
    cutoff = ((now or timezone.now()) - timedelta(days=days)).replace(minute=0, second=0, microsecond=0)
    deleted = 0
    while True:
        ids = list(RequestLog.objects.filter(created_at__lt=cutoff).values_list("id", flat=True)[:PURGE_BATCH])
        if not ids:
            break
        deleted += RequestLog.objects.filter(id__in=ids).delete()[0]
    UsageHour.objects.filter(hour__lt=cutoff).delete()
    return deleted
