"""Writes of agent memory (SPEC §2.4): `remember` and `forget`.

`memory_remember` checks the caller may write the bucket and team, asks the capture policy,
then, in one transaction holding the workspace row (so two concurrent writes of one key never
both create): a `semantic_key` the caller can see is updated in place (upsert); otherwise a
near-duplicate on the same path and bucket is merged into the existing memory; otherwise a new
memory is created. Each write leaves an `AgentMemoryAudit` row. `memory_forget` soft-deletes
(`deleted_at`) every memory the caller can see with that reference or exact path, with an
audit row saying who, when and why. The live layer (`memory.engine.live`) reads rows at call
time, so both take effect on the very next call.
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
from memory.engine.live import PRIVATE, Viewer, memory_save, visible
from memory.engine.text import term_set
from memory.models import AgentMemory, AgentMemoryAudit, Workspace
from pam.errors import PamError

REFERENCE_PREFIX = "mem_"
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
    if bucket is not None and not viewer.sees_bucket(bucket):
        raise PamError(
            "invalid_arguments",
            f"Invalid arguments: 'bucket' {bucket!r} is not visible to this credential "
            f"(it sees: {', '.join(sorted(viewer.buckets | {PRIVATE}))}).",
        )
    if team is not None and team and not viewer.sees_team(team):
        raise PamError(
            "invalid_arguments",
            f"Invalid arguments: 'team' {team!r} is not visible to this credential "
            f"(it sees: {', '.join(sorted(viewer.teams))}).",
        )


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
            memory = AgentMemory(
                workspace=workspace,
                reference=_new_reference(),
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
                credential=writer.label,
                provenance=provenance,
                created_at=now,
                updated_at=now,
            )
            memory_save(memory)
            _audit(memory, AgentMemoryAudit.Action.CREATED, writer)
            return Remembered(memory, AgentMemoryAudit.Action.CREATED)
        _update(existing, draft, merge=action == AgentMemoryAudit.Action.MERGED, provenance=provenance, now=now)
        _audit(existing, action, writer)
        return Remembered(existing, action)


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
