"""The live layer (SPEC §2.4): agent memories read from the database at call time.

A memory written with `remember` must be found by `recall` and `retrieve_memory` on the very
next call, from any web process, without rebuilding the published index. Agent memories are
therefore never put in the tantivy index (they are not filed under a topic section); every call
that can return them reads the caller's visible, live rows here — one indexed query bounded by
`LIVE_MAX` rows, newest first — and scores them with the engine's own calibrated coverage
(`rank.coverage`, the published index's IDF when there is one). `forget` sets `deleted_at`, so a
forgotten memory leaves every answer on the next call too. This is the one per-call read of
agent memory the engine makes; docs/architecture.md ("Agent memory") gives the design and its
bound.

Visibility (`Viewer`): a credential sees the buckets and teams it carries (empty = all); the
bucket `private` only holds what that same credential wrote; nothing crosses workspaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.engine.rank import QueryTerm, assess, coverage
from memory.engine.search import _summary  # the engine's own summary wording
from memory.engine.synonyms import synonyms
from memory.engine.text import term_set, terms
from memory.engine.types import FactHit, Retrieval
from memory.models import AgentMemory, Workspace

PRIVATE = "private"
DEFAULT_BUCKET = "public"
LIVE_MAX = 2000  # newest visible memories scored per call (docs/architecture.md)
AREA = "Agent Memory"
ROOT = "Company Context"


def source_path(bucket: str) -> str:
    """SPEC §2.4: where a bucket's memories live in the company context."""
    return f"company_context/agent_memory/{bucket}.md"


@dataclass(frozen=True)
class Viewer:
    """Who reads agent memory: the credential's label and the buckets and teams it sees."""

    label: str
    buckets: frozenset[str] = field(default_factory=frozenset)  # empty = every bucket
    teams: frozenset[str] = field(default_factory=frozenset)  # empty = every team

    def sees_bucket(self, bucket: str) -> bool:
        return bucket == PRIVATE or not self.buckets or bucket in self.buckets

    def sees_team(self, team: str) -> bool:
        return not team or not self.teams or team in self.teams


def readable(workspace: Workspace, viewer: Viewer) -> QuerySet[AgentMemory]:
    """Every agent memory of the workspace `viewer` may read, forgotten and expired ones
    included (the REST memory API lists those on request)."""
    own_private = Q(bucket=PRIVATE, credential=viewer.label)
    shared = Q(bucket__in=sorted(viewer.buckets - {PRIVATE})) if viewer.buckets else ~Q(bucket=PRIVATE)
    rows = AgentMemory.objects.filter(workspace=workspace).filter(own_private | shared)
    if viewer.teams:
        rows = rows.filter(Q(team="") | Q(team__in=sorted(viewer.teams)))
    return rows


def live(rows: QuerySet[AgentMemory], now: datetime) -> QuerySet[AgentMemory]:
    """The rows neither forgotten nor expired at `now`."""
    return rows.filter(deleted_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def visible(workspace: Workspace, viewer: Viewer, *, now: datetime | None = None) -> QuerySet[AgentMemory]:
    """The live (not forgotten, not expired) agent memories `viewer` may read."""
    return live(readable(workspace, viewer), now or timezone.now())


@dataclass
class LiveHit:
    memory: AgentMemory
    relevance: float


def query_terms(text: str, idf: Callable[[str], float] | None = None) -> list[QueryTerm]:
    seen: list[str] = []
    for term in terms(text):
        if term not in seen:
            seen.append(term)
    return [QueryTerm(t, 1.0, idf(t) if idf else 1.0) for t in seen]


def _joined(found: set[str]) -> str:
    return " " + " ".join(sorted(found)) + " " if found else ""


def memory_terms(memory: AgentMemory) -> None:
    """Set the memory's analysed terms from its content and its path, project, team, type and
    key (call before saving whenever one of them changes)."""
    context = f"{memory.path} {memory.project} {memory.team} {memory.memory_type} {memory.semantic_key}"
    memory.content_terms = _joined(term_set(memory.content))
    memory.context_terms = _joined(term_set(context.replace("/", " ")))


def relevance(query: list[QueryTerm], memory: AgentMemory) -> float:
    """The share of the query's information the memory holds (its content counting fully; its
    path, project, team, type and key as context), as `rank.coverage` scores facts."""
    return coverage(query, set(memory.content_terms.split()), set(memory.context_terms.split()))


def _mentions(query: list[QueryTerm]) -> Q:
    """Rows holding at least one query term or synonym: the only rows that can score over 0."""
    found = Q()
    for q in query:
        for term in (q.term, *synonyms(q.term)):
            found |= Q(content_terms__contains=f" {term} ") | Q(context_terms__contains=f" {term} ")
    return found


def live_search(
    rows: QuerySet[AgentMemory],
    query_text: str,
    *,
    min_relevance: float,
    limit: int,
    idf: Callable[[str], float] | None = None,
) -> list[LiveHit]:
    """The best of `rows` (already filtered) at or over `min_relevance`, best first; ties go
    to the more important, then the newer memory."""
    query = query_terms(query_text, idf)
    if not query:
        return []
    # Score on the terms alone (no model rows, no content read), then load the best rows.
    scored: list[tuple[float, float, int, int]] = []  # (-relevance, -importance, order, id)
    candidates = (
        rows.filter(_mentions(query))
        .order_by("-updated_at", "-id")
        .values_list("id", "content_terms", "context_terms", "importance")[:LIVE_MAX]
    )
    for order, (pk, content_terms, context_terms, importance) in enumerate(candidates):
        score = coverage(query, set(content_terms.split()), set(context_terms.split()))
        if score >= min_relevance and score > 0:
            scored.append((-round(min(1.0, score), 2), -(importance or 0.0), order, pk))
    best = sorted(scored)[:limit]
    by_id = AgentMemory.objects.in_bulk([pk for *_, pk in best])
    return [LiveHit(by_id[pk], -neg) for neg, _, _, pk in best if pk in by_id]


def fact_hit(hit: LiveHit) -> FactHit:
    """A live memory as a fact of the built-in `agent` source (SPEC §2.4)."""
    memory = hit.memory
    return FactHit(
        statement=memory.content,
        relevance_score=hit.relevance,
        source_path=source_path(memory.bucket),
        section=AREA,
        tree_path=f"{ROOT} > {AREA} > {memory.bucket}",
        source_document=memory.path,
        effective_date=memory.created_at.date().isoformat(),
        fact_id=0,
        document_id=0,
        position=0,
        reference=memory.reference,
    )


def live_merge(retrieval: Retrieval, hits: list[LiveHit], limit: int) -> Retrieval:
    """`retrieval` with the live memories among its facts, ranked by relevance together and
    cut at `limit`; coverage and summary follow the merged facts."""
    if not hits:
        return retrieval
    merged = sorted([*retrieval.facts, *(fact_hit(h) for h in hits)], key=lambda f: -f.relevance_score)[:limit]
    retrieval.facts = merged
    retrieval.coverage_assessment = assess(merged)
    retrieval.context_summary = _summary(merged, retrieval.coverage_assessment)
    return retrieval
