"""Plain results of the engine; the MCP tool renders them (SPEC §2.3 field names)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class RetrievalTimeout(Exception):
    """Retrieval ran past its deadline."""


@dataclass
class Triage:
    decision: str  # "retrieve" | "triage_only"
    reasoning: str
    rewritten_query: str
    history_used: int = 0


@dataclass
class TargetedSection:
    tree_path: str
    relevance_reason: str


@dataclass
class Phase1:
    search_strategy: str  # "narrow" | "moderate" | "broad"
    estimated_tokens: int
    targeted_sections: list[TargetedSection] = field(default_factory=list)


HOP, ROW, ANSWER, NEWER = "hop", "row", "answer", "newer"  # FactHit.linked


@dataclass
class FactHit:
    statement: str
    relevance_score: float
    source_path: str  # the section's context document, company_context/<area>/<topic>.md
    section: str  # the section title
    tree_path: str
    source_document: str  # the original document's path inside its source
    effective_date: str | None
    fact_id: int
    document_id: int
    position: int
    superseded: bool = False
    reference: str | None = None  # an agent memory's reference (SPEC §2.4), from the live layer
    message: bool = False  # part of a chat or mail message (its fact has a locator), not a document's text
    # How it was reached when not by its own words (memory.engine.search): "hop" through an
    # entity or a record's value another fact names, "row" a table's row a superlative picks,
    # "answer" the statement after a question found, "newer" the newest version of a document
    # an older version's fact was found in; "" by its own words.
    linked: str = ""

    def as_dict(self) -> dict[str, Any]:
        extra = {"memory_reference": self.reference} if self.reference else {}
        return {
            "statement": self.statement,
            "relevance_score": self.relevance_score,
            "source_path": self.source_path,
            "section": self.section,
            "source_document": self.source_document,
            "effective_date": self.effective_date,
            "fact_id": self.fact_id,
            "superseded": self.superseded,
        } | extra


@dataclass
class EntityHit:
    label: str
    type: str
    properties: dict[str, Any]


@dataclass
class RelationshipHit:
    source: str
    type: str
    target: str
    properties: dict[str, Any]


@dataclass
class DocumentHit:
    title: str
    source_path: str
    excerpt: str
    relevance_score: float


@dataclass
class Retrieval:
    triage: Triage
    phase1: Phase1
    context_summary: str = ""
    facts: list[FactHit] = field(default_factory=list)
    entities: list[EntityHit] = field(default_factory=list)
    relationships: list[RelationshipHit] = field(default_factory=list)
    documents: list[DocumentHit] = field(default_factory=list)
    coverage_assessment: str = "none"
    joint_coverage: float = 0.0  # the share of the prompt the facts hold together (rank.joint_coverage)
    unknown_names: list[str] = field(default_factory=list)  # names in the prompt the memory never uses
    contacts_asked: list[str] = field(default_factory=list)  # kinds of contact detail asked ("phone", "email")
    contact_holder: list[str] = field(default_factory=list)  # terms of whose contact detail is asked
    months_asked: list[str] = field(default_factory=list)  # months the prompt names with a year ("2026-04")
    # The fact the dense stage holds clearly nearest (rank.distinct_nearest) when the rank chose
    # it: what makes a weak answer partial (rank.assess's `meant`); None otherwise.
    meant_fact: int | None = None
    sections_searched: list[str] = field(default_factory=list)
    llm_calls: int = 0

    @property
    def total_items(self) -> int:
        return len(self.facts) + len(self.entities) + len(self.relationships) + len(self.documents)

    @property
    def avg_relevance_score(self) -> float:
        if not self.facts:
            return 0.0
        return round(sum(f.relevance_score for f in self.facts) / len(self.facts), 2)
