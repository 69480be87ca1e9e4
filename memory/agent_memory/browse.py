"""Reads of agent-memory rows for the REST memory API, its JSONL export and the shell (SPEC
§2.4: "the REST API takes the wider filter set"): the filters of `GET /v1/memory`, and one
memory by reference. Rows are the caller's readable ones (`memory.engine.live.readable`:
buckets, teams and `private` as for the MCP tools); forgotten and expired ones only on request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.agent_memory.services import scope_check
from memory.engine.live import Viewer, readable
from memory.models import AgentMemory, Workspace
from pam.errors import PamError


@dataclass(frozen=True)
class MemoryFilters:
    """Every filter is exact except `path_prefix` (a plain prefix: "projects/pam/" for a
    folder) and the time ranges (`*_after` inclusive, `*_before` exclusive; an expiry range
    leaves out memories that never expire)."""

    bucket: str | None = None
    team: str | None = None
    project: str | None = None
    path_prefix: str | None = None
    memory_type: str | None = None
    credential: str | None = None  # provenance: the key prefix or "oauth:<id>" or "user:<id>" that wrote it
    created_after: datetime | None = None
    created_before: datetime | None = None
    expires_after: datetime | None = None
    expires_before: datetime | None = None
    include_forgotten: bool = False
    include_expired: bool = False


def memory_rows(*, workspace: Workspace, viewer: Viewer | None, filters: MemoryFilters) -> QuerySet[AgentMemory]:
    """The memories matching `filters` that `viewer` may read (`None`: the operator at the
    shell, who reads every memory of the workspace, `private` ones included)."""
    if viewer is None:
        rows = AgentMemory.objects.filter(workspace=workspace)
    else:
        scope_check(viewer=viewer, bucket=filters.bucket, team=filters.team)
        rows = readable(workspace, viewer)
    now = timezone.now()
    if not filters.include_forgotten:
        rows = rows.filter(deleted_at__isnull=True)
    if not filters.include_expired:
        rows = rows.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
    exact = {
        "bucket": filters.bucket,
        "team": filters.team,
        "project": filters.project,
        "memory_type": filters.memory_type,
        "credential": filters.credential,
    }
    rows = rows.filter(**{name: value for name, value in exact.items() if value is not None})
    if filters.path_prefix is not None:
        rows = rows.filter(path__startswith=filters.path_prefix)
    ranges = {
        "created_at__gte": filters.created_after,
        "created_at__lt": filters.created_before,
        "expires_at__gte": filters.expires_after,
        "expires_at__lt": filters.expires_before,
    }
    return rows.filter(**{lookup: value for lookup, value in ranges.items() if value is not None})


def memory_get(*, workspace: Workspace, viewer: Viewer, reference: str) -> AgentMemory:
    """One memory the viewer may read (forgotten and expired ones too), else not_found (also
    another workspace's reference and another credential's private memory)."""
    memory = readable(workspace, viewer).filter(reference=reference).first()
    if memory is None:
        raise PamError("not_found", "No agent memory you can see has this reference.")
    return memory
