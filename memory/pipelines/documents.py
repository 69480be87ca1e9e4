"""Document storage for a sync (SPEC §5): a document's content hash and stored version, its
statements stored as facts with their entities, relationships and mention links, and the
batched deletion of documents with everything derived from them.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.models import Document, Entity, Fact, PipelineRun, Relationship, Source, Workspace
from memory.pipelines import entities as entity_extraction
from memory.pipelines.extract import MAX_CHARS, Statement, message_statements, statements
from memory.pipelines.llm import LlmError, llm_enabled, llm_extract
from memory.pipelines.tree import area_for, ensure_section, topic_for
from memory.sources.base import RawDocument

DELETE_BATCH = 200  # documents deleted (with their facts, links and relationships) per DELETE


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


def stored_hash(source_id: int, path: str) -> tuple[int, str] | None:
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


def document_store(source: Source, raw: RawDocument, digest: str, table: EntityTable, run: PipelineRun) -> None:
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
            ents, rels = entity_extraction.statement_entities(
                fact.statement,
                author=found_statement.author,
                client_document=client_doc,
                own_name=workspace.name,
                parent=found_statement.parent,
            )
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
