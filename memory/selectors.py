"""Workspace-level reads shared by the API, tools and admin. Every lookup is tenant-scoped:
another workspace's id answers 404 `not_found`, exactly like an id that does not exist."""

from __future__ import annotations

from django.db.models import QuerySet

from memory.models import PipelineRun, Source, Workspace
from pam.errors import PamError


def source_list(*, workspace: Workspace) -> QuerySet[Source]:
    return Source.objects.filter(workspace=workspace).order_by("id")


def source_get(*, workspace: Workspace, source_id: int) -> Source:
    source = Source.objects.filter(workspace=workspace, pk=source_id).first()
    if source is None:
        raise PamError("not_found", "Source not found.")
    return source


def run_list(*, workspace: Workspace, source_id: int | None = None, limit: int = 100) -> list[PipelineRun]:
    runs = PipelineRun.objects.filter(workspace=workspace).order_by("-id")
    if source_id is not None:
        runs = runs.filter(source_id=source_id)
    return list(runs[:limit])
