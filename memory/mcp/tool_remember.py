"""Tool `remember` (SPEC §2.4): persist a durable memory once the workspace's capture policy
approves it (`capture_refused` with the reason otherwise). `semantic_key` upserts; a
near-duplicate on the same path is merged, not stored twice. Needs `memory:write`.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone as dt_timezone
from typing import Any

from django.utils import timezone
from pydantic import BaseModel, ConfigDict, StrictFloat, StrictStr, field_validator

from developer_api.models import SCOPE_WRITE
from memory.agent_memory.services import MemoryDraft, memory_remember
from memory.engine.live import DEFAULT_BUCKET, source_path
from memory.engine.tokens import count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.mcp.xmemo import (
    bucket_check,
    label_check,
    memory_type_check,
    path_check,
    text_check,
    viewer_of,
    writer_of,
)

MAX_CONTENT_CHARS = 8000
MAX_SEMANTIC_KEY_CHARS = 200
MAX_METADATA_CHARS = 4000  # the metadata object, as compact JSON

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Where to file it, e.g. 'projects/pam/decisions'."},
        "content": {"type": "string", "description": "The fact, decision or note to keep (at most 8,000 characters)."},
        "bucket": {"type": "string", "default": DEFAULT_BUCKET, "description": "'public', 'private' (only you) or another bucket you can see."},
        "project": {"type": "string"},
        "team": {"type": "string"},
        "memory_type": {"type": "string", "default": "note", "description": "e.g. note, decision, preference, task."},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "importance": {"type": "number", "minimum": 0, "maximum": 1},
        "expires_at": {"type": "string", "format": "date-time"},
        "semantic_key": {"type": "string", "description": "A stable key: remembering with the same key updates that memory."},
        "metadata": {"type": "object"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Remember a durable fact, decision or preference so later sessions can recall it. The "
    "workspace's capture policy refuses secrets (API keys, tokens, passwords, private keys, "
    "connection strings) with `capture_refused`. A `semantic_key` updates the memory holding "
    "that key; a near-duplicate on the same path is merged. Answers the memory's reference, "
    "which `forget` accepts. Needs the memory:write scope."
)


class RememberArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: StrictStr
    content: StrictStr
    bucket: StrictStr = DEFAULT_BUCKET
    project: StrictStr = None  # type: ignore[assignment]
    team: StrictStr = None  # type: ignore[assignment]
    memory_type: StrictStr = "note"
    confidence: StrictFloat = None  # type: ignore[assignment]
    importance: StrictFloat = None  # type: ignore[assignment]
    expires_at: StrictStr = None  # type: ignore[assignment]
    semantic_key: StrictStr = None  # type: ignore[assignment]
    metadata: dict[str, Any] = None  # type: ignore[assignment]

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        return path_check(value)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_CONTENT_CHARS).strip()

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        return bucket_check(value)

    @field_validator("project", "team")
    @classmethod
    def _label(cls, value: str) -> str:
        return label_check(value)

    @field_validator("memory_type")
    @classmethod
    def _memory_type(cls, value: str) -> str:
        return memory_type_check(value)

    @field_validator("confidence", "importance", mode="before")
    @classmethod
    def _unit(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("must be a number between 0 and 1")
        if not 0 <= value <= 1:
            raise ValueError(f"must be between 0 and 1 (got {value})")
        return float(value)

    @field_validator("expires_at")
    @classmethod
    def _expires_at(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError("must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z") from exc
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt_timezone.utc)
        if moment <= timezone.now():
            raise ValueError("must be in the future")
        return moment.isoformat()

    @field_validator("semantic_key")
    @classmethod
    def _semantic_key(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_SEMANTIC_KEY_CHARS).strip()

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("must be an object")
        size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
        if size > MAX_METADATA_CHARS:
            raise ValueError(f"must be at most {MAX_METADATA_CHARS} characters as JSON (got {size})")
        return value


def handle(call: ToolCall, args: RememberArguments) -> ToolOutput:
    draft = MemoryDraft(
        path=args.path,
        content=args.content,
        bucket=args.bucket,
        project=args.project or "",
        team=args.team or "",
        memory_type=args.memory_type,
        confidence=args.confidence,
        importance=args.importance,
        expires_at=datetime.fromisoformat(args.expires_at) if args.expires_at else None,
        semantic_key=args.semantic_key or "",
        metadata=args.metadata or {},
    )
    done = memory_remember(workspace=call.workspace, viewer=viewer_of(call), writer=writer_of(call), draft=draft)
    memory = done.memory
    verb = {"created": "Remembered", "updated": "Updated", "merged": "Merged into"}[done.action]
    text = "\n".join(
        [
            "### XMemo Remember",
            f"{verb} {memory.reference}.",
            f"Reference: {memory.reference} | Type: {memory.memory_type} | Location: {memory.path}",
            f"Bucket: {memory.bucket}",
            f"Action: {done.action}",
        ]
    )
    structured = {
        "status": "ok",
        "action": done.action,
        "reference": memory.reference,
        "path": memory.path,
        "bucket": memory.bucket,
        "team": memory.team,
        "project": memory.project,
        "memory_type": memory.memory_type,
        "source_path": source_path(memory.bucket),
        "semantic_key": memory.semantic_key,
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "expires_at": memory.expires_at.isoformat() if memory.expires_at else None,
    }
    return ToolOutput(text=text, structured=structured, item_count=1, estimated_tokens=count_tokens(text))


TOOL = register(
    Tool(
        name="remember",
        title="Remember a durable memory",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
        arguments=RememberArguments,
        handler=handle,
        scope=SCOPE_WRITE,
        prompt_argument="content",
    )
)
