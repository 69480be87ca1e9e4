"""Versions of one document in the engine (SPEC §2.3; issue 16 point 4, newest wins): which
documents are versions of which (memory/engine/revisions.py), and a fact of an older version
bringing what the newest version says instead."""

from __future__ import annotations

from pathlib import Path

from memory.engine import retrieve
from memory.engine.index import index_for
from memory.engine.revisions import revision_map, title_key
from memory.models import Document, Workspace
from tests.conftest import folder_import

SOP_V1 = """# SOP QC-07: Temperature excursions

Version 1.0 · issued 4 March 2024 · owner: Head of Quality

## Procedure

1. The shift lead checks the chamber display and the probe log.
2. If a chamber stays outside its range for more than 30 minutes, the shift lead must inform the
   customer's named contact by phone and log the call in the excursion register.
3. Stock is placed on QA hold until the customer releases it in writing.
"""
SOP_V2 = """# SOP QC-07: Temperature excursions (revised)

Version 2.0 · effective 16 February 2026 · supersedes version 1.0 of 4 March 2024

## Procedure

1. The shift lead checks the chamber display and the probe log.
2. The customer's named contact must be informed by phone within 15 minutes of the alarm,
   whether or not the excursion has ended by then.
3. Affected stock goes on QA hold until released by the customer in writing.
"""
HANDBOOK = """# Warehouse handbook

Chamber doors are closed within one minute of a pallet passing through.
Every customer has a named contact for quality matters, listed in the portal.
"""


def test_versions_are_told_by_their_title_and_the_version_they_state() -> None:
    assert title_key("SOP QC-07: Temperature excursions (revised)") == title_key("SOP QC-07: Temperature excursions")
    assert title_key("Pricing 2025") == title_key("Pricing 2026")
    assert title_key("Rate card v2.0") == title_key("Rate card v1") == ("rate", "card")
    rows = [
        (1, "SOP QC-07: Temperature excursions", "Version 1.0 issued 2024"),
        (2, "SOP QC-07: Temperature excursions (revised)", "Version 2.0, supersedes version 1.0"),
        (3, "Clinical Protocol CP-04: Fasting", "Version 2.0, replaces version 1.0"),
        (4, "Clinical Protocol CP-04: Fasting", "Version 1.0"),
        (5, "Plant failure at Avonmouth", "Compressor 3 tripped."),
        (6, "Re: Plant failure at Avonmouth", "The revised SOP applies from Monday."),  # a reply
        (7, "Notes", "Version 3"),  # a one-word title names nothing in particular
        (8, "Notes", "Version 4"),
        (9, "Travel policy", "Effective 2025."),  # nothing tells which is newer
        (10, "Travel policy", "Effective 2026."),
    ]
    assert revision_map(rows) == {1: 2, 4: 3}


def test_a_title_shared_by_more_documents_than_versions_are_a_series() -> None:
    rows = [(n, "Operations meeting notes", f"Version {n}") for n in range(1, 8)]
    assert revision_map(rows) == {}


def test_an_older_version_s_fact_brings_the_newest_version_s_statement_above_it(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder_import(workspace, tmp_path / "quality", {"sop-2024.md": SOP_V1, "sop-2026.md": SOP_V2, "handbook.md": HANDBOOK})
    index = index_for(workspace)
    assert index is not None
    old, new = (Document.objects.get(workspace=workspace, path=p).pk for p in ("sop-2024.md", "sop-2026.md"))
    assert index.revisions == {old: new}

    result = retrieve(workspace, "How long can a chamber stay outside its range before the customer is told?", limit=5)

    found = [f.statement for f in result.facts]
    older = next(i for i, s in enumerate(found) if "more than 30 minutes" in s)
    assert "within 15 minutes of the alarm" in found[older - 1]
    assert result.facts[older - 1].linked == "newer"
    assert sum("within 15 minutes of the alarm" in s for s in found) == 1
