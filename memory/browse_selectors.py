"""Reads of the dashboard's memory browser (SPEC §5, §6; issue 15): the context tree, facts
with their provenance, entities with their relationships, and the sources with their counts.

Every lookup is filtered by the workspace: another workspace's id reads as `None`, exactly like
an id that does not exist. Lists are keyset pages over ids (`after`), never a COUNT over the
big tables (facts, entities); the per-source counts are the ones GET /v1/dev/sources shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from django.db.models import Count, IntegerField, Model, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from memory.models import Document, Entity, Fact, Relationship, Section, Source, Workspace
from memory.selectors import source_list

RowT = TypeVar("RowT", bound=Model)

PAGE_SIZE = 50
RELATIONSHIP_LIMIT = 200  # an entity's relationships shown on its page, each way


@dataclass(frozen=True)
class Page(Generic[RowT]):
    """One keyset page: `next_after` is the `after` of the next page (None on the last)."""

    items: list[RowT]
    next_after: int | None


def keyset_page(rows: QuerySet[RowT], *, after: int | None, limit: int) -> Page[RowT]:
    """Rows ordered by descending id, those below `after`; one extra row says whether more
    follow, so no page ever counts the table."""
    if after is not None:
        rows = rows.filter(pk__lt=after)
    items = list(rows.order_by("-pk")[: limit + 1])
    more = len(items) > limit
    items = items[:limit]
    return Page(items, items[-1].pk if more and items else None)


# --- the context tree -------------------------------------------------------------------------


@dataclass
class TreeArea:
    """An area of `Company Context` and its topics."""

    section: Section
    topics: list[Section] = field(default_factory=list)


def section_tree(*, workspace: Workspace) -> list[TreeArea]:
    """`Company Context > Area > Topic`, areas and topics by title (their markdown is not read)."""
    sections = list(Section.objects.filter(workspace=workspace).defer("markdown").order_by("tree_path"))
    areas = {s.pk: TreeArea(s) for s in sections if s.parent_id is None}
    for section in sections:
        if section.parent_id in areas:
            areas[section.parent_id].topics.append(section)
    return list(areas.values())


def section_get(*, workspace: Workspace, section_id: int) -> Section | None:
    return Section.objects.filter(workspace=workspace, pk=section_id).select_related("parent").first()


def section_children(*, section: Section) -> list[Section]:
    return list(section.children.defer("markdown").order_by("tree_path"))


# --- facts ------------------------------------------------------------------------------------


def _facts(workspace: Workspace) -> QuerySet[Fact]:
    """Facts with their provenance in one query (a document's text and a section's markdown,
    the big columns, are left out)."""
    return (
        Fact.objects.filter(workspace=workspace)
        .select_related("source", "document", "section", "superseded_by")
        .defer("document__text", "section__markdown", "superseded_by__statement")
    )


@dataclass(frozen=True)
class FactFilters:
    section_id: int | None = None
    source_id: int | None = None
    current_only: bool = False  # leave out superseded facts


def fact_page(*, workspace: Workspace, filters: FactFilters, after: int | None, limit: int = PAGE_SIZE) -> Page[Fact]:
    """The newest facts first, with their provenance."""
    rows = _facts(workspace)
    if filters.section_id is not None:
        rows = rows.filter(section_id=filters.section_id)
    if filters.source_id is not None:
        rows = rows.filter(source_id=filters.source_id)
    if filters.current_only:
        rows = rows.filter(superseded_by__isnull=True)
    return keyset_page(rows, after=after, limit=limit)


def fact_get(*, workspace: Workspace, fact_id: int) -> Fact | None:
    return _facts(workspace).filter(pk=fact_id).first()


def fact_supersedes(*, fact: Fact) -> list[Fact]:
    """The facts this one replaced (their `superseded_by` is this fact)."""
    return list(Fact.objects.filter(workspace_id=fact.workspace_id, superseded_by=fact).select_related("document").defer("document__text"))


def fact_entities(*, fact: Fact) -> list[Entity]:
    return list(fact.entities.order_by("label"))


# --- entities and relationships ---------------------------------------------------------------


@dataclass(frozen=True)
class EntityRow:
    entity: Entity
    relationship_count: int  # both ways


def entity_page(
    *, workspace: Workspace, entity_type: str | None, after: int | None, limit: int = PAGE_SIZE
) -> tuple[Page[Entity], list[EntityRow]]:
    """The newest entities first, and the page's rows with their number of relationships
    (counted for the page's entities only, after the page is cut)."""
    rows = Entity.objects.filter(workspace=workspace)
    if entity_type is not None:
        rows = rows.filter(type=entity_type)
    page = keyset_page(rows, after=after, limit=limit)
    ids = [e.pk for e in page.items]
    counts: dict[int, int] = {}
    for end in ("subject", "target"):
        for entity_id, n in (
            Relationship.objects.filter(**{f"{end}_id__in": ids}).values_list(f"{end}_id").annotate(n=Count("pk")).order_by()
        ):
            counts[entity_id] = counts.get(entity_id, 0) + n
    return page, [EntityRow(e, counts.get(e.pk, 0)) for e in page.items]


def entity_get(*, workspace: Workspace, entity_id: int) -> Entity | None:
    return Entity.objects.filter(workspace=workspace, pk=entity_id).first()


@dataclass(frozen=True)
class EntityLinks:
    outgoing: list[Relationship]  # this entity is the subject
    incoming: list[Relationship]  # this entity is the target
    facts: Page[Fact]  # the facts that mention it


def entity_links(*, entity: Entity, after: int | None, limit: int = PAGE_SIZE) -> EntityLinks:
    relationships = Relationship.objects.filter(workspace_id=entity.workspace_id).select_related(
        "subject", "target", "source", "fact"
    )
    facts = _facts(entity.workspace).filter(entities=entity)
    return EntityLinks(
        outgoing=list(relationships.filter(subject=entity).order_by("type", "id")[:RELATIONSHIP_LIMIT]),
        incoming=list(relationships.filter(target=entity).order_by("type", "id")[:RELATIONSHIP_LIMIT]),
        facts=keyset_page(facts, after=after, limit=limit),
    )


# --- sources ----------------------------------------------------------------------------------


def _count_of(model: type[Model]) -> Coalesce:
    """A correlated count of the source's rows of `model` (a subquery each, so the two counts
    do not multiply each other as two joins would)."""
    counted = (
        model._default_manager.filter(source=OuterRef("pk"))
        .order_by()
        .values("source")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def source_rows(*, workspace: Workspace) -> QuerySet[Source]:
    """The workspace's sources with `document_count` and `fact_count`."""
    return source_list(workspace=workspace).annotate(document_count=_count_of(Document), fact_count=_count_of(Fact))


def source_row(*, workspace: Workspace, source_id: int) -> Source | None:
    return source_rows(workspace=workspace).filter(pk=source_id).first()
