"""memory.engine.retrieve over the imported fixture corpus, without HTTP (SPEC §2.3 fields)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import pytest

from memory.engine import Retrieval, RetrievalTimeout, retrieve
from memory.models import Fact, IndexVersion, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import folder_import, run_create

MERIDIAN_OWNER = "Platform Engineering owns the Meridian platform rollout through Q3."
DANA_LEADS = "Dana Ortiz leads the Platform Engineering team."
ENTITY_TYPES = {"person", "organization", "team", "project", "product", "other"}


def statements(result: Retrieval) -> list[str]:
    return [f.statement for f in result.facts]


def resync(workspace: Workspace) -> None:
    source = Source.objects.get(workspace=workspace)
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"


# --- ranking and scores ------------------------------------------------------------------


def test_the_meridian_ownership_fact_ranks_first(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout?")

    assert result.triage.decision == "retrieve"
    assert result.facts[0].statement == MERIDIAN_OWNER
    assert result.facts[0].relevance_score >= 0.8
    assert result.coverage_assessment in ("partial", "comprehensive")


def test_the_team_lead_fact_ranks_first_for_a_people_question(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who leads the Platform Engineering team?")

    assert result.facts[0].statement == DANA_LEADS


def test_the_refund_policy_is_found_for_a_refund_question(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "What is our refund policy?")

    top_two = set(statements(result)[:2])
    assert top_two == {
        "Customers may request a full refund within 30 days of purchase.",
        "Refunds above $5,000 need approval from the CFO.",
    }


POSTMORTEM = """# Post-mortem: field sync outage, 14 October 2025

## Summary

Field sync was unavailable for 2 h 22 min on 14 October 2025.

## Root cause

The rotation script built the chain from a cached intermediate certificate.

## Actions

Monitor the whole chain from a phone.
"""
OUTAGE_MENTIONS = [
    "The October 2025 field sync outage was the longest of the year.",
    "Customers asked for credits after the October 2025 field sync outage.",
    "The field sync outage in October 2025 was discussed at the board.",
    "Support answered 212 calls during the October 2025 field sync outage.",
    "The status page was updated twice during the October 2025 field sync outage.",
    "Sales paused renewals calls during the October 2025 field sync outage.",
    "The October 2025 field sync outage cost the Leeds team a weekend.",
    "Halden complained about the October 2025 field sync outage.",
    "The field sync outage of October 2025 is in the quarterly report.",
    "Two customers escalated the October 2025 field sync outage.",
    "The October 2025 field sync outage started at 06:52.",
    "Engineering reviewed the October 2025 field sync outage on a call.",
]


def test_a_sentence_under_the_heading_the_prompt_names_is_found_though_it_repeats_none_of_it(
    workspace: Workspace, tmp_path: Path
) -> None:
    # Twelve sentences say "October 2025 field sync outage" in their own words; the answer is
    # the one under "Root cause" in that outage's post-mortem, which says none of it.
    mentions = "# Incident chatter\n\n" + "\n\n".join(OUTAGE_MENTIONS) + "\n"
    folder_import(workspace, tmp_path / "notes", {"postmortem.md": POSTMORTEM, "mentions.md": mentions})

    result = retrieve(workspace, "What was the root cause of the October 2025 field sync outage?", limit=10)

    assert "The rotation script built the chain from a cached intermediate certificate." in statements(result)[:5]


@pytest.mark.parametrize(
    "prompt",
    [
        "Who owns the Meridian rollout?",
        "Who leads the Platform Engineering team?",
        "Who is the account owner for Northwind Retail?",
        "What is our refund policy?",
    ],
)
def test_relevance_scores_are_between_0_and_1_and_ranked(imported_workspace: Workspace, prompt: str) -> None:
    result = retrieve(imported_workspace, prompt)

    scores = [f.relevance_score for f in result.facts]
    assert scores
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert result.avg_relevance_score == pytest.approx(sum(scores) / len(scores), abs=0.01)
    assert result.total_items == len(result.facts) + len(result.entities) + len(result.relationships) + len(
        result.documents
    )


def test_facts_point_at_their_section_file_and_original_document(imported_workspace: Workspace) -> None:
    hit = retrieve(imported_workspace, "Who owns the Meridian rollout?").facts[0]

    assert hit.source_path == "company_context/projects/meridian_platform_rollout.md"
    assert hit.tree_path == "Company Context > Projects > Meridian Platform Rollout"
    assert hit.section == "Meridian Platform Rollout"
    assert hit.source_document == "projects/meridian.md"
    assert hit.effective_date == "2026-04-02"
    assert Fact.objects.get(pk=hit.fact_id).statement == MERIDIAN_OWNER


@pytest.mark.parametrize(
    "prompt",
    [
        "What is the airspeed velocity of an unladen swallow?",
        "Which database engine runs our billing service?",
        "Describe the kubernetes autoscaling configuration",
    ],
)
def test_an_unrelated_prompt_finds_no_strong_facts(imported_workspace: Workspace, prompt: str) -> None:
    result = retrieve(imported_workspace, prompt)

    assert result.triage.decision == "retrieve"
    assert result.coverage_assessment in ("none", "minimal")
    assert all(f.relevance_score < 0.5 for f in result.facts)


def test_a_summary_quotes_what_was_found(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout?")

    assert MERIDIAN_OWNER.rstrip(".") in result.context_summary


# --- triage ------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["hello", "What is 17 * 3?", "thanks!"])
def test_prompts_that_need_no_company_context_are_triage_only(imported_workspace: Workspace, prompt: str) -> None:
    result = retrieve(imported_workspace, prompt)

    assert result.triage.decision == "triage_only"
    assert result.triage.reasoning
    assert result.facts == [] and result.entities == [] and result.relationships == [] and result.documents == []
    assert result.phase1.targeted_sections == []
    assert result.coverage_assessment == "none"
    assert result.total_items == 0


def test_with_triage_disabled_every_prompt_is_searched(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "hello", triage_enabled=False)

    assert result.triage.decision == "retrieve"
    assert result.triage.rewritten_query == "hello"


def test_a_follow_up_is_rewritten_with_the_session_history(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "and who owns it?", ["Tell me about the Meridian rollout"])

    assert result.triage.decision == "retrieve"
    assert result.triage.rewritten_query != "and who owns it?"
    assert "Meridian rollout" in result.triage.rewritten_query
    assert result.facts[0].statement == MERIDIAN_OWNER


def test_without_history_the_prompt_is_searched_as_it_is(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout?", [])

    assert result.triage.rewritten_query == "Who owns the Meridian rollout?"


def test_only_the_last_three_prompts_of_the_history_are_used(imported_workspace: Workspace) -> None:
    history = ["Tell me about the refund policy", "hi", "thanks", "ok", "What about Northwind Retail?"]

    result = retrieve(imported_workspace, "and who owns it?", history)

    assert "refund" not in result.triage.rewritten_query


# --- phase 1 -----------------------------------------------------------------------------


def test_phase1_targets_company_context_sections(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout?")

    targeted = [s.tree_path for s in result.phase1.targeted_sections]
    assert targeted
    assert all(path.startswith("Company Context > ") and len(path.split(" > ")) == 3 for path in targeted)
    assert "Company Context > Projects > Meridian Platform Rollout" in targeted
    assert all(s.relevance_reason for s in result.phase1.targeted_sections)
    assert result.phase1.search_strategy in ("narrow", "moderate", "broad")
    assert result.phase1.estimated_tokens > 0
    assert all(path.startswith("Company Context > ") for path in result.sections_searched)


# --- entities, relationships, documents --------------------------------------------------


def test_a_people_question_returns_entities_and_relationships(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who leads the Platform Engineering team?")

    entities = {(e.label, e.type) for e in result.entities}
    assert ("Dana Ortiz", "person") in entities
    assert ("Platform Engineering team", "team") in entities
    assert all(e.type in ENTITY_TYPES for e in result.entities)
    assert ("Dana Ortiz", "leads", "Platform Engineering team") in {
        (r.source, r.type, r.target) for r in result.relationships
    }


def test_a_client_question_returns_the_client_and_its_account_owner(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who is the account owner for Northwind Retail?")

    assert result.facts[0].statement == "Lena Park is the account owner for Northwind Retail."
    entities = {(e.label, e.type) for e in result.entities}
    assert {("Lena Park", "person"), ("Northwind Retail", "organization")} <= entities
    assert ("Northwind Retail", "person") not in entities
    assert ("Lena Park", "owns", "Northwind Retail") in {(r.source, r.type, r.target) for r in result.relationships}


def test_documents_are_excerpts_of_the_original_document(imported_workspace: Workspace) -> None:
    result = retrieve(imported_workspace, "Who owns the Meridian rollout?")

    document = result.documents[0]
    assert document.source_path == "projects/meridian.md"
    assert document.title == "Meridian Platform Rollout"
    assert MERIDIAN_OWNER in document.excerpt
    assert 0.0 <= document.relevance_score <= 1.0
    assert len({d.source_path for d in result.documents}) == len(result.documents)


# --- published versions ------------------------------------------------------------------


def test_a_newly_published_version_is_picked_up_without_a_restart(
    imported_workspace: Workspace, corpus_dir: Path
) -> None:
    prompt = "Who approves travel expenses above $800?"
    before = retrieve(imported_workspace, prompt)
    assert not any("Travel" in s for s in statements(before))
    (corpus_dir / "processes" / "travel.md").write_text(
        "# Travel Policy\n\nTravel expenses above $800 need approval from a director.\n"
    )

    resync(imported_workspace)

    assert IndexVersion.objects.filter(workspace=imported_workspace, status="published").count() == 2
    after = retrieve(imported_workspace, prompt)
    assert after.facts[0].statement == "Travel expenses above $800 need approval from a director."


def test_a_removed_document_disappears_from_results_after_the_next_publish(
    imported_workspace: Workspace, corpus_dir: Path
) -> None:
    assert retrieve(imported_workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER
    (corpus_dir / "projects" / "meridian.md").unlink()

    resync(imported_workspace)

    assert "Meridian" not in " ".join(statements(retrieve(imported_workspace, "Who owns the Meridian rollout?")))


def test_a_workspace_without_a_published_memory_returns_nothing(workspace: Workspace) -> None:
    result = retrieve(workspace, "Who owns the Meridian rollout?")

    assert result.triage.decision == "retrieve"
    assert result.facts == []
    assert result.coverage_assessment == "none"


def test_it_raises_retrieval_timeout_past_the_deadline(imported_workspace: Workspace) -> None:
    with pytest.raises(RetrievalTimeout):
        retrieve(imported_workspace, "Who owns the Meridian rollout?", deadline=time.monotonic() - 1)


# --- tenancy -----------------------------------------------------------------------------


def test_it_refuses_other_workspace(
    imported_workspace: Workspace, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    """A workspace never sees another workspace's facts, entities or documents."""
    folder = tmp_path / "globex"
    (folder / "projects").mkdir(parents=True)
    (folder / "projects" / "zephyr.md").write_text(
        "# Project Zephyr\n\nProject Zephyr is owned by the Quantum Research team.\n"
        "Marta Quinn leads the Quantum Research team.\n"
    )
    globex = make_workspace("globex")
    folder_import(globex, folder)

    ours = retrieve(imported_workspace, "Who leads the Quantum Research team on Project Zephyr?")
    theirs = retrieve(globex, "Who owns the Meridian rollout?")

    assert not any("Zephyr" in s or "Quantum" in s for s in statements(ours))
    assert not any("Marta" in e.label or "Quantum" in e.label for e in ours.entities)
    assert not any("zephyr" in d.source_path for d in ours.documents)
    assert not any("Meridian" in s or "Platform Engineering" in s for s in statements(theirs))
    assert not any(e.label in ("Dana Ortiz", "Platform Engineering team") for e in theirs.entities)
    assert retrieve(globex, "Who leads the Quantum Research team?").facts[0].statement == (
        "Marta Quinn leads the Quantum Research team."
    )
    assert retrieve(imported_workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER


def test_the_analyzer_gives_the_same_terms_when_threads_stem_at_once() -> None:
    # Threaded gunicorn workers analyse prompts concurrently; a shared Snowball stemmer raced
    # (IndexError, wrong stems). Each thread now has its own.
    import threading

    from memory.engine.text import _stem_word, terms

    tags = ["".join("abcdefghij"[int(d)] for d in str(i)) for i in range(8000)]  # 12 → "bc"
    words = [f"{t}running {t}connections {t}generalizations {t}happily" for t in tags]
    expected = [terms(w) for w in words]
    assert expected[12] == ["bcrun", "bcconnect", "bcgener", "bchappili"]
    _stem_word.cache_clear()
    results: dict[int, list[list[str]]] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            results[k] = [terms(w) for w in words[k::8]]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k in range(8):
        assert results[k] == expected[k::8]


def test_words_ending_in_a_digit_are_their_own_stems_and_stay_out_of_the_cache() -> None:
    # The analyzer skips Snowball for them (identifiers would fill the stem cache as a corpus
    # grows); that is only right if Snowball would have left them as they are.
    import random
    import string

    import snowballstemmer

    from memory.engine.text import _stem_word, terms

    snowball = snowballstemmer.stemmer("english")
    rng = random.Random(4)
    alphabet = string.ascii_lowercase + string.digits
    for _ in range(20000):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) + rng.choice(string.digits)
        assert snowball.stemWord(word) == word
    _stem_word.cache_clear()
    assert terms("Ticket INC-2041 for P1234 in 2026, sev1 and covid19 plans") == [
        "ticket", "inc", "2041", "p1234", "2026", "sev1", "covid19", "plan"
    ]
    assert _stem_word.cache_info().currsize == 3  # ticket, inc, plans
