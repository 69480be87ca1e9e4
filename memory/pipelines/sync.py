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
from datetime import timedelta
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memory.engine.index import index_publish
from memory.models import Document, Entity, Fact, PipelineRun, Relationship, Source, Workspace
from memory.pipelines import entities as entity_extraction
from memory.pipelines.extract import statements
from memory.pipelines.tree import area_for, ensure_section, topic_for, tree_rebuild
from memory.sources.base import RawDocument, Skipped
from memory.sources.folder import kind_for

logger = logging.getLogger(__name__)

LEASE = timedelta(minutes=5)
Progress = Callable[[PipelineRun], None]


def run_create(*, source: Source) -> PipelineRun:
    return PipelineRun.objects.create(workspace=source.workspace, source=source)


def _claim(run_id: int) -> bool:
    """Conditional UPDATE: only one worker moves a queued run to running."""
    now = timezone.now()
    return bool(
        PipelineRun.objects.filter(id=run_id, status=PipelineRun.Status.QUEUED).update(
            status=PipelineRun.Status.RUNNING, stage="fetch", started_at=now, lease_expires_at=now + LEASE
        )
    )


def _save_progress(run: PipelineRun, progress: Progress | None, **fields: object) -> None:
    for name, value in fields.items():
        setattr(run, name, value)
    run.lease_expires_at = timezone.now() + LEASE
    run.save(update_fields=[*fields.keys(), "lease_expires_at", "errors", "skipped"])
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


def _entity_index(workspace: Workspace) -> dict[str, Entity]:
    return {e.key: e for e in Entity.objects.filter(workspace=workspace)}


def _store_document(source: Source, raw: RawDocument, digest: str, known: dict[str, Entity]) -> int:
    """Replace the document's facts with freshly extracted ones; returns the fact count."""
    workspace = source.workspace
    area = area_for(raw.path, raw.title)
    section = ensure_section(workspace, area, topic_for(raw.title))
    client_doc = area == "Relationships"
    now = timezone.now()
    with transaction.atomic():
        document, created = Document.objects.update_or_create(
            source=source,
            path=raw.path,
            defaults={
                "workspace": workspace,
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
        found = statements(raw.title, raw.text, raw.fmt)
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
                    effective_date=raw.doc_date,
                )
                for s in found
            ]
        )
        links = []
        for fact in facts:
            ents, rels = entity_extraction.extract(fact.statement, client_document=client_doc)
            keys = set()
            for ent in ents:
                entity = known.get(ent.key)
                if entity is None:
                    entity, _ = Entity.objects.get_or_create(
                        workspace=workspace, key=ent.key, defaults={"label": ent.label, "type": ent.type}
                    )
                    known[ent.key] = entity
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
            labels = {entity.label.lower(): key for key, entity in known.items()}
            keys |= entity_extraction.mentions(fact.statement, labels)
            links += [Fact.entities.through(fact_id=fact.pk, entity_id=known[k].pk) for k in keys]
        Fact.entities.through.objects.bulk_create(links, ignore_conflicts=True)
    return len(facts)


def source_sync(*, run_id: int, progress: Progress | None = None) -> PipelineRun:
    """Run one queued sync to the end; a run already claimed elsewhere is left alone."""
    if not _claim(run_id):
        return PipelineRun.objects.get(id=run_id)
    run = PipelineRun.objects.select_related("source__workspace").get(id=run_id)
    source = run.source
    workspace = source.workspace
    Source.objects.filter(pk=source.pk).update(status=Source.Status.SYNCING)
    try:
        root = Path(source.location)
        if not root.exists():
            raise FileNotFoundError(f"{source.location} does not exist")
        kind = kind_for(source.kind)
        _save_progress(run, progress, stage="extract", progress_total=_count_files(root), progress_done=0)
        known = _entity_index(workspace)
        seen: set[str] = set()
        existing = dict(Document.objects.filter(source=source).values_list("path", "content_hash"))
        done = 0
        for item in kind.iter_documents(root, max_bytes=settings.PAM_MAX_UPLOAD_BYTES):
            done += 1
            if isinstance(item, Skipped):
                if item.error:
                    run.errors.append({"document": item.path, "message": item.reason})
                else:
                    run.skipped.append({"document": item.path, "reason": item.reason})
            else:
                seen.add(item.path)
                digest = content_hash(item)
                if existing.get(item.path) != digest:
                    try:
                        _store_document(source, item, digest, known)
                    except Exception as exc:  # one bad document never fails the run
                        logger.exception("document %s failed", item.path)
                        run.errors.append({"document": item.path, "message": f"{type(exc).__name__}: {exc}"[:500]})
            if done % 10 == 0 or done == run.progress_total:
                _save_progress(run, progress, progress_done=min(done, max(run.progress_total, done)))
        removed = set(existing) - seen
        if removed:
            Document.objects.filter(source=source, path__in=removed).delete()
        _save_progress(run, progress, stage="tree", progress_done=done, progress_total=max(done, run.progress_total))
        tree_rebuild(workspace=workspace)
        # Entities no fact or relationship refers to any more.
        Entity.objects.filter(workspace=workspace, facts__isnull=True).exclude(
            Q(outgoing__isnull=False) | Q(incoming__isnull=False)
        ).delete()
        _save_progress(run, progress, stage="publish")
        index_publish(workspace=workspace)
        now = timezone.now()
        _save_progress(run, progress, stage="done", status=PipelineRun.Status.COMPLETED, finished_at=now)
        Source.objects.filter(pk=source.pk).update(status=Source.Status.READY, last_synced_at=now)
    except Exception as exc:
        logger.exception("sync of source %s failed", source.pk)
        run.errors.append({"document": "", "message": f"{type(exc).__name__}: {exc}"[:500]})
        _save_progress(run, progress, status=PipelineRun.Status.FAILED, finished_at=timezone.now())
        Source.objects.filter(pk=source.pk).update(status=Source.Status.FAILED)
    return run
