"""Pipeline runs: conditional claims, leases, the reaper, fencing, idempotence (DESIGN §3.6).

Tasks run in-process in both CI runs (the service run has no worker here); what a task saw
when it started is recorded through Celery's `task_prerun` signal.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Iterator

import pytest
from celery.signals import task_prerun
from django.conf import settings
from django.utils import timezone

from memory.engine import retrieve
from memory.engine.index import published_version
from memory.models import Document, Entity, Fact, IndexVersion, PipelineRun, Relationship, Section, Source, Workspace
from memory.pipelines import sync
from memory.pipelines.sync import MAX_ATTEMPTS, STALE_QUEUED, LeaseLost, source_sync
from memory.services import source_delete
from memory.tasks import resync_sources_task, runs_reap, sync_source_task
from tests.conftest import run_create

MERIDIAN_OWNER = "Platform Engineering owns the Meridian platform rollout through Q3."
NEW_OWNER = "Data Engineering owns the Meridian platform rollout through Q4."


@pytest.fixture(autouse=True)
def _tasks_run_in_process(settings: Any) -> None:
    # The service run sets a Redis broker and starts no worker for these tests.
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def task_starts() -> Iterator[list[dict[str, Any]]]:
    """The run row as each sync task found it when it started."""
    seen: list[dict[str, Any]] = []

    def record(sender: Any = None, args: Any = None, **kwargs: Any) -> None:
        if getattr(sender, "name", "") == "memory.tasks.sync_source_task":
            seen.append(dict(PipelineRun.objects.filter(pk=args[0]).values("id", "status", "stage", "queued_at").get()))

    task_prerun.connect(record, weak=False)
    yield seen
    task_prerun.disconnect(record)


@pytest.fixture
def source(workspace: Workspace, corpus_dir: Path) -> Source:
    return Source.objects.create(workspace=workspace, name="corpus", kind="auto", location=str(corpus_dir))


def lease() -> dt.timedelta:
    return dt.timedelta(seconds=settings.PAM_PIPELINE_LEASE_SECONDS)


def claimed(source: Source) -> PipelineRun:
    """A run a worker claimed and then went silent on (it died)."""
    run = run_create(source=source)
    assert sync._claim(run.pk) == 1
    run.refresh_from_db()
    return run


def after_lease(run: PipelineRun, seconds: int = 1) -> dt.datetime:
    assert run.lease_expires_at is not None
    return run.lease_expires_at + dt.timedelta(seconds=seconds)


# --- claiming -----------------------------------------------------------------------------


def test_only_one_claim_of_a_queued_run_succeeds(source: Source) -> None:
    run = run_create(source=source)

    assert sync._claim(run.pk) == 1
    assert sync._claim(run.pk) is None
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("running", 1)
    assert run.started_at is not None
    assert run.lease_expires_at is not None and run.lease_expires_at > timezone.now()


@pytest.mark.parametrize("status", ["running", "completed", "failed"])
def test_a_sync_of_a_run_that_is_not_queued_does_nothing(source: Source, status: str) -> None:
    run = run_create(source=source)
    PipelineRun.objects.filter(pk=run.pk).update(status=status, stage="elsewhere", attempts=1)

    result = source_sync(run_id=run.pk)

    assert (result.status, result.stage, result.attempts) == (status, "elsewhere", 1)
    run.refresh_from_db()
    assert (run.status, run.stage, run.attempts) == (status, "elsewhere", 1)
    assert not Document.objects.exists()
    assert not IndexVersion.objects.exists()


def test_a_task_delivered_twice_runs_the_sync_once(source: Source) -> None:
    run = run_create(source=source)

    assert source_sync(run_id=run.pk).status == "completed"
    versions = IndexVersion.objects.count()
    facts = sorted(Fact.objects.values_list("id", flat=True))
    again = source_sync(run_id=run.pk)

    assert (again.status, again.attempts) == ("completed", 1)
    assert IndexVersion.objects.count() == versions
    assert sorted(Fact.objects.values_list("id", flat=True)) == facts


def test_a_task_for_a_run_whose_source_was_deleted_does_nothing(source: Source) -> None:
    run = run_create(source=source)
    Source.objects.filter(pk=source.pk).delete()

    source_sync(run_id=run.pk)

    assert not Document.objects.exists()
    assert not PipelineRun.objects.exists()


# --- dispatching (memory.tasks: pipelines never import the tasks) --------------------------


def test_a_run_queued_behind_another_starts_when_that_one_ends(
    source: Source, task_starts: list[dict[str, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    first = PipelineRun.objects.create(workspace=source.workspace, source=source)
    behind = PipelineRun.objects.create(workspace=source.workspace, source=source)

    with django_capture_on_commit_callbacks(execute=True):
        assert sync_source_task.delay(first.pk).get() == "completed"

    assert [s["id"] for s in task_starts] == [first.pk, behind.pk]
    behind.refresh_from_db()
    assert behind.status == "completed"


def test_a_run_that_finds_its_source_busy_dispatches_nothing(
    source: Source, task_starts: list[dict[str, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    running = claimed(source)
    waiting = PipelineRun.objects.create(workspace=source.workspace, source=source)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert sync_source_task.delay(waiting.pk).get() == "queued"

    assert callbacks == []
    assert [s["id"] for s in task_starts] == [waiting.pk]
    assert PipelineRun.objects.get(pk=running.pk).status == "running"


def test_the_periodic_resync_queues_server_side_sources_only(
    workspace: Workspace, source: Source, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    Source.objects.filter(pk=source.pk).update(status=Source.Status.READY)
    Source.objects.create(workspace=workspace, name="items", kind="items", location=str(tmp_path / "i"), status="ready")
    Source.objects.create(
        workspace=workspace, name="upload", kind="auto", location=str(tmp_path / "u"), status="ready", config={"upload": True}
    )
    Source.objects.create(workspace=workspace, name="new", kind="auto", location=str(tmp_path / "n"))

    with django_capture_on_commit_callbacks(execute=True):
        assert resync_sources_task.delay().get() == 1

    assert list(PipelineRun.objects.values_list("source_id", "status")) == [(source.pk, "completed")]


# --- the reaper -----------------------------------------------------------------------------


def test_a_run_whose_lease_expired_is_queued_again_and_completes(
    source: Source, task_starts: list[dict[str, Any]]
) -> None:
    run = claimed(source)
    assert runs_reap(now=after_lease(run, seconds=-1)) == {"resumed": 0, "failed": 0, "resent": 0}

    counts = runs_reap(now=after_lease(run))

    assert counts == {"resumed": 1, "failed": 0, "resent": 0}
    assert [(s["id"], s["status"], s["stage"]) for s in task_starts] == [(run.pk, "queued", "queued")]
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("completed", 2)
    assert Source.objects.get(pk=source.pk).status == "ready"
    assert source.documents.count() == 4


def test_a_run_is_failed_after_max_attempts(source: Source, task_starts: list[dict[str, Any]]) -> None:
    run = claimed(source)
    PipelineRun.objects.filter(pk=run.pk).update(attempts=MAX_ATTEMPTS)  # it died MAX_ATTEMPTS times
    now = after_lease(run)

    counts = runs_reap(now=now)

    assert counts == {"resumed": 0, "failed": 1, "resent": 0}
    assert task_starts == []
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.finished_at == now
    assert run.errors[-1]["document"] == ""
    assert f"died {MAX_ATTEMPTS} times" in run.errors[-1]["message"]
    assert Source.objects.get(pk=source.pk).status == "failed"
    assert runs_reap(now=now + lease()) == {"resumed": 0, "failed": 0, "resent": 0}


def test_a_run_one_attempt_short_of_the_limit_is_still_resumed(
    source: Source, task_starts: list[dict[str, Any]]
) -> None:
    run = claimed(source)
    PipelineRun.objects.filter(pk=run.pk).update(attempts=MAX_ATTEMPTS - 1)

    assert runs_reap(now=after_lease(run))["resumed"] == 1
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("completed", MAX_ATTEMPTS)


def test_a_running_run_with_a_live_lease_is_left_alone(source: Source, task_starts: list[dict[str, Any]]) -> None:
    run = claimed(source)

    assert runs_reap() == {"resumed": 0, "failed": 0, "resent": 0}
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("running", 1)
    assert task_starts == []


def test_a_queued_run_whose_task_was_lost_is_resent_once(source: Source, task_starts: list[dict[str, Any]]) -> None:
    run = run_create(source=source)
    fresh = run.queued_at + STALE_QUEUED - dt.timedelta(seconds=1)
    assert runs_reap(now=fresh) == {"resumed": 0, "failed": 0, "resent": 0}
    now = run.queued_at + STALE_QUEUED + dt.timedelta(seconds=1)

    counts = runs_reap(now=now)
    again = runs_reap(now=now)

    assert counts == {"resumed": 0, "failed": 0, "resent": 1}
    assert again == {"resumed": 0, "failed": 0, "resent": 0}
    assert [(s["id"], s["status"], s["queued_at"]) for s in task_starts] == [(run.pk, "queued", now)]
    run.refresh_from_db()
    assert (run.status, run.attempts) == ("completed", 1)


# --- fencing ---------------------------------------------------------------------------------


def test_a_worker_that_lost_its_lease_cannot_write(source: Source) -> None:
    run = claimed(source)
    # The reaper re-queued the run and another worker claimed it: attempt 2 owns it now.
    PipelineRun.objects.filter(pk=run.pk).update(attempts=run.attempts + 1)
    before = PipelineRun.objects.filter(pk=run.pk).values().get()

    with pytest.raises(LeaseLost):
        sync._save_progress(run, None, stage="publish", progress_done=99, status="completed")

    assert PipelineRun.objects.filter(pk=run.pk).values().get() == before


def test_a_worker_whose_run_was_requeued_cannot_write(source: Source) -> None:
    run = claimed(source)
    PipelineRun.objects.filter(pk=run.pk).update(status="queued")
    before = PipelineRun.objects.filter(pk=run.pk).values().get()

    with pytest.raises(LeaseLost):
        sync._save_progress(run, None, stage="tree")

    assert PipelineRun.objects.filter(pk=run.pk).values().get() == before


def test_the_worker_holding_the_lease_renews_it(source: Source) -> None:
    run = claimed(source)
    PipelineRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - dt.timedelta(seconds=1))
    before = timezone.now()

    sync._save_progress(run, None, stage="extract", progress_done=2)

    run.refresh_from_db()
    assert (run.stage, run.progress_done) == ("extract", 2)
    assert run.lease_expires_at is not None
    assert before + lease() <= run.lease_expires_at <= timezone.now() + lease()


def test_a_sync_that_loses_its_lease_midway_stops_without_publishing(source: Source) -> None:
    run = run_create(source=source)

    def another_worker_takes_over(current: PipelineRun) -> None:
        if current.stage == "extract":
            PipelineRun.objects.filter(pk=current.pk).update(attempts=current.attempts + 1)

    result = source_sync(run_id=run.pk, progress=another_worker_takes_over)

    run.refresh_from_db()
    assert (run.status, run.attempts) == ("running", 2)  # left to the worker that owns it
    assert run.stage == "extract"
    assert result.status == "running"
    assert not IndexVersion.objects.exists()


# --- idempotence and deletion ---------------------------------------------------------------


def test_syncing_the_same_source_twice_adds_no_duplicate_facts(source: Source) -> None:
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"
    first = sorted(Fact.objects.values_list("id", "document_id", "statement"))
    documents = sorted(Document.objects.values_list("id", "content_hash"))

    assert source_sync(run_id=run_create(source=source).pk).status == "completed"

    assert sorted(Fact.objects.values_list("id", "document_id", "statement")) == first
    assert sorted(Document.objects.values_list("id", "content_hash")) == documents
    statements = list(Fact.objects.values_list("document_id", "statement"))
    assert len(statements) == len(set(statements))
    assert list(
        IndexVersion.objects.filter(status="published").order_by("version").values_list("version", "fact_count")
    ) == [(1, len(first)), (2, len(first))]
    assert published_version(source.workspace) == 2


def test_deleting_a_source_deletes_everything_derived_from_it(
    workspace: Workspace, source: Source, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"
    other_folder = tmp_path / "pricing"
    other_folder.mkdir()
    (other_folder / "pricing.md").write_text("# Pricing\n\nThe Pro plan costs $59 per seat per month.\n")
    other = Source.objects.create(workspace=workspace, name="pricing", kind="auto", location=str(other_folder))
    assert source_sync(run_id=run_create(source=other).pk).status == "completed"
    assert Relationship.objects.filter(source=source).exists()
    kept = set(Fact.objects.filter(source=other).values_list("id", flat=True))

    with django_capture_on_commit_callbacks(execute=True):
        source_delete(source=source)

    assert not Source.objects.filter(pk=source.pk).exists()
    for model in (Document, Fact, Relationship, PipelineRun):
        assert not model.objects.filter(source_id=source.pk).exists(), model.__name__
    assert set(Fact.objects.values_list("id", flat=True)) == kept
    assert not Entity.objects.filter(facts__isnull=True, outgoing__isnull=True, incoming__isnull=True).exists()
    assert not Section.objects.filter(parent__isnull=False, facts__isnull=True).exists()
    assert set(Section.objects.filter(parent__isnull=True).values_list("title", flat=True)) == {"Financials"}
    latest = IndexVersion.objects.filter(status="published").latest("version")
    assert latest.fact_count == len(kept)
    assert MERIDIAN_OWNER not in [f.statement for f in retrieve(workspace, "Who owns the Meridian rollout?").facts]


# --- serving while a sync runs ----------------------------------------------------------------


def test_retrieval_serves_the_published_memory_while_a_run_is_queued_or_running(
    imported_workspace: Workspace,
) -> None:
    source = Source.objects.get(workspace=imported_workspace)
    version = published_version(imported_workspace)
    queued = run_create(source=source)
    assert retrieve(imported_workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER

    assert sync._claim(queued.pk) == 1

    assert retrieve(imported_workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER
    assert published_version(imported_workspace) == version


def test_retrieval_serves_the_last_published_version_until_the_new_one_is_published(
    imported_workspace: Workspace, corpus_dir: Path
) -> None:
    source = Source.objects.get(workspace=imported_workspace)
    meridian = corpus_dir / "projects" / "meridian.md"
    meridian.write_text(meridian.read_text().replace(MERIDIAN_OWNER, NEW_OWNER))
    seen: dict[str, list[str]] = {}

    def ask_during_the_run(run: PipelineRun) -> None:
        if run.stage in ("tree", "publish") and run.stage not in seen:
            seen[run.stage] = [f.statement for f in retrieve(imported_workspace, "Who owns the Meridian rollout?").facts]

    run = source_sync(run_id=run_create(source=source).pk, progress=ask_during_the_run)

    assert run.status == "completed"
    assert seen["tree"][0] == MERIDIAN_OWNER  # the new facts are in the rows, not yet published
    assert seen["publish"][0] == MERIDIAN_OWNER
    after = [f.statement for f in retrieve(imported_workspace, "Who owns the Meridian rollout?").facts]
    assert after[0] == NEW_OWNER
    assert MERIDIAN_OWNER not in after
