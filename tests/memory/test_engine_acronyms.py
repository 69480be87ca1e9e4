"""Acronyms a prompt uses for what the memory writes out in full (memory/engine/acronyms.py):
"the CSM" finds the Customer Success Manager, and is not taken for a name the memory has never
heard of."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.engine import retrieve, search
from memory.engine.acronyms import Collector, expand, phrases
from memory.engine.index import index_for
from memory.models import Workspace
from tests.conftest import folder_import
from tests.memory.test_engine_records import member, said, slack_day


def test_a_run_of_capitalised_words_and_each_run_inside_it_stand_for_their_initials() -> None:
    found = dict(phrases("Ottilie Franke is the Customer Success Manager for Halbrook."))

    assert found["csm"] == "Customer Success Manager"
    assert found["csmh"] == "Customer Success Manager for Halbrook"
    assert found["of"] == "Ottilie Franke"
    assert dict(phrases("Report it to the Work Health and Safety team."))["whs"] == "Work Health and Safety"
    assert dict(phrases("The Quarterly Business Review is in May."))["qbr"] == "Quarterly Business Review"
    assert list(phrases("Every project has one owner.")) == []


def test_an_acronym_stands_for_its_most_frequent_phrase() -> None:
    collector = Collector()
    for text in ("Chief Safety Manager Ana Ruiz", "Customer Success Manager", "a Customer Success Manager"):
        collector.add(text)

    assert collector.table()["csm"] == "Customer Success Manager"


def test_only_an_acronym_the_memory_never_writes_is_written_out() -> None:
    table = {"csm": "Customer Success Manager", "arr": "Annual Recurring Revenue"}
    held = {"arr"}.__contains__

    assert expand("Who are the CSMs for our ARR leaders?", table, held) == {"csms": "Customer Success Manager"}
    assert expand("Who is the CEO?", table, held) == {}


ACCOUNTS = """# Named accounts

Halbrook Freight is our largest client by annual value.

Verdancy Grocers joined in March.
"""

TEAM = """# Customer Success team

Ottilie Franke is the Customer Success Manager for Halbrook Freight.

Samir Delacroix is the Customer Success Manager for Verdancy Grocers.

Noor Haddadin leads Customer Success.
"""


def test_a_prompt_naming_a_role_by_its_acronym_finds_the_person_written_out_in_full(
    workspace: Workspace, tmp_path: Path, settings: Any
) -> None:
    settings.PAM_DENSE = False  # the words alone: cosine may know the acronym by chance
    folder_import(workspace, tmp_path / "docs", {"accounts.md": ACCOUNTS, "team.md": TEAM})
    index = index_for(workspace)
    assert index is not None and index.acronyms["csm"] == "Customer Success Manager"

    result = retrieve(workspace, "Who is the CSM for Halbrook Freight?")

    assert result.facts[0].statement == "Ottilie Franke is the Customer Success Manager for Halbrook Freight."
    assert result.unknown_names == []
    assert result.coverage_assessment in ("partial", "comprehensive")


SICKNESS = """# Sickness absence

From the eighth calendar day of sickness a fit note from a doctor is required.
"""
FELIXSTOWE_USERS = [member("U1", "Gareth Pryce", "Site Manager, Felixstowe")]
FELIXSTOWE_DAY = [
    said("U1", "Felixstowe: port shuttle down to one tractor this morning.", "1775462400.000100"),
    said("U1", "Felixstowe: both tractors back on the shuttle.", "1775466000.000100"),
]


def test_a_person_s_initials_are_not_an_acronym_for_them(workspace: Workspace, tmp_path: Path, settings: Any) -> None:
    # "my GP" would read as "Gareth Pryce", the most frequent phrase with those initials, and
    # send his name's words into the query.
    settings.PAM_DENSE = False
    files = {"handbook.md": SICKNESS, **slack_day("ops", "2026-04-06", FELIXSTOWE_USERS, FELIXSTOWE_DAY)}
    folder_import(workspace, tmp_path / "docs", files)
    index = index_for(workspace)
    assert index is not None and index.acronyms["gp"] == "Gareth Pryce"

    result = retrieve(workspace, "From which day of sickness do I need a note from my GP?")

    assert search._written_out(index, "From which day of sickness do I need a note from my GP?") == {}
    assert result.facts[0].statement == "From the eighth calendar day of sickness a fit note from a doctor is required."
