"""Pipeline progress events for the dashboard: Channels group `workspace_<id>_pipeline`.

A dead channel layer (Redis down) must never fail a sync, so sending is best-effort.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from memory.models import PipelineRun

logger = logging.getLogger(__name__)


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
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(pipeline_group(run.workspace_id), progress_event(run))
    except Exception as exc:  # best effort: progress is advisory
        logger.warning("could not publish pipeline progress: %s", type(exc).__name__)
