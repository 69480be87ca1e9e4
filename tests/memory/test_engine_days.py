"""Days in the engine (SPEC §2.3): a date asked to the day finds what was said that day, or
said of it the day after ("yesterday"), among the same words said on other days."""

from __future__ import annotations

import datetime as dt
from typing import Any

from memory.engine import retrieve
from memory.engine.days import asked_days, day_term, said_days
from memory.models import Workspace
from tests.conftest import items_import


def _chats(workspace: Workspace, days: dict[str, str]) -> None:
    """One conversation per day (ISO date -> what Ana said then, imported in that order), Bo
    answering each."""
    items = []
    for n, (day, text) in enumerate(days.items()):
        sent = f"{day}T18:00:00+00:00"
        items.append(
            {
                "external_id": f"chat-{n}",
                "title": f"Ana and Bo, chat {n}",
                "created_at": sent,
                "messages": [
                    {"id": f"a{n}", "author": "Ana", "text": text, "sent_at": sent},
                    {"id": f"b{n}", "author": "Bo", "text": "Sounds like a good day to me.", "sent_at": sent},
                ],
            }
        )
    items_import(workspace, items)


def test_a_prompt_s_days_are_read_in_the_ways_dates_are_written() -> None:
    june_3 = day_term(dt.date(2023, 6, 3))
    assert asked_days("What did Ana do on 3 June, 2023?") == [june_3]
    assert asked_days("What did Ana do on the 3rd of June 2023?") == [june_3]
    assert asked_days("What did Ana do on June 3rd, 2023?") == [june_3]
    assert asked_days("What did Ana do on Jun 3 2023?") == [june_3]
    assert asked_days("What did Ana do on 2023-06-03?") == [june_3]
    assert asked_days("What did Ana do in June 2023?") == []  # a month is not a day
    assert asked_days("What did Ana do on 3 June?") == []  # nor a day without its year
    assert asked_days("What happened on 31 February 2023?") == []


def test_a_fact_is_about_its_own_day_and_the_days_it_names_from_there() -> None:
    friday = dt.date(2023, 6, 2)  # a Friday
    assert said_days(friday, "The dog is fine.") == [day_term(friday)]
    assert said_days(friday, "We walked the dog yesterday.") == [day_term(dt.date(2023, 6, 1)), day_term(friday)]
    assert said_days(friday, "Tomorrow we fly.") == [day_term(friday), day_term(dt.date(2023, 6, 3))]
    # "Last Friday", said on a Friday, is the week before; said on a Sunday, two days before.
    assert said_days(friday, "Last Friday was long.") == [day_term(dt.date(2023, 5, 26)), day_term(friday)]
    assert said_days(dt.date(2023, 6, 4), "Last Friday was long.")[0] == day_term(friday)


def test_a_day_asked_finds_what_was_said_that_day_among_the_same_words_on_other_days(
    workspace: Workspace, settings: Any
) -> None:
    settings.PAM_DENSE = False  # the same words each day: cosine would tell them apart by chance
    _chats(
        workspace,
        {
            "2023-06-10": "I walked the dog to Oak Street.",
            "2023-06-17": "I walked the dog to Ash Street.",
            "2023-06-03": "I walked the dog to Elm Street.",
        },
    )

    result = retrieve(workspace, "Where did Ana walk the dog on 3 June, 2023?")

    assert result.facts[0].statement == "Ana: I walked the dog to Elm Street."


def test_a_day_asked_finds_what_was_said_of_it_the_day_after(workspace: Workspace, settings: Any) -> None:
    settings.PAM_DENSE = False
    _chats(
        workspace,
        {
            "2023-06-10": "I walked the dog to Oak Street.",
            "2023-06-17": "I walked the dog to Ash Street.",
            "2023-06-04": "Yesterday I walked the dog to Elm Street.",  # the last imported
        },
    )

    result = retrieve(workspace, "Where did Ana walk the dog on 3 June, 2023?")

    assert result.facts[0].statement == "Ana: Yesterday I walked the dog to Elm Street."
