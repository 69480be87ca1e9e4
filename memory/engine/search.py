"""Retrieval over a published index: phase-1 section targeting, BM25 candidates, calibrated
re-scoring, and the entities, relationships and excerpts around the facts found.

Scores. Tantivy's BM25 picks and orders candidates, but BM25 values are unbounded, so the
`relevance_score` we report is calibrated differently: the share of the query's information
(the IDF weight of its terms) that the fact itself contains, synonyms counting 0.8 and terms
found only in the fact's headings 0.5. A fact scoring 0.9 holds nearly every informative word
of the question; a query whose rare words appear nowhere in memory cannot reach the floor, so
it returns no filler facts and its coverage says `none` or `minimal`.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import AbstractSet, Any

import tantivy

from memory.engine import dense
from memory.engine.index import LoadedIndex, index_for
from memory.engine.synonyms import SYNONYM_WEIGHT, synonyms
from memory.engine.text import stem, terms
from memory.engine.triage import triage as triage_prompt
from memory.engine.types import (
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
from memory.models import Entity, Fact, Relationship, Workspace

CANDIDATES = 80
MAX_FACTS = 8
MAX_DOCUMENTS = 3
MAX_SECTIONS = 4
FACT_FLOOR = 0.2
HISTORY_WEIGHT = 0.35
EXCERPT_CHARS = 700
ROOT = "Company Context"
FOCUS_WEIGHT = 1.6
HOP_PARENTS = 3
DENSE_CANDIDATES = 40  # nearest facts by cosine added to the BM25 candidates
DENSE_MIX = 0.4  # share of the rank given to cosine similarity when the dense stage is on
DENSE_FLOOR = 0.35  # cosine under which similarity alone says nothing about relevance
DENSE_RELEVANCE = 0.8  # the most relevance a fact can earn from cosine alone
SPEAKER_BONUS = 0.25  # rank bonus for a message whose author the prompt names
QUESTION_PENALTY = 0.1  # rank cost of a statement that is itself a question
PERIOD_PENALTY = 0.6
FOCUS_PENALTY = 0.7
RELEVANCE_MIX = 0.4  # rank = this share of calibrated relevance, the rest BM25
NEARBY_BOOST = 0.6  # BM25 weight of the neighbouring statements' words
NEARBY_CREDIT = 0.6  # coverage credit of a query word found only in a neighbouring statement


@dataclass
class _QueryTerm:
    term: str
    weight: float  # 1.0 for the prompt's own terms, less for context from the session
    idf: float


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RetrievalTimeout()


# Years and quarters: a question about "Q3 2024" is not answered by a fact about Q1 2026.
_PERIOD = re.compile(r"(?:19|20)\d\d|q[1-4]|h[12]|fy\d\d(?:\d\d)?")
_SPEAKER = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}): ")  # "Ana Ruiz: ship it Friday"
_FOCUS = re.compile(r"\b(?:how\s+many|how\s+much|which|what)\s+([\w-]+)", re.IGNORECASE)


def focus_terms(prompt: str) -> set[str]:
    """The word naming what is asked for ("how many *seats*", "which *firm*"): a fact that
    lacks it does not answer the question, whatever else it matches."""
    match = _FOCUS.search(prompt)
    return set(terms(match.group(1))) if match else set()


def _query_terms(index: LoadedIndex, prompt: str, rewritten: str) -> list[_QueryTerm]:
    own = terms(prompt)
    focus = focus_terms(prompt)
    weights: dict[str, float] = {}
    for term in own:
        weights[term] = FOCUS_WEIGHT if term in focus else 1.0
    if rewritten != prompt:
        for term in terms(rewritten):
            weights.setdefault(term, HISTORY_WEIGHT)
    return [_QueryTerm(t, w, index.idf(t)) for t, w in weights.items()]


def _candidates(index: LoadedIndex, query: list[_QueryTerm]) -> list[tuple[float, dict[str, Any]]]:
    subqueries = []
    for q in query:
        alternatives = [q.term, *sorted(synonyms(q.term))]
        for i, term in enumerate(alternatives):
            boost = q.weight * (1.0 if i == 0 else SYNONYM_WEIGHT)
            for field, field_boost in (("terms", 1.0), ("context", 0.4), ("nearby", NEARBY_BOOST)):
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


_MONTHS = [stem(m) for m in (
    "january february march april may june july august september october november december".split()
)]


@lru_cache(maxsize=4096)
def _date_terms(iso: str) -> frozenset[str]:
    """A fact dated 2023-05-08 is about May 2023, its Q2 and H1, as far as a date asked goes."""
    if len(iso) < 7 or not iso[:4].isdigit() or not iso[5:7].isdigit() or not 1 <= int(iso[5:7]) <= 12:
        return frozenset()
    month = int(iso[5:7])
    return frozenset({iso[:4], _MONTHS[month - 1], f"q{(month - 1) // 3 + 1}", f"h{1 if month <= 6 else 2}"})


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _first(doc: dict[str, Any], field: str, default: Any = None) -> Any:
    values = doc.get(field) or []
    return values[0] if values else default


def _fact_hit(index: LoadedIndex, doc: dict[str, Any], relevance: float) -> FactHit:
    section = index.sections.get(int(_first(doc, "section_id", 0)), {})
    return FactHit(
        statement=_first(doc, "statement", ""),
        relevance_score=round(min(1.0, relevance), 2),
        source_path=section.get("file_path", "company_context/general/general.md"),
        section=section.get("title", ""),
        tree_path=section.get("tree_path", ROOT),
        source_document=_first(doc, "source_document", ""),
        effective_date=_first(doc, "effective_date", "") or None,
        fact_id=int(_first(doc, "fact_id", 0)),
        document_id=int(_first(doc, "document_id", 0)),
        position=int(_first(doc, "position", 0)),
        superseded=bool(_first(doc, "superseded", 0)),
    )


def _coverage(
    query: list[_QueryTerm], fact_terms: set[str], context_terms: set[str], nearby_terms: AbstractSet[str] = frozenset()
) -> float:
    total = sum(q.weight * q.idf for q in query)
    if total <= 0:
        return 0.0
    got = 0.0
    for q in query:
        if q.term in fact_terms:
            credit = 1.0
        elif fact_terms & synonyms(q.term):
            credit = SYNONYM_WEIGHT
        elif q.term in context_terms or context_terms & synonyms(q.term):
            credit = 0.5
        elif q.term in nearby_terms:
            credit = NEARBY_CREDIT
        else:
            credit = 0.0
        got += credit * q.weight * q.idf
    return got / total


def retrieve(
    workspace: Workspace,
    prompt: str,
    history: list[str] | None = None,
    *,
    deadline: float | None = None,
    triage_enabled: bool = True,
    limit: int = MAX_FACTS,
    version: int | None = None,
) -> Retrieval:
    """Answer `prompt` from the workspace's newest published memory.

    `history` is the session's earlier prompts, oldest first (the last 3 are used);
    `deadline` is a `time.monotonic()` value past which RetrievalTimeout is raised;
    `limit` caps the facts returned (the evaluation harness asks for 10); `version` is the
    published index version when the caller has just read it (else it is looked up).
    """
    if triage_enabled:
        decision = triage_prompt(prompt, list(history or [])[-3:])
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
    query = _query_terms(index, prompt, decision.rewritten_query)
    raw = _candidates(index, query)
    similarity: dict[int, float] = {}
    if index.vectors is not None:
        # The dense stage: facts that say it in other words join the candidates.
        query_vector = dense.encode_query(decision.rewritten_query or prompt)
        top = index.vectors.top(query_vector, DENSE_CANDIDATES)
        have = {int(_first(doc, "fact_id", 0)) for _, doc in raw}
        raw += [(0.0, doc) for doc in _docs_by_fact_id(index, [f for f, _ in top if f not in have])]
        similarity = dict(top)
        similarity.update(index.vectors.similarity(query_vector, [f for f in have if f not in similarity]))
    _check(deadline)

    scored: list[tuple[float, float, dict[str, Any]]] = []  # (rank, relevance, doc)
    max_bm25 = max((score for score, _ in raw), default=1.0) or 1.0
    focus = focus_terms(prompt)
    qualifiers = {q.term for q in query if q.weight >= 1.0 and _PERIOD.fullmatch(q.term)}
    query_set = {q.term for q in query if q.weight >= 1.0}  # the prompt's own terms
    for bm25, doc in raw:
        fact_terms = set(_first(doc, "terms", "").split())
        # Its date counts as context: "in May 2023" is answered by a message sent then.
        context_terms = set(_first(doc, "context", "").split()) | _date_terms(_first(doc, "effective_date", ""))
        nearby_terms = set(_first(doc, "nearby", "").split())
        relevance = _coverage(query, fact_terms, context_terms, nearby_terms)
        sim = similarity.get(int(_first(doc, "fact_id", 0)), 0.0)
        if similarity:
            # Said in other words: cosine similarity vouches for some relevance on its own.
            relevance = max(relevance, DENSE_RELEVANCE * _clip((sim - DENSE_FLOOR) / (0.85 - DENSE_FLOOR)))
        known = fact_terms | context_terms
        if qualifiers - known:
            relevance *= PERIOD_PENALTY  # "Q3 2024" asked, another period or figure found
        if focus and not any(t in known or known & synonyms(t) for t in focus):
            relevance *= FOCUS_PENALTY  # "how many seats" asked, the fact says nothing of seats
        if _first(doc, "superseded", 0):
            relevance *= 0.85  # a newer statement about the same subject exists
        rank = RELEVANCE_MIX * relevance + (1 - RELEVANCE_MIX) * (bm25 / max_bm25)
        if similarity:
            rank = (1 - DENSE_MIX) * rank + DENSE_MIX * _clip((sim - 0.2) / 0.6)
        speaker = _SPEAKER.match(_first(doc, "statement", ""))
        if speaker and set(terms(speaker.group(1))) <= query_set:
            rank += SPEAKER_BONUS  # "what did Caroline say" — her own messages first
        if _first(doc, "statement", "").rstrip().endswith("?"):
            rank -= QUESTION_PENALTY  # a question asks; the message after it answers
        scored.append((rank, relevance, doc))

    # Phase 1: the sections the best candidates live in, and whose titles match the query.
    section_score: dict[int, float] = defaultdict(float)
    section_terms: dict[int, set[str]] = defaultdict(set)
    for rank, _, doc in sorted(scored, key=lambda item: -item[0])[:20]:
        sid = int(_first(doc, "section_id", 0))
        section_score[sid] += rank
        section_terms[sid] |= set(_first(doc, "terms", "").split()) & query_set
    for sid, section in index.sections.items():
        title_hits = query_set & set(section["title_terms"])
        if title_hits and section["facts"]:
            section_score[sid] += 0.5 * len(title_hits)
    ranked_sections = sorted(
        (sid for sid in section_score if sid in index.sections), key=lambda s: -section_score[s]
    )
    best_section = section_score[ranked_sections[0]] if ranked_sections else 0.0
    targeted = [s for s in ranked_sections if section_score[s] >= 0.35 * best_section][:MAX_SECTIONS]
    targeted_set = set(targeted)

    # Recency: among candidates, a newer effective date wins ties between similar statements.
    dates = sorted({_first(doc, "effective_date", "") for _, _, doc in scored} - {""})
    date_rank = {d: i / max(1, len(dates) - 1) for i, d in enumerate(dates)}
    final: list[tuple[float, float, dict[str, Any]]] = []
    for rank, relevance, doc in scored:
        if int(_first(doc, "section_id", 0)) in targeted_set:
            rank += 0.04
        rank += 0.03 * date_rank.get(_first(doc, "effective_date", ""), 0.0)
        final.append((rank, relevance, doc))
    final.sort(key=lambda item: -item[0])

    facts: list[FactHit] = []
    seen_statements: set[str] = set()
    for rank, relevance, doc in final:
        if relevance < FACT_FLOOR:
            continue
        statement = _first(doc, "statement", "")
        norm = statement.strip().lower()
        if norm in seen_statements:
            continue
        seen_statements.add(norm)
        facts.append(_fact_hit(index, doc, relevance))
        if len(facts) >= limit:
            break
    _check(deadline)
    facts.sort(key=lambda f: -f.relevance_score)  # stable: rank order breaks ties
    facts = _second_hop(index, query, facts, prompt, seen_statements, limit)
    _check(deadline)

    # Only sections that hold returned facts, or whose titles matched, are reported as targeted.
    fact_sections = {index.sections[s]["tree_path"] for s in targeted if s in index.sections}
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

    coverage = _assess(facts)
    entities, relationships = _graph(workspace, facts, query_set)
    documents = _documents(facts)
    summary = _summary(facts, coverage)
    return Retrieval(
        triage=decision,
        phase1=phase1,
        context_summary=summary,
        facts=facts,
        entities=entities,
        relationships=relationships,
        documents=documents,
        coverage_assessment=coverage,
        sections_searched=sorted(fact_sections),
    )


def _second_hop(
    index: LoadedIndex, query: list[_QueryTerm], facts: list[FactHit], prompt: str, seen: set[str], limit: int
) -> list[FactHit]:
    """Multi-hop: follow the entities the best facts name but the prompt does not ("the DRI
    of Project Harbor" → Casimir Oyelaran → whom he reports to) and add, right after each
    parent fact, the best fact about that entity that also matches the question."""
    if not facts:
        return facts
    lowered = prompt.lower()
    out: list[FactHit] = []
    added = 0
    for position, parent in enumerate(facts):
        out.append(parent)
        if position >= HOP_PARENTS or parent.relevance_score < 0.4 or added >= 2:
            continue
        labels, parent_terms = _bridges(index, parent.fact_id, lowered)
        # What the parent fact leaves unanswered is what the hop must bring.
        remaining = [
            q for q in query
            if q.weight >= 1.0 and q.term not in parent_terms and not parent_terms & synonyms(q.term)
        ]
        if not remaining:
            continue
        for label in labels:
            label_terms = terms(label)
            if not label_terms:
                continue
            hop_query = [_QueryTerm(t, 1.0, index.idf(t)) for t in label_terms] + [
                _QueryTerm(q.term, 1.0, q.idf) for q in remaining if q.term not in label_terms
            ]
            must = [
                (tantivy.Occur.Must, tantivy.Query.term_query(index.index.schema, "terms", t)) for t in label_terms
            ]
            should = [
                (tantivy.Occur.Should, tantivy.Query.term_query(index.index.schema, "terms", term))
                for q in hop_query[len(label_terms) :]
                for term in (q.term, *synonyms(q.term))
            ]
            hits = index.searcher.search(tantivy.Query.boolean_query(must + should), 10).hits
            best: tuple[float, dict[str, Any]] | None = None
            for _, address in hits:
                candidate = index.searcher.doc(address).to_dict()
                statement = _first(candidate, "statement", "")
                if statement.strip().lower() in seen:
                    continue
                own_terms = set(_first(candidate, "terms", "").split())
                # It must add something the question asked beyond naming the entity.
                if not any(q.term in own_terms or own_terms & synonyms(q.term) for q in remaining):
                    continue
                cov = _coverage(hop_query, own_terms, set(_first(candidate, "context", "").split()))
                if best is None or cov > best[0]:
                    best = (cov, candidate)
            if best is None or best[0] < 0.55:
                continue
            cov, candidate = best
            statement = _first(candidate, "statement", "")
            seen.add(statement.strip().lower())
            out.append(_fact_hit(index, candidate, min(parent.relevance_score, cov) * 0.9))
            added += 1
            break
    return out[:limit]


def _bridges(index: LoadedIndex, fact_id: int, prompt_lower: str) -> tuple[list[str], set[str]]:
    """Entities the fact names that the prompt does not, and the fact's own terms."""
    hits = index.searcher.search(tantivy.Query.term_query(index.index.schema, "fact_id", fact_id), 1).hits
    if not hits:
        return [], set()
    doc = index.searcher.doc(hits[0][1]).to_dict()
    labels = []
    for value in doc.get("entities") or []:
        label, _, etype = value.rpartition("|")
        if etype in ("person", "team", "organization", "project") and label.lower() not in prompt_lower:
            labels.append(label)
    return labels, set(_first(doc, "terms", "").split())


def _assess(facts: list[FactHit]) -> str:
    if not facts:
        return "none"
    best = facts[0].relevance_score if facts else 0.0
    best = max(f.relevance_score for f in facts)
    strong = sum(1 for f in facts if f.relevance_score >= 0.6)
    if best < 0.5:
        return "minimal"
    if best >= 0.75 and strong >= 2:
        return "comprehensive"
    return "partial"


def _summary(facts: list[FactHit], coverage: str) -> str:
    if not facts:
        return "No stored company context matches this prompt."
    picked: list[str] = []
    length = 0
    for fact in facts[:3]:
        sentence = fact.statement.strip()
        if not sentence.endswith((".", "!", "?")):
            sentence += "."
        if length + len(sentence) > 420 and picked:
            break
        picked.append(sentence)
        length += len(sentence) + 1
    text = " ".join(picked)
    if coverage == "minimal":
        text = "Only loosely related context was found: " + text
    return text


def _graph(
    workspace: Workspace, facts: list[FactHit], query_set: set[str]
) -> tuple[list[EntityHit], list[RelationshipHit]]:
    if not facts:
        return [], []
    fact_ids = [f.fact_id for f in facts[:5]]
    entity_ids = list(
        Fact.entities.through.objects.filter(fact_id__in=fact_ids)
        .values_list("entity_id", flat=True)
        .distinct()[:50]
    )
    rows = list(
        Entity.objects.filter(workspace=workspace, id__in=entity_ids).values("id", "label", "type", "properties")
    )
    # Prefer entities the prompt names, then those of the best facts.
    rows.sort(key=lambda r: (-len(set(terms(r["label"])) & query_set), r["label"]))
    rows = rows[:6]
    entities = [EntityHit(r["label"], r["type"], r["properties"] or {}) for r in rows]
    ids = [r["id"] for r in rows]
    rels = (
        Relationship.objects.filter(workspace=workspace, subject_id__in=ids, target_id__in=ids)
        .select_related("subject", "target")
        .order_by("-id")[:40]
    )
    # One row per mention (each keeps its fact as provenance); report each relation once,
    # the newest mention's properties winning.
    relationships: list[RelationshipHit] = []
    seen_relations: set[tuple[int, str, int]] = set()
    for r in rels:
        key = (r.subject_id, r.type, r.target_id)
        if key not in seen_relations and len(relationships) < 8:
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
