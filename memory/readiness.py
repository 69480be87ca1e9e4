"""Memory readiness, exactly the rule table of SPEC §3.1: a read of rows, beside the selectors.

`STATES` is the one table of what each state says: the Developer API's
`estimated_wait_message` and the tool error an MCP tool answers while memory cannot be served
(SPEC §2.3: `no_sources_connected`, `memory_not_ready`, `memory_unavailable`,
`entitlement_required`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import connection

from memory.models import Fact, IndexVersion, PipelineRun, Section, Source, Workspace
from pam.errors import EntitlementRequired, PamError

READY_STATES = ("ready_minimal", "ready_rich")


@dataclass(frozen=True)
class StateMessages:
    wait: str | None  # `estimated_wait_message`; None once memory is ready
    error_code: str | None  # the tool error in this state; None when memory is served
    error: str | None = None


_NOT_READY = "Company memory is still being built. Retry when it is ready."
STATES: dict[str, StateMessages] = {
    "not_provisioned": StateMessages(
        "This workspace has no active plan: memory is not available.",
        "entitlement_required",
        EntitlementRequired.MESSAGE,
    ),
    "waiting_for_sources": StateMessages(
        "Connect a source to start building memory.",
        "no_sources_connected",
        "No sources are connected to this workspace yet. Connect a source so PAM can build company memory.",
    ),
    "processing": StateMessages(
        "Sources are connected but initial sync has not finished yet.", "memory_not_ready", _NOT_READY
    ),
    "syncing_to_vm": StateMessages(
        "The first build is done and is being published to the search index.", "memory_not_ready", _NOT_READY
    ),
    "error": StateMessages(
        "Every source's latest sync failed: check the pipeline runs and sync again.",
        "memory_unavailable",
        "Every sync of this workspace's sources failed; memory is unavailable. Retry after a successful sync.",
    ),
    "ready_minimal": StateMessages(None, None),
    "ready_rich": StateMessages(None, None),
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
    return serving_get(workspace=workspace).readiness


_COLUMNS = (
    "connected", "completed", "latest_failed", "latest_run", "published_version", "published_facts",
    "published_sections", "building", "has_context_markdown", "deleting",
)


@lru_cache(maxsize=None)
def _readiness_sql() -> str:
    """One statement for every row count readiness needs. Written as SQL (the same on SQLite
    and PostgreSQL) because compiling the equivalent nested ORM subqueries cost about 4 ms of
    Python per call, against 0.3 ms for the database to run it."""

    def table(model: Any) -> str:
        return str(connection.ops.quote_name(model._meta.db_table))

    def col(model: Any, field: str) -> str:
        return str(connection.ops.quote_name(model._meta.get_field(field).column))

    ws_source, ws_run, src_run = col(Source, "workspace"), col(PipelineRun, "workspace"), col(PipelineRun, "source")
    ws_version, ws_section = col(IndexVersion, "workspace"), col(Section, "workspace")
    run_id, status, src_id = col(PipelineRun, "id"), col(PipelineRun, "status"), col(Source, "id")
    version, v_status = col(IndexVersion, "version"), col(IndexVersion, "status")
    source, run, versions, section = table(Source), table(PipelineRun), table(IndexVersion), table(Section)
    # A source counts as completed when its latest *finished* run completed: a re-sync in
    # progress keeps it counted, a failed latest run takes it out (SPEC §3.1).
    latest_finished = (
        f"(SELECT r.{status} FROM {run} r WHERE r.{src_run} = s.{src_id} AND r.{status} IN (%s, %s) "
        f"ORDER BY r.{run_id} DESC LIMIT 1)"
    )
    latest = f"(SELECT r.{status} FROM {run} r WHERE r.{src_run} = s.{src_id} ORDER BY r.{run_id} DESC LIMIT 1)"
    published = (
        f"FROM {versions} v WHERE v.{ws_version} = %s AND v.{v_status} = %s ORDER BY v.{version} DESC LIMIT 1"
    )
    return (
        "SELECT "
        f"(SELECT COUNT(*) FROM {source} s WHERE s.{ws_source} = %s), "
        f"(SELECT COUNT(*) FROM {source} s WHERE s.{ws_source} = %s AND {latest_finished} = %s), "
        f"(SELECT COUNT(*) FROM {source} s WHERE s.{ws_source} = %s AND {latest} = %s), "
        f"(SELECT r.{status} FROM {run} r WHERE r.{ws_run} = %s ORDER BY r.{run_id} DESC LIMIT 1), "
        f"(SELECT v.{version} {published}), "
        f"(SELECT v.{col(IndexVersion, 'fact_count')} {published}), "
        f"(SELECT v.{col(IndexVersion, 'section_count')} {published}), "
        f"EXISTS (SELECT 1 FROM {versions} v WHERE v.{ws_version} = %s AND v.{v_status} = %s), "
        f"EXISTS (SELECT 1 FROM {section} x WHERE x.{ws_section} = %s "
        f"AND x.{col(Section, 'markdown')} <> ''), "
        f"(SELECT COUNT(*) FROM {source} s WHERE s.{ws_source} = %s AND s.{col(Source, 'status')} = %s)"
    )


def _readiness_row(workspace_id: int) -> dict[str, Any]:
    done, failed = str(PipelineRun.Status.COMPLETED.value), str(PipelineRun.Status.FAILED.value)
    published, building = str(IndexVersion.Status.PUBLISHED.value), str(IndexVersion.Status.BUILDING.value)
    params: list[int | str] = [
        workspace_id,
        workspace_id, done, failed, done,
        workspace_id, failed,
        workspace_id,
        workspace_id, published,
        workspace_id, published,
        workspace_id, published,
        workspace_id, building,
        workspace_id,
        workspace_id, str(Source.Status.DELETING.value),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_readiness_sql(), params)
        return dict(zip(_COLUMNS, cursor.fetchone()))


@dataclass(frozen=True)
class Serving:
    """What a retrieval needs to know before it searches, read in one query."""

    readiness: Readiness
    version: int | None  # the newest published index version
    hides_sources: bool  # some source is being deleted: its facts are hidden until removed


def serving_get(*, workspace: Workspace) -> Serving:
    """The readiness, the newest published index version and whether a source is being
    deleted, read in one query (the hot path of every retrieve_memory call); the fact count
    is a second query only while nothing is published."""
    row = _readiness_row(workspace.pk)
    connected = int(row["connected"])
    completed = int(row["completed"])
    latest_pipeline_status = row["latest_run"]
    version = row["published_version"]
    is_published = version is not None
    building = bool(row["building"])
    fact_count = (
        int(row["published_facts"]) if is_published else Fact.objects.filter(workspace=workspace).count()
    )
    has_facts = fact_count > 0
    has_context_markdown = bool(row["has_context_markdown"])
    has_tree_index = is_published and int(row["published_sections"]) > 0

    if not workspace.entitled:
        state = "not_provisioned"
    elif connected == 0:
        state = "waiting_for_sources"
    elif is_published:
        rich = has_facts and has_context_markdown and has_tree_index and fact_count >= settings.PAM_RICH_MIN_FACTS
        state = "ready_rich" if rich else "ready_minimal"
    elif int(row["latest_failed"]) == connected:  # every source's latest run failed
        state = "error"
    elif building:
        state = "syncing_to_vm"
    else:
        state = "processing"

    readiness = Readiness(
        ready=state in READY_STATES,
        state=state,
        connected_sources_count=connected,
        completed_sources_count=completed,
        latest_pipeline_status=latest_pipeline_status,
        estimated_wait_message=STATES[state].wait,
        has_facts=has_facts,
        has_context_markdown=has_context_markdown,
        has_tree_index=has_tree_index,
    )
    return Serving(readiness=readiness, version=version, hides_sources=int(row["deleting"]) > 0)


def readiness_require(readiness: Readiness) -> None:
    """Raise the tool error of a state in which memory cannot be served (SPEC §2.3)."""
    messages = STATES[readiness.state]
    if messages.error_code is None:
        return
    assert messages.error is not None
    if messages.error_code == "entitlement_required":
        raise EntitlementRequired(messages.error)
    raise PamError(messages.error_code, messages.error)
