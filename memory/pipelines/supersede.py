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
from collections import defaultdict
from typing import AbstractSet, Iterable

from memory.engine.text import terms
from memory.models import Fact, Workspace

MAX_POSTING = 200  # terms in more facts than this are too common to find candidates with
_PERIOD = re.compile(r"(?:19|20)\d\d|q[1-4]|h[12]")
_VALUE = re.compile(r"\d")
_SUBJECT_TYPES = ("project", "organization", "product")


_NOISE = frozenset({"now", "new", "still", "current", "updat", "chang", "longer"})


def _same_statement_shape(shared: int, a: AbstractSet[str], b: AbstractSet[str], common_subjects: frozenset[str]) -> bool:
    """Mostly the same words: half of the longer statement, or nearly all of the shorter one
    when both name the same project, organisation or product."""
    if shared / max(1, len(a), len(b)) >= 0.5:
        return True
    return bool(common_subjects) and shared / max(1, min(len(a), len(b))) >= 0.85


def _later(a: dt.date | None, b: dt.date | None) -> bool:
    return a is not None and (b is None or a > b)


def _name_terms(person_keys: frozenset[str]) -> set[str]:
    return {t for key in person_keys for t in terms(key.split(":", 1)[-1])}


def _changed_value(diff: AbstractSet[str], names: set[str]) -> bool:
    """The words only one side has are a value (a number, a date, a person) and at most one
    other word: "$49 … minimum" vs "$59", "30 minutes" vs "15 minutes", not "Starter … 50
    seats … limit" vs "Pro … $59"."""
    diff = diff - _NOISE
    values = {w for w in diff if _VALUE.search(w) or w in names}
    return bool(values) and len(diff - values) <= 1


def supersession_update(*, workspace: Workspace, document_ids: Iterable[int]) -> int:
    """Recompute `superseded_by` for the facts of the changed documents against the whole
    workspace; returns how many facts are superseded afterwards. Safe to run twice."""
    changed = set(document_ids)
    # Only dated facts can supersede or be superseded.
    rows = Fact.objects.filter(workspace=workspace, effective_date__isnull=False).values_list(
        "id", "document_id", "statement", "effective_date"
    )
    if not changed:
        return 0
    subjects: dict[int, frozenset[str]] = defaultdict(frozenset)
    people: dict[int, frozenset[str]] = defaultdict(frozenset)
    links = Fact.entities.through.objects.filter(fact__workspace=workspace).values_list(
        "fact_id", "entity__key", "entity__type"
    )
    subject_sets: dict[int, set[str]] = defaultdict(set)
    people_sets: dict[int, set[str]] = defaultdict(set)
    for fact_id, key, etype in links.iterator(chunk_size=10000):
        if etype in _SUBJECT_TYPES:
            subject_sets[fact_id].add(key)
        elif etype == "person":
            people_sets[fact_id].add(key)
    subjects.update({k: frozenset(v) for k, v in subject_sets.items()})
    people.update({k: frozenset(v) for k, v in people_sets.items()})

    info = {}
    postings: dict[str, list[int]] = defaultdict(list)
    common: set[str] = set()  # terms too frequent to find candidates with: their lists are dropped
    for fid, did, statement, eff in rows.iterator(chunk_size=5000):
        words = frozenset(terms(statement))
        if fid not in people_sets and not any(_VALUE.search(w) for w in words):
            continue  # no value that could change (number, date, person): never superseded
        info[fid] = (did, words, eff)
        for word in words:
            if word in common:
                continue
            posting = postings[word]
            posting.append(fid)
            if len(posting) > MAX_POSTING:
                common.add(word)
                del postings[word]

    superseded: dict[int, int] = {}
    for fid, (did, words, eff) in info.items():
        if did not in changed or eff is None:
            continue
        counts: dict[int, int] = defaultdict(int)
        for word in words:
            for other in postings.get(word, ()):
                counts[other] += 1
        for other in counts:
            if other not in info:
                continue
            o_did, o_words, o_eff = info[other]
            shared = len(words & o_words)
            if other == fid or o_did == did or o_eff is None or o_eff == eff:
                continue
            if not _same_statement_shape(shared, words, o_words, subjects[fid] & subjects[other]):
                continue
            if subjects[fid] != subjects[other]:
                continue
            if {w for w in words if _PERIOD.fullmatch(w)} != {w for w in o_words if _PERIOD.fullmatch(w)}:
                continue
            names = _name_terms(people[fid] | people[other])
            if not (_changed_value(words - o_words, names) and _changed_value(o_words - words, names)):
                continue
            newer, older = (fid, other) if eff > o_eff else (other, fid)
            current = superseded.get(older)
            if current is None or _later(info[newer][2], info[current][2]):
                superseded[older] = newer
    # Facts of the changed documents are rewritten from scratch; others keep earlier marks
    # unless a new decision above replaces them.
    for older, newer in superseded.items():
        Fact.objects.filter(id=older).update(superseded_by_id=newer)
    return Fact.objects.filter(workspace=workspace, superseded_by__isnull=False).count()
