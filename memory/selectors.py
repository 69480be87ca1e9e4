"""Workspace-level reads shared by the API, tools and admin. Every lookup is tenant-scoped:
another workspace's id answers 404 `not_found`, exactly like an id that does not exist.
Readiness (SPEC §3.1), also a read of rows, is `memory.readiness`."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet

from memory.engine import Retrieval, RetrievalTimeout, retrieve
from memory.engine.index import index_for
from memory.engine.live import Viewer, live_merge, live_search, visible
from memory.engine.rank import FACT_FLOOR
from memory.engine.search import MAX_FACTS
from memory.models import PipelineRun, Source, Workspace
from memory.readiness import Readiness, readiness_require, serving_get
from memory.sources.registry import PUSHED_ITEMS
from pam.errors import DeadlineExceeded, PamError


def source_list(*, workspace: Workspace) -> QuerySet[Source]:
    return Source.objects.filter(workspace=workspace).order_by("id")


def source_get(*, workspace: Workspace, source_id: int) -> Source:
    source = Source.objects.filter(workspace=workspace, pk=source_id).first()
    if source is None:
        raise PamError("not_found", "Source not found.")
    return source


def run_next_queued(*, source_id: int) -> int | None:
    """The oldest queued run of a source (the one waiting behind a running one)."""
    return (
        PipelineRun.objects.filter(source_id=source_id, status=PipelineRun.Status.QUEUED)
        .order_by("id")
        .values_list("id", flat=True)
        .first()
    )


def sources_to_resync() -> list[Source]:
    """Every source a periodic re-sync reads again: server-side folders and files that are
    not syncing (pushed items and uploaded files change only through the API)."""
    sources = Source.objects.exclude(kind=PUSHED_ITEMS).filter(status__in=[Source.Status.READY, Source.Status.FAILED])
    return [source for source in sources if not source.config.get("upload")]


def run_list(*, workspace: Workspace, source_id: int | None = None, limit: int = 100) -> list[PipelineRun]:
    runs = PipelineRun.objects.filter(workspace=workspace).order_by("-id")
    if source_id is not None:
        runs = runs.filter(source_id=source_id)
    return list(runs[:limit])


@dataclass(frozen=True)
class MemoryAnswer:
    retrieval: Retrieval
    readiness: Readiness


def memory_retrieve(
    *, workspace: Workspace, prompt: str, history: list[str], deadline: float, viewer: Viewer | None = None
) -> MemoryAnswer:
    """SPEC §2.3 from readiness on: refuse while memory cannot be served (`PamError` with the
    code of `memory.readiness.STATES`), then triage and retrieval until `deadline`
    (`time.monotonic()`; past it, `DeadlineExceeded`). `history`: the session's earlier
    prompts, oldest first, ignored when triage is disabled. With a `viewer`, the agent
    memories it can see join the facts from the live layer (SPEC §2.4: found on the next
    call, gone once forgotten)."""
    # One query gives the readiness, the published version and whether a source is being
    # deleted; retrieval then serves exactly that version without asking the database again.
    serving = serving_get(workspace=workspace)
    readiness_require(serving.readiness)
    triage = settings.PAM_TRIAGE_ENABLED
    try:
        retrieval = retrieve(
            workspace,
            prompt,
            history if triage else [],
            deadline=deadline,
            triage_enabled=triage,
            version=serving.version,
            hide_deleting=serving.hides_sources,
        )
    except RetrievalTimeout as exc:
        raise DeadlineExceeded() from exc
    if viewer is not None and retrieval.triage.decision == "retrieve":
        index = index_for(workspace, serving.version) if serving.version is not None else None
        hits = live_search(
            workspace,
            visible(workspace, viewer),
            prompt,
            min_relevance=FACT_FLOOR,
            limit=MAX_FACTS,
            idf=index.idf if index is not None and index.num_docs else None,
        )
        retrieval = live_merge(retrieval, hits, MAX_FACTS)
    return MemoryAnswer(retrieval=retrieval, readiness=serving.readiness)
