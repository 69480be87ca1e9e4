"""British and American spellings as one term (memory/engine/spelling.py; SPEC §2.3
retrieval; issue 16, companies the engine has never seen): a question written one way finds
the fact written the other, and agent memories written before this analyzer are analysed
again by migration 0009."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps

from memory.engine import retrieve
from memory.engine.live import Viewer, live_search, memory_save, visible
from memory.engine.spelling import american
from memory.engine.text import terms
from memory.models import AgentMemory, Workspace
from tests.conftest import folder_import
from tests.memory.xmemo import analysed_before

PURCHASING = """# Purchasing

Purchases over £5,000 need the Finance Director's authorisation.
Purchases over £5,000 need a purchase order number from the register.
Purchases over £5,000 need three quotes from suppliers on the approved list.
"""


def test_the_two_spellings_of_a_word_are_one_term() -> None:
    assert terms("the organisation's colour licence") == terms("the organization's color license")
    assert terms("prioritised centres, catalogues and programmes") == terms("prioritized centers, catalogs and programs")
    assert terms("a judgement analysed by paediatricians") == terms("a judgment analyzed by pediatricians")
    assert terms("manoeuvring in the grey theatre") == terms("maneuvering in the gray theater")


def test_words_that_only_end_alike_keep_their_spelling() -> None:
    for word in ("advise", "exercise", "premises", "otherwise", "surprised", "raise", "four", "hour",
                 "genre", "fence", "vogue", "harbourline", "programmer", "noise", "enterprise"):
        assert american(word) == word


def test_a_question_finds_the_same_facts_as_fully_whichever_way_it_is_spelt(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False  # the words alone: the dense stage would reach it by meaning
    folder_import(workspace, tmp_path / "finance", {"purchasing.md": PURCHASING})

    british = retrieve(workspace, "Whose authorisation do purchases over 5,000 need?")
    american_ = retrieve(workspace, "Whose authorization do purchases over 5,000 need?")

    assert british.facts[0].statement == "Purchases over £5,000 need the Finance Director's authorisation."
    assert [(f.statement, f.relevance_score) for f in american_.facts] == [
        (f.statement, f.relevance_score) for f in british.facts
    ]
    assert american_.coverage_assessment == british.coverage_assessment


def test_agent_memories_written_before_the_analyzer_changed_are_analysed_again(workspace: Workspace) -> None:
    memory = AgentMemory(workspace=workspace, reference="mem_0001", path="ops", content="The Kraków office's colour printer is on floor 2.")
    memory_save(memory)
    analysed_before(memory, "colour floor krak offic printer w")  # before accents and spellings
    everyone = Viewer(label="reader")
    assert not live_search(workspace, visible(workspace, everyone), "Where is the Krakow color printer?", min_relevance=0.9, limit=1)

    import_module("memory.migrations.0009_agent_memory_terms_reanalysed").reanalyse_memories(apps, None)

    [found] = live_search(workspace, visible(workspace, everyone), "Where is the Krakow color printer?", min_relevance=0.9, limit=1)
    assert found.memory.pk == memory.pk
