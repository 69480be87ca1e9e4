"""Agent memory as JSON Lines (issue 14): one object per memory with its provenance, history
and audit trail — what `GET /v1/memory/export` streams and `manage.py export_memory` writes —
and the import of such a file (`POST /v1/memory/import`, `manage.py import_memory`).

Import, line by line (a line is one memory; each line is its own transaction):
- not JSON, not an object, or a field that fails the checks of `remember`
  (`memory.agent_memory.drafts`) → an error naming the line, nothing written for it;
- a line the capture policy refuses → `refused`, with the reason;
- a forgotten (`deleted_at`) or expired memory → `skipped` (export writes them only on request);
- otherwise an upsert (`services.memory_import_one`): `created`, `updated`, or `skipped` when
  the memory already holds these values.
Read-only fields of an exported object (history, audit, status, times of a memory that exists)
are ignored, so an export imports as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Iterator

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from memory.agent_memory.capture import CAPTURE_REFUSED
from memory.agent_memory.drafts import memory_fields_check
from memory.agent_memory.services import Imported, Writer, memory_import_one
from memory.engine.live import Viewer, source_path
from memory.models import AgentMemory, AgentMemoryAudit, AgentMemoryVersion, Workspace
from pam.errors import FieldErrors, PamError
from pam.jsonbody import JsonTooDeep, json_depth_check

EXPORT_CHUNK = 500  # memories read (with their history and audit) per query
MAX_REPORTED_ERRORS = 100  # per-line errors listed in a report; the counts cover every line
# The fields of a line that `remember` takes; the rest of an exported object is read-only.
DRAFT_FIELDS = (
    "path", "content", "bucket", "project", "team", "memory_type", "confidence", "importance",
    "expires_at", "semantic_key", "metadata",
)  # fmt: skip


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def memory_status(memory: AgentMemory, now: datetime | None = None) -> str:
    if memory.deleted_at is not None:
        return "forgotten"
    if memory.expires_at is not None and memory.expires_at <= (now or timezone.now()):
        return "expired"
    return "live"


def version_record(version: AgentMemoryVersion) -> dict[str, Any]:
    return {
        "version": version.version,
        "action": version.action,
        "path": version.path,
        "content": version.content,
        "memory_type": version.memory_type,
        "metadata": version.metadata,
        "confidence": version.confidence,
        "importance": version.importance,
        "expires_at": _iso(version.expires_at),
        "valid_from": _iso(version.valid_from),
        "replaced_at": _iso(version.replaced_at),
        "replaced_by": version.replaced_by,
    }


def audit_record(row: AgentMemoryAudit) -> dict[str, Any]:
    return {
        "action": row.action,
        "credential": row.credential,
        "reason": row.reason,
        "request_id": row.request_id,
        "created_at": _iso(row.created_at),
    }


def memory_record(memory: AgentMemory, *, history: bool) -> dict[str, Any]:
    """A memory as the REST API and the export show it; `history` adds its versions and audit
    rows (oldest first)."""
    record: dict[str, Any] = {
        "reference": memory.reference,
        "path": memory.path,
        "bucket": memory.bucket,
        "team": memory.team,
        "project": memory.project,
        "memory_type": memory.memory_type,
        "content": memory.content,
        "confidence": memory.confidence,
        "importance": memory.importance,
        "expires_at": _iso(memory.expires_at),
        "semantic_key": memory.semantic_key,
        "metadata": memory.metadata,
        "source_path": source_path(memory.bucket),
        "credential": memory.credential,
        "provenance": memory.provenance,
        "status": memory_status(memory),
        "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at),
        "deleted_at": _iso(memory.deleted_at),
    }
    if history:
        record["history"] = [version_record(v) for v in memory.versions.all()]
        record["audit"] = [audit_record(a) for a in memory.audit.all()]
    return record


def with_history(rows: QuerySet[AgentMemory]) -> QuerySet[AgentMemory]:
    return rows.prefetch_related(
        Prefetch("versions", queryset=AgentMemoryVersion.objects.order_by("version")),
        Prefetch("audit", queryset=AgentMemoryAudit.objects.order_by("id")),
    )


def memory_export_lines(rows: QuerySet[AgentMemory]) -> Iterator[str]:
    """Each memory of `rows` as one JSON line, oldest first, read `EXPORT_CHUNK` at a time
    (with their history and audit): memory stays flat however large the workspace."""
    for memory in with_history(rows.order_by("created_at", "id")).iterator(chunk_size=EXPORT_CHUNK):
        yield json.dumps(memory_record(memory, history=True), ensure_ascii=False) + "\n"


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    skipped: int = 0
    refused: int = 0  # refused by the capture policy
    failed: int = 0  # invalid lines
    lines: int = 0  # non-blank lines read
    errors: list[dict[str, Any]] = field(default_factory=list)  # {line, error_code, message, field?}

    def error(self, line: int, code: str, message: str, fields: list[dict[str, str]] | None = None) -> None:
        if len(self.errors) < MAX_REPORTED_ERRORS:
            entry: dict[str, Any] = {"line": line, "error_code": code, "message": message}
            if fields:
                entry["errors"] = fields
            self.errors.append(entry)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "created": self.created,
            "updated": self.updated,
            "skipped": self.skipped,
            "refused": self.refused,
            "failed": self.failed,
            "errors": self.errors,
            "errors_truncated": self.refused + self.failed > len(self.errors),
        }


def _when(value: Any) -> datetime | None:
    """An exported time (ISO 8601 with offset), or None when absent or unreadable."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _line(raw: bytes | str) -> Any:
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    data = json.loads(text)
    json_depth_check(data)
    return data


def _imported(data: dict[str, Any], now: datetime) -> Imported | str:
    """The line's memory, or why it is skipped."""
    if data.get("deleted_at"):
        return "a forgotten memory (deleted_at is set): not imported"
    expires = _when(data.get("expires_at"))
    if expires is not None and expires <= now:
        return "an expired memory (expires_at has passed): not imported"
    fields = {name: data[name] for name in DRAFT_FIELDS if name in data and data[name] not in (None, "")}
    provenance = data.get("provenance")
    return Imported(
        draft=memory_fields_check(fields),
        reference=data["reference"] if isinstance(data.get("reference"), str) else "",
        credential=data["credential"][:100] if isinstance(data.get("credential"), str) else "",
        created_at=_when(data.get("created_at")),
        updated_at=_when(data.get("updated_at")),
        provenance=provenance if isinstance(provenance, dict) else {},
    )


def memory_import(
    *, workspace: Workspace, viewer: Viewer | None, writer: Writer, lines: Iterable[bytes | str]
) -> ImportReport:
    """Import JSON Lines (see the module's docstring); `viewer` None is the operator's shell
    (every bucket, the lines' credentials kept). Line numbers count from 1, blank lines
    included."""
    report = ImportReport()
    now = timezone.now()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        report.lines += 1
        try:
            data = _line(raw)
        except (UnicodeDecodeError, ValueError, RecursionError, JsonTooDeep):
            report.failed += 1
            report.error(number, "invalid_json", "not a JSON object on one line (UTF-8)")
            continue
        if not isinstance(data, dict):
            report.failed += 1
            report.error(number, "invalid_json", "must be a JSON object")
            continue
        try:
            line = _imported(data, now)
            if isinstance(line, str):
                report.skipped += 1
                continue
            done = memory_import_one(workspace=workspace, viewer=viewer, writer=writer, line=line)
        except FieldErrors as exc:
            report.failed += 1
            report.error(number, exc.code, exc.message, exc.errors)
            continue
        except PamError as exc:
            if exc.code == CAPTURE_REFUSED:
                report.refused += 1
            else:
                report.failed += 1
            report.error(number, exc.code, exc.message)
            continue
        if done is None:
            report.skipped += 1
        elif done.action == AgentMemoryAudit.Action.CREATED:
            report.created += 1
        else:
            report.updated += 1
    return report
