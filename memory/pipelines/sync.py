"""One sync of one source: claim → fetch/parse → extract → build the tree → publish.

The same function runs in-process (`import_source`, the embedded default) and inside the
Celery task. Incremental: a content hash per document; unchanged documents are skipped,
changed ones re-extracted, removed ones take their facts with them. Retrieval keeps serving
the last published index until the new one is published.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.engine.index import index_publish
from memory.models import Document, Entity, Fact, PipelineRun, Relationship, Source, Workspace
from memory.pipelines import entities as entity_extraction
from memory.pipelines import heap
from memory.pipelines.extract import MAX_CHARS, Statement, message_statements, statements
from memory.pipelines.llm import LlmError, llm_enabled, llm_extract
from memory.pipelines.progress import progress_publish
from memory.pipelines.supersede import supersession_update
from memory.pipelines.tree import area_for, ensure_section, topic_for, tree_rebuild
from memory.sources.base import RawDocument, Skipped
from memory.sources.folder import kind_for

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
STALE_QUEUED = timedelta(minutes=10)
SEEN_BATCH = 500  # unchanged documents stamped with the run per UPDATE
DELETE_BATCH = 200  # documents deleted (with their facts, links and relationships) per DELETE
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


def content_hash(doc: RawDocument) -> str:
    digest = hashlib.sha256()
    for part in (doc.title, doc.doc_date.isoformat() if doc.doc_date else "", doc.text):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


def _label(text: str) -> str:
    return " ".join(w.lower() for w in entity_extraction.WORDS.findall(text))


class EntityTable:
    """The workspace's entities by key, with what linking asks of them kept up to date as
    entities are added (rebuilt for every document, it cost a pass over all entities each)."""

    def __init__(self, workspace: Workspace) -> None:
        self.by_key: dict[str, Entity] = {}
        self.labels: dict[str, str] = {}  # label (4+ characters) as mentions() matches it → key
        self._other_names: set[str] = set()  # what follows each ':' in the keys of non-people
        for entity in Entity.objects.filter(workspace=workspace).order_by("id"):
            self.add(entity)

    def add(self, entity: Entity) -> None:
        self.by_key[entity.key] = entity
        if len(entity.label) >= 4:
            self.labels[_label(entity.label)] = entity.key
        if not entity.key.startswith("person:"):
            colon = entity.key.find(":")
            while colon >= 0:
                self._other_names.add(entity.key[colon + 1 :])
                colon = entity.key.find(":", colon + 1)

    def names_other_than_a_person(self, label: str) -> bool:
        """Some organisation, team or project has this (normalised) label."""
        return entity_extraction.normalise(label) in self._other_names


def _stored_hash(source_id: int, path: str) -> tuple[int, str] | None:
    """The stored document's id and content hash: one lookup by the (source, path) unique index
    per arriving document. Plain SQL, because building the ORM query cost 0.5-1 ms a document
    (30 µs this way), seconds on every re-sync of a large source."""
    with connection.cursor() as cursor:
        cursor.execute(_stored_hash_sql(), [source_id, path])
        row = cursor.fetchone()
    return (int(row[0]), str(row[1])) if row is not None else None


@lru_cache(maxsize=None)
def _stored_hash_sql() -> str:
    meta: Any = Document._meta

    def name(field: str) -> str:
        return str(connection.ops.quote_name(meta.get_field(field).column))

    table = connection.ops.quote_name(meta.db_table)
    return f"SELECT {name('id')}, {name('content_hash')} FROM {table} WHERE {name('source')} = %s AND {name('path')} = %s"


def documents_delete(documents: QuerySet[Document]) -> int:
    """Delete the documents with everything derived from them, DELETE_BATCH at a time: Django
    collects the rows a cascade reaches before deleting them, so one DELETE of a large source
    would hold all its facts in memory at once. Returns how many documents were deleted."""
    deleted = 0
    while ids := list(documents.order_by("id").values_list("id", flat=True)[:DELETE_BATCH]):
        Document.objects.filter(id__in=ids).delete()
        deleted += len(ids)
    return deleted


def entities_prune(*, workspace: Workspace) -> None:
    """Delete the entities no fact or relationship refers to any more."""
    Entity.objects.filter(workspace=workspace, facts__isnull=True).exclude(
        Q(outgoing__isnull=False) | Q(incoming__isnull=False)
    ).delete()


def _llm_statements(raw: RawDocument, run: PipelineRun) -> list[Statement] | None:
    """The optional LLM extractor; None (use the local one) when it fails."""
    run.llm_calls += 1
    try:
        found = llm_extract(raw.title, raw.text)
    except LlmError as exc:
        run.errors.append({"document": raw.path, "message": f"{exc}; used the local extractor"})
        return None
    return [Statement(text[:MAX_CHARS], raw.title, position) for position, text in enumerate(found)]


def _store_document(source: Source, raw: RawDocument, digest: str, table: EntityTable, run: PipelineRun) -> None:
    """Store the document (stamped with the run, its facts pending supersession) and replace
    its facts with freshly extracted ones."""
    workspace = source.workspace
    area = area_for(raw.path, raw.title)
    section = ensure_section(workspace, area, topic_for(raw.title))
    client_doc = area == "Relationships"
    now = timezone.now()
    # Extract before the transaction: a slow extractor (the optional LLM) never holds a lock.
    found: list[Statement] | None = None
    if raw.messages is not None:
        found = message_statements(raw.title, raw.messages)
    elif llm_enabled():
        found = _llm_statements(raw, run)
    if found is None:
        found = statements(raw.title, raw.text, raw.fmt)
    with transaction.atomic():
        document, created = Document.objects.update_or_create(
            source=source,
            path=raw.path,
            defaults={
                "workspace": workspace,
                "synced_run": run.pk,
                "supersession_pending": True,
                "title": raw.title,
                "content_hash": digest,
                "text": raw.text,
                "doc_date": raw.doc_date,
                "metadata": raw.metadata,
                "updated_at": now,
            },
        )
        if not created:
            Fact.objects.filter(document=document).delete()
        facts = Fact.objects.bulk_create(
            [
                Fact(
                    workspace=workspace,
                    source=source,
                    document=document,
                    section=section,
                    statement=s.text,
                    heading_path=s.heading_path[:1000],
                    position=s.position,
                    locator=s.locator,
                    effective_date=s.effective_date or raw.doc_date,
                )
                for s in found
            ]
        )
        links = []
        known = table.by_key
        for fact, found_statement in zip(facts, found):
            ents, rels = entity_extraction.extract(fact.statement, client_document=client_doc)
            author = found_statement.author.strip()
            if author and "@" not in author and len(author.split()) >= 2:
                # The sender of a message is a person: the same key as in documents, so one
                # person in Slack, mail and documents is one entity.
                ents.append(entity_extraction.EntityFound(author, "person"))
            for ent in list(ents):
                if ent.type == "organization" and ent.properties.get("relationship_to_company") == "client":
                    # "client_of" points at the workspace's own organisation.
                    own = entity_extraction.EntityFound(workspace.name, "organization", {"relationship_to_company": "self"})
                    ents.append(own)
                    rels.append(entity_extraction.RelationFound(ent, "client_of", own))
            keys = set()
            for ent in ents:
                if ent.type == "person" and table.names_other_than_a_person(ent.label):
                    continue  # already known as an organisation, team or project
                entity = known.get(ent.key)
                if entity is None:
                    entity, _ = Entity.objects.get_or_create(
                        workspace=workspace, key=ent.key, defaults={"label": ent.label, "type": ent.type}
                    )
                    table.add(entity)
                if ent.properties and any(entity.properties.get(k) != v for k, v in ent.properties.items()):
                    # Newer documents win: properties are applied in effective-date order of arrival.
                    entity.properties = {**entity.properties, **ent.properties}
                    entity.save(update_fields=["properties"])
                keys.add(ent.key)
            for rel in rels:
                Relationship.objects.create(
                    workspace=workspace,
                    source=source,
                    fact=fact,
                    subject=known[rel.subject.key],
                    type=rel.type,
                    target=known[rel.target.key],
                    properties=rel.properties,
                )
            # Entities are linked wherever a statement mentions them by name (labels of 4+ chars).
            keys |= entity_extraction.mentions(fact.statement, table.labels)
            links += [Fact.entities.through(fact_id=fact.pk, entity_id=known[k].pk) for k in keys]
        Fact.entities.through.objects.bulk_create(links, ignore_conflicts=True)


def source_sync(*, run_id: int, progress: Progress | None = None) -> PipelineRun | None:
    """Run one queued sync to the end; a run not queued (claimed elsewhere, finished) is left
    alone. Every stage is safe to run twice: documents are matched by content hash, the tree
    is rebuilt from rows and a publication is a new complete version."""
    attempt = _claim(run_id)
    run = PipelineRun.objects.select_related("source__workspace").filter(id=run_id).first()
    if attempt is None or run is None:
        return run  # not queued (claimed, finished, waiting for a running one) or deleted
    source = run.source
    workspace = source.workspace
    heap.tune()
    Source.objects.filter(pk=source.pk).update(status=Source.Status.SYNCING)
    run.errors, run.skipped = [], []
    try:
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
                stored = _stored_hash(source.pk, item.path)
                if stored is not None and stored[1] == digest:
                    unchanged.append(stored[0])
                    if len(unchanged) >= SEEN_BATCH:
                        documents.filter(id__in=unchanged).update(synced_run=run.pk)
                        unchanged = []
                else:
                    try:
                        _store_document(source, item, digest, table, run)
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
        Source.objects.filter(pk=source.pk).update(status=Source.Status.READY, last_synced_at=now)
    except LeaseLost:
        logger.warning("run %s: another worker took over; this one stops", run_id)
    except (OperationalError, InterfaceError) as exc:
        # The database (or its connection) failed: hand the run back to the queue so the
        # task's retry, or the reaper, runs it again from the start.
        logger.warning("run %s hit a transient error: %s", run_id, exc)
        PipelineRun.objects.filter(id=run_id, attempts=attempt).update(status=PipelineRun.Status.QUEUED)
        raise TransientError(str(exc)) from exc
    except Exception as exc:
        logger.exception("sync of source %s failed", source.pk)
        run.errors.append({"document": "", "message": f"{type(exc).__name__}: {exc}"[:500]})
        try:
            _save_progress(run, progress, status=PipelineRun.Status.FAILED, finished_at=timezone.now())
            Source.objects.filter(pk=source.pk).update(status=Source.Status.FAILED)
        except LeaseLost:
            pass
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
                Source.objects.filter(pk=run.source_id).update(status=Source.Status.FAILED)
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
