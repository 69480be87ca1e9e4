"""Tool `retrieve_memory` (SPEC §2.3; seed pam-retrieve_memory.uk.md).

Order of checks: entitlement → hourly limit → arguments → weekly/monthly allowances →
readiness → triage → retrieval. Every call is written to the request log with its outcome.
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
from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError, field_validator

from developer_api import services as api_services
from developer_api.keys import api_key_touch
from developer_api.models import AgentKey, RequestLog
from memory.engine import IndexUnavailable, RetrievalTimeout, retrieve
from memory.engine.report import render_report
from memory.engine.tokens import estimate_tokens
from memory.engine.types import Retrieval
from memory.mcp import sessions
from memory.mcp.tools import CallContext, Tool, ToolResult, register
from memory.pipelines.readiness import readiness_and_version

logger = logging.getLogger(__name__)

MAX_PROMPT_CHARS = 8000
MAX_SESSION_ID_CHARS = 200

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"prompt": {"type": "string"}, "session_id": {"type": "string"}},
    "required": ["prompt"],
}

DESCRIPTION = (
    "Retrieve company memory: facts, entities, relationships and source excerpts from your "
    "organisation's documents, chats and mail. Call it whenever a task may depend on "
    "company-specific context: people, teams and owners, projects, decisions, processes, "
    "priorities, history, customers or internal terminology. Prefer retrieval over guessing. "
    "Pass a plain-language `prompt` (at most 8,000 characters); `session_id` is optional and "
    "lets follow-up prompts be understood in context. Read-only."
)


def _has_bad_code_points(value: str) -> bool:
    return api_services.UNSTORABLE.search(value) is not None


class RetrieveMemoryArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: StrictStr
    session_id: StrictStr = None  # type: ignore[assignment]  # absent is fine; null is not

    @field_validator("prompt")
    @classmethod
    def _prompt(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must be a non-empty string")
        if len(value) > MAX_PROMPT_CHARS:
            raise ValueError(f"must be at most {MAX_PROMPT_CHARS} characters (got {len(value)})")
        if _has_bad_code_points(value):
            raise ValueError("must be valid Unicode text without NUL or unpaired surrogates")
        return value

    @field_validator("session_id")
    @classmethod
    def _session_id(cls, value: str) -> str:
        if not 1 <= len(value) <= MAX_SESSION_ID_CHARS:
            raise ValueError(f"must be 1 to {MAX_SESSION_ID_CHARS} characters")
        if _has_bad_code_points(value):
            raise ValueError("must be valid Unicode text without NUL or unpaired surrogates")
        return value


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        if item["type"] == "extra_forbidden":
            parts.append(f"unknown argument '{where}': only 'prompt' and 'session_id' are accepted")
        elif item["type"] == "missing":
            parts.append(f"'{where}' is required")
        elif item["type"] in ("string_type", "model_type"):
            parts.append(f"'{where}' must be a string" if where != "arguments" else "arguments must be an object")
        else:
            parts.append(f"'{where}' {item['msg'].removeprefix('Value error, ')}")
    return "Invalid arguments: " + "; ".join(parts) + "."


ERROR_MESSAGES = {
    "entitlement_required": "This workspace has no active entitlement: its plan or the workspace is disabled. Renew the plan to use company memory.",
    "no_sources_connected": "No sources are connected to this workspace yet. Connect a source so PAM can build company memory.",
    "memory_not_ready": "Company memory is still being built. Retry when it is ready.",
    "memory_unavailable": "Company memory is temporarily unavailable. Retry later.",
    "retrieval_timeout": "Retrieval took longer than the configured limit. Narrow the prompt and retry.",
}


def _error(code: str, message: str | None = None) -> ToolResult:
    text = message or ERROR_MESSAGES[code]
    return ToolResult(
        content=[{"type": "text", "text": text}],
        structured={"status": "error", "error_code": code, "error_message": text},
        is_error=True,
    )


def _success(prompt: str, retrieval: Retrieval, readiness_state: str, request_id: str, started: float) -> ToolResult:
    report = render_report(prompt, retrieval)
    tokens = estimate_tokens(report)
    structured = {
        "status": "ok",
        "memory_ready": readiness_state in ("ready_minimal", "ready_rich"),
        "readiness_state": readiness_state,
        "content_text": report,
        "triage": {
            "decision": retrieval.triage.decision,
            "reasoning": retrieval.triage.reasoning,
            "rewritten_query": retrieval.triage.rewritten_query,
        },
        "phase1": {
            "search_strategy": retrieval.phase1.search_strategy,
            "estimated_tokens": retrieval.phase1.estimated_tokens,
            "targeted_sections": [
                {"tree_path": t.tree_path, "relevance_reason": t.relevance_reason}
                for t in retrieval.phase1.targeted_sections
            ],
        },
        "retrieval": {
            "context_summary": retrieval.context_summary,
            "facts": [f.as_dict() for f in retrieval.facts],
            "entities": [
                {"label": e.label, "type": e.type, "properties": e.properties} for e in retrieval.entities
            ],
            "relationships": [
                {"source": r.source, "type": r.type, "target": r.target, "properties": r.properties}
                for r in retrieval.relationships
            ],
            "documents": [
                {
                    "title": d.title,
                    "source_path": d.source_path,
                    "excerpt": d.excerpt,
                    "relevance_score": d.relevance_score,
                }
                for d in retrieval.documents
            ],
            "total_items": retrieval.total_items,
            "avg_relevance_score": retrieval.avg_relevance_score,
            "coverage_assessment": retrieval.coverage_assessment,
        },
        "diagnostics": {
            "request_id": request_id,
            "duration_ms": int((time.monotonic() - started) * 1000),
            "estimated_tokens": tokens,
            "sections_searched": [t.tree_path for t in retrieval.phase1.targeted_sections],
            "avg_relevance_score": retrieval.avg_relevance_score,
            "gemini_calls_estimate": retrieval.llm_calls,
        },
    }
    return ToolResult(content=[{"type": "text", "text": report}], structured=structured, is_error=False)


# `last_used_at` is written at most once a second per key: every call of a busy agent would
# otherwise update the same row, and each update holds that row's lock through a commit.
TOUCH_EVERY = timedelta(seconds=1)


def _touch_due(key: AgentKey, *, verified: bool) -> bool:
    """Whether this call must write the key: its first verification, or `last_used_at` (as
    read when the key was authenticated, at the start of this request) is a second old."""
    if verified and not key.mcp_verified:
        return True
    return key.last_used_at is None or timezone.now() - key.last_used_at >= TOUCH_EVERY


def handle(context: CallContext, raw_arguments: Any) -> ToolResult:
    started = time.monotonic()
    request_id = str(uuid.uuid4())
    credential = context.credential
    workspace = credential.workspace
    entry = api_services.LogEntry(
        request_id=request_id,
        workspace=workspace,
        credential=credential.label,
        agent_key=credential.agent_key,
        tool_name="retrieve_memory",
        arguments=raw_arguments,
        prompt=raw_arguments.get("prompt", "") if isinstance(raw_arguments, dict) and isinstance(raw_arguments.get("prompt"), str) else "",
        session_id=context.handshake_session_id or "",
    )
    result = _run(context, raw_arguments, entry, request_id, started)
    entry.result = result.as_json()
    entry.duration_ms = int((time.monotonic() - started) * 1000)
    if result.is_error and entry.outcome == RequestLog.Outcome.SUCCESS:
        entry.outcome = RequestLog.Outcome.TOOL_ERROR
    if result.is_error:
        entry.error_code = result.structured.get("error_code", "")
    try:
        key = credential.agent_key
        if key is not None and _touch_due(key, verified=not result.is_error):
            with transaction.atomic():  # one commit for both writes
                api_services.request_log_create(entry=entry)
                api_key_touch(key=key, verified=not result.is_error)
        else:
            api_services.request_log_create(entry=entry)
    except DatabaseError:
        logger.exception("could not write the request log for %s", request_id)
    return result


def _run(
    context: CallContext, raw_arguments: Any, entry: api_services.LogEntry, request_id: str, started: float
) -> ToolResult:
    workspace = context.credential.workspace
    try:
        if not workspace.entitled:
            entry.outcome = RequestLog.Outcome.ENTITLEMENT_BLOCKED
            return _error("entitlement_required")
        hourly = api_services.quota_check_hourly(workspace=workspace)
        if hourly:
            entry.outcome = RequestLog.Outcome.QUOTA_EXCEEDED
            return _error("quota_exceeded", hourly)
        if not isinstance(raw_arguments, dict):
            return _error("invalid_arguments", "Invalid arguments: arguments must be an object.")
        try:
            args = RetrieveMemoryArguments.model_validate(raw_arguments)
        except ValidationError as exc:
            return _error("invalid_arguments", _describe(exc))
        allowance = api_services.quota_check_allowances(workspace=workspace)
        if allowance:
            entry.outcome = RequestLog.Outcome.QUOTA_EXCEEDED
            return _error("quota_exceeded", allowance)

        session_key = args.session_id or context.handshake_session_id or sessions.handshake_session(
            workspace=workspace
        )
        entry.session_id = session_key
        history = sessions.history_push(workspace=workspace, session_key=session_key, prompt=args.prompt)

        # One query gives the readiness and the published version; retrieval then serves
        # exactly that version without asking the database again.
        readiness, version = readiness_and_version(workspace=workspace)
        if readiness.state == "waiting_for_sources":
            return _error("no_sources_connected")
        if readiness.state in ("processing", "syncing_to_vm"):
            return _error("memory_not_ready")
        if readiness.state == "error":
            return _error("memory_unavailable", "Every sync of this workspace's sources failed; memory is unavailable. Retry after a successful sync.")
        if readiness.state == "not_provisioned":
            entry.outcome = RequestLog.Outcome.ENTITLEMENT_BLOCKED
            return _error("entitlement_required")

        deadline = started + settings.PAM_RETRIEVAL_TIMEOUT_S
        retrieval = retrieve(
            workspace,
            args.prompt,
            history[-sessions.TRIAGE_HISTORY :] if settings.PAM_TRIAGE_ENABLED else [],
            deadline=deadline,
            triage_enabled=settings.PAM_TRIAGE_ENABLED,
            version=version,
        )
        if time.monotonic() > deadline:
            raise RetrievalTimeout()
    except RetrievalTimeout:
        return _error("retrieval_timeout")
    except (DatabaseError, IndexUnavailable, OSError, ValueError) as exc:
        logger.warning("retrieve_memory unavailable for workspace %s: %s", workspace.pk, type(exc).__name__)
        return _error("memory_unavailable")
    except Exception as exc:  # a backing service (Redis) failed: never a 500
        logger.exception("retrieve_memory failed for workspace %s: %s", workspace.pk, type(exc).__name__)
        return _error("memory_unavailable")

    api_services.quota_consume(workspace=workspace)
    entry.retrieval_ran = retrieval.triage.decision == "retrieve"
    entry.triage_only = retrieval.triage.decision == "triage_only"
    entry.item_count = retrieval.total_items
    entry.llm_calls = retrieval.llm_calls
    result = _success(args.prompt, retrieval, readiness.state, request_id, started)
    entry.estimated_tokens = int(result.structured["diagnostics"]["estimated_tokens"])
    return result


TOOL = register(
    Tool(
        name="retrieve_memory",
        title="Retrieve company memory",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        arguments=RetrieveMemoryArguments,
        handler=handle,
        scope="memory:read",
    )
)
