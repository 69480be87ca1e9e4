"""Published, versioned search indexes: the one small interface between pipelines and engine.

A build writes a self-contained artefact (a tantivy index of pre-analyzed fact terms with the
fields the report needs, plus `pam_meta.json` with the section table) into
`PAM_DATA_DIR/indexes/ws_<id>/v<version>/`, renames it into place, and only then marks the
`IndexVersion` row `published`. Each web process asks the database for the newest published
version on every call (one indexed query) and opens it if it is not the one it holds, so a new
version is picked up without a restart and a half-built index is never served. A process on
another machine that lacks the artefact rebuilds it from the database rows.
"""

from __future__ import annotations

import json
import math
import shutil
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import tantivy
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, OuterRef, Subquery
from django.utils import timezone

from memory.engine import dense
from memory.engine.acronyms import Collector
from memory.engine.days import said_days
from memory.engine.revisions import workspace_revisions
from memory.engine.text import document_terms, term_set, terms
from memory.engine.tokens import estimate_tokens
from memory.models import Fact, IndexVersion, Section, Workspace

# 4: the `message` field, and chat facts' vectors encode the message before theirs.
# 5: a message's `nearby` words come from two statements on each side (MESSAGE_NEIGHBOURS).
# 6: a fact's days (`days.said_days`) among its context words.
# 7: terms with their accents folded (`text.fold`: "Kraków" is krakow, no longer krak and w).
# 8: British spellings written the American way before stemming (`spelling.american`).
# 9: a statement's hyphenated words also joined as one term (`text.document_terms`).
# 10: the names of the months a statement writes in figures ("2026-03" → march; `document_terms`).
_SCHEMA_VERSION = 10
# What the vectors encode (`_vector_texts`), numbered apart from the index's layout: a release
# that changes only the layout rebuilds the index and keeps the vectors, which on a 2-core
# machine re-encode at 50 facts a second. Unchanged since schema 4.
_VECTOR_SCHEMA = 4
# In a conversation a fact's neighbours reach two statements on each side: a reply answers a
# question asked one or two statements before, and its words are often only there ("Super
# good! It was rich and creamy", after "How did the coconut milk ice cream turn out?").
# LoCoMo conversations 1-5 (tune): turn recall@10 0.786 -> 0.794 (three: 0.793; before only:
# 0.788; the previous and next whole messages: 0.783); harbourline, Wrenfield and the demo
# unchanged, Corvane 0.976 -> 0.964 (one question: Slack messages of the person whose role is
# asked, with a neighbour's words, push one of her two roles' statements out of the ten). A
# document's statements keep one neighbour on each side: two cost harbourline's tuning half a
# question and Corvane's another.
MESSAGE_NEIGHBOURS = 2
# A message's vector also encodes the end of the message before it in its conversation: a
# reply says what the question it answers does not repeat ("Who performed at the concert?" →
# "It was Matt Patterson", after "What concert was it?"). Measured on LoCoMo conversations 1-5
# (tune): turn recall@10 0.757 -> 0.772 at 300 characters (120: 0.762, 600: 0.773), 0.780
# with selection's one fact per message (200 characters: 0.777); the companies' tuning halves
# unchanged (their facts are mostly documents, encoded alone). The cost: a conversation's
# facts encode at about 50 a second instead of 110 on this 2-core machine.
MESSAGE_CONTEXT_CHARS = 300


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("fact_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("document_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("section_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("position", stored=True)
    builder.add_integer_field("superseded", stored=True, indexed=True)
    builder.add_text_field("terms", stored=True, tokenizer_name="default")  # the statement
    builder.add_text_field("context", stored=True, tokenizer_name="default")  # headings, title
    # The statements just before and after it in its document: in a conversation the question
    # a turn answers ("What did you do at the picnic?" → "Charades and a scavenger hunt").
    builder.add_text_field("nearby", stored=True, tokenizer_name="default")
    builder.add_text_field("statement", stored=True, index_option="basic", tokenizer_name="raw")
    builder.add_text_field("source_document", stored=True, tokenizer_name="raw")
    builder.add_text_field("effective_date", stored=True, tokenizer_name="raw")
    builder.add_text_field("entities", stored=True, tokenizer_name="raw")  # "label|type" each
    builder.add_text_field("message", stored=True, tokenizer_name="raw")  # its message's id, if any
    return builder.build()


def _root(workspace_id: int) -> Path:
    return Path(settings.PAM_DATA_DIR) / "indexes" / f"ws_{workspace_id}"


def _version_dir(workspace_id: int, version: int) -> Path:
    return _root(workspace_id) / f"v{version}"


def _write_artifact(workspace: Workspace, target: Path) -> tuple[int, int]:
    """Build the artefact for the current rows into `target`; returns (facts, sections)."""
    tmp = target.with_name(target.name + f".tmp-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    index = tantivy.Index(_schema(), path=str(tmp))
    # 16 MB per segment bounds indexing memory (64 MB grew the peak by ~60 MB at 109k facts;
    # 16 MB gives 8 segments there; tantivy refuses less than 15 MB; bench/README.md).
    writer = index.writer(heap_size=16_000_000, num_threads=1)
    # Memory stays flat: nothing here holds a row per fact or per section (the acronym table
    # holds a count per distinct capitalised phrase, at most MAX_PHRASES). The facts stream in
    # id order, merged with their entity links streamed in the same order (each fact's labels
    # in entity id order); the section table goes straight to pam_meta.json afterwards.
    links = (
        Fact.entities.through.objects.filter(fact__workspace=workspace)
        .order_by("fact_id", "entity_id")
        .values_list("fact_id", "entity__label", "entity__type")
        .iterator(chunk_size=10000)
    )
    link = next(links, None)
    count = 0
    acronyms = Collector()
    last_heading = ("", "")
    rows = (
        Fact.objects.filter(workspace=workspace, section__isnull=False)
        .values_list(
            "id",
            "document_id",
            "section_id",
            "position",
            "superseded_by_id",
            "statement",
            "heading_path",
            "document__path",
            "document__title",
            "effective_date",
            "section__workspace_id",
            "section__parent_id",
            "locator",
        )
        .order_by("id")
    )
    for row, before, after in _with_neighbours(rows.iterator(chunk_size=5000)):
        fid, did, sid, pos, sup, statement, heading, doc_path, doc_title, eff, section_ws, parent, locator = row
        labels: list[str] = []
        while link is not None and link[0] <= fid:
            if link[0] == fid:
                labels.append(f"{link[1]}|{link[2]}")
            link = next(links, None)
        if section_ws != workspace.pk or parent is None:
            continue  # only the workspace's topic sections are indexed
        acronyms.add(statement)
        if (doc_title, heading) != last_heading:  # a document's facts come one after another
            acronyms.add(f"{doc_title}\n{heading}")
            last_heading = (doc_title, heading)
        writer.add_document(
            tantivy.Document(
                fact_id=fid,
                document_id=did,
                section_id=sid,
                position=pos,
                superseded=1 if sup else 0,
                terms=" ".join(document_terms(statement)),
                context=" ".join(
                    terms(f"{doc_title} {heading} {eff:%B %Y}") + said_days(eff, statement)
                    if eff
                    else terms(f"{doc_title} {heading}")
                ),
                nearby=" ".join(terms(f"{before} {after}")),
                statement=statement,
                source_document=doc_path,
                effective_date=eff.isoformat() if eff else "",
                entities=labels,
                message=locator,
            )
        )
        count += 1
    writer.commit()
    writer.wait_merging_threads()
    del writer, index
    # The same bytes as json.dumps({"schema", "facts", "revisions", "sections": [...]}), one
    # section at a time.
    indexed = (
        Fact.objects.filter(workspace=workspace, section_id=OuterRef("pk"))
        .order_by()
        .values("section_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    topics = (
        Section.objects.filter(workspace=workspace, parent__isnull=False)
        .order_by("tree_path")
        .annotate(indexed=Subquery(indexed))
        .only("id", "title", "tree_path", "file_path", "markdown")
    )
    filled = 0
    with (tmp / "pam_meta.json").open("w", encoding="utf-8") as meta:
        # Older versions of a document -> its newest (revisions.py), keys as JSON strings.
        revisions = {str(old): new for old, new in workspace_revisions(workspace).items()}
        head = {
            "schema": _SCHEMA_VERSION,
            "vector_schema": _VECTOR_SCHEMA,
            "vector_model": dense.model_name(),
            "vector_precision": dense.precision(),
            "facts": count,
            "revisions": revisions,
            "acronyms": acronyms.table(),
        }
        meta.write(json.dumps({**head, "sections": []})[:-2])
        for n, section in enumerate(topics.iterator(chunk_size=1000)):
            facts = section.indexed or 0
            filled += 1 if facts else 0
            entry = {
                "id": section.pk,
                "title": section.title,
                "tree_path": section.tree_path,
                "file_path": section.file_path,
                "tokens": estimate_tokens(section.markdown),
                "title_terms": sorted(term_set(section.tree_path.split(" > ", 1)[-1])),
                "facts": facts,
            }
            meta.write((", " if n else "") + json.dumps(entry))
        meta.write("]}")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return count, filled


def _with_neighbours(rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[tuple[Any, ...], str, str]]:
    """Each fact row (ordered by id, so a document's facts come together in position order)
    with the statements just before and after it in the same document: one on each side, or
    MESSAGE_NEIGHBOURS for a fact of a message. A few rows of look-ahead, whatever the size."""
    reach = max(1, MESSAGE_NEIGHBOURS)
    window: deque[tuple[Any, ...]] = deque(maxlen=2 * reach + 1)
    for row in rows:
        window.append(row)
        if len(window) > reach:
            yield _around(window, len(window) - 1 - reach)
    for i in range(max(0, len(window) - reach), len(window)):
        yield _around(window, i)


def _around(window: deque[tuple[Any, ...]], i: int) -> tuple[tuple[Any, ...], str, str]:
    # (id, document_id, section_id, position, superseded_by, statement, ..., locator)
    row = window[i]
    said = {(other[1], other[3]): str(other[5]) for other in window}
    position, reach = row[3], MESSAGE_NEIGHBOURS if row[12] else 1
    before = (said.get((row[1], p)) for p in range(position - reach, position))
    after = (said.get((row[1], p)) for p in range(position + 1, position + reach + 1))
    return row, " ".join(s for s in before if s is not None), " ".join(s for s in after if s is not None)


def _vector_texts(rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[int, str]]:
    """(fact id, the text its vector encodes) for (id, document, position, locator, statement)
    rows in id order: the statement, after the end of the previous message (at most
    MESSAGE_CONTEXT_CHARS) when the fact is part of a message that follows another in its
    document. A message is a run of facts of one document with the same locator."""
    message: list[str] = []  # the current message's statements
    before = ""  # the text of the message before it
    last = (None, None, "")  # the previous row's (document, position, locator)
    for fid, did, pos, locator, statement in rows:
        follows = last[0] == did and last[1] == pos - 1
        if not (follows and locator and locator == last[2]):  # a new message
            said = " ".join(message) if follows and locator else ""
            # Its end, from the start of a word.
            before = said[-MESSAGE_CONTEXT_CHARS:].split(" ", 1)[-1] if len(said) > MESSAGE_CONTEXT_CHARS else said
            message = []
        if locator:
            message.append(statement)
        last = (did, pos, locator)
        yield fid, f"{before} {statement}" if before else statement


def _build(workspace: Workspace, version: int) -> tuple[int, int]:
    """The version's artefact: the tantivy index and, with the dense stage on, its vectors
    (written before the version is marked published, so never served half-built)."""
    target = _version_dir(workspace.pk, version)
    kept = _keep_vectors(target)
    try:
        facts, sections = _write_artifact(workspace, target)
        if dense.enabled():
            rows = Fact.objects.filter(workspace=workspace, section__isnull=False).order_by("id")
            previous = _version_dir(workspace.pk, version - 1)
            dense.write_vectors(
                target,
                _vector_texts(
                    rows.values_list("id", "document_id", "position", "locator", "statement").iterator(
                        chunk_size=5000
                    )
                ),
                rows.count(),
                # An older release's vectors may encode other texts: then none of them is reused.
                previous=kept or (previous if _vectors_reusable(previous) else None),
            )
    finally:
        if kept is not None:
            shutil.rmtree(kept, ignore_errors=True)
    return facts, sections


def _keep_vectors(target: Path) -> Path | None:
    """A version rebuilt in place (built by an older release) keeps its vectors when they
    encode what this release's do: moved aside before the rebuild replaces the folder."""
    files = ("vectors.npy", "vector_ids.npy")
    if not all((target / name).exists() for name in files) or not _vectors_reusable(target):
        return None
    kept = target.with_name(f"{target.name}.vectors-{threading.get_ident()}")
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    for name in files:
        (target / name).rename(kept / name)
    return kept


def _meta_of(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads((path / "pam_meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _vectors_reusable(path: Path) -> bool:
    """Whether the folder's vectors encode what this release's do (`_VECTOR_SCHEMA`; a folder
    from before the number was written apart says it by its layout's, `schema`) with the model
    the dense stage uses now (`vector_model`; MiniLM's before it was written), at the precision
    its runtime writes now (`vector_precision`; float32 before it was written). A version of
    the other precision is still served (the same model's vectors, within cosine 0.97), but a
    publish re-encodes its facts rather than mix the two in one version."""
    meta = _meta_of(path)
    schema = meta.get("vector_schema", meta.get("schema"))
    written = meta.get("vector_precision", dense.FLOAT32)
    return schema == _VECTOR_SCHEMA and _written_by_this_model(meta) and written == dense.precision()


def _written_by_this_model(meta: dict[str, Any]) -> bool:
    """Whether the model the dense stage uses now wrote a version's vectors (MiniLM wrote those
    from before the name was recorded)."""
    return meta.get("vector_model", dense.MINILM) == dense.model_name()


def encoded_by_another_model(workspace: Workspace) -> bool:
    """Whether the workspace's published version holds vectors another model wrote
    (`PAM_DENSE_MODEL` changed since): it is served by lexical retrieval alone until it is
    published again (`index_for`)."""
    loaded = index_for(workspace) if dense.enabled() else None
    return loaded is not None and not _written_by_this_model(_meta_of(_version_dir(workspace.pk, loaded.version)))


def index_publish(*, workspace: Workspace) -> IndexVersion:
    """Build a new index version from the workspace's rows and publish it when complete."""
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        latest = IndexVersion.objects.filter(workspace=workspace).aggregate(v=Max("version"))["v"] or 0
        version = IndexVersion.objects.create(workspace=workspace, version=latest + 1)
    try:
        facts, sections = _build(workspace, version.version)
    except Exception:
        IndexVersion.objects.filter(pk=version.pk).update(status=IndexVersion.Status.FAILED)
        raise
    IndexVersion.objects.filter(pk=version.pk).update(
        status=IndexVersion.Status.PUBLISHED,
        fact_count=facts,
        section_count=sections,
        published_at=timezone.now(),
    )
    version.refresh_from_db()
    _prune(workspace.pk, keep_from=version.version - 1)
    return version


def _prune(workspace_id: int, keep_from: int) -> None:
    # Keep the previous version for processes still serving it (their open files stay valid
    # on POSIX even after unlinking); drop older ones.
    root = _root(workspace_id)
    if not root.exists():
        return
    for child in root.iterdir():
        name = child.name
        if name.startswith("v") and name[1:].isdigit() and int(name[1:]) < keep_from:
            shutil.rmtree(child, ignore_errors=True)


@dataclass
class LoadedIndex:
    workspace_id: int
    version: int
    index: tantivy.Index
    searcher: tantivy.Searcher
    num_docs: int
    sections: dict[int, dict[str, Any]]
    vectors: dense.Vectors | None = None  # with the dense stage on
    # An older version's document id -> the newest version's (revisions.py); empty when no
    # document is a version of another.
    revisions: dict[int, int] = field(default_factory=dict)
    # An acronym -> the capitalised phrase of the memory it most often stands for (acronyms.py);
    # empty for an index published before it was collected.
    acronyms: dict[str, str] = field(default_factory=dict)
    # A name said alone -> the one person it stands for, or None (search._full_name),
    # filled as prompts ask: the index does not change under it.
    first_names: dict[str, str | None] = field(default_factory=dict)
    # A capitalised phrase or word -> the record cell it names, or None (search._cell_named),
    # filled likewise.
    record_keys: dict[str, str | None] = field(default_factory=dict)
    # A capitalised phrase -> whether some fact links a person by that name (search._known_person),
    # filled likewise.
    people: dict[str, bool] = field(default_factory=dict)

    def idf(self, term: str, field: str = "terms") -> float:
        df = self.searcher.doc_freq(field, term)
        return math.log(1 + (self.num_docs - df + 0.5) / (df + 0.5))


_lock = threading.Lock()
_loaded: dict[int, LoadedIndex] = {}


def published_version(workspace: Workspace) -> int | None:
    """The newest published version number (one indexed query)."""
    return (
        IndexVersion.objects.filter(workspace=workspace, status=IndexVersion.Status.PUBLISHED)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )


def index_for(workspace: Workspace, version: int | None = None) -> LoadedIndex | None:
    """The newest published index of the workspace, opened once per process and version.
    A caller that has just read the published version (the MCP tool's readiness query returns
    it) passes it, saving the query."""
    if version is None:
        version = published_version(workspace)
    if version is None:
        return None
    current = _loaded.get(workspace.pk)
    if current is not None and current.version == version:
        return current
    with _lock:
        current = _loaded.get(workspace.pk)
        if current is not None and current.version == version:
            return current
        path = _version_dir(workspace.pk, version)
        if not (path / "pam_meta.json").exists():
            # Another machine published it: rebuild this version locally from the rows.
            _build(workspace, version)
        meta = json.loads((path / "pam_meta.json").read_text())
        if meta.get("schema") != _SCHEMA_VERSION:
            # Built by an older release: rebuild it in this release's layout.
            _build(workspace, version)
            meta = json.loads((path / "pam_meta.json").read_text())
        index = tantivy.Index.open(str(path))
        searcher = index.searcher()
        loaded = LoadedIndex(
            workspace_id=workspace.pk,
            version=version,
            index=index,
            searcher=searcher,
            num_docs=searcher.num_docs,
            sections={int(s["id"]): s for s in meta["sections"]},
            # Vectors another model wrote (PAM_DENSE_MODEL changed) are not comparable with this
            # model's: lexical retrieval until the next publish (`manage.py publish_indexes`).
            vectors=(
                dense.Vectors.open(path) if dense.enabled() and _written_by_this_model(meta) else None
            ),
            revisions={int(old): int(new) for old, new in meta.get("revisions", {}).items()},
            acronyms=meta.get("acronyms", {}),
        )
        _loaded[workspace.pk] = loaded
        return loaded
