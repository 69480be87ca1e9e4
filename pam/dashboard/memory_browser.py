"""The Memory page of the dashboard (SPEC §5, §6; issue 15): admins see what agents see.

- memory/                      the context tree (`Company Context > Area > Topic`) and a search
                               through the agents' own reads (`memory_search`);
- memory/sections/<id>/        a section's context markdown, its topics and its facts;
- memory/facts/, facts/<id>/   facts with their provenance (source, document, heading path,
                               effective date, superseded-by);
- memory/entities/, <id>/      entities and their relationships;
- memory/agent/, agent/<ref>/  the memories agents wrote with the XMemo tools, with who wrote
                               them, their history and audit.

Every object is looked up inside the page's workspace (`dashboard_workspace`): another
workspace's id is a 404. Query strings are checked here; a bad one is a message on the page.
Lists are keyset pages (`?after=<id>`), never counted.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.utils import timezone

from developer_api.ids import row_id
from memory.agent_memory.browse import MemoryFilters, memory_get, memory_rows
from memory.agent_memory.drafts import bucket_check
from memory.browse_selectors import (
    PAGE_SIZE,
    FactFilters,
    Page,
    keyset_page,
    entity_get,
    entity_links,
    entity_page,
    fact_entities,
    fact_get,
    fact_page,
    fact_supersedes,
    section_children,
    section_get,
    section_tree,
)
from memory.engine.live import Viewer
from memory.models import Entity, Source, User, Workspace
from memory.selectors import source_list
from pam.dashboard.markdown import render_markdown
from pam.dashboard.memory_search import memory_search_run, query_check, viewer_of
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace, path_row_id
from pam.errors import PamError

NAV = "admin:pam-memory"
TABS = (
    ("admin:pam-memory", "Tree and search"),
    ("admin:pam-memory-facts", "Facts"),
    ("admin:pam-memory-entities", "Entities"),
    ("admin:pam-memory-agent", "Agent memories"),
)
MAX_FILTER_CHARS = 100


def _page(
    request: HttpRequest, *, workspace: Workspace, template: str, title: str, tab: str, **context: Any
) -> HttpResponse:
    return render_page(
        request,
        f"pam/dashboard/{template}",
        title=title,
        nav=NAV,
        workspace=workspace,
        memory_tabs=TABS,
        memory_tab=tab,
        **context,
    )


def _id_param(request: HttpRequest, name: str, what: str) -> int | None:
    """An optional id in the query string; a bad one is ignored with a message."""
    raw = request.GET.get(name, "")
    if not raw:
        return None
    value = row_id(raw)
    if value is None:
        messages.warning(request, f"{what} must be a positive whole number; it was ignored.")
    return value


def _next_query(request: HttpRequest, page: Page[Any]) -> str:
    """The query string of the next page: the same filters, `after` moved on ("" on the last)."""
    if page.next_after is None:
        return ""
    query = request.GET.copy()
    query["after"] = str(page.next_after)
    return query.urlencode()


def _viewer(request: HttpRequest) -> Viewer:
    user = request.user
    assert isinstance(user, User)  # admin_view: signed in
    return viewer_of(user)


def _found(value: Any) -> Any:
    if value is None:
        raise Http404("Not found in this workspace.")
    return value


# --- the tree and the search --------------------------------------------------------------------


def memory_browser_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    search = None
    raw = request.GET.get("q", "")
    if raw:
        try:
            query = query_check(raw)
        except ValueError as exc:
            messages.warning(request, f"Search: the query {exc}.")
        else:
            search = memory_search_run(workspace=workspace, viewer=_viewer(request), query=query)
    return _page(
        request,
        workspace=workspace,
        template="memory_browser.html",
        title="Memory",
        tab="admin:pam-memory",
        tree=section_tree(workspace=workspace),
        search=search,
        q=raw,
    )


def memory_section_page(request: HttpRequest, section_id: int) -> HttpResponse:
    workspace = dashboard_workspace(request)
    section = _found(section_get(workspace=workspace, section_id=path_row_id(section_id)))
    facts = fact_page(
        workspace=workspace, filters=FactFilters(section_id=section.pk), after=_id_param(request, "after", "after")
    )
    return _page(
        request,
        workspace=workspace,
        template="memory/section.html",
        title=section.title,
        tab="admin:pam-memory",
        section=section,
        markdown=render_markdown(section.markdown),
        topics=section_children(section=section),
        facts=facts,
        next_query=_next_query(request, facts),
    )


# --- facts --------------------------------------------------------------------------------------


def _source_param(request: HttpRequest, sources: list[Source]) -> int | None:
    source_id = _id_param(request, "source", "source")
    if source_id is not None and source_id not in {s.pk for s in sources}:
        messages.warning(request, "No such source in this workspace; showing every source.")
        return None
    return source_id


def memory_facts_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    sources = list(source_list(workspace=workspace))
    filters = FactFilters(source_id=_source_param(request, sources), current_only=request.GET.get("current") == "1")
    facts = fact_page(workspace=workspace, filters=filters, after=_id_param(request, "after", "after"))
    return _page(
        request,
        workspace=workspace,
        template="memory/facts.html",
        title="Facts",
        tab="admin:pam-memory-facts",
        facts=facts,
        next_query=_next_query(request, facts),
        sources=sources,
        filters=filters,
    )


def memory_fact_page(request: HttpRequest, fact_id: int) -> HttpResponse:
    workspace = dashboard_workspace(request)
    fact = _found(fact_get(workspace=workspace, fact_id=path_row_id(fact_id)))
    return _page(
        request,
        workspace=workspace,
        template="memory/fact.html",
        title="Fact",
        tab="admin:pam-memory-facts",
        fact=fact,
        supersedes=fact_supersedes(fact=fact),
        entities=fact_entities(fact=fact),
    )


# --- entities -----------------------------------------------------------------------------------


def memory_entities_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    entity_type = request.GET.get("type") or None
    if entity_type is not None and entity_type not in Entity.Type.values:
        messages.warning(request, f"Unknown entity type; choose one of {', '.join(Entity.Type.values)}.")
        entity_type = None
    entities, rows = entity_page(workspace=workspace, entity_type=entity_type, after=_id_param(request, "after", "after"))
    return _page(
        request,
        workspace=workspace,
        template="memory/entities.html",
        title="Entities",
        tab="admin:pam-memory-entities",
        entities=entities,
        rows=rows,
        next_query=_next_query(request, entities),
        entity_types=Entity.Type.values,
        entity_type=entity_type,
    )


def memory_entity_page(request: HttpRequest, entity_id: int) -> HttpResponse:
    workspace = dashboard_workspace(request)
    entity = _found(entity_get(workspace=workspace, entity_id=path_row_id(entity_id)))
    links = entity_links(entity=entity, after=_id_param(request, "after", "after"))
    return _page(
        request,
        workspace=workspace,
        template="memory/entity.html",
        title=entity.label,
        tab="admin:pam-memory-entities",
        entity=entity,
        links=links,
        next_query=_next_query(request, links.facts),
    )


# --- agent memories -----------------------------------------------------------------------------


def _label_param(request: HttpRequest, name: str) -> str | None:
    value = request.GET.get(name, "").strip()
    if not value:
        return None
    if len(value) > MAX_FILTER_CHARS:
        messages.warning(request, f"{name}: at most {MAX_FILTER_CHARS} characters; the filter was ignored.")
        return None
    return value


def _memory_filters(request: HttpRequest) -> MemoryFilters:
    bucket = _label_param(request, "bucket")
    if bucket is not None:
        try:
            bucket_check(bucket)
        except ValueError as exc:
            messages.warning(request, f"bucket: {exc}; the filter was ignored.")
            bucket = None
    return MemoryFilters(
        bucket=bucket,
        team=_label_param(request, "team"),
        credential=_label_param(request, "credential"),
        include_forgotten=request.GET.get("forgotten") == "1",  # forgotten and expired ones too
        include_expired=request.GET.get("forgotten") == "1",
    )


def memory_agent_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    filters = _memory_filters(request)
    after = _id_param(request, "after", "after")
    try:
        rows = memory_rows(workspace=workspace, viewer=_viewer(request), filters=filters)
    except PamError as exc:  # a bucket or team this admin may not read
        messages.warning(request, f"{exc.message} The filter was ignored.")
        rows = memory_rows(workspace=workspace, viewer=_viewer(request), filters=MemoryFilters())
    # Newest first by id (rows are written in time order): a keyset page, never counted.
    page = keyset_page(rows, after=after, limit=PAGE_SIZE)
    return _page(
        request,
        workspace=workspace,
        template="memory/agent_memories.html",
        title="Agent memories",
        tab="admin:pam-memory-agent",
        memories=page,
        now=timezone.now(),
        next_query=_next_query(request, page),
        filters=filters,
    )


def memory_agent_detail_page(request: HttpRequest, reference: str) -> HttpResponse:
    workspace = dashboard_workspace(request)
    try:
        memory = memory_get(workspace=workspace, viewer=_viewer(request), reference=reference[:MAX_FILTER_CHARS])
    except PamError as exc:
        raise Http404(exc.message) from exc
    return _page(
        request,
        workspace=workspace,
        template="memory/agent_memory.html",
        title="Agent memory",
        tab="admin:pam-memory-agent",
        memory=memory,
        audit=list(memory.audit.order_by("id")),
        versions=list(memory.versions.order_by("-version")),
    )


urlpatterns = [
    path("memory/", memory_browser_page, name="pam-memory"),
    path("memory/sections/<int:section_id>/", memory_section_page, name="pam-memory-section"),
    path("memory/facts/", memory_facts_page, name="pam-memory-facts"),
    path("memory/facts/<int:fact_id>/", memory_fact_page, name="pam-memory-fact"),
    path("memory/entities/", memory_entities_page, name="pam-memory-entities"),
    path("memory/entities/<int:entity_id>/", memory_entity_page, name="pam-memory-entity"),
    path("memory/agent/", memory_agent_page, name="pam-memory-agent"),
    path("memory/agent/<str:reference>/", memory_agent_detail_page, name="pam-memory-agent-detail"),
]
