"""The kind of value a prompt asks for (SPEC §2.3 ranking; memory/engine/answer_types.py):
"how long" is answered by a span of time, "what time" by a time of day, though the answer
holds none of the words that ask for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.engine import retrieve
from memory.engine.answer_types import DATE, DURATION, FREQUENCY, MONEY, PERCENT, SPEED, TIME_OF_DAY
from memory.engine.answer_types import asked_kinds, held_kinds
from memory.models import Workspace
from tests.conftest import folder_import


def test_a_prompt_asks_for_a_kind_of_value_with_the_words_that_ask_for_it() -> None:
    assert asked_kinds("How long do we keep CVs?") == {DURATION: frozenset({"long"})}
    assert asked_kinds("How often must a vet check in?") == {FREQUENCY: frozenset({"often"})}
    assert asked_kinds("How much is the fee for a blind receipt?") == {MONEY: frozenset({"fee"})}
    assert asked_kinds("What are Thomastown's Saturday opening hours?") == {TIME_OF_DAY: frozenset({"open", "hour"})}
    assert asked_kinds("What percentage of orders shipped late?") == {PERCENT: frozenset({"percentag"})}
    assert asked_kinds("How fast can a reach truck go?") == {SPEED: frozenset({"fast"})}
    assert asked_kinds("Through what date is Acme under contract?") == {DATE: frozenset({"through", "date"})}
    assert asked_kinds("Who approved the budget freeze?") == {}
    assert asked_kinds("How much notice do we give?") == {DURATION: frozenset({"notic"})}


def test_a_statement_holds_the_kinds_of_value_written_in_it() -> None:
    assert held_kinds("Unsuccessful applications are deleted after 12 months.") == {DURATION}
    assert held_kinds("Check in through the app every 2 hours.") == {DURATION, FREQUENCY}
    assert held_kinds("Blind receipts are billed $45 each.") == {MONEY}
    assert held_kinds("Saturday 9:30 am to 12:00 noon.") == {TIME_OF_DAY}
    assert held_kinds("On-time rate: 95.6%") == {PERCENT}
    assert held_kinds("Speed limit 5 mph in aisles.") == {SPEED}
    assert held_kinds("Renewed through June 30, 2029.") == {DATE}
    assert held_kinds("Every carrier signs the onboarding packet.") == frozenset()
    assert held_kinds("Decision 3 was deferred; Mark 12 pallets.") == frozenset()


ANSWER = "Thomastown reopens on Saturdays from 3 May, 9:30 am to 12:00 noon."


def _minutes(workspace: Workspace, folder: Path, discussed: str) -> None:
    """Meeting notes: a sentence saying what was `discussed`, then the answer."""
    folder_import(workspace, folder, {"ops-meeting.md": f"# Operations meeting\n\n{discussed}\n\n{ANSWER}\n"})


def test_the_statement_holding_the_kind_of_value_asked_outranks_one_that_only_repeats_the_question(
    workspace: Workspace, tmp_path: Path, settings: Any
) -> None:
    settings.PAM_DENSE = False  # the ranking of words alone: cosine would decide it by chance
    _minutes(
        workspace, tmp_path / "ops", "Thomastown Saturday opening hours were discussed again by the operations group."
    )

    result = retrieve(workspace, "What are Thomastown's Saturday opening hours?")

    assert result.facts[0].statement == ANSWER
    assert result.coverage_assessment in ("partial", "comprehensive")


def test_a_prompt_asking_for_no_kind_of_value_ranks_as_before(
    workspace: Workspace, tmp_path: Path, settings: Any
) -> None:
    settings.PAM_DENSE = False
    _minutes(workspace, tmp_path / "ops", "Thomastown Saturday opening was discussed again by the operations group.")

    result = retrieve(workspace, "Who discussed the Thomastown Saturday opening?")

    assert result.facts[0].statement == "Thomastown Saturday opening was discussed again by the operations group."
