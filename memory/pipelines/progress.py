"""Pipeline progress events for the dashboard: Channels group `workspace_<id>_pipeline`
(SPEC §7), pushed best-effort (`pam.events`): a dead channel layer never fails a sync.
"""

from __future__ import annotations

from memory.models import PipelineRun
from pam.events import group_push


def pipeline_group(workspace_id: int) -> str:
    return f"workspace_{workspace_id}_pipeline"


def progress_event(run: PipelineRun) -> dict[str, object]:
    return {
        "type": "pipeline.progress",
        "run_id": run.pk,
        "source_id": run.source_id,
        "stage": run.stage,
        "done": run.progress_done,
        "total": run.progress_total,
        "status": run.status,
    }


def progress_publish(run: PipelineRun) -> None:
    group_push(pipeline_group(run.workspace_id), progress_event(run))
