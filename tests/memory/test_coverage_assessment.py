"""Calibrated coverage (SPEC §2.3 `coverage_assessment`, issue 16 point 6): what the facts hold
of the prompt together decides the assessment with the best fact's relevance, a fact the dense
stage holds clearly nearest lifts a weak answer to partial, and the summary sentence follows
the assessment."""

from __future__ import annotations

from memory.engine import retrieve
from dataclasses import replace

from memory.engine.rank import (
    DISTINCT_NEAREST,
    JOINT_PARTIAL_FROM,
    LINKED_PARTIAL_FROM,
    MINIMAL_BELOW,
    QueryTerm,
    Similarity,
    assess,
    capitalised_words,
    distinct_nearest,
    joint_coverage,
    returned,
)
from memory.engine.search import summary
from memory.engine.types import ANSWER, HOP, FactHit
from memory.models import Workspace

LOOSELY = "Only loosely related context was found"
WEAK = MINIMAL_BELOW / 2  # a fact's relevance well under the minimal line


def fact(statement: str, relevance: float) -> FactHit:
    return FactHit(statement, relevance, "company_context/general/general.md", "", "", "", None, 0, 0, 0)


def test_no_facts_is_none() -> None:
    assert assess([], 1.0) == "none"


def test_weak_facts_that_hold_little_of_the_prompt_together_are_minimal() -> None:
    assert assess([fact("Refunds are handled by support.", WEAK)], JOINT_PARTIAL_FROM / 2) == "minimal"


def test_facts_that_hold_the_prompt_together_are_partial_though_none_does_alone() -> None:
    facts = [fact("Refunds need CFO approval.", WEAK), fact("Dana Ortiz leads Platform Engineering.", WEAK)]

    assert assess(facts, JOINT_PARTIAL_FROM) == "partial"


def test_a_chain_of_facts_holding_enough_together_is_partial() -> None:
    parent = fact("Ana Ruiz approved the refit freeze.", WEAK)
    hop = replace(fact("Name: Ana Ruiz; Title: Chief Operating Officer; Team: Executive", WEAK), linked=HOP)

    assert assess([parent, hop], LINKED_PARTIAL_FROM) == "partial"
    assert assess([parent, replace(hop, linked="")], LINKED_PARTIAL_FROM) == "minimal"  # no chain
    assert assess([parent, replace(hop, linked=ANSWER)], LINKED_PARTIAL_FROM) == "minimal"  # next to, not linked
    assert assess([parent, hop], LINKED_PARTIAL_FROM - 0.05) == "minimal"  # a chain holding too little


def test_the_fact_the_dense_stage_holds_clearly_nearest_stands_out_from_the_third_nearest() -> None:
    def nearest(cosines: dict[int, float]) -> int | None:
        return distinct_nearest(Similarity(prompt=cosines, content=cosines))

    assert nearest({7: 0.70, 8: 0.66, 9: 0.69 - DISTINCT_NEAREST}) == 7
    assert nearest({7: 0.70, 8: 0.66, 9: 0.70 - DISTINCT_NEAREST / 2}) is None  # a topic's facts alike
    assert nearest({7: 0.70, 8: 0.40}) is None  # too few to tell
    assert nearest({}) is None  # the dense stage off


def test_a_weak_answer_holding_the_fact_the_dense_stage_holds_clearly_nearest_is_partial() -> None:
    facts = [replace(fact("Other private use is not permitted.", WEAK), fact_id=7), fact("Vans are tools of trade.", WEAK)]

    assert assess(facts, JOINT_PARTIAL_FROM / 2, meant=returned(facts, 7)) == "partial"
    assert assess(facts, JOINT_PARTIAL_FROM / 2, meant=returned(facts, 8)) == "minimal"  # not among the facts
    assert assess(facts, JOINT_PARTIAL_FROM / 2, meant=returned(facts, None)) == "minimal"
    assert assess(facts, JOINT_PARTIAL_FROM / 2, unknown_name=True, meant=True) == "minimal"


def test_joint_coverage_pools_the_terms_of_every_fact() -> None:
    query = [QueryTerm("refund", 1.0, 2.0), QueryTerm("dana", 1.0, 2.0)]

    assert joint_coverage(query, [({"refund"}, set())]) == 0.5
    assert joint_coverage(query, [({"refund"}, set()), ({"dana"}, set())]) == 1.0


def test_joint_coverage_ignores_the_words_a_follow_up_borrowed_from_its_session() -> None:
    query = [QueryTerm("refund", 1.0, 2.0), QueryTerm("meridian", 0.35, 2.0)]

    assert joint_coverage(query, [({"refund"}, set())]) == 1.0


def test_the_summary_of_a_minimal_answer_says_it_is_loosely_related() -> None:
    facts = [fact("Refunds are handled by support.", WEAK)]

    assert summary(facts, assess(facts)).startswith(LOOSELY)


def test_the_summary_of_a_partial_answer_quotes_it_without_the_warning() -> None:
    facts = [fact("Refunds need CFO approval.", WEAK), fact("Dana Ortiz leads Platform Engineering.", WEAK)]

    text = summary(facts, assess(facts, JOINT_PARTIAL_FROM))

    assert not text.startswith(LOOSELY)
    assert "Dana Ortiz leads Platform Engineering." in text


def test_a_two_part_question_answered_by_two_facts_is_covered(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout, and who leads Platform Engineering?")

    assert result.joint_coverage >= JOINT_PARTIAL_FROM
    assert result.coverage_assessment in ("partial", "comprehensive")
    assert not result.context_summary.startswith(LOOSELY)


def test_strong_facts_are_minimal_when_the_prompt_names_what_the_memory_never_mentions() -> None:
    strong = [fact("Customers use the Power BI reporting pack.", 1.0), fact("Twelve customers use Xero.", 0.9)]

    assert assess(strong, 1.0) == "comprehensive"
    assert assess(strong, 1.0, unknown_name=True) == "minimal"


def test_the_names_of_a_prompt_are_its_capitalised_words_where_no_sentence_starts() -> None:
    assert capitalised_words("Which customers use our ServiceNow integration?") == ["ServiceNow"]
    assert capitalised_words("Hi. What does Acme do? And Bob's team?") == ["Acme", "Bob's"]
    assert capitalised_words("what is the wi-fi password") == []


def test_a_name_no_fact_heading_or_title_holds_leaves_the_answer_minimal(imported_workspace: Workspace) -> None:
    known = retrieve(imported_workspace, "Who owns the Meridian rollout?")
    unknown = retrieve(imported_workspace, "Who owns the Zanzibarco rollout?")

    assert known.unknown_names == [] and known.coverage_assessment in ("partial", "comprehensive")
    assert unknown.unknown_names == ["Zanzibarco"]
    assert unknown.coverage_assessment == "minimal"
    assert unknown.context_summary.startswith(LOOSELY)
