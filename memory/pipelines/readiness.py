"""Memory readiness, exactly the rule table of SPEC §3.1."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.db.models import OuterRef, Subquery

from memory.models import Fact, IndexVersion, PipelineRun, Section, Source, Workspace

READY_STATES = ("ready_minimal", "ready_rich")
WAIT_MESSAGES = {
    "not_provisioned": "This workspace has no active plan: memory is not available.",
    "waiting_for_sources": "Connect a source to start building memory.",
    "processing": "Sources are connected but initial sync has not finished yet.",
    "syncing_to_vm": "The first build is done and is being published to the search index.",
    "error": "Every source's latest sync failed: check the pipeline runs and sync again.",
}


@dataclass(frozen=True)
class Readiness:
    ready: bool
    state: str
    connected_sources_count: int
    completed_sources_count: int
    latest_pipeline_status: str | None
    estimated_wait_message: str | None
    has_facts: bool
    has_context_markdown: bool
    has_tree_index: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def readiness_get(*, workspace: Workspace) -> Readiness:
    sources = Source.objects.filter(workspace=workspace)
    latest_status = PipelineRun.objects.filter(source=OuterRef("pk")).order_by("-id").values("status")[:1]
    # A source counts as completed when its latest *finished* run completed: a re-sync in
    # progress keeps it counted, a failed latest run takes it out (SPEC §3.1).
    finished_status = (
        PipelineRun.objects.filter(
            source=OuterRef("pk"),
            status__in=[PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED],
        )
        .order_by("-id")
        .values("status")[:1]
    )
    source_rows = list(
        sources.annotate(latest=Subquery(latest_status), finished=Subquery(finished_status)).values(
            "latest", "finished"
        )
    )
    connected = len(source_rows)
    completed = sum(1 for row in source_rows if row["finished"] == PipelineRun.Status.COMPLETED)
    latest_run = PipelineRun.objects.filter(workspace=workspace).order_by("-id").values("status").first()
    latest_pipeline_status = latest_run["status"] if latest_run else None

    published = (
        IndexVersion.objects.filter(workspace=workspace, status=IndexVersion.Status.PUBLISHED)
        .order_by("-version")
        .first()
    )
    building = IndexVersion.objects.filter(
        workspace=workspace, status=IndexVersion.Status.BUILDING
    ).exists()
    fact_count = published.fact_count if published else Fact.objects.filter(workspace=workspace).count()
    has_facts = fact_count > 0
    has_context_markdown = Section.objects.filter(workspace=workspace).exclude(markdown="").exists()
    has_tree_index = published is not None and published.section_count > 0

    if not workspace.entitled:
        state = "not_provisioned"
    elif connected == 0:
        state = "waiting_for_sources"
    elif published is not None:
        rich = has_facts and has_context_markdown and has_tree_index and fact_count >= settings.PAM_RICH_MIN_FACTS
        state = "ready_rich" if rich else "ready_minimal"
    elif source_rows and all(row["latest"] == PipelineRun.Status.FAILED for row in source_rows):
        state = "error"
    elif building:
        state = "syncing_to_vm"
    else:
        state = "processing"

    return Readiness(
        ready=state in READY_STATES,
        state=state,
        connected_sources_count=connected,
        completed_sources_count=completed,
        latest_pipeline_status=latest_pipeline_status,
        estimated_wait_message=None if state in READY_STATES else WAIT_MESSAGES[state],
        has_facts=has_facts,
        has_context_markdown=has_context_markdown,
        has_tree_index=has_tree_index,
    )
