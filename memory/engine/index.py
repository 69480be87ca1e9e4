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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from memory.engine.text import term_set, terms
from memory.engine.tokens import estimate_tokens
from memory.models import Fact, IndexVersion, Section, Workspace

_SCHEMA_VERSION = 2


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("fact_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("document_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("section_id", stored=True, indexed=True, fast=True)
    builder.add_integer_field("position", stored=True)
    builder.add_integer_field("superseded", stored=True, indexed=True)
    builder.add_text_field("terms", stored=True, tokenizer_name="default")  # the statement
    builder.add_text_field("context", stored=True, tokenizer_name="default")  # headings, title
    builder.add_text_field("statement", stored=True, index_option="basic", tokenizer_name="raw")
    builder.add_text_field("source_document", stored=True, tokenizer_name="raw")
    builder.add_text_field("effective_date", stored=True, tokenizer_name="raw")
    builder.add_text_field("entities", stored=True, tokenizer_name="raw")  # "label|type" each
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
    writer = index.writer(heap_size=64_000_000, num_threads=1)  # bounds indexing memory
    sections: dict[int, dict[str, Any]] = {}
    for section in Section.objects.filter(workspace=workspace, parent__isnull=False).only(
        "id", "title", "tree_path", "file_path", "markdown"
    ):
        sections[section.pk] = {
            "id": section.pk,
            "title": section.title,
            "tree_path": section.tree_path,
            "file_path": section.file_path,
            "tokens": estimate_tokens(section.markdown),
            "title_terms": sorted(term_set(section.tree_path.split(" > ", 1)[-1])),
            "facts": 0,
        }
    labels: dict[int, list[str]] = {}
    links = Fact.entities.through.objects.filter(fact__workspace=workspace).values_list(
        "fact_id", "entity__label", "entity__type"
    )
    for fact_id, label, etype in links.iterator(chunk_size=10000):
        labels.setdefault(fact_id, []).append(f"{label}|{etype}")
    count = 0
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
        )
        .order_by("id")
    )
    for fid, did, sid, pos, sup, statement, heading, doc_path, doc_title, eff in rows.iterator(
        chunk_size=5000
    ):
        if sid not in sections:
            continue
        sections[sid]["facts"] += 1
        writer.add_document(
            tantivy.Document(
                fact_id=fid,
                document_id=did,
                section_id=sid,
                position=pos,
                superseded=1 if sup else 0,
                terms=" ".join(terms(statement)),
                context=" ".join(terms(f"{doc_title} {heading}")),
                statement=statement,
                source_document=doc_path,
                effective_date=eff.isoformat() if eff else "",
                entities=labels.get(fid, []),
            )
        )
        count += 1
    writer.commit()
    writer.wait_merging_threads()
    (tmp / "pam_meta.json").write_text(
        json.dumps({"schema": _SCHEMA_VERSION, "facts": count, "sections": list(sections.values())})
    )
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return count, sum(1 for s in sections.values() if s["facts"])


def index_publish(*, workspace: Workspace) -> IndexVersion:
    """Build a new index version from the workspace's rows and publish it when complete."""
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        latest = IndexVersion.objects.filter(workspace=workspace).aggregate(v=Max("version"))["v"] or 0
        version = IndexVersion.objects.create(workspace=workspace, version=latest + 1)
    try:
        facts, sections = _write_artifact(workspace, _version_dir(workspace.pk, version.version))
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

    def idf(self, term: str) -> float:
        df = self.searcher.doc_freq("terms", term)
        return math.log(1 + (self.num_docs - df + 0.5) / (df + 0.5))


_lock = threading.Lock()
_loaded: dict[int, LoadedIndex] = {}


def published_version(workspace: Workspace) -> int | None:
    return (
        IndexVersion.objects.filter(workspace=workspace, status=IndexVersion.Status.PUBLISHED)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )


def index_for(workspace: Workspace) -> LoadedIndex | None:
    """The newest published index of the workspace, opened once per process and version."""
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
            _write_artifact(workspace, path)
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
        )
        _loaded[workspace.pk] = loaded
        return loaded
