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
from itertools import islice
from typing import AbstractSet, Any, Iterable, cast

from django.db import transaction

from memory.engine.text import terms
from memory.models import Document, Fact, Source

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


def _changed_value(diff: AbstractSet[str], numbers: AbstractSet[str], names: AbstractSet[str]) -> bool:
    """The words only one side has are a value (a number, a date, a person) and at most one
    other word: "$49 … minimum" vs "$59", "30 minutes" vs "15 minutes", not "Starter … 50
    seats … limit" vs "Pro … $59". `numbers` holds the side's number-like words (_VALUE)."""
    diff = diff - _NOISE
    values = {w for w in diff if w in numbers or w in names}
    return bool(values) and len(diff - values) <= 1


CHUNK = 5000  # pending facts compared per pass over the workspace
BATCH = 2000  # workspace facts read (with their entities) per query during a pass
APPLY_BATCH = 500  # superseded marks written per UPDATE

# A fact as the comparison needs it: document, effective date (a day ordinal), distinct terms,
# subject entity keys, name terms of its people, period terms and value-like (number) terms.
_Features = tuple[int, int, frozenset[str], frozenset[str], frozenset[str], frozenset[str], frozenset[str]]
# older fact id → (newer fact id, the newer one's effective date as a day ordinal): one pass's
_Marks = dict[int, tuple[int, int]]
# (id, document id, statement, effective date, the effective date of the fact it is already
# superseded by, if any)
_Row = tuple[int, int, str, dt.date, "dt.date | None"]
_COLUMNS = ("id", "document_id", "statement", "effective_date", "superseded_by__effective_date")


def supersession_update(*, source: Source) -> int:
    """Compare the facts of the source's documents that wait for it (`supersession_pending`:
    extracted since they were last compared) with the whole workspace, and mark which
    supersede which; returns how many facts of the workspace are superseded afterwards. Safe
    to run twice, and resumable: a run that dies leaves the rest pending for the next.

    The pending facts are taken CHUNK at a time in id order (a small term index of the chunk:
    terms in more than MAX_POSTING of its facts are too common to find candidates with), and
    for each chunk the workspace's dated facts are streamed past it in id order. An older fact
    keeps the newer fact with the latest date, the first one found among equals: a mark is
    only replaced by a strictly later one, so a pair whose newer date is not later than the
    older fact's mark (found in this pass, or stored by an earlier one) is skipped before any
    word is compared. Each pass's marks are written when it ends. Memory holds one chunk, one
    batch of the stream and one pass's marks, whatever the size of the workspace."""
    workspace = source.workspace
    dated = Fact.objects.filter(workspace=workspace, effective_date__isnull=False)
    pending = dated.filter(document__source=source, document__supersession_pending=True)
    last = 0
    while chunk := cast(list[_Row], list(pending.filter(id__gt=last).order_by("id").values_list(*_COLUMNS)[:CHUNK])):
        last = chunk[-1][0]
        marks: _Marks = {}
        _compare_chunk(dated, chunk, marks)
        del chunk
        items = iter(marks.items())
        with transaction.atomic():
            while batch := list(islice(items, APPLY_BATCH)):
                Fact.objects.bulk_update(
                    [Fact(id=older, superseded_by_id=newer) for older, (newer, _) in batch], ["superseded_by"]
                )
    # Runs of one source never overlap, so no other run set these flags meanwhile.
    Document.objects.filter(source=source, supersession_pending=True).update(supersession_pending=False)
    return Fact.objects.filter(workspace=workspace, superseded_by__isnull=False).count()


def _mark_date(date: dt.date | None) -> int:
    """A stored mark's date as a day ordinal (0: no mark yet)."""
    return date.toordinal() if date is not None else 0


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
    return {fid: (_frozen(subjects[fid]), _frozen(people[fid])) for fid in set(subjects) | set(people)}


_EMPTY: frozenset[str] = frozenset()
_NONE: tuple[frozenset[str], frozenset[str]] = (_EMPTY, _EMPTY)


def _frozen(items: Iterable[str]) -> frozenset[str]:
    """A frozenset, sharing one empty one (most facts name no project and no period)."""
    return frozenset(items) or _EMPTY


def _features(
    did: int, eff: int, words: frozenset[str], entities: tuple[frozenset[str], frozenset[str]]
) -> _Features:
    subjects, people = entities
    periods = _frozen(w for w in words if _PERIOD.fullmatch(w))
    numbers = _frozen(w for w in words if _VALUE.match(w))
    return did, eff, words, subjects, _frozen(_name_terms(people)), periods, numbers


def _compare_chunk(dated: Any, chunk: list[_Row], superseded: _Marks) -> None:
    words_of: dict[int, frozenset[str]] = {}
    postings: dict[str, list[int]] = defaultdict(list)
    common: set[str] = set()  # terms too frequent to find candidates with
    stored: dict[int, int] = {}  # the chunk's facts that already have a mark: its date
    for fid, did, statement, eff, mark in chunk:
        if mark is not None:
            stored[fid] = mark.toordinal()
        words = frozenset(sys.intern(t) for t in terms(statement))
        words_of[fid] = words
        for word in words:
            if word in common:
                continue
            posting = postings[word]
            posting.append(fid)
            if len(posting) > MAX_POSTING:
                common.add(word)
                del postings[word]
    chunk_entities = _entity_sets(words_of)
    info = {
        fid: _features(did, eff.toordinal(), words_of[fid], chunk_entities.get(fid, _NONE))
        for fid, did, _, eff, _ in chunk
    }
    del words_of, chunk_entities
    # The other side streams in id order, a few thousand facts (and their entities) at a time.
    batch: list[_Row] = []
    stream = dated.order_by("id").values_list(*_COLUMNS)
    for row in stream.iterator(chunk_size=BATCH):
        batch.append(row)
        if len(batch) >= BATCH:
            _compare_batch(batch, info, postings, stored, superseded)
            batch = []
    if batch:
        _compare_batch(batch, info, postings, stored, superseded)


def _compare_batch(
    batch: list[_Row],
    info: dict[int, _Features],
    postings: dict[str, list[int]],
    stored: dict[int, int],
    superseded: _Marks,
) -> None:
    batch_entities = _entity_sets(row[0] for row in batch)
    for ofid, odid, ostatement, oeff_date, omark in batch:
        o_terms = terms(ostatement)
        candidates: set[int] = set()
        for word in o_terms:
            candidates.update(postings.get(word, ()))
        if not candidates:
            continue
        oeff = oeff_date.toordinal()
        other: _Features | None = None  # computed when a pair first needs it
        for fid in candidates:  # the set's own order decides between equally new facts
            fact = info[fid]
            did, eff = fact[0], fact[1]
            if ofid == fid or odid == did or oeff == eff:
                continue
            newer, older, newer_date = (fid, ofid, eff) if eff > oeff else (ofid, fid, oeff)
            current = superseded.get(older)
            if current is not None:
                if newer_date <= current[1]:
                    continue  # whatever the words say, this pair would not change the mark
            elif newer_date <= (_mark_date(omark) if older == ofid else stored.get(older, 0)):
                continue  # nor a pair that cannot beat the mark stored by an earlier pass
            if other is None:
                other = _features(odid, oeff, frozenset(o_terms), batch_entities.get(ofid, _NONE))
            if _supersedes(fact, other):
                superseded[older] = (newer, newer_date)


def _supersedes(fact: _Features, other: _Features) -> bool:
    """The rule for two facts of different documents and dates: the same subjects and periods,
    mostly the same words, and a changed value on both sides."""
    _, _, words, subjects, names, periods, numbers = fact
    _, _, o_words, o_subjects, o_names, o_periods, o_numbers = other
    if subjects != o_subjects or periods != o_periods:
        return False
    if not _same_statement_shape(len(words & o_words), words, o_words, subjects & o_subjects):
        return False
    pair_names = names | o_names
    return _changed_value(words - o_words, numbers, pair_names) and _changed_value(
        o_words - words, o_numbers, pair_names
    )
