"""Months written in figures (SPEC §2.3 retrieval; issue 16, companies the engine has never
seen): a question asking about "March 2026" finds the row of "2026-03", since a statement's
terms also hold the name of each month it writes in figures one way only
(`text.document_terms`, `days.written_months`)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps

from memory.engine import retrieve
from memory.engine.days import written_months
from memory.engine.live import Viewer, live_search, memory_save, visible
from memory.engine.text import document_terms, terms
from memory.models import AgentMemory, Workspace
from tests.conftest import folder_import
from tests.memory.xmemo import analysed_before

OTIF = """month,site,deliveries,on_time_in_full,otif_pct
2026-01,Teesport Freezer Centre,3015,2912,96.6
2026-02,Teesport Freezer Centre,2870,2741,95.5
2026-03,Teesport Freezer Centre,3104,3043,98.0
2026-01,Avonmouth Cold Store,2630,2596,98.7
2026-02,Avonmouth Cold Store,2581,2549,98.8
2026-03,Avonmouth Cold Store,2702,2670,98.8
"""
MARCH = "What OTIF percentage did Teesport Freezer Centre achieve in March 2026?"


def test_a_month_written_in_figures_one_way_only_is_also_its_name() -> None:
    assert written_months("month: 2026-03; renewal_date: 06/30/2027; start: 17/01/2022") == [3, 6, 1]
    assert written_months("Date: 10/03/2026") == []  # October or March
    assert written_months("the 2025-26 budget, trailer T-118") == []
    assert set(terms("march june january")) <= set(document_terms("month: 2026-03; 06/30/2027; 17/01/2022"))
    assert "march" not in terms("month: 2026-03")  # a question's terms stay its own


def test_a_question_naming_a_month_finds_the_row_written_in_figures(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False  # the words alone
    folder_import(workspace, tmp_path / "kpis", {"otif.csv": OTIF})

    march = retrieve(workspace, MARCH)

    assert march.facts[0].statement.startswith("month: 2026-03; site: Teesport Freezer Centre")


def test_agent_memories_hold_the_names_of_their_months_once_migrated(workspace: Workspace) -> None:
    memory = AgentMemory(workspace=workspace, reference="mem_0001", path="ops", content="Stocktake booked for 2026-04-11 at Naas.")
    memory_save(memory)
    everyone = Viewer(label="reader")
    assert live_search(workspace, visible(workspace, everyone), "stocktake April", min_relevance=0.9, limit=1)
    analysed_before(memory, " ".join(sorted(set(terms(memory.content)))))  # before months were named
    assert not live_search(workspace, visible(workspace, everyone), "stocktake April", min_relevance=0.9, limit=1)

    import_module("memory.migrations.0011_agent_memory_month_terms").reanalyse_memories(apps, None)

    [found] = live_search(workspace, visible(workspace, everyone), "stocktake April", min_relevance=0.9, limit=1)
    assert found.memory.pk == memory.pk
