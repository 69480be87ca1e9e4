"""Months (SPEC §2.3 retrieval and `coverage_assessment`; issue 16, companies the engine has
never seen): a question asking about "March 2026" finds the row of "2026-03", since a
statement's terms also hold the name of each month it writes in figures one way only
(`text.document_terms`, `days.written_months`); and one asking about a month the best facts
are not about ("OTIF in April 2026", the rows running January to March) is reported minimal,
its summary naming the month, while a fact stating, headed with or dated in the month asked,
or facts stating no month at all, leave the answer as it was (memory/engine/months.py)."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps

from memory.engine import retrieve
from memory.engine.days import written_months
from memory.engine.live import Viewer, live_search, memory_save, visible
from memory.engine.months import MONTH_FACTS, asked_months, months_unstated, stated_months
from memory.engine.rank import assess
from memory.engine.search import summary
from memory.engine.text import document_terms, terms
from memory.engine.types import FactHit
from memory.models import AgentMemory, Workspace
from tests.conftest import Mcp, folder_import, items_import
from tests.memory.xmemo import analysed_before, remember

OTIF = """month,site,deliveries,on_time_in_full,otif_pct
2026-01,Teesport Freezer Centre,3015,2912,96.6
2026-02,Teesport Freezer Centre,2870,2741,95.5
2026-03,Teesport Freezer Centre,3104,3043,98.0
2026-01,Avonmouth Cold Store,2630,2596,98.7
2026-02,Avonmouth Cold Store,2581,2549,98.8
2026-03,Avonmouth Cold Store,2702,2670,98.8
"""
APRIL = "What OTIF percentage did Teesport Freezer Centre achieve in April 2026?"
MARCH = "What OTIF percentage did Teesport Freezer Centre achieve in March 2026?"


def fact(statement: str, relevance: float, effective_date: str | None = None, section: str = "") -> FactHit:
    return FactHit(statement, relevance, "company_context/general/general.md", section, "", "", effective_date, 0, 0, 0)


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


def test_a_month_is_asked_with_its_year_by_name_or_abbreviation() -> None:
    assert asked_months("What was OTIF in April 2026, and in Apr. 2025?") == ["2026-04", "2025-04"]
    assert asked_months("Who joined in March of 2026?") == ["2026-03"]
    assert asked_months("What did we ship in March?") == []  # no year: which March is not asked
    assert asked_months("What changed in Q2 2026?") == []  # a quarter is PERIOD_PENALTY's


def test_a_fact_states_its_months_in_every_way_dates_are_written() -> None:
    assert stated_months("month: 2026-02; site: Teesport") == {(2026, 2)}
    assert stated_months("Signed 14 January 2026, live March 2, 2026") >= {(2026, 1), (2026, 3)}
    assert stated_months("Date: 10/03/2026") == {(2026, 10), (2026, 3)}  # day first or month first
    assert stated_months("renewal_date: 06/30/2027") == {(2027, 6)}  # 30 is no month
    assert stated_months("Go-live: Q2 2026") == {(2026, 4), (2026, 5), (2026, 6)}
    assert stated_months("Budget for H2 2025") == {(2025, m) for m in range(7, 13)}
    assert stated_months("On-time-in-full for February: 97.1%") == {(None, 2)}
    assert stated_months("We may ship in 03/2026") == {(2026, 3)}  # "may" the verb is no month


def test_the_best_facts_about_other_months_of_the_year_asked_leave_it_unstated() -> None:
    rows = [fact(f"month: 2026-0{m}; site: Teesport; otif_pct: 9{m}.0", 0.65) for m in (1, 2, 3)]

    assert months_unstated(["2026-04"], rows) == ["2026-04"]
    assert months_unstated(["2026-03"], rows) == []
    assert months_unstated(["2025-04"], rows) == []  # other months of another year: not about it either way
    assert months_unstated([], rows) == []


def test_a_fact_dated_or_headed_in_the_month_asked_is_about_it() -> None:
    rows = [fact(f"month: 2026-0{m}; otif_pct: 9{m}.0", 0.65) for m in (1, 2)]

    dated = fact("Teesport reached 97% on time in full.", 0.6, effective_date="2026-04-03")
    headed = fact("Teesport reached 97% on time in full.", 0.6, section="Monthly review, 2 April 2026")

    assert months_unstated(["2026-04"], [*rows, dated]) == []
    assert months_unstated(["2026-04"], [*rows, headed]) == []


def test_facts_stating_no_month_say_nothing_of_the_month_asked() -> None:
    policy = [fact("Parental leave is 26 weeks at full pay.", 0.7), fact("Leave is booked in HiBob.", 0.5)]
    dated_elsewhere = [fact("Parental leave is 26 weeks at full pay.", 0.7, effective_date="2025-09-01")]

    assert months_unstated(["2026-04"], policy) == []
    assert months_unstated(["2026-04"], dated_elsewhere) == []  # its date alone says no other month was meant


def test_only_the_most_relevant_facts_are_read_for_their_months() -> None:
    best = [fact(f"month: 2026-0{m}; otif_pct: 9{m}.0", 0.65) for m in (1, 2, 3)][:MONTH_FACTS]
    lower = fact("Q2 2026: Frostline go-live at Teesport.", 0.2)  # about April, but not what was asked

    assert months_unstated(["2026-04"], [*best, lower]) == ["2026-04"]


def test_strong_facts_about_other_months_are_minimal_and_the_summary_names_the_month() -> None:
    rows = [fact(f"month: 2026-0{m}; site: Teesport; otif_pct: 9{m}.0", 0.9) for m in (1, 2, 3)]

    assert assess(rows, joint=1.0) == "comprehensive"
    assert assess(rows, joint=1.0, other_month=True) == "minimal"
    assert summary(rows, "minimal", unstated=["2026-04"]).startswith(
        "No stored fact is about April 2026; the nearest context, about other months: month: 2026-01"
    )


def test_a_month_the_table_does_not_reach_is_reported_minimal_and_one_it_does_is_not(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder_import(workspace, tmp_path / "kpis", {"otif.csv": OTIF})

    april = retrieve(workspace, APRIL)
    march = retrieve(workspace, MARCH)

    assert "Teesport Freezer Centre" in april.facts[0].statement  # its rows are found, none for April
    assert april.coverage_assessment == "minimal"
    assert april.context_summary.startswith("No stored fact is about April 2026")
    assert any("2026-03" in f.statement and "98.0" in f.statement for f in march.facts[:MONTH_FACTS])
    assert march.coverage_assessment in ("partial", "comprehensive")
    assert not march.context_summary.startswith("No stored fact")


def test_an_agent_memory_about_the_month_asked_lifts_the_answer(workspace: Workspace, tmp_path: Path, mcp: Mcp) -> None:
    folder_import(workspace, tmp_path / "kpis", {"otif.csv": OTIF})
    before = mcp.call({"prompt": APRIL})["structuredContent"]["retrieval"]

    remember(mcp, "Teesport Freezer Centre OTIF for April 2026 was 97.4%.", path="operations/kpis")
    after = mcp.call({"prompt": APRIL})["structuredContent"]["retrieval"]

    assert before["coverage_assessment"] == "minimal"
    assert any("April 2026" in f["statement"] for f in after["facts"])
    assert after["coverage_assessment"] in ("partial", "comprehensive")
    assert not after["context_summary"].startswith("No stored fact")


def test_messages_and_agent_memories_about_other_months_leave_the_month_asked_open() -> None:
    said = [fact(f"We shipped Teesport's order in 2026-0{m}.", 0.65) for m in (1, 2, 3)]
    for f in said:
        f.message = True
    noted = [fact(f"Teesport OTIF for 2026-0{m} was 9{m}%.", 0.65) for m in (1, 2, 3)]
    for f in noted:
        f.reference = "mem_1"

    assert months_unstated(["2026-04"], said) == []  # "in March" said in a chat is talk, not a row
    assert months_unstated(["2026-04"], noted) == []
    assert months_unstated(["2026-04"], [fact("month: 2026-03; otif_pct: 98.0", 0.65), *said]) == ["2026-04"]


def test_a_message_stating_the_month_asked_is_about_it() -> None:
    rows = [fact(f"month: 2026-0{m}; otif_pct: 9{m}.0", 0.65) for m in (1, 2)]
    said = fact("Teesport did 97% on time in April 2026.", 0.6)
    said.message = True

    assert months_unstated(["2026-04"], [*rows, said]) == []


def test_a_chat_about_other_months_is_not_reported_as_about_none_of_the_month_asked(workspace: Workspace) -> None:
    sent = "2026-05-04T09:00:00+00:00"
    said = [
        f"Teesport Freezer Centre OTIF for {month} 2026 came in at {pct}%, well done all."
        for month, pct in (("January", 96.6), ("February", 97.1), ("March", 98.0))
    ]
    items_import(
        workspace,
        [
            {
                "external_id": "ops",
                "title": "Ops channel",
                "created_at": sent,
                "messages": [
                    {"id": f"m{n}", "author": "Ana", "text": text, "sent_at": sent} for n, text in enumerate(said)
                ],
            }
        ],
    )

    april = retrieve(workspace, APRIL)

    assert "Teesport Freezer Centre OTIF" in april.facts[0].statement
    assert not april.context_summary.startswith("No stored fact is about")
