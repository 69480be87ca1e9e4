"""Which statement supersedes which: a newer fact about the same thing replaces an older one.

Two facts from different documents are about the same thing when most of the words of the
shorter one recur in the other, and they name the same projects, organisations and products.
The newer one (by effective date) supersedes the older when they differ in a value: a number,
a date or a person ("The Pro plan costs $49" → "$59"; "Tamsin Greaves is the account owner"
→ "the account owner is now Kofi"). Facts about different periods ("Q4 2025" vs "Q1 2026")
never supersede each other. Retrieval ranks superseded facts lower and says what replaced them.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections import defaultdict
from typing import AbstractSet, Any, Iterable

from memory.engine.text import terms
from memory.models import Fact, Workspace

MAX_POSTING = 200  # terms in more facts than this are too common to find candidates with
_PERIOD = re.compile(r"(?:19|20)\d\d|q[1-4]|h[12]")
_VALUE = re.compile(r"^\d[\dp]*(?:st|nd|rd|th|k|m)?$")  # 49, 1200, 99p9 (99.9), 1st; not p12 or sev1
_SUBJECT_TYPES = ("project", "organization", "product", "other")  # "other": decisions (ADR-015)


_NOISE = frozenset({"now", "new", "still", "current", "updat", "chang", "longer"})


def _same_statement_shape(shared: int, a: AbstractSet[str], b: AbstractSet[str], common_subjects: frozenset[str]) -> bool:
    """Mostly the same words: half of the longer statement, or nearly all of the shorter one
    when both name the same project, organisation or product."""
    if shared / max(1, len(a), len(b)) >= 0.5:
        return True
    return bool(common_subjects) and shared / max(1, min(len(a), len(b))) >= 0.85


def _name_terms(person_keys: frozenset[str]) -> set[str]:
    return {t for key in person_keys for t in terms(key.split(":", 1)[-1])}


def _changed_value(diff: AbstractSet[str], names: set[str]) -> bool:
    """The words only one side has are a value (a number, a date, a person) and at most one
    other word: "$49 … minimum" vs "$59", "30 minutes" vs "15 minutes", not "Starter … 50
    seats … limit" vs "Pro … $59"."""
    diff = diff - _NOISE
    values = {w for w in diff if _VALUE.match(w) or w in names}
    return bool(values) and len(diff - values) <= 1


CHUNK = 5000  # changed facts compared per pass over the workspace


def supersession_update(*, workspace: Workspace, document_ids: Iterable[int]) -> int:
    """Recompute `superseded_by` for the facts of the changed documents against the whole
    workspace; returns how many facts are superseded afterwards. Safe to run twice.

    Memory stays bounded: the changed facts are taken CHUNK at a time, and for each chunk the
    workspace's dated facts are streamed past a small term index of that chunk. Only the
    candidate pairs found are kept, then checked against their entities in one query."""
    changed = set(document_ids)
    if not changed:
        return 0
    dated = Fact.objects.filter(workspace=workspace, effective_date__isnull=False)
    changed_rows = (
        dated.filter(document_id__in=changed).order_by("id").values_list("id", "document_id", "statement", "effective_date")
    )
    superseded: dict[int, tuple[int, dt.date]] = {}
    chunk: list[tuple[int, int, str, dt.date]] = []
    for fid, did, statement, eff in changed_rows.iterator(chunk_size=CHUNK):
        if eff is not None:
            chunk.append((fid, did, statement, eff))
        if len(chunk) >= CHUNK:
            _compare_chunk(dated, chunk, superseded)
            chunk = []
    if chunk:
        _compare_chunk(dated, chunk, superseded)
    # Facts of the changed documents were written afresh; marks on other facts stand unless
    # a decision above replaces them.
    for older, (newer, _) in superseded.items():
        Fact.objects.filter(id=older).update(superseded_by_id=newer)
    return Fact.objects.filter(workspace=workspace, superseded_by__isnull=False).count()


def _entity_sets(fact_ids: Iterable[int]) -> dict[int, tuple[frozenset[str], frozenset[str]]]:
    subjects: dict[int, set[str]] = defaultdict(set)
    people: dict[int, set[str]] = defaultdict(set)
    for fact_id, key, etype in Fact.entities.through.objects.filter(fact_id__in=list(fact_ids)).values_list(
        "fact_id", "entity__key", "entity__type"
    ):
        if etype in _SUBJECT_TYPES:
            subjects[fact_id].add(key)
        elif etype == "person":
            people[fact_id].add(key)
    return {fid: (frozenset(subjects[fid]), frozenset(people[fid])) for fid in set(subjects) | set(people)}


_NONE: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def _compare_chunk(dated: Any, chunk: list[tuple[int, int, str, dt.date]], superseded: dict[int, tuple[int, dt.date]]) -> None:
    info: dict[int, tuple[int, frozenset[str], dt.date]] = {}
    postings: dict[str, list[int]] = defaultdict(list)
    common: set[str] = set()  # terms too frequent to find candidates with
    for fid, did, statement, eff in chunk:
        words = frozenset(sys.intern(t) for t in terms(statement))
        info[fid] = (did, words, eff)
        for word in words:
            if word in common:
                continue
            posting = postings[word]
            posting.append(fid)
            if len(posting) > MAX_POSTING:
                common.add(word)
                del postings[word]
    chunk_entities = _entity_sets(info)
    # The other side streams in id order, a few thousand facts (and their entities) at a time.
    batch: list[tuple[int, int, str, dt.date]] = []
    stream = dated.order_by("id").values_list("id", "document_id", "statement", "effective_date")
    for row in stream.iterator(chunk_size=2000):
        batch.append(row)
        if len(batch) >= 2000:
            _compare_batch(batch, info, postings, chunk_entities, superseded)
            batch = []
    if batch:
        _compare_batch(batch, info, postings, chunk_entities, superseded)


def _compare_batch(
    batch: list[tuple[int, int, str, dt.date]],
    info: dict[int, tuple[int, frozenset[str], dt.date]],
    postings: dict[str, list[int]],
    chunk_entities: dict[int, tuple[frozenset[str], frozenset[str]]],
    superseded: dict[int, tuple[int, dt.date]],
) -> None:
    batch_entities = _entity_sets(row[0] for row in batch)
    for ofid, odid, ostatement, oeff in batch:
        o_terms = terms(ostatement)
        candidates: set[int] = set()
        for word in o_terms:
            candidates.update(postings.get(word, ()))
        if not candidates:
            continue
        o_words = frozenset(o_terms)
        o_subjects, o_people = batch_entities.get(ofid, _NONE)
        for fid in candidates:
            did, words, eff = info[fid]
            if ofid == fid or odid == did or oeff == eff:
                continue
            subjects, people = chunk_entities.get(fid, _NONE)
            if subjects != o_subjects:
                continue
            if not _same_statement_shape(len(words & o_words), words, o_words, subjects & o_subjects):
                continue
            if {w for w in words if _PERIOD.fullmatch(w)} != {w for w in o_words if _PERIOD.fullmatch(w)}:
                continue
            names = _name_terms(people | o_people)
            if not (_changed_value(words - o_words, names) and _changed_value(o_words - words, names)):
                continue
            newer, older, newer_date = (fid, ofid, eff) if eff > oeff else (ofid, fid, oeff)
            current = superseded.get(older)
            if current is None or newer_date > current[1]:
                superseded[older] = (newer, newer_date)
