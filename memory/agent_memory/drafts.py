"""The fields of an agent memory as callers give them (SPEC §2.4), checked once for every way
in: the MCP tool `remember`, `POST /v1/memory`, `PATCH /v1/memory/{reference}` and every line
of a JSONL import. Each check raises `ValueError` with the message that follows the field's
name; `pam.errors.FieldErrors` carries them as `[{"field", "message"}]` (the 422 shape of
SPEC §2.4).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone as dt_timezone
from typing import Any

from django.utils import timezone
from pydantic import BaseModel, ConfigDict, StrictFloat, StrictStr, ValidationError, field_validator

from memory.agent_memory.services import MemoryDraft
from memory.engine.live import DEFAULT_BUCKET
from memory.models import BUCKET_PATTERN
from pam.errors import FieldErrors
from pam.jsonbody import UNSTORABLE

MAX_CONTENT_CHARS = 8000
MAX_SEMANTIC_KEY_CHARS = 200
MAX_METADATA_CHARS = 4000  # the metadata object, as compact JSON
MAX_LABEL_CHARS = 100  # project, team
MAX_PATH_CHARS = 700
MEMORY_TYPE_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


def field_errors_of(error: ValidationError) -> FieldErrors:
    """pydantic's errors as field errors (extra fields: "unknown field")."""
    errors = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"])
        if item["type"] == "extra_forbidden":
            message = "unknown field"
        elif item["type"] == "missing":
            message = "this field is required"
        else:
            message = str(item["msg"]).removeprefix("Value error, ")
        errors.append({"field": field, "message": message})
    return FieldErrors(errors)


# --- The checks ---------------------------------------------------------------------------------


def text_check(value: str, *, max_chars: int, empty_ok: bool = False) -> str:
    if not empty_ok and not value.strip():
        raise ValueError("must be a non-empty string")
    if len(value) > max_chars:
        raise ValueError(f"must be at most {max_chars} characters (got {len(value)})")
    if UNSTORABLE.search(value) is not None:
        raise ValueError("must be valid Unicode text without NUL or unpaired surrogates")
    return value


def bucket_check(value: str) -> str:
    if not BUCKET_PATTERN.match(value):
        raise ValueError("must be 1 to 64 lower-case letters, digits, '_' or '-', starting with a letter or digit")
    return value


def label_check(value: str) -> str:
    return text_check(value, max_chars=MAX_LABEL_CHARS).strip()


def path_check(value: str) -> str:
    """A memory path such as "projects/pam/decisions": one line, no surrounding spaces."""
    value = text_check(value, max_chars=MAX_PATH_CHARS).strip()
    if any(c in value for c in "\r\n\t"):
        raise ValueError("must be one line (no tabs or line breaks)")
    return value


def memory_type_check(value: str) -> str:
    if not MEMORY_TYPE_PATTERN.match(value):
        raise ValueError("must be 1 to 40 lower-case letters, digits, '_' or '-', starting with a letter")
    return value


def unit_check(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("must be a number between 0 and 1")
    if not 0 <= value <= 1:
        raise ValueError(f"must be between 0 and 1 (got {value})")
    return float(value)


def future_check(value: str) -> datetime:
    """An ISO 8601 date-time in the future (UTC when it names no offset)."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError("must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt_timezone.utc)
    if moment <= timezone.now():
        raise ValueError("must be in the future")
    return moment


def metadata_check(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError("must be an object")
    size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    if size > MAX_METADATA_CHARS:
        raise ValueError(f"must be at most {MAX_METADATA_CHARS} characters as JSON (got {size})")
    return value


# --- The fields of a new memory ------------------------------------------------------------------

# The published JSON Schema of these fields: the `remember` tool's inputSchema (SPEC §2.4) and
# the request body of POST /v1/memory.
MEMORY_FIELDS_SCHEMA: dict[str, Any] = {
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


class MemoryFields(BaseModel):
    """What `remember` and POST /v1/memory take; unknown fields are refused."""

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
        return unit_check(value)

    @field_validator("expires_at")
    @classmethod
    def _expires_at(cls, value: str) -> str:
        return future_check(value).isoformat()

    @field_validator("semantic_key")
    @classmethod
    def _semantic_key(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_SEMANTIC_KEY_CHARS).strip()

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Any:
        return metadata_check(value)

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            path=self.path,
            content=self.content,
            bucket=self.bucket,
            project=self.project or "",
            team=self.team or "",
            memory_type=self.memory_type,
            confidence=self.confidence,
            importance=self.importance,
            expires_at=datetime.fromisoformat(self.expires_at) if self.expires_at else None,
            semantic_key=self.semantic_key or "",
            metadata=self.metadata or {},
        )


def memory_fields_check(data: Any) -> MemoryDraft:
    """`data` (a JSON object) as a draft, or `FieldErrors` naming every bad field."""
    if not isinstance(data, dict):
        raise FieldErrors([{"field": "", "message": "must be a JSON object"}])
    try:
        return MemoryFields.model_validate(data).draft()
    except ValidationError as exc:
        raise field_errors_of(exc) from exc


# --- A patch ----------------------------------------------------------------------------------

PATCH_FIELDS = ("content", "metadata", "importance", "expires_at")

MEMORY_PATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {"type": "string", "description": "The new content (at most 8,000 characters)."},
        "metadata": {"type": "object", "description": "Replaces the metadata object."},
        "importance": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "null clears it."},
        "expires_at": {"type": ["string", "null"], "format": "date-time", "description": "In the future; null: never expires."},
    },
    "minProperties": 1,
    "additionalProperties": False,
}


def memory_patch_check(data: Any) -> dict[str, Any]:
    """The fields of a PATCH, checked: at least one of PATCH_FIELDS; `null` clears importance
    and expires_at; `FieldErrors` naming every bad field."""
    if not isinstance(data, dict):
        raise FieldErrors([{"field": "", "message": "must be a JSON object"}])
    errors = [{"field": name, "message": f"unknown field (a patch changes {', '.join(PATCH_FIELDS)})"} for name in data if name not in PATCH_FIELDS]
    if not data:
        errors.append({"field": "", "message": f"give at least one of {', '.join(PATCH_FIELDS)}"})
    changes: dict[str, Any] = {}
    checks = {
        "content": lambda v: text_check(_string(v), max_chars=MAX_CONTENT_CHARS).strip(),
        "metadata": metadata_check,
        "importance": lambda v: None if v is None else unit_check(v),
        "expires_at": lambda v: None if v is None else future_check(_string(v)),
    }
    for name, check in checks.items():
        if name in data:
            try:
                changes[name] = check(data[name])
            except ValueError as exc:
                errors.append({"field": name, "message": str(exc)})
    if errors:
        raise FieldErrors(errors)
    return changes


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value
