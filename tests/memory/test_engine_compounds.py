"""Hyphenated words in documents (memory/engine/text.py `document_terms`; SPEC §2.3 retrieval;
issue 16, companies the engine has never seen): a question that writes "callouts" or "emailed"
whole finds the document's "call-outs" and "e-mailed", and a question's own "on-call" still
finds a document's "on call"."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps

from memory.engine import retrieve
from memory.engine.live import Viewer, live_search, memory_save, visible
from memory.engine.text import document_terms, terms
from memory.models import AgentMemory, Workspace
from tests.conftest import folder_import
from tests.memory.xmemo import analysed_before

ROSTER = """# Electricians' roster

After-hours call-outs are paid at double time.
After-hours work is paid after the hours are approved.
The on call electrician checks the switchboard every Saturday.
The duty electrician on Saturday is paid a flat allowance.
"""


def test_a_document_s_hyphenated_word_is_also_one_term() -> None:
    assert set(document_terms("Call-outs were e-mailed and re-booked.")) >= set(terms("callouts emailed rebooked"))
    assert "callout" not in terms("Call-outs were e-mailed.")  # a question's terms stay its own
    assert document_terms("Trailer T-118 from the 2025-26 budget") == terms("Trailer T-118 from the 2025-26 budget")


def test_a_question_writing_the_word_whole_finds_the_hyphenated_one(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False  # the words alone: the dense stage would reach it by meaning
    folder_import(workspace, tmp_path / "ops", {"roster.md": ROSTER})

    result = retrieve(workspace, "How are after-hours callouts paid?")

    assert result.facts[0].statement == "After-hours call-outs are paid at double time."


def test_a_question_s_hyphenated_word_finds_the_words_written_apart_as_before(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False
    folder_import(workspace, tmp_path / "ops", {"roster.md": ROSTER})

    hyphenated = retrieve(workspace, "What does the on-call electrician check?")
    apart = retrieve(workspace, "What does the on call electrician check?")

    assert hyphenated.facts[0].statement == "The on call electrician checks the switchboard every Saturday."
    assert hyphenated.facts[0].relevance_score == apart.facts[0].relevance_score


def test_agent_memories_hold_their_hyphenated_words_whole_once_migrated(workspace: Workspace) -> None:
    memory = AgentMemory(workspace=workspace, reference="mem_0001", path="ops", content="Supplier bank changes are e-mailed to AP.")
    memory_save(memory)
    everyone = Viewer(label="reader")
    assert live_search(workspace, visible(workspace, everyone), "emailed bank changes", min_relevance=0.9, limit=1)
    analysed_before(memory, " ".join(sorted(set(terms(memory.content)))))  # before hyphenated words were joined
    assert not live_search(workspace, visible(workspace, everyone), "emailed bank changes", min_relevance=0.9, limit=1)

    import_module("memory.migrations.0010_agent_memory_hyphenated_terms").reanalyse_memories(apps, None)

    [found] = live_search(workspace, visible(workspace, everyone), "emailed bank changes", min_relevance=0.9, limit=1)
    assert found.memory.pk == memory.pk
