"""memory.readiness.readiness_get: every row of the SPEC §3.1 rule table.

The rows (sources, runs, index versions, facts, sections) are built directly so each state can
be reached exactly, including the in-between states a real sync passes through too fast to see.
"""

from __future__ import annotations

from itertools import count
from typing import Any, Callable

import pytest
from django.utils import timezone

from developer_api.models import Plan
from memory.models import Document, Fact, IndexVersion, PipelineRun, Section, Source, Workspace
from memory.readiness import readiness_get

PROCESSING_MESSAGE = "Sources are connected but initial sync has not finished yet."
_ids = count(1)


def add_source(workspace: Workspace, *runs: str) -> Source:
    """A source with runs of the given statuses, oldest first."""
    n = next(_ids)
    source = Source.objects.create(workspace=workspace, name=f"source {n}", kind="auto", location=f"/srv/docs/{n}")
    for status in runs:
        PipelineRun.objects.create(workspace=workspace, source=source, status=status)
    return source


def add_run(source: Source, status: str) -> PipelineRun:
    return PipelineRun.objects.create(workspace=source.workspace, source=source, status=status)


def add_memory(workspace: Workspace, source: Source, facts: int, *, markdown: bool = True) -> Section:
    """A topic section holding `facts` facts of one document of `source`."""
    area, _ = Section.objects.get_or_create(
        workspace=workspace,
        tree_path="Company Context > Processes",
        defaults={"title": "Processes", "file_path": "company_context/processes/index.md", "markdown": "# Processes\n"},
    )
    n = next(_ids)
    topic = Section.objects.create(
        workspace=workspace,
        parent=area,
        title=f"Topic {n}",
        tree_path=f"Company Context > Processes > Topic {n}",
        file_path=f"company_context/processes/topic_{n}.md",
        markdown=f"# Topic {n}\n\n- a fact\n" if markdown else "",
        fact_count=facts,
    )
    document = Document.objects.create(
        workspace=workspace, source=source, path=f"doc-{n}.md", title=f"Doc {n}", content_hash="x" * 64, text="..."
    )
    Fact.objects.bulk_create(
        Fact(
            workspace=workspace,
            source=source,
            document=document,
            section=topic,
            statement=f"Statement number {i} of document {n}.",
            position=i,
        )
        for i in range(facts)
    )
    return topic


def publish(workspace: Workspace, *, facts: int, sections: int) -> IndexVersion:
    latest = IndexVersion.objects.filter(workspace=workspace).order_by("-version").first()
    return IndexVersion.objects.create(
        workspace=workspace,
        version=(latest.version if latest else 0) + 1,
        status=IndexVersion.Status.PUBLISHED,
        fact_count=facts,
        section_count=sections,
        published_at=timezone.now(),
    )


def start_build(workspace: Workspace) -> IndexVersion:
    latest = IndexVersion.objects.filter(workspace=workspace).order_by("-version").first()
    return IndexVersion.objects.create(
        workspace=workspace, version=(latest.version if latest else 0) + 1, status=IndexVersion.Status.BUILDING
    )


def ready_memory(workspace: Workspace, facts: int) -> Source:
    """A source whose sync completed and was published with `facts` facts in one section."""
    source = add_source(workspace, "completed")
    add_memory(workspace, source, facts)
    publish(workspace, facts=facts, sections=1)
    return source


def assert_consistent(r: Any) -> None:
    """`ready` ⇔ a ready_* state; a wait message exactly when not ready."""
    assert r.ready is (r.state in ("ready_minimal", "ready_rich"))
    if r.ready:
        assert r.estimated_wait_message is None
    else:
        assert isinstance(r.estimated_wait_message, str) and r.estimated_wait_message


@pytest.fixture
def rich_threshold(settings: Any) -> int:
    settings.PAM_RICH_MIN_FACTS = 5
    return 5


# --- not_provisioned ---------------------------------------------------------------------


def test_a_disabled_workspace_is_not_provisioned(workspace: Workspace, rich_threshold: int) -> None:
    ready_memory(workspace, facts=rich_threshold)
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)
    workspace.refresh_from_db()

    r = readiness_get(workspace=workspace)

    assert r.state == "not_provisioned"
    assert r.ready is False
    assert_consistent(r)


def test_a_workspace_on_a_disabled_plan_is_not_provisioned(workspace: Workspace, rich_threshold: int) -> None:
    ready_memory(workspace, facts=rich_threshold)
    workspace.plan = Plan.objects.create(name="lapsed", enabled=False)
    workspace.save()

    r = readiness_get(workspace=workspace)

    assert r.state == "not_provisioned"
    assert_consistent(r)


def test_a_disabled_workspace_without_sources_is_not_provisioned(workspace: Workspace) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)
    workspace.refresh_from_db()

    assert readiness_get(workspace=workspace).state == "not_provisioned"


# --- waiting_for_sources -----------------------------------------------------------------


def test_a_workspace_without_sources_is_waiting_for_sources(workspace: Workspace) -> None:
    r = readiness_get(workspace=workspace)

    assert r.state == "waiting_for_sources"
    assert r.connected_sources_count == 0
    assert r.completed_sources_count == 0
    assert r.latest_pipeline_status is None
    assert (r.has_facts, r.has_context_markdown, r.has_tree_index) == (False, False, False)
    assert_consistent(r)


# --- processing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("runs", "latest"),
    [(("queued",), "queued"), (("running",), "running"), ((), None), (("failed", "queued"), "queued")],
    ids=["queued-run", "running-run", "no-run-yet", "retry-after-a-failure"],
)
def test_connected_sources_without_a_published_memory_are_processing(
    workspace: Workspace, runs: tuple[str, ...], latest: str | None
) -> None:
    add_source(workspace, *runs)

    r = readiness_get(workspace=workspace)

    assert r.state == "processing"
    assert r.connected_sources_count == 1
    assert r.completed_sources_count == 0
    assert r.latest_pipeline_status == latest
    assert r.estimated_wait_message == PROCESSING_MESSAGE
    assert_consistent(r)


def test_it_keeps_processing_while_one_source_is_done_and_another_still_runs(workspace: Workspace) -> None:
    add_source(workspace, "completed")
    add_source(workspace, "running")

    r = readiness_get(workspace=workspace)

    assert r.state == "processing"
    assert r.connected_sources_count == 2
    assert r.completed_sources_count == 1
    assert r.latest_pipeline_status == "running"


# --- syncing_to_vm -----------------------------------------------------------------------


def test_a_first_build_being_published_is_syncing_to_vm(workspace: Workspace) -> None:
    source = add_source(workspace, "running")
    add_memory(workspace, source, 3)
    start_build(workspace)

    r = readiness_get(workspace=workspace)

    assert r.state == "syncing_to_vm"
    assert r.ready is False
    assert r.has_tree_index is False
    assert_consistent(r)


# --- ready_minimal -----------------------------------------------------------------------


def test_a_published_memory_with_fewer_facts_than_the_threshold_is_ready_minimal(
    workspace: Workspace, rich_threshold: int
) -> None:
    ready_memory(workspace, facts=rich_threshold - 1)

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_minimal"
    assert r.ready is True
    assert r.connected_sources_count == 1
    assert r.completed_sources_count == 1
    assert r.latest_pipeline_status == "completed"
    assert (r.has_facts, r.has_context_markdown, r.has_tree_index) == (True, True, True)
    assert_consistent(r)


def test_an_empty_published_memory_is_ready_minimal(workspace: Workspace) -> None:
    """A source whose files held no readable text still publishes an (empty) memory."""
    add_source(workspace, "completed")
    publish(workspace, facts=0, sections=0)

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_minimal"
    assert r.ready is True
    assert (r.has_facts, r.has_context_markdown, r.has_tree_index) == (False, False, False)
    assert_consistent(r)


def test_enough_facts_without_context_markdown_is_only_ready_minimal(
    workspace: Workspace, rich_threshold: int
) -> None:
    source = add_source(workspace, "completed")
    add_memory(workspace, source, rich_threshold, markdown=False)
    Section.objects.filter(workspace=workspace).update(markdown="")
    publish(workspace, facts=rich_threshold, sections=1)

    r = readiness_get(workspace=workspace)

    assert r.has_context_markdown is False
    assert r.state == "ready_minimal"


def test_enough_facts_without_a_tree_index_is_only_ready_minimal(workspace: Workspace, rich_threshold: int) -> None:
    source = add_source(workspace, "completed")
    add_memory(workspace, source, rich_threshold)
    publish(workspace, facts=rich_threshold, sections=0)

    r = readiness_get(workspace=workspace)

    assert r.has_tree_index is False
    assert r.state == "ready_minimal"


def test_the_threshold_is_read_from_settings(workspace: Workspace, settings: Any) -> None:
    ready_memory(workspace, facts=12)

    settings.PAM_RICH_MIN_FACTS = 13
    assert readiness_get(workspace=workspace).state == "ready_minimal"
    settings.PAM_RICH_MIN_FACTS = 12
    assert readiness_get(workspace=workspace).state == "ready_rich"


# --- ready_rich --------------------------------------------------------------------------


def test_a_published_memory_with_facts_markdown_tree_and_enough_facts_is_ready_rich(
    workspace: Workspace, rich_threshold: int
) -> None:
    ready_memory(workspace, facts=rich_threshold)

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_rich"
    assert r.ready is True
    assert (r.has_facts, r.has_context_markdown, r.has_tree_index) == (True, True, True)
    assert_consistent(r)


def test_it_judges_the_newest_published_version(workspace: Workspace, rich_threshold: int) -> None:
    source = ready_memory(workspace, facts=rich_threshold)
    add_run(source, "completed")
    Fact.objects.filter(workspace=workspace, position__gte=1).delete()
    publish(workspace, facts=1, sections=1)

    assert readiness_get(workspace=workspace).state == "ready_minimal"


# --- error -------------------------------------------------------------------------------


def test_it_is_error_when_every_sources_latest_run_failed_and_nothing_is_published(workspace: Workspace) -> None:
    add_source(workspace, "failed")
    add_source(workspace, "completed", "failed")

    r = readiness_get(workspace=workspace)

    assert r.state == "error"
    assert r.ready is False
    assert r.connected_sources_count == 2
    assert r.completed_sources_count == 0
    assert r.latest_pipeline_status == "failed"
    assert_consistent(r)


def test_it_is_not_error_while_another_source_is_still_syncing(workspace: Workspace) -> None:
    add_source(workspace, "completed", "failed")
    add_source(workspace, "running")

    r = readiness_get(workspace=workspace)

    assert r.state == "processing"
    assert r.latest_pipeline_status == "running"
    assert r.completed_sources_count == 0


def test_a_failed_build_of_the_index_does_not_count_as_published(workspace: Workspace) -> None:
    add_source(workspace, "failed")
    IndexVersion.objects.create(workspace=workspace, version=1, status=IndexVersion.Status.FAILED)

    assert readiness_get(workspace=workspace).state == "error"


# --- after the first publish -------------------------------------------------------------


def test_a_failed_source_among_working_ones_keeps_the_ready_state(workspace: Workspace, rich_threshold: int) -> None:
    ready_memory(workspace, facts=rich_threshold)
    add_source(workspace, "failed")

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_rich"
    assert r.connected_sources_count == 2
    assert r.completed_sources_count == 1
    assert r.latest_pipeline_status == "failed"


def test_a_source_whose_resync_failed_leaves_completed_sources_count(
    workspace: Workspace, rich_threshold: int
) -> None:
    source = ready_memory(workspace, facts=rich_threshold - 1)
    ready_memory(workspace, facts=0)
    add_run(source, "failed")

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_minimal"
    assert r.connected_sources_count == 2
    assert r.completed_sources_count == 1


def test_a_resync_after_publish_keeps_the_ready_state_and_shows_running(
    workspace: Workspace, rich_threshold: int
) -> None:
    source = ready_memory(workspace, facts=rich_threshold - 1)
    add_run(source, "running")
    start_build(workspace)

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_minimal"
    assert r.ready is True
    assert r.latest_pipeline_status == "running"
    assert r.completed_sources_count == 1  # still serving its last completed sync
    assert_consistent(r)


def test_a_queued_resync_after_publish_keeps_ready_rich(workspace: Workspace, rich_threshold: int) -> None:
    source = ready_memory(workspace, facts=rich_threshold)
    add_run(source, "queued")

    r = readiness_get(workspace=workspace)

    assert r.state == "ready_rich"
    assert r.latest_pipeline_status == "queued"


# --- tenancy -----------------------------------------------------------------------------


def test_it_refuses_other_workspace(make_workspace: Callable[..., Workspace], rich_threshold: int) -> None:
    """Another workspace's sources, runs, index versions and sections are never counted."""
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    ready_memory(globex, facts=rich_threshold)
    add_source(globex, "failed")
    start_build(globex)

    r = readiness_get(workspace=acme)

    assert r.state == "waiting_for_sources"
    assert r.connected_sources_count == 0
    assert r.completed_sources_count == 0
    assert r.latest_pipeline_status is None
    assert (r.has_facts, r.has_context_markdown, r.has_tree_index) == (False, False, False)


def test_another_workspaces_published_memory_does_not_make_this_one_ready(
    make_workspace: Callable[..., Workspace], rich_threshold: int
) -> None:
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    add_source(acme, "running")
    ready_memory(globex, facts=rich_threshold)

    r = readiness_get(workspace=acme)

    assert r.state == "processing"
    assert r.latest_pipeline_status == "running"


def test_as_dict_has_exactly_the_api_fields(workspace: Workspace) -> None:
    assert set(readiness_get(workspace=workspace).as_dict()) == {
        "ready",
        "state",
        "connected_sources_count",
        "completed_sources_count",
        "latest_pipeline_status",
        "estimated_wait_message",
        "has_facts",
        "has_context_markdown",
        "has_tree_index",
    }
