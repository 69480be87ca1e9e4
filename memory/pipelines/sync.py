"""The run lifecycle (SPEC §7 runs): claim, lease and heartbeat, the stages of one sync
(fetch/parse → store documents → supersession → tree → publish), the removal run of a source
being deleted, and the reaper's marks. Storing one document is `documents`; handing runs to a
worker is `memory.tasks` (never imported here).

The same function runs in-process (`import_source`, the embedded default) and inside the
Celery task. Incremental: a content hash per document; unchanged documents are skipped,
changed ones re-extracted, removed ones take their facts with them. Retrieval keeps serving
the last published index until the new one is published.
"""

from __future__ import annotations

import logging
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterator

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from memory.engine.index import index_publish
from memory.models import Document, IndexVersion, PipelineRun, Source
from memory.pipelines import heap
from memory.pipelines.documents import (
    EntityTable,
    content_hash,
    document_store,
    documents_delete,
    entities_prune,
    stored_hash,
)
from memory.pipelines.progress import progress_publish
from memory.pipelines.supersede import supersession_update
from memory.pipelines.tree import tree_rebuild
from memory.sources.base import Skipped
from memory.sources.registry import kind_for

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
STALE_QUEUED = timedelta(minutes=10)
SEEN_BATCH = 500  # unchanged documents stamped with the run per UPDATE
Progress = Callable[[PipelineRun], None]


class LeaseLost(Exception):
    """Another worker owns this run now (the reaper judged this one dead)."""


class TransientError(Exception):
    """A backing service failed mid-run; the task retries the run from the start."""


def _lease() -> timedelta:
    # A run's worker renews its lease at every progress save (every 10 documents and every
    # stage); PAM_PIPELINE_LEASE_SECONDS (default 300) must comfortably exceed that interval.
    return timedelta(seconds=settings.PAM_PIPELINE_LEASE_SECONDS)


def _claim(run_id: int) -> int | None:
    """Conditional UPDATE: only one worker moves a queued run to running. Returns the attempt
    number that fences this worker's later writes, or None when the run is not queued."""
    now = timezone.now()
    with transaction.atomic():
        row = (
            PipelineRun.objects.select_for_update()
            .filter(id=run_id, status=PipelineRun.Status.QUEUED)
            .values("attempts", "source_id")
            .first()
        )
        if row is None:
            return None
        busy = PipelineRun.objects.filter(
            source_id=row["source_id"], status=PipelineRun.Status.RUNNING, lease_expires_at__gt=now
        ).exists()
        if busy:
            return None  # runs of one source never overlap: the running one dispatches this
        attempt = row["attempts"] + 1
        PipelineRun.objects.filter(id=run_id).update(
            status=PipelineRun.Status.RUNNING,
            stage="fetch",
            started_at=now,
            lease_expires_at=now + _lease(),
            attempts=attempt,
            finished_at=None,
        )
    return attempt


def _save_progress(run: PipelineRun, progress: Progress | None, **fields: object) -> None:
    """Persist progress and renew the lease (the heartbeat); fenced by the attempt number so a
    worker the reaper gave up on can no longer write."""
    for name, value in fields.items():
        setattr(run, name, value)
    run.lease_expires_at = timezone.now() + _lease()
    values = {
        name: getattr(run, name) for name in [*fields.keys(), "lease_expires_at", "errors", "skipped", "llm_calls"]
    }
    updated = PipelineRun.objects.filter(
        id=run.pk, attempts=run.attempts, status=PipelineRun.Status.RUNNING
    ).update(**values)
    if not updated:
        raise LeaseLost(f"run {run.pk} attempt {run.attempts} lost its lease")
    progress_publish(run)
    if progress:
        progress(run)


def _count_files(root: Path) -> int:
    if root.is_file():
        return 1
    return sum(
        len([f for f in files if not f.startswith(".")])
        for _, dirs, files in os.walk(root)
        if not dirs.__setitem__(slice(None), [d for d in dirs if not d.startswith(".")])
    )


def _source_status(source_id: int, status: str, **fields: object) -> None:
    """A sync's mark on its source; a source being deleted keeps `deleting`."""
    Source.objects.filter(pk=source_id).exclude(status=Source.Status.DELETING).update(status=status, **fields)


def _remove(run: PipelineRun, source: Source, progress: Progress | None) -> None:
    """The run of a source being deleted: its documents go (with their facts and
    relationships), then its stored files, the tree is rebuilt and memory published without
    them; last, the source row goes with its runs, this one included. Retrieval hides the
    source's facts from the DELETE until then."""
    workspace = source.workspace
    _save_progress(run, progress, stage="delete", progress_total=source.documents.count(), progress_done=0)
    documents_delete(Document.objects.filter(source=source))
    entities_prune(workspace=workspace)
    if source.stored_by_pam:
        shutil.rmtree(source.location, ignore_errors=True)
    _save_progress(run, progress, stage="tree", progress_done=run.progress_total)
    tree_rebuild(workspace=workspace)
    if IndexVersion.objects.filter(workspace=workspace, status=IndexVersion.Status.PUBLISHED).exists():
        _save_progress(run, progress, stage="publish")
        index_publish(workspace=workspace)
    _save_progress(run, progress, stage="done", status=PipelineRun.Status.COMPLETED, finished_at=timezone.now())
    source.delete()


@contextmanager
def _run_failures(run: PipelineRun, attempt: int, progress: Progress | None, *, marks_source: bool) -> Iterator[None]:
    """How a run ends when its body raises: another worker took over (stop quietly), the
    database failed (back to the queue: TransientError, the task retries) or anything else
    (the run, and with `marks_source` its source, failed with the error recorded)."""
    try:
        yield
    except LeaseLost:
        logger.warning("run %s: another worker took over; this one stops", run.pk)
    except (OperationalError, InterfaceError) as exc:
        # The database (or its connection) failed: hand the run back to the queue so the
        # task's retry, or the reaper, runs it again from the start.
        logger.warning("run %s hit a transient error: %s", run.pk, exc)
        PipelineRun.objects.filter(id=run.pk, attempts=attempt).update(status=PipelineRun.Status.QUEUED)
        raise TransientError(str(exc)) from exc
    except Exception as exc:
        logger.exception("run %s of source %s failed", run.pk, run.source_id)
        run.errors.append({"document": "", "message": f"{type(exc).__name__}: {exc}"[:500]})
        try:
            _save_progress(run, progress, status=PipelineRun.Status.FAILED, finished_at=timezone.now())
            if marks_source:
                _source_status(run.source_id, Source.Status.FAILED)
        except LeaseLost:
            pass


def _sync(run: PipelineRun, source: Source, progress: Progress | None) -> None:
    """The stages of one sync: documents (parse, extract, store; removed ones deleted) →
    supersession → tree → publish."""
    workspace = source.workspace
    root = Path(source.location)
    if not root.exists():
        raise FileNotFoundError(f"{source.location} does not exist")
    kind = kind_for(source.kind)
    _save_progress(run, progress, stage="extract", progress_total=_count_files(root), progress_done=0)
    table = EntityTable(workspace)
    # Nothing per document is kept in memory: each one's stored hash is looked up as it
    # arrives, and the documents found unchanged are stamped with the run SEEN_BATCH at a time.
    documents = Document.objects.filter(source=source)
    unchanged: list[int] = []
    done = 0
    for item in kind.iter_documents(root, max_bytes=settings.PAM_MAX_UPLOAD_BYTES):
        done += 1
        if isinstance(item, Skipped):
            if item.error:
                run.errors.append({"document": item.path, "message": item.reason})
            else:
                run.skipped.append({"document": item.path, "reason": item.reason})
        else:
            digest = content_hash(item)
            stored = stored_hash(source.pk, item.path)
            if stored is not None and stored[1] == digest:
                unchanged.append(stored[0])
                if len(unchanged) >= SEEN_BATCH:
                    documents.filter(id__in=unchanged).update(synced_run=run.pk)
                    unchanged = []
            else:
                try:
                    document_store(source, item, digest, table, run)
                except (OperationalError, InterfaceError):
                    raise
                except Exception as exc:  # one bad document never fails the run
                    logger.exception("document %s failed", item.path)
                    table = EntityTable(workspace)  # entities it created were rolled back
                    run.errors.append({"document": item.path, "message": f"{type(exc).__name__}: {exc}"[:500]})
                    if stored is not None:
                        unchanged.append(stored[0])  # keeps its last good version
        if done % 10 == 0 or done == run.progress_total:
            _save_progress(run, progress, progress_done=done, progress_total=max(done, run.progress_total))
    documents.filter(id__in=unchanged).update(synced_run=run.pk)
    del table  # an entity each: not kept through the later stages
    # The source no longer has them: their facts, links and relationships go with them.
    documents_delete(documents.exclude(synced_run=run.pk))
    _save_progress(run, progress, stage="tree", progress_done=done, progress_total=max(done, run.progress_total))
    supersession_update(source=source)
    heap.release()
    tree_rebuild(workspace=workspace)
    entities_prune(workspace=workspace)
    _save_progress(run, progress, stage="publish")
    index_publish(workspace=workspace)
    heap.release()
    now = timezone.now()
    _save_progress(run, progress, stage="done", status=PipelineRun.Status.COMPLETED, finished_at=now)
    _source_status(source.pk, Source.Status.READY, last_synced_at=now)


def source_sync(*, run_id: int, progress: Progress | None = None) -> PipelineRun | None:
    """Run one queued sync to the end; a run not queued (claimed elsewhere, finished) is left
    alone. Every stage is safe to run twice: documents are matched by content hash, the tree
    is rebuilt from rows and a publication is a new complete version."""
    attempt = _claim(run_id)
    run = PipelineRun.objects.select_related("source__workspace").filter(id=run_id).first()
    if attempt is None or run is None:
        return run  # not queued (claimed, finished, waiting for a running one) or deleted
    source = run.source
    if source.status == Source.Status.DELETING:
        with _run_failures(run, attempt, progress, marks_source=False):
            _remove(run, source, progress)
        return run
    heap.tune()
    _source_status(source.pk, Source.Status.SYNCING)
    run.errors, run.skipped = [], []
    with _run_failures(run, attempt, progress, marks_source=True):
        _sync(run, source, progress)
    return run


@dataclass
class Reaped:
    """What `runs_reap_marks` did, and the runs to hand to a worker again."""

    counts: dict[str, int]
    to_send: list[int]


def runs_reap_marks(*, now: datetime | None = None) -> Reaped:
    """Find runs whose worker died (lease expired) and queue them again, or fail them after
    MAX_ATTEMPTS; find queued runs whose task message was lost. The caller sends `to_send`."""
    now = now or timezone.now()
    counts = {"resumed": 0, "failed": 0, "resent": 0}
    to_send: list[int] = []
    for run in PipelineRun.objects.filter(status=PipelineRun.Status.RUNNING, lease_expires_at__lt=now):
        if run.attempts >= MAX_ATTEMPTS:
            errors = [*run.errors, {"document": "", "message": f"the worker died {run.attempts} times; giving up"}]
            if PipelineRun.objects.filter(id=run.pk, attempts=run.attempts, status=PipelineRun.Status.RUNNING).update(
                status=PipelineRun.Status.FAILED, finished_at=now, errors=errors
            ):
                _source_status(run.source_id, Source.Status.FAILED)
                counts["failed"] += 1
            continue
        if PipelineRun.objects.filter(id=run.pk, attempts=run.attempts, status=PipelineRun.Status.RUNNING).update(
            status=PipelineRun.Status.QUEUED, stage="queued", queued_at=now
        ):
            to_send.append(run.pk)
            counts["resumed"] += 1
    stale = PipelineRun.objects.filter(status=PipelineRun.Status.QUEUED, queued_at__lt=now - STALE_QUEUED)
    for run_id in stale.values_list("id", flat=True):
        if PipelineRun.objects.filter(id=run_id, status=PipelineRun.Status.QUEUED).update(queued_at=now):
            to_send.append(run_id)  # claiming is conditional: a duplicate is harmless
            counts["resent"] += 1
    return Reaped(counts=counts, to_send=to_send)
