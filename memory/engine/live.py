"""The live layer (SPEC §2.4): agent memories read from the database at call time.

A memory written with `remember` must be found by `recall` and `retrieve_memory` on the very
next call, from any web process, without rebuilding the published index. Agent memories are
therefore not put in the tantivy index (they are not filed under a topic section): they have
their own incremental segment, the term index `AgentMemoryTerm`, written in the memory's own
transaction (`memory_save`). Every call that can return them ranks the caller's visible, live
memories with one grouped query over that index — every memory that holds a query term or a
synonym is scored, however many there are — by the engine's own calibrated coverage
(`rank.coverage`, with the published index's IDF when there is one), and loads only the best.
`forget` sets `deleted_at`, so a forgotten memory leaves every answer on the next call too.
This is the one per-call read of agent memory the engine makes; docs/architecture.md
("Agent memory") gives the design and its cost.

Visibility (`Viewer`): a credential sees the buckets and teams it carries (empty = all); the
bucket `private` only holds what that same credential wrote; nothing crosses workspaces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from memory.engine.answer_types import contacts_missing
from memory.engine.months import months_unstated
from memory.engine.rank import CONTEXT_CREDIT, QueryTerm, assess, returned
from memory.engine.search import summary
from memory.engine.synonyms import SYNONYM_WEIGHT, synonyms
from memory.engine.text import document_terms, term_set, terms
from memory.engine.types import FactHit, Retrieval
from memory.models import AgentMemory, AgentMemoryTerm, Workspace
from memory.models.memory import MAX_TERM_LENGTH

PRIVATE = "private"
DEFAULT_BUCKET = "public"
PRIOR_MEMORIES = 100  # memory_idf's smoothing: pseudo-memories that hold none of the query's words
RELEVANCE_DECIMALS = 2  # relevance is compared, and reported, at this precision
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
    key (`memory_save` calls it; so does a bulk load before `memory_index`)."""
    context = f"{memory.path} {memory.project} {memory.team} {memory.memory_type} {memory.semantic_key}"
    memory.content_terms = _joined(set(document_terms(memory.content)))
    memory.context_terms = _joined(term_set(context.replace("/", " ")))


def memory_index(memories: list[AgentMemory]) -> None:
    """Replace the term-index postings of saved `memories` with their stored terms."""
    AgentMemoryTerm.objects.filter(memory__in=[m.pk for m in memories]).delete()
    AgentMemoryTerm.objects.bulk_create(
        [
            AgentMemoryTerm(workspace_id=m.workspace_id, memory_id=m.pk, term=term, field=field)
            for m in memories
            for field, text in ((AgentMemoryTerm.Field.CONTENT, m.content_terms), (AgentMemoryTerm.Field.CONTEXT, m.context_terms))
            for term in sorted(set(text.split()))
            if len(term) <= MAX_TERM_LENGTH
        ],
        batch_size=1000,
    )


def memory_save(memory: AgentMemory) -> None:
    """Save a new or changed memory with its analysed terms and postings (call inside the
    writer's transaction, so a reader sees the memory and its postings together)."""
    memory_terms(memory)
    memory.save()
    memory_index([memory])


def _credits(query: list[QueryTerm]) -> list[tuple[str, int, int, float]]:
    """What each posting earns, as `rank.coverage` credits a fact: (term, field, query term,
    share of the query's weight). A query term counts once, at its best credit: in the content
    fully, as a synonym in the content at `SYNONYM_WEIGHT`, in the context at `CONTEXT_CREDIT`."""
    total = sum(q.weight * q.idf for q in query)
    rows: list[tuple[str, int, int, float]] = []
    if total <= 0:
        return rows
    for position, q in enumerate(query):
        share = q.weight * q.idf / total
        related = sorted(synonyms(q.term) - {q.term})
        rows.append((q.term, AgentMemoryTerm.Field.CONTENT, position, share))
        rows += [(t, AgentMemoryTerm.Field.CONTENT, position, SYNONYM_WEIGHT * share) for t in related]
        rows += [(t, AgentMemoryTerm.Field.CONTEXT, position, CONTEXT_CREDIT * share) for t in [q.term, *related]]
    return [row for row in rows if len(row[0]) <= MAX_TERM_LENGTH]


def memory_idf(workspace: Workspace, query_text: str) -> Callable[[str], float]:
    """BM25's inverse document frequency of the query's terms over the workspace's agent
    memories (their content postings), for a workspace with no published index to take it
    from: a word in every memory (a speaker's name, "project") weighs little, a rare one much.
    `PRIOR_MEMORIES` pseudo-memories holding none of the words smooth it, so a handful of
    memories (where every word is "in every memory") keeps near-equal weights."""
    wanted = list(dict.fromkeys(terms(query_text)))
    total = AgentMemory.objects.filter(workspace=workspace).count() + PRIOR_MEMORIES
    frequency = dict(
        AgentMemoryTerm.objects.filter(workspace=workspace, field=AgentMemoryTerm.Field.CONTENT, term__in=wanted)
        .values_list("term")
        .annotate(n=Count("id"))
        .values_list("term", "n")
    )

    def idf(term: str) -> float:
        df = frequency.get(term, 0)
        return math.log(1 + (total - df + 0.5) / (df + 0.5))

    return idf


# One grouped query over the term index: each visible memory's best credit per query term,
# summed; those at or over the floor, best first, ties to the more important, then the newer.
_RANKED = """
WITH q(term, field, position, credit) AS (VALUES {values})
SELECT b.memory_id, ROUND(CAST(SUM(b.best) AS NUMERIC), {decimals}) AS relevance
FROM (
    SELECT p.memory_id AS memory_id, q.position AS position, MAX(q.credit) AS best
    FROM memory_agentmemoryterm p JOIN q ON p.term = q.term AND p.field = q.field
    WHERE p.workspace_id = %s AND p.memory_id IN ({visible})
    GROUP BY p.memory_id, q.position
) b JOIN memory_agentmemory m ON m.id = b.memory_id
GROUP BY b.memory_id, m.importance, m.updated_at
HAVING SUM(b.best) >= %s AND SUM(b.best) > 0
ORDER BY relevance DESC, COALESCE(m.importance, 0) DESC, m.updated_at DESC, b.memory_id DESC
LIMIT %s
"""


def live_search(
    workspace: Workspace,
    rows: QuerySet[AgentMemory],
    query_text: str,
    *,
    min_relevance: float,
    limit: int,
    idf: Callable[[str], float] | None = None,
) -> list[LiveHit]:
    """The best of `rows` (the workspace's memories the caller may see, filtered as the tool
    asks) at or over `min_relevance`, best first; ties go to the more important, then the
    newer memory. Term weights: `idf` (the published index's), else `memory_idf`."""
    credits = _credits(query_terms(query_text, idf or memory_idf(workspace, query_text)))
    if not credits or limit <= 0:
        return []
    visible_sql, visible_params = rows.values("pk").query.sql_with_params()
    values = ", ".join(f"(%s, {field:d}, {position:d}, {credit!r})" for _, field, position, credit in credits)
    sql = _RANKED.format(values=values, decimals=RELEVANCE_DECIMALS, visible=visible_sql)
    params = [term for term, *_ in credits] + [workspace.pk, *visible_params, min_relevance, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ranked = [(pk, float(score)) for pk, score in cursor.fetchall()]
    by_id = AgentMemory.objects.in_bulk([pk for pk, _ in ranked])
    return [LiveHit(by_id[pk], min(1.0, score)) for pk, score in ranked if pk in by_id]


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
    # The company facts' joint coverage stands for the merged list's: live memories only add
    # facts, and one cut off by `limit` rarely held a part of the prompt no other fact does.
    # A name the company memory never uses may be in a live memory: it is unknown no longer.
    said = set().union(*(term_set(f.statement) for f in merged))
    retrieval.unknown_names = [name for name in retrieval.unknown_names if not term_set(name) <= said]
    # A contact detail no company fact holds may be in a live memory ("Dana's new mobile is ...").
    unheld = contacts_missing(retrieval.contacts_asked, [f.statement for f in merged], retrieval.contact_holder)
    # So may the month asked ("the April 2026 figures are in: ...").
    unstated = months_unstated(retrieval.months_asked, merged)
    retrieval.coverage_assessment = assess(
        merged,
        retrieval.joint_coverage,
        bool(retrieval.unknown_names),
        returned(merged, retrieval.meant_fact),
        bool(unheld),
        bool(unstated),
    )
    retrieval.context_summary = summary(merged, retrieval.coverage_assessment, unheld, unstated)
    return retrieval
