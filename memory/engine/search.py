"""Retrieval over a published index (SPEC §2.3), in named steps: triage → candidate search
(BM25, the dense stage, hiding a source being deleted) → ranking (`rank.py`, every weight) →
section targeting (`target_sections`, phase 1) → selection → a question's answer → a
superlative's row (`records.py`) → the record the prompt names → second hop → entities,
relationships and excerpts around the facts found.

Scores. Tantivy's BM25 picks and orders candidates, but BM25 values are unbounded, so the
`relevance_score` we report is calibrated differently: the share of the query's information
(the IDF weight of its terms) that the fact itself contains, synonyms counting 0.8 and terms
found only in the fact's headings 0.5. A fact scoring 0.9 holds nearly every informative word
of the question; a query whose rare words appear nowhere in memory cannot reach the floor, so
it returns no filler facts and its coverage says `none` or `minimal`.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import tantivy

from memory.engine import dense, records
from memory.engine.acronyms import expand
from memory.engine.answer_types import CONTACT_NAMES, contact_holder, contacts_asked, contacts_missing, holds_contact
from memory.engine.days import asked_days
from memory.engine.index import LoadedIndex, index_for
from memory.engine.months import asked_months, months_unstated
from memory.engine.rank import (
    ALIKE_ROWS,
    ANCHOR_MIN_IDF,
    ANCHOR_POSITION,
    ANSWERED_QUESTIONS,
    COMMON_NAME_SHARE,
    CONTACT_ATTRIBUTES,
    EXTREME_RELEVANCE,
    FACT_FLOOR,
    FOCUS_WEIGHT,
    HISTORY_WEIGHT,
    HOP_DECAY,
    HOP_EXTENSIONS,
    HOP_MAX_ADDED,
    HOP_MIN_COVERAGE,
    HOP_MIN_NAMED_PARENT,
    HOP_MIN_PARENT,
    HOP_PARENTS,
    MAX_SECTIONS,
    NEAREST_DOCUMENT_FACTS,
    NEAREST_WHEN_BELOW,
    NEWER_VERSION_SHARE,
    RECORD_ATTRIBUTES,
    RECORD_PARENTS,
    SECTION_CANDIDATES,
    SECTION_CUTOFF,
    SPEAKER,
    TITLE_HIT_SCORE,
    QueryTerm,
    Scored,
    Similarity,
    asked_terms,
    assess,
    capitalised_words,
    coverage,
    date_terms,
    distinct_nearest,
    first,
    fuse_dense_order,
    focus_terms,
    joint_coverage,
    name_terms,
    rank_candidates,
    rank_final,
    returned,
)
from memory.engine.synonyms import SYNONYM_WEIGHT, synonyms
from memory.engine.text import CAPITALS, NAME_TITLES, SMALLS, terms
from memory.engine.triage import triage as triage_prompt
from memory.engine.types import (
    ANSWER,
    HOP,
    NEWER,
    ROW,
    DocumentHit,
    EntityHit,
    FactHit,
    Phase1,
    RelationshipHit,
    Retrieval,
    RetrievalTimeout,
    TargetedSection,
    Triage,
)
from memory.models import Entity, Fact, Relationship, Source, Workspace

CANDIDATES = 80  # BM25 candidates per query
CONTEXT_BOOST = 0.4  # BM25 weight of the headings, title and date words
NEARBY_BOOST = 0.6  # BM25 weight of the neighbouring statements' words
DENSE_CANDIDATES = 40  # nearest facts by cosine added to the BM25 candidates
MAX_FACTS = 8
MAX_DOCUMENTS = 3
EXCERPT_CHARS = 700
SUMMARY_FACTS = 3
SUMMARY_CHARS = 420
HOP_CANDIDATES = 10  # facts naming a bridge read per hop
GRAPH_FACTS = 5  # the best facts whose entities are reported
GRAPH_ENTITIES = 6
GRAPH_RELATIONSHIPS = 8
GRAPH_ENTITY_IDS = 50  # entity ids read from the best facts' links
GRAPH_RELATION_ROWS = 40  # newest relationship rows among them (one per mention)
TRIAGE_HISTORY = 3  # earlier prompts triage reads
ROOT = "Company Context"
HOP_LABEL_TYPES = ("person", "team", "organization", "project")
TITLE_PHRASES = 3  # capitalised phrases of a sentence tried as bridges
_TITLE_PHRASE = re.compile(rf"[{CAPITALS}][\w'-]*(?:\s+(?:&|and|of|for)?\s*[{CAPITALS}][\w'-]*)+")
_PHRASE_OPENERS = {"the", "a", "an", "our", "this", "that", "if", "when", "all", "every"}
_FIRST_NAME = re.compile(rf"\b[{CAPITALS}][{SMALLS}]+\b(?! [{CAPITALS}])")  # a capitalised word no capitalised word follows
_HONORIFIC = re.compile(rf"\b(?:{NAME_TITLES})\.?\s+$")  # "Dr. Phelan": a surname, not a name said alone
HOLDING_HITS = 20  # best facts read to learn whether a record's cell or a message's author is a phrase
FIRST_NAMES = 2  # names said alone in a sentence tried as bridges
RECORD_KEYS = 2  # a sentence's codes, phrases or words tried as bridges for being a record's cell
# A prompt asking about a place by what happened there ("the clinic where methadone came up
# short"): a capitalised word of a sentence or message ("short at Clonmel") that a record holds
# as a whole cell (`site: Clonmel`) is a bridge. Not otherwise: one word is too often something
# else a record also holds ("one branch-day late for Brisbane", asked who posted the date).
_PLACE_ASKED = re.compile(
    r"\bthe\b[^,.;?]*\b\w+ where\b|\b(?:that|which|what|this|the same) (?:site|clinic|branch|depot|warehouse|office|"
    r"store|hospital|building|centre|center|dc|yard|location|plant|facility|practice)\b"
)
# An attribute asked of someone ("that person's line manager", "their boss"): still asked when
# the first fact holds its word in another sense ("Stuart, the site manager, will send ...").
# Not "who's" or "what's": "is", not a possessive.
_POSSESSED = re.compile(
    r"(?:(?<!\bwho)(?<!\bwhat)(?<!\bthat)(?<!\bit)(?<!\bthere)(?<!\bhere)(?<!\bwhere)(?<!\bhow)(?<!\bwhen)'s"
    r"|\b(?:their|his|her|whose))((?:\s+[\w-]+){1,2})"
)
# The same, written the other way round: "the extension of their boss", "the mobile number of
# the manager of the staff member who approved it" (the person described after the relation).
_OF_RELATED = re.compile(
    r"\b([\w-]+)(?: number| address)? of (?:their|his|her|whose|that person's|the person's|the) (?:line )?"
    r"(?:boss|manager|supervisor)\b"
)
# A thing's noun written after its name ("the Adamstown Heights job", "the Sheffield team"):
# not an attribute asked of a person. The name is a capitalised word where no sentence starts
# ("Which team ..." asks for a team), and not a possessive ("Maria's job" is hers).
_NAMED_THING = re.compile(rf"(?<![.!?:]\s)(?<=\s)[{CAPITALS}][\w'&-]*(?<!'s)\s+(job|team|department)\b")
# Words asking for someone related to a person (their manager, whom they report to): then
# another person's contact details may be the ones asked.
RELATION_ASKED = frozenset(terms("manager boss supervisor report reports"))
# "Who does that manager report to?": the person a bridge leads to is the one its fact calls a
# manager, not another person the first fact names (the CEO who wrote the message).
_DEMONSTRATED = re.compile(r"\b(?:that|this|the same)\s+([a-z]+)\b")
# "José asked someone to put a drain mat by the eyewash. Who's that person's boss?": the one
# asked about is not a person the prompt names, though a bridge leads to them too.
_UNNAMED = re.compile(r"\b(?:someone|somebody|whoever|that person|the person (?:who|that))\b")
# "Who re-booked the movers, and what's their job?": a question asking for a person, whom the
# fact's text may name doing it ("Leah: Maren is re-booking the movers"), at most DOER_SPAN
# words before the prompt's word.
_ASKS_WHO = re.compile(r"\b(?:who|whoever|which person)\b")
DOER_SPAN = 3
_ORG_LINE = re.compile(r"^([^—:;,]+?) — ")  # "Eleanor Firth — Customer Success Manager, ..."
# Whom an org chart line names as its person's manager. The pipeline's pattern
# (`pipelines.entities`) leaves out a title before the name; this one keeps it ("Dr. Conor
# Phelan"), as the record's first cell, which a record is looked up and compared by, does.
_REPORTS_TO = re.compile(rf"\b[Rr]eports to ([{CAPITALS}][\w.'-]*(?: [{CAPITALS}][\w.'-]*){{1,3}})")
# "T-118", "INC-2026-017": what a table's rows are numbered by; "MSA-A": a type its rows hold.
_CODE = re.compile(r"(?<![\w-])[A-Z]{1,5}-(?:\d[\w-]*|[A-Z\d]+(?:-[A-Z\d]+)*)(?![\w-])")
_NOT_PEOPLE = ("organization", "team", "project", "product", "other")  # the other entity types


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RetrievalTimeout()


def _query_terms(index: LoadedIndex, prompt: str, rewritten: str, written_out: dict[str, str]) -> list[QueryTerm]:
    """The prompt's terms with their weights; `written_out` is `_written_out(index, prompt)`."""
    own = asked_terms(prompt)
    focus = focus_terms(prompt)
    weights: dict[str, float] = {}
    for term in own:
        weights[term] = FOCUS_WEIGHT if term in focus else 1.0
    # "the CSM" where the memory only writes "Customer Success Manager": the phrase's words.
    for acronym, phrase in written_out.items():
        weight = weights.pop(acronym, 1.0)
        for term in terms(phrase):
            weights.setdefault(term, weight)
    if rewritten != prompt:
        for term in terms(rewritten):
            weights.setdefault(term, HISTORY_WEIGHT)
    query = [QueryTerm(t, w, index.idf(t)) for t, w in weights.items()]
    # "On 16 November, 2023": what was said or dated that day. A day is among the facts'
    # context words (their date), weighed by how few of them hold it.
    return query + [QueryTerm(day, 1.0, index.idf(day, "context")) for day in asked_days(prompt)]


def _candidates(index: LoadedIndex, query: list[QueryTerm]) -> list[tuple[float, dict[str, Any]]]:
    subqueries = []
    for q in query:
        alternatives = [q.term, *sorted(synonyms(q.term))]
        for i, term in enumerate(alternatives):
            boost = q.weight * (1.0 if i == 0 else SYNONYM_WEIGHT)
            for field, field_boost in (("terms", 1.0), ("context", CONTEXT_BOOST), ("nearby", NEARBY_BOOST)):
                subqueries.append(
                    (
                        tantivy.Occur.Should,
                        tantivy.Query.boost_query(
                            tantivy.Query.term_query(index.index.schema, field, term), boost * field_boost
                        ),
                    )
                )
    if not subqueries:
        return []
    result = index.searcher.search(tantivy.Query.boolean_query(subqueries), CANDIDATES)
    return [(float(score), index.searcher.doc(address).to_dict()) for score, address in result.hits]


def _docs_by_fact_id(index: LoadedIndex, fact_ids: list[int]) -> list[dict[str, Any]]:
    if not fact_ids:
        return []
    query = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(index.index.schema, "fact_id", f)) for f in fact_ids]
    )
    hits = index.searcher.search(query, len(fact_ids)).hits
    return [index.searcher.doc(address).to_dict() for _, address in hits]


def _fact_hit(index: LoadedIndex, doc: dict[str, Any], relevance: float, linked: str = "") -> FactHit:
    section = index.sections.get(int(first(doc, "section_id", 0)), {})
    return FactHit(
        statement=first(doc, "statement", ""),
        relevance_score=round(min(1.0, relevance), 2),
        source_path=section.get("file_path", "company_context/general/general.md"),
        section=section.get("title", ""),
        tree_path=section.get("tree_path", ROOT),
        source_document=first(doc, "source_document", ""),
        effective_date=first(doc, "effective_date", "") or None,
        fact_id=int(first(doc, "fact_id", 0)),
        document_id=int(first(doc, "document_id", 0)),
        position=int(first(doc, "position", 0)),
        superseded=bool(first(doc, "superseded", 0)),
        message=bool(first(doc, "message", "")),
        linked=linked,
    )


def retrieve(
    workspace: Workspace,
    prompt: str,
    history: list[str] | None = None,
    *,
    deadline: float | None = None,
    triage_enabled: bool = True,
    limit: int = MAX_FACTS,
    version: int | None = None,
    hide_deleting: bool = False,
) -> Retrieval:
    """Answer `prompt` from the workspace's newest published memory.

    `history` is the session's earlier prompts, oldest first (the last 3 are used);
    `deadline` is a `time.monotonic()` value past which RetrievalTimeout is raised;
    `limit` caps the facts returned (the evaluation harness asks for 10); `version` is the
    published index version when the caller has just read it (else it is looked up);
    `hide_deleting` leaves out the facts of sources being deleted (and of rows gone) while the
    published version still holds them.
    """
    if triage_enabled:
        decision = triage_prompt(prompt, list(history or [])[-TRIAGE_HISTORY:])
    else:
        decision = Triage("retrieve", "Triage is disabled: company memory was searched.", prompt)
    if decision.decision == "triage_only":
        return Retrieval(triage=decision, phase1=Phase1("narrow", 0, []))
    _check(deadline)

    index = index_for(workspace, version)
    if index is None or index.num_docs == 0:
        return Retrieval(
            triage=decision,
            phase1=Phase1("broad", 0, []),
            context_summary="The published memory holds no facts yet.",
        )
    hiding_in = workspace if hide_deleting else None
    written_out = _written_out(index, prompt)
    query = _query_terms(index, prompt, decision.rewritten_query, written_out)
    query_set = {q.term for q in query if q.weight >= 1.0}  # the prompt's own terms
    candidates, similarity = candidate_search(index, query, decision.rewritten_query or prompt, hiding_in)
    _check(deadline)

    # Best first, once, for every step that reads the candidates in rank order.
    scored = sorted(rank_candidates(candidates, query, query_set, prompt, similarity), key=lambda item: -item[0])
    targeted, section_terms = target_sections(index, scored, query_set)
    order = fuse_dense_order(rank_final(scored, set(targeted)), similarity)
    facts, seen_statements = _select(index, order, limit, query_set)
    _check(deadline)
    facts.sort(key=lambda f: -f.relevance_score)  # stable: rank order breaks ties
    facts = _with_answers(index, facts, seen_statements)
    facts = _with_extreme(index, prompt, scored, facts, seen_statements, limit)
    facts = _with_anchor(index, query, prompt, scored, facts, seen_statements, hiding_in)
    facts = _second_hop(index, query, facts, prompt, seen_statements, limit, hiding_in)
    facts = _with_record(index, query, facts, prompt, seen_statements, limit, hiding_in)
    facts = _with_newer_versions(index, query, facts, seen_statements, limit, hiding_in)
    nearest = distinct_nearest(similarity)
    # The clearly nearest fact, if the facts the rank chose hold it: one the next step places by
    # its cosine alone vouches for no answer.
    meant_fact = nearest if returned(facts, nearest) else None
    facts = _with_nearest_documents(index, scored, similarity, facts, seen_statements, limit)
    facts.sort(key=lambda f: -f.relevance_score)  # a chain's facts rank by what they hold together
    _check(deadline)

    phase1, searched = _phase1(index, targeted, section_terms, query_set, facts)
    joint = round(joint_coverage(query, _found_terms(index, facts)), 2)  # as reported, as assessed
    unknown = unknown_names(index, prompt, written_out)
    contacts = contacts_asked(prompt)
    holder = contact_holder(prompt) if contacts else []
    unheld = contacts_missing(contacts, [f.statement for f in facts], holder)
    months = asked_months(prompt)
    unstated = months_unstated(months, facts)
    assessment = assess(facts, joint, bool(unknown), meant_fact is not None, bool(unheld), bool(unstated))
    entities, relationships = _graph(workspace, facts, query_set)
    return Retrieval(
        triage=decision,
        phase1=phase1,
        context_summary=summary(facts, assessment, unheld, unstated),
        facts=facts,
        entities=entities,
        relationships=relationships,
        documents=_documents(facts),
        coverage_assessment=assessment,
        joint_coverage=joint,
        unknown_names=unknown,
        contacts_asked=contacts,
        contact_holder=holder,
        months_asked=months,
        meant_fact=meant_fact,
        sections_searched=searched,
    )


def unknown_names(index: LoadedIndex, prompt: str, written_out: dict[str, str]) -> list[str]:
    """The prompt's names (`capitalised_words`) of which no fact, heading or title holds a
    word, nor a synonym of one, and that are no acronym the memory writes out in full
    (`written_out`, "CSM"): the memory has never heard of them."""
    def known(term: str) -> bool:
        return any(_held(index, t) for t in (term, *synonyms(term)))

    return [
        name
        for name in capitalised_words(prompt)
        if (own := terms(name)) and not any(known(t) or t in written_out for t in own)
    ]


def _written_out(index: LoadedIndex, prompt: str) -> dict[str, str]:
    """The prompt's acronyms the memory never writes, each with the phrase it writes instead:
    not a person's name, whose initials they only happen to be ("my GP" is not Gareth Pryce)."""
    found = expand(prompt, index.acronyms, lambda term: _held(index, term))
    return {term: phrase for term, phrase in found.items() if not _known_person(index, phrase)}


def _held(index: LoadedIndex, term: str) -> bool:
    """Whether any fact, heading or title holds the term."""
    return any(index.searcher.doc_freq(field, term) for field in ("terms", "context"))


def _found_terms(index: LoadedIndex, facts: list[FactHit]) -> list[tuple[set[str], set[str]]]:
    """Each fact's terms and context terms, as ranking saw them."""
    return _doc_terms(_docs_by_fact_id(index, [f.fact_id for f in facts]))


def candidate_search(
    index: LoadedIndex, query: list[QueryTerm], dense_text: str, hiding_in: Workspace | None
) -> tuple[list[tuple[float, dict[str, Any]]], Similarity]:
    """The BM25 candidates, the dense stage's nearest facts joining them (with every
    candidate's cosine similarities), less what `_visible` hides."""
    found = _candidates(index, query)
    similarity = Similarity()
    if index.vectors is not None:
        # The dense stage: facts that say it in other words join the candidates, nearest by
        # what the prompt asks (`dense_query`); relevance credits the cosine with the prompt.
        blind = dense_query(index, dense_text)
        content_vector = dense.encode_query(blind)
        top = index.vectors.top(content_vector, DENSE_CANDIDATES)
        have = {int(first(doc, "fact_id", 0)) for _, doc in found}
        found += [(0.0, doc) for doc in _docs_by_fact_id(index, [f for f, _ in top if f not in have])]
        content = dict(top)
        content.update(index.vectors.similarity(content_vector, [f for f in have if f not in content]))
        if blind == dense_text:
            similarity = Similarity(prompt=content, content=content)
        else:
            prompt_vector = dense.encode_query(dense_text)
            similarity = Similarity(prompt=index.vectors.similarity(prompt_vector, list(content)), content=content)
    if hiding_in is not None:
        found = _visible(hiding_in, found)
    return found, similarity


def dense_query(index: LoadedIndex, prompt: str) -> str:
    """The prompt as the dense stage reads it: a name that a large share of the facts hold
    (COMMON_NAME_SHARE: the two people of a conversation, whose every message carries their
    name) tells no fact from another, yet would pull the vector toward all of them; it is
    read as "someone". The words still count in full for BM25 and the speaker bonus."""
    for name in dict.fromkeys(capitalised_words(prompt)):
        own = terms(name)
        if own and all(index.searcher.doc_freq("terms", t) >= COMMON_NAME_SHARE * index.num_docs for t in own):
            prompt = re.sub(rf"\b{re.escape(name)}\b", "someone", prompt)
    return prompt


def target_sections(
    index: LoadedIndex, scored: list[Scored], query_set: set[str]
) -> tuple[list[int], dict[int, set[str]]]:
    """Phase 1: the sections the best candidates live in, and those whose titles match the
    query, best first; and the query terms each section's candidates hold."""
    section_score: dict[int, float] = defaultdict(float)
    section_terms: dict[int, set[str]] = defaultdict(set)
    for rank, _, doc in scored[:SECTION_CANDIDATES]:
        sid = int(first(doc, "section_id", 0))
        section_score[sid] += rank
        section_terms[sid] |= set(first(doc, "terms", "").split()) & query_set
    for sid, section in index.sections.items():
        title_hits = query_set & set(section["title_terms"])
        if title_hits and section["facts"]:
            section_score[sid] += TITLE_HIT_SCORE * len(title_hits)
    ranked_sections = sorted(
        (sid for sid in section_score if sid in index.sections), key=lambda s: -section_score[s]
    )
    best_section = section_score[ranked_sections[0]] if ranked_sections else 0.0
    targeted = [s for s in ranked_sections if section_score[s] >= SECTION_CUTOFF * best_section][:MAX_SECTIONS]
    return targeted, section_terms


def _statement_key(statement: str) -> str:
    """A statement as the facts already taken are told apart (`seen`): the same words, whatever
    their case and surrounding space, are one statement."""
    return statement.strip().lower()


def _select(
    index: LoadedIndex, final: list[Scored], limit: int, query_set: set[str]
) -> tuple[list[FactHit], set[str]]:
    """The best candidates over the floor, one per statement and at most ALIKE_ROWS rows of
    a table matching by the same words, and the statements taken. A message's other
    sentences (a long chat message or a mail, split) wait until every other candidate has had
    its place: each slot brings another message's words."""
    facts: list[FactHit] = []
    seen_statements: set[str] = set()
    alike: dict[tuple[int, frozenset[str]], int] = defaultdict(int)
    messages: set[tuple[int, str]] = set()
    waiting: list[tuple[float, dict[str, Any]]] = []
    for _, relevance, doc in final:
        if relevance < FACT_FLOOR:
            continue
        norm = _statement_key(first(doc, "statement", ""))
        if norm in seen_statements:
            continue
        if records.cells(first(doc, "statement", "")):
            key = (int(first(doc, "document_id", 0)), frozenset(set(first(doc, "terms", "").split()) & query_set))
            alike[key] += 1
            if alike[key] > ALIKE_ROWS:
                continue
        if message := first(doc, "message", ""):
            key_message = (int(first(doc, "document_id", 0)), message)
            if key_message in messages:
                waiting.append((relevance, doc))
                continue
            messages.add(key_message)
        seen_statements.add(norm)
        facts.append(_fact_hit(index, doc, relevance))
        if len(facts) >= limit:
            return facts, seen_statements
    for relevance, doc in waiting:
        if len(facts) >= limit:
            break
        norm = _statement_key(first(doc, "statement", ""))
        if norm not in seen_statements:
            seen_statements.add(norm)
            facts.append(_fact_hit(index, doc, relevance))
    return facts, seen_statements


def _with_nearest_documents(
    index: LoadedIndex, scored: list[Scored], similarity: Similarity, facts: list[FactHit], seen: set[str], limit: int
) -> list[FactHit]:
    """Facts that answer weakly by their words (NEAREST_WHEN_BELOW) make room, in their last
    places, for the documents' facts the dense stage holds nearest the prompt
    (NEAREST_DOCUMENT_FACTS, not a chat message or a mail), each at its own relevance. A fact
    taken already that is one of those nearest keeps its place: the room comes from the others."""
    if not facts or not similarity.prompt or max(f.relevance_score for f in facts) >= NEAREST_WHEN_BELOW:
        return facts
    candidates = {int(first(doc, "fact_id", 0)): (relevance, doc) for _, relevance, doc in scored}
    documents = [
        fact_id
        for fact_id, _ in sorted(similarity.prompt.items(), key=lambda item: -item[1])
        if fact_id in candidates and not first(candidates[fact_id][1], "message", "")
    ][: min(NEAREST_DOCUMENT_FACTS, limit // 2)]
    have = {f.fact_id for f in facts}
    added = []
    for fact_id in documents:
        relevance, doc = candidates[fact_id]
        norm = _statement_key(first(doc, "statement", ""))
        if fact_id not in have and norm not in seen:
            seen.add(norm)
            added.append(_fact_hit(index, doc, relevance))
    if not added:
        return facts
    nearest = set(documents)
    room = limit - len(added) - sum(1 for f in facts if f.fact_id in nearest)  # places for the others
    kept = []
    for fact in facts:
        if fact.fact_id in nearest:
            kept.append(fact)
        elif room > 0:
            kept.append(fact)
            room -= 1
    return [*kept, *added]


def _with_answers(index: LoadedIndex, facts: list[FactHit], seen: set[str]) -> list[FactHit]:
    """A question among the first facts ("Who do I call if Frostline is down?", in an FAQ or
    a conversation) followed by the statement after it in its document, its answer."""
    asked = [f for f in facts[:ANSWERED_QUESTIONS] if f.statement.rstrip().endswith("?")]
    if not asked:
        return facts
    wanted = {(f.document_id, f.position + 1): f for f in asked}
    rows = Fact.objects.filter(
        document_id__in={d for d, _ in wanted}, position__in={p for _, p in wanted}, section__isnull=False
    ).values_list("id", "document_id", "position")
    answer_of = {wanted[(d, p)].fact_id: fid for fid, d, p in rows if (d, p) in wanted}
    docs = {int(first(doc, "fact_id", 0)): doc for doc in _docs_by_fact_id(index, list(answer_of.values()))}
    own = {f.statement: f.relevance_score for f in facts}
    out: list[FactHit] = []
    placed: set[str] = set()
    for fact in facts:
        if fact.statement in placed:
            continue  # the answer of an earlier question, already placed
        out.append(fact)
        placed.add(fact.statement)
        doc = docs.get(answer_of.get(fact.fact_id, -1))
        statement = first(doc, "statement", "") if doc is not None else ""
        if doc is None or statement in placed:
            continue  # no answer, or it ranked above its question on its own
        seen.add(_statement_key(statement))
        placed.add(statement)
        relevance = max(own.get(statement, 0.0), fact.relevance_score * HOP_DECAY)
        out.append(_fact_hit(index, doc, relevance, linked=ANSWER if statement not in own else ""))
    return out


def _with_extreme(
    index: LoadedIndex, prompt: str, scored: list[Scored], facts: list[FactHit], seen: set[str], limit: int
) -> list[FactHit]:
    """A superlative prompt ("our oldest customer") answered by a table's extreme row
    (`records.extreme_row`): that row first, the other facts after it."""
    row = records.extreme_row(index, prompt, [doc for _, _, doc in scored])
    if row is None:
        return facts
    fact_id = int(first(row, "fact_id", 0))
    relevance = next((rel for _, rel, doc in scored if int(first(doc, "fact_id", 0)) == fact_id), 0.0)
    seen.add(_statement_key(first(row, "statement", "")))
    rest = [f for f in facts if f.fact_id != fact_id]
    # It answers better than any fact matching the words alone (its table's other rows first).
    best = max([relevance, EXTREME_RELEVANCE, *(f.relevance_score for f in rest)])
    return [_fact_hit(index, row, best, linked=ROW), *rest][:limit]


def _with_anchor(
    index: LoadedIndex,
    query: list[QueryTerm],
    prompt: str,
    scored: list[Scored],
    facts: list[FactHit],
    seen: set[str],
    hiding_in: Workspace | None,
) -> list[FactHit]:
    """The record the prompt names (`_anchor`) and the fact one hop from it, placed at
    ANCHOR_POSITION (or where the record was, if higher), when the record is not among the
    facts the second hop follows ("the discount Kestrel Seafoods gets" → its row, tier Gold →
    the Gold discount). Nothing changes when the hop finds nothing: the record alone was not
    good enough to be there."""
    if facts and facts[0].linked == ROW:
        return facts  # a superlative's row answers; the second hop follows it
    anchor = _anchor(query, prompt, scored)
    if anchor is None:
        return facts
    _, relevance, doc = anchor
    fact_id = int(first(doc, "fact_id", 0))
    listed = [i for i, f in enumerate(facts) if f.fact_id == fact_id]
    if listed and listed[0] < HOP_PARENTS and facts[listed[0]].relevance_score >= HOP_MIN_PARENT:
        return facts  # the second hop follows it
    statement = _statement_key(first(doc, "statement", ""))
    # A fact already listed may be the hop's: it then moves up beside its record.
    hop = _hop_from(index, query, fact_id, prompt, {statement}, hiding_in)
    if hop is None:
        return facts
    chain, candidate = hop
    found = {statement, _statement_key(first(candidate, "statement", ""))}
    seen.update(found)
    rest = [f for f in facts if _statement_key(f.statement) not in found]
    # Both at the chain's relevance (less HOP_DECAY, as a hop's): the record is there for it.
    pair = [
        _fact_hit(index, doc, max(relevance, chain * HOP_DECAY)),
        _fact_hit(index, candidate, chain * HOP_DECAY, linked=HOP),
    ]
    at = min([ANCHOR_POSITION, *listed])
    return [*rest[:at], *pair, *rest[at:]]


def _anchor(query: list[QueryTerm], prompt: str, ordered: list[Scored]) -> Scored | None:
    """The one record whose values hold the most IDF weight of the names and codes the prompt
    writes (`name_terms`), at least ANCHOR_MIN_IDF and more than any other record's (a name
    only it holds). A rare word that names nothing ("posted" in a row's "post-install") is
    no anchor."""
    names = name_terms(prompt)
    weights = {q.term: q.idf for q in query if q.weight >= 1.0 and q.term in names}
    best: Scored | None = None
    best_weight = runner_up = 0.0
    for item in ordered:
        row = records.cells(first(item[2], "statement", ""))
        if not row:
            continue
        weight = _name_weight(weights, set(terms(" ".join(row.values()))))
        if weight > best_weight:
            best, best_weight, runner_up = item, weight, best_weight
        elif weight > runner_up:
            runner_up = weight
    if best is None or best_weight < ANCHOR_MIN_IDF or best_weight <= runner_up:
        return None
    return best


def _name_weight(weights: dict[str, float], held: Iterable[str]) -> float:
    """The IDF weight of the prompt's names a record holds, summed exactly (`math.fsum`): a
    plain sum over a set depends on the order the set is read in, which changes with each
    process's hash seed, and two records naming as much would then tie in one worker and not
    in the next."""
    return math.fsum(weights.get(t, 0.0) for t in held)


def _with_newer_versions(
    index: LoadedIndex,
    query: list[QueryTerm],
    facts: list[FactHit],
    seen: set[str],
    limit: int,
    hiding_in: Workspace | None,
) -> list[FactHit]:
    """A fact of an older version of a document (`LoadedIndex.revisions`) brings, right above
    it, the statement of the newest version that says most of what it and the prompt say:
    "inform the customer within 30 minutes" (SOP version 1.0) brings "within 15 minutes of
    the alarm" (version 2.0), which shares few of its words; moved up there if it is listed
    lower down (where the limit could cut it off)."""
    if not index.revisions:
        return facts
    norms = [_statement_key(f.statement) for f in facts]
    out: list[FactHit] = []
    moved: set[str] = set()  # listed statements moved up above the older fact
    for position, fact in enumerate(facts):
        if norms[position] in moved:
            continue
        newest = index.revisions.get(fact.document_id)
        if newest is not None:
            below = set(norms[position + 1 :]) - moved
            found = _version_statement(index, query, fact, newest, seen - below, hiding_in)
            if found is not None:
                statement = _statement_key(first(found, "statement", ""))
                seen.add(statement)
                if statement in below:
                    moved.add(statement)
                out.append(_fact_hit(index, found, fact.relevance_score, linked=NEWER))
        out.append(fact)
    return out[:limit]


def _version_statement(
    index: LoadedIndex, query: list[QueryTerm], fact: FactHit, document_id: int, seen: set[str], hiding_in: Workspace | None
) -> dict[str, Any] | None:
    """The statement of document `document_id` (a newer version of the fact's) holding most of
    the IDF weight of the fact's words and the prompt's together, at least NEWER_VERSION_SHARE
    of the fact's own."""
    own = {q.term for q in query if q.weight >= 1.0}
    said = terms(fact.statement)
    wanted = [QueryTerm(t, 1.0, index.idf(t)) for t in dict.fromkeys([*said, *own])]
    if not wanted:
        return None
    schema = index.index.schema
    should = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "terms", q.term)) for q in wanted]
    within = tantivy.Query.term_query(schema, "document_id", document_id)
    hits = index.searcher.search(tantivy.Query.boolean_query([(tantivy.Occur.Must, within), *should]), HOP_CANDIDATES).hits
    candidates = [(0.0, index.searcher.doc(address).to_dict()) for _, address in hits]
    if hiding_in is not None:
        candidates = _visible(hiding_in, candidates)
    fact_words = [q for q in wanted if q.term in set(said)]
    best: tuple[float, dict[str, Any]] | None = None
    for _, candidate in candidates:
        if _statement_key(first(candidate, "statement", "")) in seen:
            continue
        held = set(first(candidate, "terms", "").split())
        if coverage(fact_words, held, set()) < NEWER_VERSION_SHARE:
            continue
        score = coverage(wanted, held, set(first(candidate, "context", "").split()))
        if best is None or score > best[0]:
            best = (score, candidate)
    return best[1] if best is not None else None


def _phase1(
    index: LoadedIndex, targeted: list[int], section_terms: dict[int, set[str]], query_set: set[str], facts: list[FactHit]
) -> tuple[Phase1, list[str]]:
    """The phase-1 report and the tree paths searched: every targeted section, with why (it
    holds top candidates, or its title matched)."""
    searched = {index.sections[s]["tree_path"] for s in targeted if s in index.sections}
    targeted_sections = []
    for sid in targeted:
        section = index.sections[sid]
        hits = sorted(section_terms.get(sid, set()) | (query_set & set(section["title_terms"])))
        if section_terms.get(sid):
            reason = f"Holds facts matching the query terms: {', '.join(hits[:6])}."
        else:
            reason = f"Its title matches the query terms: {', '.join(hits[:6])}."
        targeted_sections.append(TargetedSection(section["tree_path"], reason))
    strategy = "narrow" if len(targeted) == 1 else "moderate" if len(targeted) <= 3 else "broad"
    phase1 = Phase1(
        search_strategy=strategy if facts else "broad",
        estimated_tokens=sum(int(index.sections[s]["tokens"]) for s in targeted),
        targeted_sections=targeted_sections,
    )
    return phase1, sorted(searched)


def _second_hop(
    index: LoadedIndex,
    query: list[QueryTerm],
    facts: list[FactHit],
    prompt: str,
    seen: set[str],
    limit: int,
    hiding_in: Workspace | None = None,
) -> list[FactHit]:
    """Multi-hop: follow the entities the best facts name but the prompt does not ("the DRI
    of Project Harbor" → Casimir Oyelaran → whom he reports to) and add, right after each
    parent fact, the best fact about that entity that also matches the question (moved up
    there if it is listed lower down), and once per prompt the fact one more hop on
    (`_hop_on`). With `hiding_in`, only facts `_visible` in that workspace are added."""
    if not facts:
        return facts
    lowered = prompt.lower()
    norms = [_statement_key(f.statement) for f in facts]
    listed = {norm: f.relevance_score for norm, f in zip(norms, facts)}
    out: list[FactHit] = []
    moved: set[str] = set()  # listed facts moved up beside their parent
    added = extended = 0
    prompt_terms = {q.term for q in query if q.weight >= 1.0}
    parents = 0  # the facts met so far that a hop can follow: a hop's own fact is none
    for position, parent in enumerate(facts):
        if norms[position] in moved:
            continue
        out.append(parent)
        if parent.linked == HOP:
            continue  # reached from the fact above it, and followed on from there (`_hop_on`)
        parents += 1
        if parents > HOP_PARENTS or added >= HOP_MAX_ADDED:
            continue
        if parent.relevance_score < HOP_MIN_PARENT and not (
            parent.relevance_score >= HOP_MIN_NAMED_PARENT
            and records.bridge_values(parent.statement, lowered, prompt_terms)[1]
        ):
            continue
        # Listed lower down (the fact right after it is beside it already).
        below = set(norms[position + 2 :]) - moved
        best = _hop_from(index, query, parent.fact_id, prompt, seen - below, hiding_in)
        if best is None:
            continue
        chain, candidate = best
        statement = _statement_key(first(candidate, "statement", ""))
        seen.add(statement)
        relevance = min(parent.relevance_score, chain) * HOP_DECAY
        if statement in below:
            moved.add(statement)
            relevance = max(relevance, listed[statement])
        # Never above its parent: the parent is what makes it relevant.
        out.append(_fact_hit(index, candidate, min(parent.relevance_score, relevance), linked=HOP))
        added += 1
        if extended < HOP_EXTENSIONS:
            # Never the hop's own fact again, though it was listed lower down: it names the
            # next bridge too ("Stuart McKellar … reports to Fenella Graystock").
            further = _hop_on(index, query, parent.fact_id, candidate, prompt, (seen - below) | {statement}, hiding_in)
            if further is not None:
                statement = _statement_key(first(further, "statement", ""))
                seen.add(statement)
                if statement in below:
                    moved.add(statement)
                out.append(_fact_hit(index, further, min(parent.relevance_score, relevance), linked=HOP))
                extended += 1
    return out[:limit]


def _with_record(
    index: LoadedIndex,
    query: list[QueryTerm],
    facts: list[FactHit],
    prompt: str,
    seen: set[str],
    limit: int,
    hiding_in: Workspace | None = None,
) -> list[FactHit]:
    """The record of the person a chain reaches, when the prompt asks for someone's contact
    details (`_attributes_asked`: "what's their manager's extension", "the owner's mobile")
    and the facts name the person but none of them is their record: the first person
    `_record_candidates` gives whom the prompt does not name and whose record, holding a
    detail asked, is not listed, right after the fact naming them ("Gareth Pryce: On it,
    Staffline have the Felixstowe order" -> his directory row, with his extension). Contact
    details only: a relation asked ("who is their manager") is the hops' to follow, and a
    person the best facts name is not always the one the chain is about."""
    asked = _attributes_asked(query, prompt) & CONTACT_ATTRIBUTES
    contact = [QueryTerm(q.term, 1.0, q.idf) for q in query if q.term in asked]
    if not contact or not facts:
        return facts
    prompt_lower = prompt.lower()
    own_terms = {q.term for q in query if q.weight >= 1.0}
    listed = {holder for f in facts if (holder := _record_holder(f.statement))}
    tried: set[str] = set()  # a person named again is not looked up again: the same search
    for position, person in _record_candidates(index, facts, prompt_lower, own_terms):
        if person in listed or person in tried or person.lower() in prompt_lower:
            continue
        tried.add(person)
        found = _hop_fact(index, person, contact, seen, hiding_in, named=True, bring=contact)
        if found is None or _record_holder(first(found[1], "statement", "")) != person:
            continue
        seen.add(_statement_key(first(found[1], "statement", "")))
        record = _fact_hit(index, found[1], facts[position].relevance_score * HOP_DECAY, linked=HOP)
        return [*facts[: position + 1], record, *facts[position + 1 :]][:limit]
    return facts


def _record_candidates(
    index: LoadedIndex, facts: list[FactHit], prompt_lower: str, own_terms: set[str]
) -> Iterator[tuple[int, str]]:
    """Whose record `_with_record` looks for, each with the place of the fact naming them.
    First, when the prompt asks for the contact details of someone's manager (`_relayed`),
    the managers the facts' records name, in rank order: a chain that reached a person's
    directory row holds their manager's name, not the manager's number ("Dr. Laura Bergin;
    ...; Reports to: Dr. Conor Phelan" -> his row, with his mobile). Then the people the
    RECORD_PARENTS best facts name, in rank order and as each fact writes them."""
    if _relayed(own_terms, prompt_lower):
        for position, fact in enumerate(facts):
            for manager in _managers(fact.statement):
                yield position, manager
    for position, fact in enumerate(facts[:RECORD_PARENTS]):
        people = _bridges(index, fact.fact_id, prompt_lower, own_terms)[2]
        written_at = {person: fact.statement.find(person) for person in people}  # -1: not written (an author)
        for person in sorted(people, key=lambda person: (written_at[person] < 0, written_at[person], person)):
            yield position, person


def _relayed(own_terms: set[str], prompt_lower: str) -> bool:
    """Whether the contact details asked are those of someone's manager ("the extension of
    their boss", "that manager's mobile"), not of the person the chain reaches first."""
    return bool(own_terms & RELATION_ASKED and _possessed(prompt_lower) & CONTACT_ATTRIBUTES)


def _managers(statement: str) -> list[str]:
    """The managers a record names: a row's manager cell (`records.MANAGER_COLUMNS`), or an
    org chart line's "Reports to Keisha Morrow"."""
    row = records.cells(statement)
    if row:
        return [value for name, value in row.items() if name.lower() in records.MANAGER_COLUMNS]
    return [name.rstrip(".") for name in _REPORTS_TO.findall(statement)]  # not the sentence's full stop


def _record_holder(statement: str) -> str | None:
    """Whose record the statement is: a row's first cell ("Staff directory: Name: Tom
    Brezinski; ...") or the name an org chart line starts with ("Eleanor Firth — Customer
    Success Manager")."""
    row = records.cells(statement)
    if row:
        return next(iter(row.values()))
    line = _ORG_LINE.match(statement)
    return line.group(1) if line else None


def _hop_on(
    index: LoadedIndex,
    query: list[QueryTerm],
    parent_id: int,
    hop: dict[str, Any],
    prompt: str,
    seen: set[str],
    hiding_in: Workspace | None,
) -> dict[str, Any] | None:
    """A third link: the fact one hop from a hop's fact, when the chain so far leaves a word of
    the prompt it brings ("who declared the SEV2, and their role?": the incident's row -> her
    message declaring it -> her own record, with her role)."""
    hop_id = int(first(hop, "fact_id", 0))
    chain = _doc_terms([*_docs_by_fact_id(index, [parent_id]), hop])
    held = set().union(*(own | context for own, context in chain))
    own_terms = {q.term for q in query if q.weight >= 1.0}
    # Contact details asked of someone's manager are the manager's, though the chain holds the
    # first person's ("the extension of their boss": the boss's record, not their message).
    relayed = _relayed(own_terms, prompt.lower())
    attribute = bool(_attributes_asked(query, prompt) - held) or relayed
    # The attribute asked comes from the record of a person the hop's fact names or who wrote
    # it: with no such person there is nowhere to go.
    if attribute and not _bridges(index, hop_id, prompt.lower(), own_terms)[2]:
        return None
    found = _hop_from(index, query, hop_id, prompt, seen, hiding_in, before=chain[:1])
    if found is None:
        return None
    if attribute:
        return found[1]
    after = joint_coverage(query, [*chain, *_doc_terms([found[1]])])
    return found[1] if after > joint_coverage(query, chain) else None


def _hop_from(
    index: LoadedIndex,
    query: list[QueryTerm],
    fact_id: int,
    prompt: str,
    seen: set[str],
    hiding_in: Workspace | None,
    before: list[tuple[set[str], set[str]]] | None = None,
) -> tuple[float, dict[str, Any]] | None:
    """The best fact one hop from the fact `fact_id`, through the entities and record values
    it names, that brings what it leaves unanswered; with the share of the prompt the two
    hold together (the chain's relevance). Between bridges, the one whose fact leaves the
    chain (`before`'s terms, the fact and it) holding most of the prompt wins."""
    own = [q for q in query if q.weight >= 1.0]  # the prompt's own terms
    prompt_lower = prompt.lower()
    own_terms = {q.term for q in own}
    labels, named, people, parent = _bridges(index, fact_id, prompt_lower, own_terms)
    parent_terms = set(first(parent, "terms", "").split())
    # An attribute asked of someone stays asked, whatever the fact holds ("that person's line
    # manager" of "Stuart, the site manager, will send ..."; "that boss's extension" of a
    # directory row holding its own person's extension beside their manager's name).
    possessed = _possessed(prompt_lower)
    remaining = [
        q for q in own if q.term in possessed or (q.term not in parent_terms and not parent_terms & synonyms(q.term))
    ]
    if not remaining:
        return None
    # "Who approved the swap, and what is his position?": the approver's record, by the
    # attribute asked alone (the rest of the prompt was the first hop's).
    asked_of_someone = _attributes_asked(query, prompt)
    attribute = [q for q in remaining if q.term in asked_of_someone]
    # A value in a column the prompt names is the bridge it asks to cross, the only one. Else
    # contact details asked may be a person's reached through anything else the fact names,
    # which must then bring them ("the practice manager at the clinic ... and their mobile":
    # Clonmel -> a directory row at Clonmel, not another line about the clinic).
    contact = [q for q in remaining if q.term in CONTACT_ATTRIBUTES]
    if contact and not own_terms & RELATION_ASKED and _names_a_person(parent, prompt_lower):
        # Contact details asked of someone the prompt names ("the mobile number for Bronagh
        # Kealy") are that person's, not those of another person the fact names (her manager
        # in her org chart line), unless the prompt asks for a relation ("her manager's").
        labels = [label for label in labels if label not in people]
        people = set()
    through_any = bool(contact) and not named
    if attribute:
        named = named | people
        labels = labels + sorted(people - set(labels))
    followed = labels if through_any else [label for label in labels if label in named] or labels
    demonstrated = {t for m in _DEMONSTRATED.finditer(prompt_lower) for t in terms(m.group(1))} & {q.term for q in remaining}
    said = set(re.findall(r"[\w'-]+", prompt_lower)) if _UNNAMED.search(prompt_lower) else set()
    # Ties on the first two are broken by whom the fact's text names doing what the prompt asks
    # about (`_does_what_is_asked`, a "who" question: not the message's author), then by a row's
    # code (`records.KEY_CODE`) before what the chain holds: a table joined by its key ("E1006"
    # -> the directory row of E1006) outranks a fact that shares a place with the row and
    # happens to hold a word of the prompt.
    best: tuple[tuple[bool, bool, bool, bool, float, float], dict[str, Any]] | None = None
    parent_statement = first(parent, "statement", "")
    asks_who = bool(_ASKS_WHO.search(prompt_lower))
    for label in followed:
        asked = attribute if attribute and label in people else remaining
        found = _hop_fact(index, label, asked, seen, hiding_in, label in named, [] if label in people else contact)
        if found is None:
            continue
        # Each label's own hop coverage is a share of the words facts about it hold, another
        # whole for each: bridges are compared by what the chain then holds of the prompt.
        held = joint_coverage(query, [*(before or []), *_doc_terms([parent, found[1]])])
        called = bool(demonstrated & set(first(found[1], "terms", "").split()))
        unnamed = label not in people or not said & set(label.lower().split())
        keyed = bool(records.KEY_CODE.fullmatch(label))
        doer = asks_who and label in people and _does_what_is_asked(parent_statement, label, own_terms)
        rank = (called, unnamed, doer, keyed, held, found[0])
        if best is None or rank > best[0]:
            best = (rank, found[1])
    if best is None:
        return None
    return joint_coverage(query, _doc_terms([parent, best[1]])), best[1]


def _possessed(prompt_lower: str) -> set[str]:
    """The attributes the prompt asks of someone it relates to another (`_POSSESSED`,
    `_OF_RELATED`): "their manager's extension", "the extension of their boss"."""
    found = [m.group(1) for pattern in (_POSSESSED, _OF_RELATED) for m in pattern.finditer(prompt_lower)]
    return {t for phrase in found for t in terms(phrase)} & RECORD_ATTRIBUTES


def _does_what_is_asked(statement: str, person: str, asked: set[str]) -> bool:
    """Whether the fact's text (not its author) names the person at most DOER_SPAN words before
    a word of the prompt, with no other capitalised word between: "Maren is re-booking the
    movers" for "who re-booked the movers", by any of the person's names."""
    speaker = SPEAKER.match(statement)
    body = statement[speaker.end() :] if speaker else statement
    tokens = re.findall(r"[\w'-]+", body)
    names = {w for w in re.findall(r"[\w'-]+", person.lower()) if len(w) > 1}
    for j, token in enumerate(tokens):
        if j == 0 or not set(terms(token)) & asked or token.lower() in names:
            continue
        for i in range(j - 1, max(-1, j - 1 - DOER_SPAN), -1):
            if tokens[i][:1].isupper():
                if tokens[i].lower() in names:
                    return True
                break
    return False


def _names_a_person(doc: dict[str, Any], prompt_lower: str) -> bool:
    """Whether the prompt names, in full, a person the index document links."""
    return any(etype == "person" and label.lower() in prompt_lower for label, etype in _links(doc))


def _links(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """The entities an index document links, as (label, type): stored "label|type"."""
    return [(label, etype) for label, _, etype in (value.rpartition("|") for value in doc.get("entities") or [])]


def _attributes_asked(query: list[QueryTerm], prompt: str) -> set[str]:
    """The prompt's words asking for an attribute of a person (RECORD_ATTRIBUTES), but for a
    thing's noun after its name ("the Adamstown Heights job")."""
    things = {t for m in _NAMED_THING.finditer(prompt) for t in terms(m.group(1))}
    return {q.term for q in query if q.weight >= 1.0 and q.term in RECORD_ATTRIBUTES} - things


def _doc_terms(docs: list[dict[str, Any]]) -> list[tuple[set[str], set[str]]]:
    """Each index document's terms and context terms (its headings, title and date)."""
    return [
        (
            set(first(doc, "terms", "").split()),
            set(first(doc, "context", "").split()) | date_terms(first(doc, "effective_date", "")),
        )
        for doc in docs
    ]


def _hop_fact(
    index: LoadedIndex,
    label: str,
    remaining: list[QueryTerm],
    seen: set[str],
    hiding_in: Workspace | None,
    named: bool = False,
    bring: list[QueryTerm] | None = None,
) -> tuple[float, dict[str, Any]] | None:
    """The best fact naming `label` that also holds what the parent fact left unanswered, with
    its coverage of the hop query, or None under HOP_MIN_COVERAGE. Words of the question that
    no fact naming the label holds ("put ... on hold" for "freeze") were the first hop's, in
    other words: the coverage is measured over the words some such fact holds. A `named`
    label, the value of a column the prompt names ("who manages the *account manager* of
    Dunmore"), is followed even when no fact about it holds more of the prompt: to the fact
    that names it first (its org chart line, its directory row)."""
    label_terms = terms(label)
    if not label_terms:
        return None
    hop_rest = [QueryTerm(q.term, 1.0, q.idf) for q in remaining if q.term not in label_terms]
    # The label in the statement or in its headings ("Sales offices > North America").
    must = [
        (
            tantivy.Occur.Must,
            tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(index.index.schema, field, t)) for field in ("terms", "context")]
            ),
        )
        for t in label_terms
    ]
    should = [
        (tantivy.Occur.Should, tantivy.Query.term_query(index.index.schema, "terms", term))
        for q in hop_rest
        for term in (q.term, *synonyms(q.term))
    ]
    hits = index.searcher.search(tantivy.Query.boolean_query(must + should), HOP_CANDIDATES).hits
    if bring:  # and the facts naming it with the word asked, wherever they rank
        wanted = [tantivy.Query.term_query(index.index.schema, "terms", t) for q in bring for t in (q.term, *synonyms(q.term))]
        asked = (tantivy.Occur.Must, tantivy.Query.boolean_query([(tantivy.Occur.Should, w) for w in wanted]))
        hits += index.searcher.search(tantivy.Query.boolean_query([*must, asked, *should]), HOP_CANDIDATES).hits
    docs = {(a.segment_ord, a.doc): a for _, a in hits}  # once each
    candidates = [(0.0, index.searcher.doc(address).to_dict()) for address in docs.values()]
    if hiding_in is not None:
        candidates = _visible(hiding_in, candidates)
    held: list[tuple[dict[str, Any], set[str]]] = []
    listed: list[set[str]] = []  # the terms of facts naming it that are listed already
    for _, candidate in candidates:
        own_terms = set(first(candidate, "terms", "").split())
        if _in_compounds_only(label, first(candidate, "statement", "")):
            continue  # "SAV-Atlanta" is a lane, not the site SAV
        if bring and not _brings(first(candidate, "statement", ""), own_terms, bring):
            continue
        if _statement_key(first(candidate, "statement", "")) in seen:
            listed.append(own_terms)
        else:
            held.append((candidate, own_terms))
    answerable = [q for q in hop_rest if any(_holds(own, [q]) for _, own in held)]
    if not answerable and (not named or any(_holds(own, hop_rest) for own in listed)):
        return None  # it must add something the question asked beyond naming the entity
    hop_query = [QueryTerm(t, 1.0, index.idf(t)) for t in label_terms] + answerable
    best: tuple[float, int, dict[str, Any]] | None = None
    for candidate, own_terms in held:
        if answerable and not _holds(own_terms, answerable):
            continue
        if not answerable and first(candidate, "statement", "").startswith(f"{label}: "):
            continue  # said by the entity, not about it
        cov = coverage(hop_query, own_terms, set(first(candidate, "context", "").split()))
        # Between equals, the fact about the entity ("Ana, Head of Ops, reports to Bo") before
        # one that only mentions it ("Cy reports to Ana"): the label nearer the start wins.
        at = first(candidate, "terms", "").split().index(label_terms[0]) if label_terms[0] in own_terms else len(own_terms)
        if best is None or (cov, -at) > (best[0], -best[1]):
            best = (cov, at, candidate)
    if best is None or best[0] < HOP_MIN_COVERAGE:
        return None
    return best[0], best[2]


def _in_compounds_only(label: str, statement: str) -> bool:
    """Whether the statement writes the label as a word only inside hyphenated words
    ("SAV-Atlanta", "SAV-Charlotte" for the site code SAV): it names something else."""
    pattern = re.escape(label)
    return bool(re.search(rf"(?<!\w){pattern}(?!\w)", statement, re.IGNORECASE)) and not re.search(
        rf"(?<![\w-]){pattern}(?![\w-])", statement, re.IGNORECASE
    )


def _brings(statement: str, own_terms: set[str], asked: list[QueryTerm]) -> bool:
    """Whether a fact holds an attribute asked: its word, or for contact details a value of
    that kind ("Account contact: lab@kklab.ie" for "what address do we email them at")."""
    return _holds(own_terms, asked) or any(holds_contact(statement, q.term) for q in asked)


def _holds(own_terms: set[str], query: list[QueryTerm]) -> bool:
    """Whether the terms hold a word of the query, or one of its synonyms."""
    return any(q.term in own_terms or own_terms & synonyms(q.term) for q in query)


def _visible(workspace: Workspace, found: list[tuple[float, dict[str, Any]]]) -> list[tuple[float, dict[str, Any]]]:
    """The index documents whose fact still exists outside a source being deleted: the
    published version keeps a deleted source's facts until its removal run publishes anew."""
    ids = {int(first(doc, "fact_id", 0)) for _, doc in found}
    kept = set(
        Fact.objects.filter(workspace=workspace, id__in=ids)
        .exclude(source__status=Source.Status.DELETING)
        .values_list("id", flat=True)
    )
    return [(score, doc) for score, doc in found if int(first(doc, "fact_id", 0)) in kept]


def _bridges(
    index: LoadedIndex, fact_id: int, prompt_lower: str, prompt_terms: set[str]
) -> tuple[list[str], set[str], set[str], dict[str, Any]]:
    """Entities and record values the fact names that the prompt does not, the record values
    in columns the prompt names, the people it names or who wrote it, and the fact's index
    document."""
    hits = index.searcher.search(tantivy.Query.term_query(index.index.schema, "fact_id", fact_id), 1).hits
    if not hits:
        return [], set(), set(), {}
    doc = index.searcher.doc(hits[0][1]).to_dict()
    labels = []
    people = set()
    for label, etype in _links(doc):
        if etype in HOP_LABEL_TYPES and label.lower() not in prompt_lower:
            labels.append(label)
            if etype == "person":
                people.add(label)
    # A record's values name what it links to ("tier: Gold", "location: Toronto office"); a
    # sentence names roles and places by capitalised phrases ("the Pharmacy & Stock
    # Coordinator places the order" → who holds that title).
    statement = first(doc, "statement", "")
    values, named = records.bridge_values(statement, prompt_lower, prompt_terms)
    for value in [*values, *_title_phrases(statement, prompt_lower)]:
        if value not in labels:
            labels.append(value)
            if _known_person(index, value):
                people.add(value)
    if records.cells(statement):
        return labels, named, people, doc
    for person in _full_names(index, statement, prompt_lower, labels):
        labels.append(person)
        people.add(person)
    speaker = SPEAKER.match(statement)
    place = bool(_PLACE_ASKED.search(prompt_lower))
    text = statement[speaker.end() :] if speaker else statement
    labels += _record_keys(index, text, prompt_lower, labels, phrases=bool(speaker) or place, words=place)
    if speaker and _authored(doc, speaker.group(1)) and speaker.group(1).lower() not in prompt_lower:
        people.add(speaker.group(1))  # a bridge only to the person's own record
    return labels, named, people, doc


def _authored(doc: dict[str, Any], name: str) -> bool:
    """Whether the index document is a message `name` wrote, not a document's sentence after
    its heading ("Meridian Internal FAQ: Savannah: FedEx and UPS.")."""
    return bool(first(doc, "message", "")) or f"{name}|person" in (doc.get("entities") or [])


def _full_names(index: LoadedIndex, statement: str, prompt_lower: str, labels: list[str]) -> list[str]:
    """The people a sentence names by one of their names alone ("Sam approves probation
    tenders while he's out", "checked with Lan"), where the memory knows one person only by
    that name ("Sam Petrakis", "Nguyễn Thị Lan") and nothing else by it (a company,
    "Kestrelmark", names its products too): not a name in a label already, nor one the prompt
    says, nor a surname after a title ("Dr. Phelan"). Not read in a record."""
    spelled = {word for label in labels for word in label.split()}
    said = [m.group(0) for m in _FIRST_NAME.finditer(statement) if not _HONORIFIC.search(statement, 0, m.start())]
    found: list[str] = []
    for word in dict.fromkeys(said):
        if word in spelled or word.lower() in prompt_lower.split():
            continue
        if word not in index.first_names:
            index.first_names[word] = _full_name(index, word)
        if (person := index.first_names[word]) is not None:
            found.append(person)
    return found[:FIRST_NAMES]


def _record_keys(
    index: LoadedIndex, message: str, prompt_lower: str, labels: list[str], phrases: bool = True, words: bool = False
) -> list[str]:
    """What a table keys its rows by, written in a sentence or a chat message (its text,
    without the author): the codes that are a whole cell of some record ("Trailer T-118 lost
    its refrigeration" and `fleet_no: T-118`, "MSA-A customers pay" and `contract_type:
    MSA-A`); with `phrases`, where other capitals are not bridges, the capitalised phrases
    that are one ("Leah Morgan, the practice manager at Redcliffe Physio Group" and `customer:
    Redcliffe Physio Group`) or start just one ("a Peach State driver pulled forward" and
    `carrier: Peach State Haulers`); with `words`, the capitalised words that are one ("short
    at Clonmel" and `site: Clonmel`) or start just one ("at Avonmouth" and `site_name:
    Avonmouth Cold Store`), as the record writes it."""
    said = _CODE.findall(message)
    if phrases:
        said += [m.group(0) for m in _TITLE_PHRASE.finditer(message) if len(m.group(0).split()) >= 2]
    if words:
        said += [m.group(0) for m in _FIRST_NAME.finditer(message)]
    found: list[str] = []
    for phrase in said:
        if phrase.lower() in prompt_lower or phrase in labels:
            continue
        if phrase not in index.record_keys:
            index.record_keys[phrase] = _cell_named(index, phrase)
        cell = index.record_keys[phrase]
        if cell is not None and cell not in found and cell not in labels:
            found.append(cell)
    return found[:RECORD_KEYS]


def _cell_named(index: LoadedIndex, phrase: str) -> str | None:
    """The record cell the phrase names: one equal to it, or the one value of a cell starting
    with it (None when several do: "Summit" for Summit Ridge Trucking and Summit Auto Parts)."""
    values = {value for statement in _holding(index, phrase) for value in records.cells(statement).values()}
    if phrase in values:
        return phrase
    starting = {value for value in values if value.startswith(f"{phrase} ")}
    return starting.pop() if len(starting) == 1 else None


def _holding(index: LoadedIndex, phrase: str) -> list[str]:
    """The statements of the best-ranked facts holding every word of the phrase."""
    own = terms(phrase)
    if not own:
        return []
    query = tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, tantivy.Query.term_query(index.index.schema, "terms", t)) for t in own]
    )
    hits = index.searcher.search(query, HOLDING_HITS).hits
    return [first(index.searcher.doc(address).to_dict(), "statement", "") for _, address in hits]


def _full_name(index: LoadedIndex, word: str) -> str | None:
    """The one name of several words holding the word that the memory links ("Sam" -> Sam
    Petrakis, "Lan" -> Nguyễn Thị Lan: a given name is not always written first), when it is a
    person's who is on record (`_on_record`); None when the word is also in another name, or
    is one itself ("Kestrelmark|organization", "Kestrelmark Relay|product")."""
    said = re.escape(word)
    holding = tantivy.Query.regex_query(
        index.index.schema, "entities", rf"(?:[^|]+ {said}(?: [^|]+)?|{said} [^|]+)\|[a-z]+"
    )
    hits = index.searcher.search(holding, 1).hits
    if not hits or any(_entity_named(index, f"{word}|{etype}") for etype in _NOT_PEOPLE):
        return None
    label, etype = next(
        (label, etype)
        for label, etype in _links(index.searcher.doc(hits[0][1]).to_dict())
        if word in label.split() and label != word
    )
    others = tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, holding),
            (tantivy.Occur.MustNot, tantivy.Query.term_query(index.index.schema, "entities", f"{label}|{etype}")),
        ]
    )
    if etype != "person" or index.searcher.search(others, 1).hits:
        return None
    return label if _on_record(index, label) else None


def _known_person(index: LoadedIndex, label: str) -> bool:
    """Whether the memory links a person by this name somewhere: a statement read before the
    name was known ("owner Katarzyna Zielińska", before her first chat message) does not link
    her, but names her all the same."""
    if label not in index.people:
        index.people[label] = _entity_named(index, f"{label}|person")
    return index.people[label]


def _entity_named(index: LoadedIndex, value: str) -> bool:
    """Whether a fact links the entity written "label|type"."""
    return bool(index.searcher.search(tantivy.Query.term_query(index.index.schema, "entities", value), 1).hits)


def _on_record(index: LoadedIndex, person: str) -> bool:
    """Whether the memory holds the person as someone: a record's value (a directory row, an
    owner) or the author of a message; not a product's name read as a person's."""
    return any(
        person in records.cells(statement).values() or ((speaker := SPEAKER.match(statement)) and speaker.group(1) == person)
        for statement in _holding(index, person)
    )


def _title_phrases(statement: str, prompt_lower: str) -> list[str]:
    """Capitalised phrases of two words or more in a document's sentence or record ("Data
    Protection Officer"), that the prompt does not say. Not in a chat message: there capitals
    are names and places far more often than roles (LoCoMo conversations 1-5, R@10 -0.003)."""
    if SPEAKER.match(statement) and not records.cells(statement):
        return []
    found = []
    for match in _TITLE_PHRASE.finditer(statement):
        words = match.group(0).split()
        while words and words[0].lower() in _PHRASE_OPENERS:
            words = words[1:]
        phrase = " ".join(words)
        if len(words) >= 2 and phrase.lower() not in prompt_lower and phrase not in found:
            found.append(phrase)
    return found[:TITLE_PHRASES]


def summary(
    facts: list[FactHit], coverage: str, unheld: list[str] | None = None, unstated: list[str] | None = None
) -> str:
    """The `context_summary` of an answer: its best facts' statements, in the engine's wording,
    after what the answer lacks: the kinds of contact detail asked that no fact holds
    (`unheld`), the months asked that the best facts are not about (`unstated`, "YYYY-MM"), or
    else, for a minimal answer, that it is only loosely related."""
    if not facts:
        return "No stored company context matches this prompt."
    picked: list[str] = []
    length = 0
    for fact in facts[:SUMMARY_FACTS]:
        sentence = fact.statement.strip()
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        if length + len(sentence) > SUMMARY_CHARS and picked:
            break
        picked.append(sentence)
        length += len(sentence) + 1
    text = " ".join(picked)
    if unheld:
        return f"No stored fact holds the {' or '.join(CONTACT_NAMES[kind] for kind in unheld)} asked for; the nearest context: {text}"
    if unstated:
        named = " or ".join(f"{calendar.month_name[int(m[5:7])]} {m[:4]}" for m in unstated)
        return f"No stored fact is about {named}; the nearest context, about other months: {text}"
    if coverage == "minimal":
        text = "Only loosely related context was found: " + text
    return text


def _graph(
    workspace: Workspace, facts: list[FactHit], query_set: set[str]
) -> tuple[list[EntityHit], list[RelationshipHit]]:
    if not facts:
        return [], []
    fact_ids = [f.fact_id for f in facts[:GRAPH_FACTS]]
    entity_ids = list(
        Fact.entities.through.objects.filter(fact_id__in=fact_ids)
        .values_list("entity_id", flat=True)
        .distinct()[:GRAPH_ENTITY_IDS]
    )
    rows = list(
        Entity.objects.filter(workspace=workspace, id__in=entity_ids).values("id", "label", "type", "properties")
    )
    # Prefer entities the prompt names, then those of the best facts.
    rows.sort(key=lambda r: (-len(set(terms(r["label"])) & query_set), r["label"]))
    rows = rows[:GRAPH_ENTITIES]
    entities = [EntityHit(r["label"], r["type"], r["properties"] or {}) for r in rows]
    ids = [r["id"] for r in rows]
    rels = (
        Relationship.objects.filter(workspace=workspace, subject_id__in=ids, target_id__in=ids)
        .select_related("subject", "target")
        .order_by("-id")[:GRAPH_RELATION_ROWS]
    )
    # One row per mention (each keeps its fact as provenance); report each relation once,
    # the newest mention's properties winning.
    relationships: list[RelationshipHit] = []
    seen_relations: set[tuple[int, str, int]] = set()
    for r in rels:
        key = (r.subject_id, r.type, r.target_id)
        if key not in seen_relations and len(relationships) < GRAPH_RELATIONSHIPS:
            seen_relations.add(key)
            relationships.append(RelationshipHit(r.subject.label, r.type, r.target.label, r.properties or {}))
    return entities, relationships


def _documents(facts: list[FactHit]) -> list[DocumentHit]:
    best: dict[int, FactHit] = {}
    for fact in facts:
        if fact.document_id not in best:
            best[fact.document_id] = fact
    chosen = list(best.values())[:MAX_DOCUMENTS]
    if not chosen:
        return []
    wanted = {(f.document_id, p) for f in chosen for p in (f.position - 1, f.position, f.position + 1)}
    rows = Fact.objects.filter(document_id__in=[f.document_id for f in chosen]).filter(
        position__in={p for _, p in wanted}
    ).values_list("document_id", "position", "statement", "document__title")
    by_doc: dict[int, list[tuple[int, str]]] = defaultdict(list)
    titles: dict[int, str] = {}
    for did, pos, statement, title in rows:
        if (did, pos) in wanted:
            by_doc[did].append((pos, statement))
            titles[did] = title
    hits = []
    for fact in chosen:
        parts = [s for _, s in sorted(by_doc.get(fact.document_id, []))] or [fact.statement]
        excerpt = " ".join(parts)
        if len(excerpt) > EXCERPT_CHARS:
            excerpt = excerpt[: EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "…"
        hits.append(
            DocumentHit(
                title=titles.get(fact.document_id, fact.source_document),
                source_path=fact.source_document,
                excerpt=excerpt,
                relevance_score=fact.relevance_score,
            )
        )
    return hits
