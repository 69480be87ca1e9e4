"""Helpers for the source-kind tests: read a location with a kind, or sync it for real."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from memory.models import PipelineRun, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create
from memory.sources.base import Item, RawDocument, Skipped
from memory.sources.registry import kind_for

LIMIT = 1_000_000


def read(kind: str, root: Path, max_bytes: int = LIMIT) -> list[Item]:
    """Everything a kind yields for a location, as a sync would consume it."""
    return list(kind_for(kind).iter_documents(root, max_bytes=max_bytes))


def documents(items: list[Item]) -> dict[str, RawDocument]:
    return {i.path: i for i in items if isinstance(i, RawDocument)}


def errors(items: list[Item]) -> dict[str, str]:
    return {i.path: i.reason for i in items if isinstance(i, Skipped) and i.error}


def skipped(items: list[Item]) -> dict[str, str]:
    return {i.path: i.reason for i in items if isinstance(i, Skipped) and not i.error}


@pytest.fixture
def sync(workspace: Workspace) -> Callable[..., PipelineRun]:
    """Sync a location through the real pipeline (the same code as `import_source`)."""

    def run(location: Path, kind: str = "auto", **_: Any) -> PipelineRun:
        source = Source.objects.create(workspace=workspace, name=location.name, kind=kind, location=str(location))
        return source_sync(run_id=run_create(source=source).pk)

    return run
