"""The one path of every `tools/call` (SPEC §2.2, §2.3, §3.2, §4).

    scope → entitlement → quota: attempt → arguments → quota: reserve → handler (one service,
    shaped) → deadline; a call that does not succeed releases its reservation

A `PamError` raised anywhere becomes a tool result with `isError: true` and its code; an
unexpected failure becomes `memory_unavailable` (never a 500). Every call, a refused one
included, is written to the request log once, with the key's `last_used_at` in the same
commit. A tool without the scope (or an unknown one) answers JSON-RPC -32602, logged too.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from pydantic import BaseModel, ValidationError

from developer_api import services as api_services
from developer_api.quotas import Reservation, quota_attempt, quota_release, quota_reserve
from developer_api.keys import api_key_touch
from developer_api.models import AgentKey, RequestLog
from memory.agent_memory.capture import CAPTURE_REFUSED
from memory.mcp.errors import INVALID_PARAMS, JsonRpcError
from memory.mcp.tools import CallContext, Tool, ToolCall, ToolOutput, prompt_argument, tool_get
from memory.models import Workspace
from pam.errors import DeadlineExceeded, EntitlementRequired, PamError, QuotaExceeded

logger = logging.getLogger(__name__)

UNAVAILABLE = "Company memory is temporarily unavailable. Retry later."
REDACTED = "[withheld: refused by the capture policy]"
OUTCOMES: dict[type[PamError], str] = {
    EntitlementRequired: RequestLog.Outcome.ENTITLEMENT_BLOCKED,
    QuotaExceeded: RequestLog.Outcome.QUOTA_EXCEEDED,
}

# `last_used_at` is written at most once a second per key: every call of a busy agent would
# otherwise update the same row, and each update holds that row's lock through a commit.
TOUCH_EVERY = timedelta(seconds=1)


def tool_call(context: CallContext, name: str, raw_arguments: Any) -> dict[str, Any]:
    """The `result` of a `tools/call`; JsonRpcError -32602 for a tool the caller cannot call."""
    started = time.monotonic()
    credential = context.credential
    arguments = {} if raw_arguments is None else raw_arguments  # SPEC §2.3: missing = {}
    call = ToolCall(
        credential=credential,
        request_id=str(uuid.uuid4()),
        started=started,
        deadline=started + settings.PAM_RETRIEVAL_TIMEOUT_S,
        session_id=context.handshake_session_id or "",
    )
    entry = api_services.LogEntry(
        request_id=call.request_id,
        workspace=credential.workspace,
        credential=credential.label,
        agent_key=credential.agent_key,
        tool_name=name,
        arguments=arguments,
        prompt=prompt if isinstance(arguments, dict) and isinstance(prompt := arguments.get(prompt_argument(name)), str) else "",
    )
    tool = tool_get(name)
    if tool is None or tool.scope not in credential.scopes:
        error = JsonRpcError(
            INVALID_PARAMS,
            f"Unknown tool: {name[:100]}" if tool is None else f"Tool {name} needs the scope {tool.scope}",
        )
        entry.result = {"error": {"code": error.code, "message": error.message}, "isError": True}
        entry.outcome, entry.error_code = RequestLog.Outcome.TOOL_ERROR, "unknown_tool"
        _record(entry, call, verified=False)
        raise error

    try:
        output = _run(tool, call, arguments)
    except PamError as exc:
        entry.outcome = OUTCOMES.get(type(exc), RequestLog.Outcome.TOOL_ERROR)
        entry.error_code = exc.code
        entry.result = _error_result(exc.code, exc.message)
        if exc.code == CAPTURE_REFUSED:  # SPEC §2.4: a refused secret is not kept in the log either
            entry.arguments = {key: REDACTED for key in arguments} if isinstance(arguments, dict) else REDACTED
            entry.prompt = REDACTED
    else:
        entry.retrieval_ran, entry.triage_only = output.retrieval_ran, output.triage_only
        entry.item_count, entry.llm_calls = output.item_count, output.llm_calls
        entry.estimated_tokens = output.estimated_tokens
        entry.result = {
            "content": [{"type": "text", "text": output.text}],
            "structuredContent": output.structured,
            "isError": False,
        }
    _record(entry, call, verified=tool.verifies_key and entry.outcome == RequestLog.Outcome.SUCCESS)
    return entry.result


def _run(tool: Tool, call: ToolCall, arguments: Any) -> ToolOutput:
    """The tool's answer, or the PamError that refuses it (SPEC §2.3's order of checks)."""
    workspace = call.workspace
    reservation: Reservation | None = None
    counted = tool.counts_against_quota and call.credential.counts_quota
    try:
        if not workspace.entitled:
            raise EntitlementRequired()
        if counted:
            quota_attempt(workspace=workspace)  # every authenticated attempt: never released
        args = arguments_parse(tool, arguments)
        if counted:
            reservation = quota_reserve(workspace=workspace)  # atomic: k left → k pass
        output = tool.handler(call, args)
        if time.monotonic() > call.deadline:
            raise DeadlineExceeded()
        reservation = None  # a success keeps its units
        return output
    except PamError:
        raise
    except (DatabaseError, OSError, ValueError) as exc:
        logger.warning("%s unavailable for workspace %s: %s", tool.name, workspace.pk, type(exc).__name__)
        raise PamError("memory_unavailable", UNAVAILABLE) from exc
    except Exception as exc:  # a backing service (Redis) failed: never a 500
        logger.exception("%s failed for workspace %s: %s", tool.name, workspace.pk, type(exc).__name__)
        raise PamError("memory_unavailable", UNAVAILABLE) from exc
    finally:
        if reservation is not None:
            _release(reservation)


def _release(reservation: Reservation) -> None:
    """SPEC §3.2: a call that did not succeed uses no allowance. A failed release (the counter
    store is down) is logged: the call's own answer matters more than one unit of quota."""
    try:
        quota_release(reservation=reservation)
    except Exception:
        logger.exception("could not release a quota reservation of workspace %s", reservation.workspace_id)


# --- Arguments --------------------------------------------------------------------------------


def arguments_parse(tool: Tool, arguments: Any) -> BaseModel:
    """The tool's argument model, or `invalid_arguments` naming every problem."""
    if not isinstance(arguments, dict):
        raise PamError("invalid_arguments", "Invalid arguments: arguments must be an object.")
    try:
        return tool.arguments.model_validate(arguments)
    except ValidationError as exc:
        raise PamError("invalid_arguments", _describe(tool, exc)) from exc


def _describe(tool: Tool, error: ValidationError) -> str:
    names = [f"'{name}'" for name in tool.arguments.model_fields]
    accepted = (
        "no argument is accepted"
        if not names
        else f"only {names[0]} is accepted"
        if len(names) == 1
        else f"only {', '.join(names[:-1])} and {names[-1]} are accepted"
    )
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        if item["type"] == "extra_forbidden":
            parts.append(f"unknown argument '{where}': {accepted}")
        elif item["type"] == "missing":
            parts.append(f"'{where}' is required")
        elif item["type"] in ("string_type", "model_type"):
            parts.append(f"'{where}' must be a string" if where != "arguments" else "arguments must be an object")
        else:
            parts.append(f"'{where}' {item['msg'].removeprefix('Value error, ')}")
    return "Invalid arguments: " + "; ".join(parts) + "."


# --- Results and the request log -------------------------------------------------------------


def _error_result(code: str, message: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": message}],
        "structuredContent": {"status": "error", "error_code": code, "error_message": message},
        "isError": True,
    }


def _touch_due(key: AgentKey, *, verified: bool) -> bool:
    """Whether this call must write the key: its first verification, or `last_used_at` (as
    read when the key was authenticated, at the start of this request) is a second old."""
    if verified and not key.mcp_verified:
        return True
    return key.last_used_at is None or timezone.now() - key.last_used_at >= TOUCH_EVERY


def _record(entry: api_services.LogEntry, call: ToolCall, *, verified: bool) -> None:
    """SPEC §2.2: one request-log row per call, and the key's use, in one commit. A failed
    write is logged, never the caller's problem."""
    entry.session_id = call.session_id
    entry.duration_ms = int((time.monotonic() - call.started) * 1000)
    key = entry.agent_key
    try:
        if key is not None and _touch_due(key, verified=verified):
            with transaction.atomic():
                api_services.request_log_create(entry=entry)
                api_key_touch(key=key, verified=verified)
        else:
            api_services.request_log_create(entry=entry)
    except DatabaseError:
        logger.exception("could not write the request log for %s", entry.request_id)
