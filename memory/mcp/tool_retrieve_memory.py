"""Tool `retrieve_memory` (SPEC §2.3; seed pam-retrieve_memory.uk.md): the session, then
`memory.selectors.memory_retrieve` (readiness → triage → retrieval), shaped as the SPEC's
result. Entitlement, quota, arguments, deadline and the request log are `memory.mcp.calls`.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr, field_validator

from developer_api import services as api_services
from developer_api.models import SCOPE_READ
from memory.engine.live import Viewer
from memory.engine.report import render_report
from memory.engine.tokens import estimate_tokens
from memory.mcp import sessions
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.selectors import MemoryAnswer, memory_retrieve

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


def handle(call: ToolCall, args: RetrieveMemoryArguments) -> ToolOutput:
    """The session in force and its history → `memory_retrieve` → the SPEC §2.3 result."""
    workspace = call.workspace
    call.session_id = args.session_id or call.session_id or sessions.handshake_session(workspace=workspace)
    history = sessions.history_push(workspace=workspace, session_key=call.session_id, prompt=args.prompt)
    credential = call.credential
    answer = memory_retrieve(
        workspace=workspace,
        prompt=args.prompt,
        history=history[-sessions.TRIAGE_HISTORY :],
        deadline=call.deadline,
        viewer=Viewer(label=credential.label, buckets=credential.buckets, teams=credential.teams),
    )
    return _shape(args.prompt, answer, call)


def _shape(prompt: str, answer: MemoryAnswer, call: ToolCall) -> ToolOutput:
    retrieval = answer.retrieval
    report = render_report(prompt, retrieval)
    tokens = estimate_tokens(report)
    structured = {
        "status": "ok",
        "memory_ready": answer.readiness.ready,
        "readiness_state": answer.readiness.state,
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
            "request_id": call.request_id,
            "duration_ms": int((time.monotonic() - call.started) * 1000),
            "estimated_tokens": tokens,
            "sections_searched": [t.tree_path for t in retrieval.phase1.targeted_sections],
            "avg_relevance_score": retrieval.avg_relevance_score,
            "gemini_calls_estimate": retrieval.llm_calls,
        },
    }
    return ToolOutput(
        text=report,
        structured=structured,
        retrieval_ran=retrieval.triage.decision == "retrieve",
        triage_only=retrieval.triage.decision == "triage_only",
        item_count=retrieval.total_items,
        estimated_tokens=tokens,
        llm_calls=retrieval.llm_calls,
    )


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
        scope=SCOPE_READ,
        counts_against_quota=True,
        verifies_key=True,
    )
)
