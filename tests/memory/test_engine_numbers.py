"""Numbers written as words (SPEC §2.3 retrieval; issue 16, companies the engine has never
seen): a question saying "three-year" or "two loading bays" finds the document that writes
"3-year" and "2 loading bays", and the other way round; "one" stays a word, as often a pronoun
as a number (memory/engine/text.py `NUMBER_WORDS`)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps

from memory.engine import retrieve
from memory.engine.live import Viewer, live_search, memory_save, visible
from memory.engine.text import terms
from memory.models import AgentMemory, Workspace
from tests.conftest import folder_import
from tests.memory.xmemo import analysed_before

RENEWALS = """# Renewals

Ribble Housing signed a 5-year renewal in March.
Northgate Housing signed a 3-year renewal in April.
Avonmouth had 4 loading bays out of action on 9 December.
Teesport had 2 loading bays out of action on 18 December.
"""


def test_a_number_word_is_its_figure_but_one_stays_a_word() -> None:
    assert terms("three-year renewal") == terms("3-year renewal") == ["3", "year", "renew"]
    assert terms("two loading bays, twelve trailers") == terms("2 loading bays, 12 trailers")
    assert terms("the one who approved it") == ["one", "approv"]


def test_a_question_writing_the_number_as_a_word_finds_the_figure(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False  # the words alone
    folder_import(workspace, tmp_path / "sales", {"renewals.md": RENEWALS})

    renewal = retrieve(workspace, "Who signed a three-year renewal?")
    bays = retrieve(workspace, "Where were two loading bays out of action?")

    # The figure the question names as a word singles out its fact: the other is as alike in
    # every other word.
    assert renewal.facts[0].statement == "Northgate Housing signed a 3-year renewal in April."
    assert renewal.facts[0].relevance_score > renewal.facts[1].relevance_score
    assert bays.facts[0].statement == "Teesport had 2 loading bays out of action on 18 December."
    assert bays.facts[0].relevance_score > bays.facts[1].relevance_score


def test_agent_memories_hold_their_number_words_as_figures_once_migrated(workspace: Workspace) -> None:
    memory = AgentMemory(workspace=workspace, reference="mem_0001", path="ops", content="Forklift licences last three years.")
    memory_save(memory)
    everyone = Viewer(label="reader")
    assert live_search(workspace, visible(workspace, everyone), "3 years forklift", min_relevance=0.9, limit=1)
    analysed_before(memory, "forklift licenc last three year")  # before number words were figures
    assert not live_search(workspace, visible(workspace, everyone), "3 years forklift", min_relevance=0.9, limit=1)

    import_module("memory.migrations.0012_agent_memory_number_words").reanalyse_memories(apps, None)

    [found] = live_search(workspace, visible(workspace, everyone), "3 years forklift", min_relevance=0.9, limit=1)
    assert found.memory.pk == memory.pk
