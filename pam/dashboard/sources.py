"""The Sources page of the dashboard (SPEC §5, §6, §7; issue 15): the workspace's sources with
their kind, status, last sync and counts, each with its latest pipeline runs (status, stage,
progress, errors), a re-sync button and a delete button behind a confirmation.

- sources/                     the page; sources.js follows `pipeline.progress` events
                               (/ws/pipeline/) and refetches a source's card when a run ends;
- sources/<id>/                one source's card (the fragment sources.js refetches);
- sources/<id>/sync/   POST    queue a sync (`run_enqueue`, as POST /v1/dev/sources/{id}/sync);
- sources/<id>/delete/ POST    start deleting it (`source_delete`, as DELETE /v1/dev/sources/{id}).

Every source is looked up inside the page's workspace: another workspace's id is a 404 and
changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from memory.browse_selectors import source_row, source_rows
from memory.models import PipelineRun, Source, Workspace
from memory.selectors import run_list, source_get
from memory.services import source_delete
from memory.tasks import run_enqueue
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace, path_row_id
from pam.errors import PamError

RUNS_SHOWN = 5  # the latest runs of each source on the page


@dataclass(frozen=True)
class SourceCard:
    """A source (with `document_count` and `fact_count`) and its latest runs."""

    source: Source
    runs: list[PipelineRun]


def _card(workspace: Workspace, source: Source) -> SourceCard:
    return SourceCard(source, run_list(workspace=workspace, source_id=source.pk, limit=RUNS_SHOWN))


def _source(workspace: Workspace, source_id: int) -> Source:
    """The workspace's source with this id, else 404 (another workspace's id too)."""
    try:
        return source_get(workspace=workspace, source_id=path_row_id(source_id))
    except PamError as exc:
        raise Http404(exc.message) from exc


def sources_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    cards = [_card(workspace, s) for s in source_rows(workspace=workspace)]
    return render_page(
        request, "pam/dashboard/sources.html", title="Sources", nav="admin:pam-sources", workspace=workspace, cards=cards
    )


def source_card(request: HttpRequest, source_id: int) -> HttpResponse:
    workspace = dashboard_workspace(request)
    source = source_row(workspace=workspace, source_id=path_row_id(source_id))
    if source is None:
        raise Http404("Source not found.")
    return TemplateResponse(request, "pam/dashboard/sources/source.html", {"card": _card(workspace, source)})


@require_POST
def source_resync(request: HttpRequest, source_id: int) -> HttpResponse:
    source = _source(dashboard_workspace(request), source_id)
    if source.status == Source.Status.DELETING:
        messages.error(request, f"{source.name} is being deleted; it cannot be synced.")
    else:
        run = run_enqueue(source=source)
        state = "queued" if run.status == PipelineRun.Status.QUEUED else run.status
        messages.success(request, f"Sync of {source.name}: run #{run.pk} {state}.")
    return redirect(f"{reverse('admin:pam-sources')}#source-{source.pk}")


@require_POST
def source_remove(request: HttpRequest, source_id: int) -> HttpResponse:
    source = _source(dashboard_workspace(request), source_id)
    if source.status == Source.Status.DELETING:
        messages.warning(request, f"{source.name} is already being deleted.")
    else:
        source_delete(source=source)
        messages.success(request, f"Deleting {source.name}: its facts are hidden from agents now and removed by the run.")
    return redirect("admin:pam-sources")


urlpatterns = [
    path("sources/", sources_page, name="pam-sources"),
    path("sources/<int:source_id>/", source_card, name="pam-source-card"),
    path("sources/<int:source_id>/sync/", source_resync, name="pam-source-sync"),
    path("sources/<int:source_id>/delete/", source_remove, name="pam-source-delete"),
]
