"""Workspace-level writes of the Developer API: request log and quota hooks (SPEC §2.2, §3.2)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from developer_api.models import AgentKey, RequestLog
from memory.models import Workspace
from pam.events import group_push


# Code points no database stores as text (PostgreSQL refuses NUL and lone surrogates).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


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
    row = RequestLog.objects.create(
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
    )
    transaction.on_commit(lambda: group_push(requests_group(row.workspace_id), request_logged_event(row)))
    return row


# Quota enforcement (SPEC §3.2) arrives with the Developer API issue. These are the points in
# the order of checks of SPEC §2.3 where it plugs in; until then they allow every call.
def quota_check_hourly(*, workspace: Workspace) -> str | None:
    """Count this attempt against the hourly limit; the error message when over it."""
    return None


def quota_check_allowances(*, workspace: Workspace) -> str | None:
    """The error message when the weekly or monthly allowance is used up."""
    return None


def quota_consume(*, workspace: Workspace) -> None:
    """Use one unit of the weekly and monthly allowances after a success."""
