"""Pipeline progress events on the Channels group `workspace_<id>_pipeline` (SPEC §7).

Works on both layers: the in-memory one (embedded run) and Redis (service run).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from memory.models import PipelineRun, Source, Workspace
from memory.pipelines.progress import pipeline_group
from memory.pipelines.sync import source_sync
from tests.conftest import run_create

EVENT_FIELDS = {"type", "run_id", "source_id", "stage", "done", "total", "status"}


async def _drain(layer: Any, channel: str, quiet: float) -> list[dict[str, Any]]:
    events = []
    while True:
        try:
            events.append(await asyncio.wait_for(layer.receive(channel), quiet))
        except asyncio.TimeoutError:
            return events


@pytest.fixture
def subscribe() -> Iterator[Callable[[Workspace], Callable[[], list[dict[str, Any]]]]]:
    """Add a fresh channel to a workspace's group; the returned function drains it."""
    layer = get_channel_layer()
    assert layer is not None
    joined: list[tuple[str, str]] = []

    def join(workspace: Workspace) -> Callable[[], list[dict[str, Any]]]:
        channel = f"test-progress-{uuid.uuid4().hex}"
        group = pipeline_group(workspace.pk)
        async_to_sync(layer.group_add)(group, channel)
        joined.append((group, channel))
        return lambda: async_to_sync(_drain)(layer, channel, 1.0)

    yield join
    for group, channel in joined:
        async_to_sync(layer.group_discard)(group, channel)


def import_folder(workspace: Workspace, folder: Path) -> PipelineRun:
    source = Source.objects.create(workspace=workspace, name=folder.name, kind="auto", location=str(folder))
    return source_sync(run_id=run_create(source=source).pk)


def test_a_sync_publishes_progress_ending_with_completed(
    workspace: Workspace, corpus_dir: Path, subscribe: Any
) -> None:
    receive = subscribe(workspace)

    run = import_folder(workspace, corpus_dir)

    events = receive()
    assert run.status == "completed"
    assert events, "no progress event was published"
    assert all(set(event) == EVENT_FIELDS for event in events)
    assert {event["type"] for event in events} == {"pipeline.progress"}
    assert {(event["run_id"], event["source_id"]) for event in events} == {(run.pk, run.source_id)}
    assert [event["status"] for event in events][:-1] == ["running"] * (len(events) - 1)
    assert events[-1] == {
        "type": "pipeline.progress",
        "run_id": run.pk,
        "source_id": run.source_id,
        "stage": "done",
        "done": 5,
        "total": 5,
        "status": "completed",
    }
    stages = [event["stage"] for event in events]
    assert stages[0] == "extract"
    assert stages.index("extract") < stages.index("tree") < stages.index("publish") < stages.index("done")
    done = [event["done"] for event in events]
    assert done == sorted(done)


def test_a_failed_sync_publishes_a_failed_event(workspace: Workspace, tmp_path: Path, subscribe: Any) -> None:
    receive = subscribe(workspace)

    run = import_folder(workspace, tmp_path / "missing")

    events = receive()
    assert run.status == "failed"
    assert events[-1]["status"] == "failed"
    assert events[-1]["run_id"] == run.pk


def test_events_go_only_to_the_workspaces_own_group(
    make_workspace: Callable[..., Workspace], corpus_dir: Path, subscribe: Any
) -> None:
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    acme_events = subscribe(acme)
    globex_events = subscribe(globex)

    import_folder(globex, corpus_dir)

    assert acme_events() == []
    assert globex_events()[-1]["status"] == "completed"
