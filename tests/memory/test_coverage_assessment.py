"""Calibrated coverage (SPEC §2.3 `coverage_assessment`, issue 16 point 6): what the facts hold
of the prompt together decides the assessment with the best fact's relevance, a fact the dense
stage holds clearly nearest lifts a weak answer to partial, a contact detail asked that no fact
holds (or none naming whom it is asked of) leaves it minimal, and the summary sentence follows
the assessment."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

from memory.engine import retrieve
from memory.engine.answer_types import contact_holder, contacts_asked, contacts_missing

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
from tests.conftest import Mcp, folder_import
from tests.memory.xmemo import remember

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


def test_a_prompt_asks_for_a_contact_detail_by_its_noun_not_by_a_verb_a_thing_or_an_extension() -> None:
    assert contacts_asked("What's the mobile number for Bronagh Kealy, the Financial Controller?") == ["phone"]
    assert contacts_asked("What's the telephone number for the Rotterdam liaison desk?") == ["phone"]
    assert contacts_asked("Who approved it, and what's their mobile?") == ["phone"]
    assert contacts_asked("What's Amrit's email address, and her phone number?") == ["phone", "email"]
    assert contacts_asked("What address do we email them at?") == ["email"]
    assert contacts_asked("If scheduling phones me on a reserve day, how fast must I show up?") == []
    assert contacts_asked("What domain did the fake Renee email in January come from?") == []
    assert contacts_asked("What's Fiona Ahern's phone extension?") == []
    assert contacts_asked("Is our mobile app down, and is the mobile deposit limit changing?") == []


def test_a_contact_detail_is_missing_when_no_statement_holds_one_of_its_kind() -> None:
    row = "Staff directory: Name: Dean Whitlow; Title: Shift Engineer; Mobile: 07700 900123"

    assert contacts_missing(["phone"], [row]) == []
    assert contacts_missing(["phone", "email"], [row]) == ["email"]
    assert contacts_missing(["phone"], ["Dean Whitlow reported the trip at 02:40 on 2026-02-11."]) == ["phone"]
    assert contacts_missing([], ["anything"]) == []


def test_whose_contact_detail_is_asked_is_the_name_written_beside_it() -> None:
    assert contact_holder("What's Corey Blake's mobile number?") == ["corey", "blake"]
    assert contact_holder("What's the telephone number for the Rotterdam liaison desk?") == ["rotterdam"]
    assert contact_holder("What's the phone number of the Clonmel clinic?") == ["clonmel"]
    assert contact_holder("What's the email address for Amrit, the new account executive?") == ["amrit"]
    assert contact_holder("What's Corey's email?") == ["corey"]
    # Someone reached through another, or not named at all: nobody's in particular.
    assert contact_holder("What is the mobile number of the vet who emailed Ruairí?") == []
    assert contact_holder("Who approved it, and what's their mobile?") == []
    assert contact_holder("Is there a phone number for the after-hours line?") == []


def test_another_persons_contact_detail_does_not_give_the_one_asked() -> None:
    dean = "Staff directory: Name: Dean Whitlow; Title: Shift Engineer; Mobile: 07700 900123"
    corey = "Staff directory: Name: Corey Blake; Title: Electrician; Mobile: 0412 555 019"

    assert contacts_missing(["phone"], [dean], ["corey", "blake"]) == ["phone"]
    assert contacts_missing(["phone"], [dean, corey], ["corey", "blake"]) == []
    assert contacts_missing(["phone"], [dean], []) == []  # asked of nobody named: anyone's will do


def test_strong_facts_are_minimal_when_none_holds_the_contact_detail_asked() -> None:
    strong = [fact("Bronagh Kealy, Financial Controller, reports to Priya.", 1.0), fact("Bronagh signed off.", 0.9)]

    assert assess(strong, 1.0) == "comprehensive"
    assert assess(strong, 1.0, unheld=True) == "minimal"


def test_the_summary_says_which_contact_detail_no_fact_holds() -> None:
    facts = [fact("Bronagh Kealy, Financial Controller, reports to Priya.", 1.0)]

    text = summary(facts, "minimal", ["phone"])

    assert text.startswith("No stored fact holds the phone number asked for; the nearest context: Bronagh Kealy")


DIRECTORY = "name,title,team,extension,{contact}\nBronagh Kealy,Financial Controller,Finance,2201,{bronagh}\n"
WITHOUT_MOBILES = DIRECTORY.format(contact="email", bronagh="bronagh@harbourline.example")
WITH_MOBILES = DIRECTORY.format(contact="mobile", bronagh="07700 900123")
MOBILE = "What's the mobile number for Bronagh Kealy, the Financial Controller?"


def test_a_contact_detail_the_memory_does_not_record_is_reported_minimal_and_one_it_does_is_not(
    workspace: Workspace, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    recording = make_workspace("recording")
    folder_import(workspace, tmp_path / "people", {"directory.csv": WITHOUT_MOBILES})
    folder_import(recording, tmp_path / "staff", {"directory.csv": WITH_MOBILES})

    unrecorded = retrieve(workspace, MOBILE)
    recorded = retrieve(recording, MOBILE)

    assert "Bronagh Kealy" in unrecorded.facts[0].statement  # her record is found, and holds no mobile
    assert unrecorded.coverage_assessment == "minimal"
    assert unrecorded.context_summary.startswith("No stored fact holds the phone number asked for")
    assert "07700 900123" in recorded.facts[0].statement
    assert recorded.coverage_assessment in ("partial", "comprehensive")
    assert not recorded.context_summary.startswith("No stored fact")


def test_a_memory_recording_someone_else_s_mobile_leaves_the_one_asked_for_minimal(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder_import(workspace, tmp_path / "crew", {
        "directory.csv": "name,title,team,mobile\nDean Whitlow,Shift Engineer,Wollongong,07700 900123\n",
        "news.md": "# Crew news\n\nCorey Blake joined the Wollongong crew as an electrician in March.\n",
    })

    asked = retrieve(workspace, "What's Corey Blake's mobile number?")
    recorded = retrieve(workspace, "What's Dean Whitlow's mobile number?")

    assert any("Corey Blake" in f.statement for f in asked.facts)  # he is known, and so is a mobile
    assert any("07700 900123" in f.statement for f in asked.facts)  # ... but it is Dean's
    assert asked.coverage_assessment == "minimal"
    assert asked.context_summary.startswith("No stored fact holds the phone number asked for")
    assert "07700 900123" in recorded.facts[0].statement
    assert recorded.coverage_assessment in ("partial", "comprehensive")


def test_an_agent_memory_holding_the_contact_detail_lifts_the_answer(
    workspace: Workspace, tmp_path: Path, mcp: Mcp
) -> None:
    folder_import(workspace, tmp_path / "people", {"directory.csv": WITHOUT_MOBILES})
    before = mcp.call({"prompt": MOBILE})["structuredContent"]["retrieval"]

    remember(mcp, "Bronagh Kealy's mobile number is 07700 900456.", path="people/contacts")
    after = mcp.call({"prompt": MOBILE})["structuredContent"]["retrieval"]

    assert before["coverage_assessment"] == "minimal"
    assert before["context_summary"].startswith("No stored fact holds the phone number asked for")
    assert any("07700 900456" in f["statement"] for f in after["facts"])
    assert after["coverage_assessment"] in ("partial", "comprehensive")
    assert not after["context_summary"].startswith("No stored fact")
