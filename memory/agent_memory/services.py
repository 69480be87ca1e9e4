"""Writes of agent memory (SPEC §2.4): `remember` and `forget`.

`memory_remember` checks the caller may write the bucket and team, asks the capture policy,
then, in one transaction holding the workspace row (so two concurrent writes of one key never
both create): a `semantic_key` the caller can see is updated in place (upsert); otherwise a
near-duplicate on the same path and bucket is merged into the existing memory; otherwise a new
memory is created. Each write leaves an `AgentMemoryAudit` row. `memory_forget` soft-deletes
(`deleted_at`) every memory the caller can see with that reference or exact path, with an
audit row saying who, when and why. For the REST memory API (`/v1/memory`): `memory_patch`,
`memory_forget_one`, `memory_restore` (one memory by reference) and `memory_import_one` (a line
of a JSONL import). Every change that replaces a memory's values first keeps them as an
`AgentMemoryVersion` (its history). The live layer (`memory.engine.live`) reads rows at call
time, so every write takes effect on the very next call.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from memory.agent_memory.capture import capture_check
from memory.engine.live import PRIVATE, Viewer, memory_save, readable, visible
from memory.engine.text import term_set
from memory.models import AgentMemory, AgentMemoryAudit, AgentMemoryVersion, Workspace
from pam.errors import FieldErrors, PamError

REFERENCE_PREFIX = "mem_"
CONFLICT = "conflict"  # the memory is not in the state the operation needs (HTTP 409)
NEAR_DUPLICATE = 0.85  # Jaccard similarity of two contents' terms at which they are merged
MERGE_CANDIDATES = 50  # newest memories on the same path compared for a merge


@dataclass(frozen=True)
class Writer:
    """Who writes: the credential's label and kind, and the request log's id."""

    label: str
    kind: str
    request_id: str


@dataclass
class MemoryDraft:
    path: str
    content: str
    bucket: str
    project: str = ""
    team: str = ""
    memory_type: str = "note"
    confidence: float | None = None
    importance: float | None = None
    expires_at: datetime | None = None
    semantic_key: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Remembered:
    memory: AgentMemory
    action: str  # "created" | "updated" | "merged"


def scope_check(*, viewer: Viewer, bucket: str | None = None, team: str | None = None) -> None:
    """SPEC §2.4: a bucket or team the credential cannot see is a clear `invalid_arguments`
    error, never an empty result."""
    errors = []
    if bucket is not None and not viewer.sees_bucket(bucket):
        seen = ", ".join(sorted(viewer.buckets | {PRIVATE}))
        errors.append({"field": "bucket", "message": f"{bucket!r} is not visible to this credential (it sees: {seen})."})
    if team is not None and team and not viewer.sees_team(team):
        seen = ", ".join(sorted(viewer.teams))
        errors.append({"field": "team", "message": f"{team!r} is not visible to this credential (it sees: {seen})."})
    if errors:
        raise FieldErrors(errors)


def near_duplicate(a: str, b: str) -> bool:
    if a.strip().lower() == b.strip().lower():
        return True
    left, right = term_set(a), term_set(b)
    if not left or not right:
        return False
    return len(left & right) / len(left | right) >= NEAR_DUPLICATE


def _new_reference() -> str:
    return REFERENCE_PREFIX + uuid.uuid4().hex[:24]


def _audit(memory: AgentMemory, action: str, writer: Writer, reason: str = "") -> None:
    AgentMemoryAudit.objects.create(
        workspace_id=memory.workspace_id,
        memory=memory,
        action=action,
        credential=writer.label,
        reason=reason,
        request_id=writer.request_id,
    )


def memory_remember(*, workspace: Workspace, viewer: Viewer, writer: Writer, draft: MemoryDraft) -> Remembered:
    scope_check(viewer=viewer, bucket=draft.bucket, team=draft.team or None)
    capture_check(
        workspace=workspace,
        texts=[draft.content, draft.path, draft.semantic_key, draft.project, draft.team, json.dumps(draft.metadata)],
    )
    now = timezone.now()
    provenance = {"credential": writer.label, "kind": writer.kind, "at": now.isoformat(), "request_id": writer.request_id}
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        mine = visible(workspace, viewer, now=now).filter(bucket=draft.bucket)
        existing: AgentMemory | None = None
        action = AgentMemoryAudit.Action.CREATED
        if draft.semantic_key:
            existing = mine.filter(semantic_key=draft.semantic_key).order_by("-updated_at", "-id").first()
            action = AgentMemoryAudit.Action.UPDATED
        if existing is None:
            for candidate in mine.filter(path=draft.path).order_by("-updated_at", "-id")[:MERGE_CANDIDATES]:
                if near_duplicate(candidate.content, draft.content):
                    existing, action = candidate, AgentMemoryAudit.Action.MERGED
                    break
        if existing is None:
            memory = _create(workspace, draft, _new_reference(), writer.label, provenance, created_at=now, updated_at=now)
            _audit(memory, AgentMemoryAudit.Action.CREATED, writer)
            return Remembered(memory, AgentMemoryAudit.Action.CREATED)
        _version(existing, action, writer, now)
        _update(existing, draft, merge=action == AgentMemoryAudit.Action.MERGED, provenance=provenance, now=now)
        _audit(existing, action, writer)
        return Remembered(existing, action)


def _create(
    workspace: Workspace,
    draft: MemoryDraft,
    reference: str,
    credential: str,
    provenance: dict[str, Any],
    *,
    created_at: datetime,
    updated_at: datetime,
) -> AgentMemory:
    memory = AgentMemory(
        workspace=workspace,
        reference=reference,
        path=draft.path,
        bucket=draft.bucket,
        team=draft.team,
        project=draft.project,
        memory_type=draft.memory_type,
        content=draft.content,
        confidence=draft.confidence,
        importance=draft.importance,
        expires_at=draft.expires_at,
        semantic_key=draft.semantic_key,
        metadata=draft.metadata,
        credential=credential,
        provenance=provenance,
        created_at=created_at,
        updated_at=updated_at,
    )
    memory_save(memory)
    return memory


def _update(memory: AgentMemory, draft: MemoryDraft, *, merge: bool, provenance: dict[str, Any], now: datetime) -> None:
    """An upsert replaces the memory's fields; a merge keeps the fuller content and the
    higher confidence and importance, and adds the new metadata."""
    if merge:
        if len(draft.content) >= len(memory.content):
            memory.content = draft.content
        memory.confidence = _max(memory.confidence, draft.confidence)
        memory.importance = _max(memory.importance, draft.importance)
        memory.metadata = {**(memory.metadata or {}), **draft.metadata}
        memory.project = draft.project or memory.project
        memory.memory_type = draft.memory_type if draft.memory_type != "note" else memory.memory_type
        memory.expires_at = draft.expires_at or memory.expires_at
    else:
        memory.path = draft.path
        memory.content = draft.content
        memory.team = draft.team
        memory.project = draft.project
        memory.memory_type = draft.memory_type
        memory.confidence = draft.confidence
        memory.importance = draft.importance
        memory.expires_at = draft.expires_at
        memory.metadata = draft.metadata
    history = list((memory.provenance or {}).get("updates", []))[-9:]
    memory.provenance = {**(memory.provenance or {}), "updates": [*history, provenance]}
    memory.updated_at = now
    memory_save(memory)


def _version(memory: AgentMemory, action: str, writer: Writer, now: datetime) -> None:
    """Keep the values `memory` holds before a change replaces them (its history)."""
    last = memory.versions.order_by("-version").values_list("version", flat=True).first() or 0
    AgentMemoryVersion.objects.create(
        workspace_id=memory.workspace_id,
        memory=memory,
        version=last + 1,
        path=memory.path,
        content=memory.content,
        metadata=memory.metadata,
        confidence=memory.confidence,
        importance=memory.importance,
        expires_at=memory.expires_at,
        memory_type=memory.memory_type,
        valid_from=memory.updated_at,
        replaced_at=now,
        replaced_by=writer.label,
        action=action,
    )


def _max(a: float | None, b: float | None) -> float | None:
    values = [v for v in (a, b) if v is not None]
    return max(values) if values else None


def memory_forget(*, workspace: Workspace, viewer: Viewer, writer: Writer, target: str, reason: str) -> list[AgentMemory]:
    """Soft-delete the memories `target` names (a reference, else an exact path) that the
    caller can see; `not_found` when there is none."""
    now = timezone.now()
    rows = AgentMemory.objects.filter(pk__in=visible(workspace, viewer, now=now).values("pk"))
    if target.startswith(REFERENCE_PREFIX):
        rows = rows.filter(reference=target)
    else:
        rows = rows.filter(path=target)
    with transaction.atomic():
        forgotten = list(rows.select_for_update().order_by("id"))
        if not forgotten:
            raise PamError(
                "not_found",
                f"No agent memory you can see has the reference or exact path {target[:200]!r}: nothing was forgotten.",
            )
        AgentMemory.objects.filter(pk__in=[m.pk for m in forgotten]).update(deleted_at=now)
        AgentMemoryAudit.objects.bulk_create(
            AgentMemoryAudit(
                workspace_id=m.workspace_id,
                memory=m,
                action=AgentMemoryAudit.Action.FORGOTTEN,
                credential=writer.label,
                reason=reason,
                request_id=writer.request_id,
                created_at=now,
            )
            for m in forgotten
        )
    for memory in forgotten:
        memory.deleted_at = now
    return forgotten


# --- The REST memory API's writes (one memory by reference) -------------------------------------


def _locked(workspace: Workspace, viewer: Viewer, reference: str) -> AgentMemory:
    """The memory `viewer` may read with this reference, locked for the transaction; not_found
    otherwise (also another workspace's reference or another credential's private memory)."""
    memory = readable(workspace, viewer).select_for_update().filter(reference=reference).first()
    if memory is None:
        raise PamError("not_found", "No agent memory you can see has this reference.")
    return memory


def memory_patch(
    *, workspace: Workspace, viewer: Viewer, writer: Writer, reference: str, changes: dict[str, Any]
) -> AgentMemory:
    """Change a memory's content, metadata, importance or expiry (`changes`, already checked):
    the capture policy is asked first, the replaced values become a version, an audit row says
    who. A patch that changes nothing writes nothing. The live layer reads the new content on
    the next call."""
    if "content" in changes or "metadata" in changes:
        capture_check(workspace=workspace, texts=[changes.get("content", ""), json.dumps(changes.get("metadata", {}))])
    now = timezone.now()
    with transaction.atomic():
        memory = _locked(workspace, viewer, reference)
        if memory.deleted_at is not None:
            raise PamError(CONFLICT, "This memory is forgotten: restore it before changing it.")
        changed = [name for name, value in changes.items() if getattr(memory, name) != value]
        if not changed:
            return memory
        _version(memory, AgentMemoryAudit.Action.UPDATED, writer, now)
        for name in changed:
            setattr(memory, name, changes[name])
        memory.updated_at = now
        memory_save(memory)
        _audit(memory, AgentMemoryAudit.Action.UPDATED, writer, reason=f"patched: {', '.join(sorted(changed))}")
    return memory


def memory_forget_one(*, workspace: Workspace, viewer: Viewer, writer: Writer, reference: str, reason: str) -> AgentMemory:
    """Soft-delete one memory (it leaves every answer at once), with an audit row; `conflict`
    when it is already forgotten."""
    now = timezone.now()
    with transaction.atomic():
        memory = _locked(workspace, viewer, reference)
        if memory.deleted_at is not None:
            raise PamError(CONFLICT, f"This memory was already forgotten at {memory.deleted_at.isoformat()}.")
        memory.deleted_at = now
        memory.save(update_fields=["deleted_at"])
        _audit(memory, AgentMemoryAudit.Action.FORGOTTEN, writer, reason=reason)
    return memory


def memory_restore(*, workspace: Workspace, viewer: Viewer, writer: Writer, reference: str, reason: str) -> AgentMemory:
    """Undo a forget (the memory answers again at once), with an audit row; `conflict` when it
    is not forgotten."""
    with transaction.atomic():
        memory = _locked(workspace, viewer, reference)
        if memory.deleted_at is None:
            raise PamError(CONFLICT, "This memory is not forgotten: there is nothing to restore.")
        memory.deleted_at = None
        memory.save(update_fields=["deleted_at"])
        _audit(memory, AgentMemoryAudit.Action.RESTORED, writer, reason=reason)
    return memory


@dataclass(frozen=True)
class Imported:
    """One line of a JSONL import, checked: the memory's fields and what the line says of it."""

    draft: MemoryDraft
    reference: str = ""  # upsert key when this workspace holds it
    credential: str = ""  # who wrote it, kept by the operator's shell import
    created_at: datetime | None = None
    updated_at: datetime | None = None
    provenance: dict[str, Any] = field(default_factory=dict)


IMPORT_FIELDS = ("path", "content", "team", "project", "memory_type", "confidence", "importance", "expires_at", "metadata")


def memory_import_one(*, workspace: Workspace, viewer: Viewer | None, writer: Writer, line: Imported) -> Remembered | None:
    """Upsert one imported memory: the memory with the line's reference in this workspace,
    else the one holding its `semantic_key` in its bucket, is updated (None: it already holds
    these values); otherwise a memory is created, keeping the line's reference when no row
    anywhere holds it (a restore into a fresh installation keeps the references agents
    hold) and its times. `viewer` None is the operator's shell, which keeps the line's
    credential (so `private` memories stay their writer's); over the API the importer is the
    writer. The capture policy is asked first, as for `remember`."""
    draft = line.draft
    if viewer is not None:
        scope_check(viewer=viewer, bucket=draft.bucket, team=draft.team or None)
    capture_check(
        workspace=workspace,
        texts=[draft.content, draft.path, draft.semantic_key, draft.project, draft.team, json.dumps(draft.metadata)],
    )
    now = timezone.now()
    credential = (line.credential or writer.label) if viewer is None else writer.label
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        rows = AgentMemory.objects.filter(workspace=workspace) if viewer is None else readable(workspace, viewer)
        existing = rows.filter(reference=line.reference).first() if line.reference else None
        if existing is None and draft.semantic_key:
            existing = (
                rows.filter(bucket=draft.bucket, semantic_key=draft.semantic_key, deleted_at__isnull=True)
                .order_by("-updated_at", "-id")
                .first()
            )
        if existing is not None:
            values = {name: getattr(draft, name) for name in IMPORT_FIELDS}
            if all(getattr(existing, name) == value for name, value in values.items()):
                return None
            _version(existing, AgentMemoryAudit.Action.IMPORTED, writer, now)
            for name, value in values.items():
                setattr(existing, name, value)
            existing.updated_at = now
            memory_save(existing)
            _audit(existing, AgentMemoryAudit.Action.IMPORTED, writer, reason="import: updated")
            return Remembered(existing, AgentMemoryAudit.Action.UPDATED)
        reference = line.reference
        if not reference.startswith(REFERENCE_PREFIX) or AgentMemory.objects.filter(reference=reference).exists():
            reference = _new_reference()
        imported = {"credential": writer.label, "kind": writer.kind, "at": now.isoformat(), "request_id": writer.request_id}
        memory = _create(
            workspace,
            draft,
            reference,
            credential,
            {**line.provenance, "imported": imported},
            created_at=line.created_at or now,
            updated_at=line.updated_at or line.created_at or now,
        )
        _audit(memory, AgentMemoryAudit.Action.IMPORTED, writer, reason="import: created")
        return Remembered(memory, AgentMemoryAudit.Action.CREATED)
