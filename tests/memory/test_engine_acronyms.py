"""Acronyms a prompt uses for what the memory writes out in full (memory/engine/acronyms.py):
"the CSM" finds the Customer Success Manager, and is not taken for a name the memory has never
heard of."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.engine import retrieve
from memory.engine.acronyms import Collector, expand, phrases
from memory.engine.index import index_for
from memory.models import Workspace
from tests.conftest import folder_import


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
