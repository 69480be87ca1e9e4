"""Reads of the XMemo tools (SPEC §2.4) over one memory: the caller's visible agent memories
(the live layer, `memory.engine.live`) and the workspace's published company facts
(`memory.engine.retrieve`, triage off), ranked together by the same calibrated relevance.

- `memory_recall`: tolerant, best effort; anything over `RECALL_FLOOR`.
- `memory_search`: strict; only matches at or over `STRICT_FLOOR`, every filter exact
  (company facts have no bucket, team or project: any of those filters leaves them out).
- `context_pack`: the recall pool packed into `max_items` and a `max_tokens` budget of the
  body, counted with `memory.engine.tokens.count_tokens` (cl100k_base).

No workspace needs a connected source: with nothing published, only agent memories answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from memory.agent_memory.services import scope_check
from memory.engine import retrieve
from memory.engine.index import LoadedIndex, index_for, published_version
from memory.engine.live import LiveHit, Viewer, live_search, visible
from memory.engine.tokens import count_tokens, truncate_to_tokens
from memory.engine.types import FactHit
from memory.models import AgentMemory, Workspace

RECALL_FLOOR = 0.2  # the engine's FACT_FLOOR: tolerant, yet no filler
STRICT_FLOOR = 0.7  # search_memory: most of the query's information must be in the memory
FACT_TYPE = "fact"  # the `Type` of a company fact
PACK_EXTRA = 10  # candidates read beyond max_items, to say how many max_items dropped
BODY_SEPARATOR = "\n\n"


@dataclass
class Item:
    """One result: an agent memory or a company fact, with what the seeds show of it."""

    reference: str  # "mem_…" or "fact_<id>"; opaque to clients
    type: str  # the memory's type, or "fact"
    location: str  # the memory's path, or the fact's source document (else section file)
    content: str
    relevance_score: float
    origin: str  # "agent_memory" | "company_fact"
    attribution: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "type": self.type,
            "location": self.location,
            "content": self.content,
            "relevance_score": self.relevance_score,
            "origin": self.origin,
            "attribution": self.attribution,
        }


def _memory_item(hit: LiveHit) -> Item:
    m = hit.memory
    attribution: dict[str, Any] = {
        "bucket": m.bucket,
        "written_by": m.credential,
        "written_at": m.created_at.isoformat(),
        "updated_at": m.updated_at.isoformat(),
    }
    for name in ("team", "project", "semantic_key"):
        if getattr(m, name):
            attribution[name] = getattr(m, name)
    for name in ("confidence", "importance"):
        if getattr(m, name) is not None:
            attribution[name] = getattr(m, name)
    if m.expires_at:
        attribution["expires_at"] = m.expires_at.isoformat()
    return Item(m.reference, m.memory_type, m.path, m.content, hit.relevance, "agent_memory", attribution)


def _fact_item(fact: FactHit) -> Item:
    attribution: dict[str, Any] = {"source_path": fact.source_path, "section": fact.section}
    if fact.source_document:
        attribution["source_document"] = fact.source_document
    if fact.effective_date:
        attribution["effective_date"] = fact.effective_date
    return Item(
        f"fact_{fact.fact_id}",
        FACT_TYPE,
        fact.source_document or fact.source_path,
        fact.statement,
        fact.relevance_score,
        "company_fact",
        attribution,
    )


def _published(workspace: Workspace) -> tuple[int | None, LoadedIndex | None]:
    version = published_version(workspace)
    return version, (index_for(workspace, version) if version is not None else None)


def _company_facts(workspace: Workspace, query: str, limit: int, version: int | None) -> list[FactHit]:
    if version is None:
        return []
    retrieval = retrieve(workspace, query, triage_enabled=False, limit=limit, version=version, hide_deleting=True)
    return retrieval.facts


def _ranked(items: list[Item], limit: int) -> list[Item]:
    return sorted(items, key=lambda i: -i.relevance_score)[:limit]  # stable: memories first on ties


def _pool(workspace: Workspace, viewer: Viewer, query: str, limit: int, bucket: str | None) -> list[Item]:
    """The tolerant pool of recall and recall_context, best first."""
    scope_check(viewer=viewer, bucket=bucket)
    version, index = _published(workspace)
    rows = visible(workspace, viewer)
    if bucket is not None:
        rows = rows.filter(bucket=bucket)
    hits = live_search(workspace, rows, query, min_relevance=RECALL_FLOOR, limit=limit, idf=index.idf if index else None)
    items = [_memory_item(h) for h in hits]
    if bucket is None:  # company facts are in no bucket
        items += [_fact_item(f) for f in _company_facts(workspace, query, limit, version) if f.relevance_score >= RECALL_FLOOR]
    return _ranked(items, limit)


def memory_recall(*, workspace: Workspace, viewer: Viewer, query: str, limit: int, bucket: str | None = None) -> list[Item]:
    return _pool(workspace, viewer, query, limit, bucket)


@dataclass(frozen=True)
class SearchFilters:
    project: str | None = None
    team: str | None = None
    bucket: str | None = None
    path_filter: str | None = None  # an exact path, or a folder: "projects/pam" matches "projects/pam/…"
    memory_type: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def _path_q(path_filter: str) -> Q:
    folder = path_filter.rstrip("/")
    return Q(path=path_filter) | Q(path=folder) | Q(path__startswith=folder + "/")


def _path_matches(path: str, path_filter: str) -> bool:
    folder = path_filter.rstrip("/")
    return path in (path_filter, folder) or path.startswith(folder + "/")


def memory_search(
    *, workspace: Workspace, viewer: Viewer, query: str, limit: int, filters: SearchFilters
) -> list[Item]:
    """Strict: weak matches are not returned; every filter is applied exactly."""
    scope_check(viewer=viewer, bucket=filters.bucket, team=filters.team)
    version, index = _published(workspace)
    rows: QuerySet[AgentMemory] = visible(workspace, viewer)
    if filters.bucket is not None:
        rows = rows.filter(bucket=filters.bucket)
    if filters.team is not None:
        rows = rows.filter(team=filters.team)
    if filters.project is not None:
        rows = rows.filter(project=filters.project)
    if filters.memory_type is not None:
        rows = rows.filter(memory_type=filters.memory_type)
    if filters.path_filter is not None:
        rows = rows.filter(_path_q(filters.path_filter))
    hits = live_search(workspace, rows, query, min_relevance=STRICT_FLOOR, limit=limit, idf=index.idf if index else None)
    items = [_memory_item(h) for h in hits]
    facts_apply = (
        filters.bucket is None
        and filters.team is None
        and filters.project is None
        and filters.memory_type in (None, FACT_TYPE)
    )
    if facts_apply:
        for fact in _company_facts(workspace, query, limit, version):
            item = _fact_item(fact)
            if fact.relevance_score < STRICT_FLOOR:
                continue
            if filters.path_filter is not None and not (
                _path_matches(fact.source_document, filters.path_filter)
                or _path_matches(fact.source_path, filters.path_filter)
            ):
                continue
            items.append(item)
    return _ranked(items, limit)


@dataclass
class PackedItem:
    item: Item
    text: str  # what the body holds of it: the content, or its start when shortened
    tokens: int
    shortened: bool


@dataclass
class Pack:
    items: list[PackedItem]
    body: str
    used_tokens: int
    max_items: int
    max_tokens: int
    candidates: int
    dropped_over_items: int  # matches past max_items
    dropped_over_tokens: int  # items that did not fit in max_tokens
    shortened: int

    @property
    def used_items(self) -> int:
        return len(self.items)


SEPARATOR_TOKENS = 2  # what a blank line between two items can cost, at most
BOUNDARY_SLACK = 16  # tokens BPE may shift where two items meet; nearer the budget, count exactly


def _fits(parts: list[str], budget: int) -> bool:
    return count_tokens(BODY_SEPARATOR.join(parts)) <= budget


def context_pack(
    *, workspace: Workspace, viewer: Viewer, query: str, max_items: int, max_tokens: int, bucket: str | None = None
) -> Pack:
    """The best matches, at most `max_items`, whose body (contents joined by a blank line)
    counts at most `max_tokens`: whole items while they fit; the first that does not is
    shortened at a token boundary when room is left; later ones that fit whole still join.

    Far from the budget an item's own count decides (the sum of the parts' counts, plus the
    separators and a slack, bounds the body's); near it the joined body is counted exactly, so
    each item costs one encoding of itself and the bound is exact."""
    pool = _pool(workspace, viewer, query, max_items + PACK_EXTRA, bucket)
    chosen, over_items = pool[:max_items], max(0, len(pool) - max_items)
    parts: list[str] = []
    packed: list[PackedItem] = []
    over_tokens = shortened = 0
    bound = 0  # an upper bound of the body's count so far
    for item in chosen:
        own = count_tokens(item.content)
        grown = bound + SEPARATOR_TOKENS + own + BOUNDARY_SLACK
        if grown <= max_tokens:
            fits, bound = True, grown
        else:
            joined = count_tokens(BODY_SEPARATOR.join([*parts, item.content]))
            fits = joined <= max_tokens
            bound = joined if fits else bound
        if fits:
            parts.append(item.content)
            packed.append(PackedItem(item, item.content, own, False))
            continue
        if shortened == 0:
            room = max_tokens - count_tokens(BODY_SEPARATOR.join(parts) + (BODY_SEPARATOR if parts else ""))
            cut = truncate_to_tokens(item.content, room).rstrip()
            while cut and not _fits([*parts, cut], max_tokens):
                cut = truncate_to_tokens(cut, count_tokens(cut) - 1).rstrip()
            if cut:
                parts.append(cut)
                packed.append(PackedItem(item, cut, count_tokens(cut), True))
                shortened = 1
                bound = count_tokens(BODY_SEPARATOR.join(parts))
                continue
        over_tokens += 1
    while parts and count_tokens(BODY_SEPARATOR.join(parts)) > max_tokens:  # the exact bound, always
        parts.pop()
        dropped = packed.pop()
        shortened -= int(dropped.shortened)
        over_tokens += 1
    body = BODY_SEPARATOR.join(parts)
    return Pack(
        items=packed,
        body=body,
        used_tokens=count_tokens(body),
        max_items=max_items,
        max_tokens=max_tokens,
        candidates=len(pool),
        dropped_over_items=over_items,
        dropped_over_tokens=over_tokens,
        shortened=shortened,
    )
