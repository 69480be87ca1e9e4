"""Revisions of one document (SPEC §2.3; issue 16 point 4, newest wins): "SOP QC-07:
Temperature excursions" and "SOP QC-07: Temperature excursions (revised)", version 1.0 and
2.0 of one protocol. The newer version's statements replace the older's, though they rarely
repeat its words ("inform the customer within 30 minutes" -> "within 15 minutes of the
alarm"), so the fact-level supersession (pipelines/supersede.py) does not pair them.

Two documents are versions of one when their titles have the same words, less the words
that mark a revision and the years; the newer is the one with the higher version number
stated near its start ("Version 2.0", "v2"), or the only one that says it revises another
("supersedes", "replaces", "revised"). The map is built when an index version is published
(index.py writes it to pam_meta.json); the engine reads it there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from django.db.models.functions import Substr

from memory.engine.text import terms
from memory.models import Document, Workspace

OPENING_CHARS = 600  # where a document states its version and what it replaces
MIN_KEY_TERMS = 2  # a title of one word ("Notes") names no document in particular
MAX_VERSIONS = 5  # more documents of one title are a series (weekly notes), not versions

_REVISION_WORDS = frozenset(terms("revised revision version updated update draft final new amended"))
_YEAR = re.compile(r"(?:19|20)\d\d")
_VERSION_TERM = re.compile(r"v\d+(?:p\d+)*")  # "v2", "v2.0" as text.terms writes them
_VERSION = re.compile(r"\b(?:version|v)\s*(\d{1,3}(?:\.\d{1,3})?)\b", re.IGNORECASE)
_REVISES = re.compile(r"\b(?:supersedes|replaces|revised|revision of)\b", re.IGNORECASE)
_REPLY = re.compile(r"^\s*(?:re|fwd?|aw|tr)\s*:", re.IGNORECASE)  # a mail's reply is not a version


def title_key(title: str) -> tuple[str, ...]:
    """A title's words less revision marks and years: the same for every version."""
    return tuple(
        t for t in terms(title) if t not in _REVISION_WORDS and not _YEAR.fullmatch(t) and not _VERSION_TERM.fullmatch(t)
    )


def _version(text: str) -> float | None:
    match = _VERSION.search(text)
    return float(match.group(1)) if match else None


def newest_of(versions: list[tuple[int, float | None, bool]]) -> int | None:
    """Of (document id, the version it states, whether it says it revises another) of one
    title, the newest version's id, or None when nothing tells which is newer."""
    numbers = [number for _, number, _ in versions]
    if None not in numbers and len(set(numbers)) == len(numbers):
        return max(versions, key=lambda version: version[1] or 0.0)[0]
    revising = [did for did, _, revises in versions if revises]
    return revising[0] if len(revising) == 1 else None


def revision_map(rows: Iterable[tuple[int, str, str]]) -> dict[int, int]:
    """{older version's document id: the newest version's} over (id, title, opening) rows.
    Each row is read once; a title's group keeps its documents' ids and versions only."""
    groups: dict[tuple[str, ...], list[tuple[int, float | None, bool]]] = defaultdict(list)
    for did, title, opening in rows:
        if _REPLY.match(title):
            continue
        key = title_key(title)
        if len(key) >= MIN_KEY_TERMS:
            said = f"{title} {opening}"
            groups[key].append((did, _version(said), bool(_REVISES.search(said))))
    out: dict[int, int] = {}
    for versions in groups.values():
        if not 2 <= len(versions) <= MAX_VERSIONS:
            continue
        newest = newest_of(versions)
        if newest is not None:
            out.update({did: newest for did, _, _ in versions if did != newest})
    return out


def workspace_revisions(workspace: Workspace) -> dict[int, int]:
    """The revision map of the workspace's documents."""
    rows = (
        Document.objects.filter(workspace=workspace)
        .annotate(opening=Substr("text", 1, OPENING_CHARS))
        .values_list("id", "title", "opening")
        .iterator(chunk_size=2000)
    )
    return revision_map(rows)
