"""People, teams and relationships read from statements without a model
(memory/pipelines/entities.py; SPEC §2.2 entities, issue 16 point 2): names are written with
the accents of their languages as often as without."""

from __future__ import annotations

import pytest

from memory.pipelines.entities import extract


@pytest.mark.parametrize(
    ("statement", "subject", "manager"),
    [
        ("Daniel Okafor reports to Zoë Castellano.", "Daniel Okafor", "Zoë Castellano"),
        ("Katarzyna Zielińska reports to Daniel Okafor.", "Katarzyna Zielińska", "Daniel Okafor"),
        ("Dr. Siobhán Kehoe now reports to Declan Furlong.", "Siobhán Kehoe", "Declan Furlong"),
        ("Nguyễn Lan reports to Tom Brezinski.", "Nguyễn Lan", "Tom Brezinski"),
        ("Łukasz Wójcik reports to Ruairí Dempsey.", "Łukasz Wójcik", "Ruairí Dempsey"),
    ],
)
def test_a_name_written_with_accents_is_a_person_who_reports_to_another(statement: str, subject: str, manager: str) -> None:
    entities, relations = extract(statement)

    assert {(e.label, e.type) for e in entities} == {(subject, "person"), (manager, "person")}
    assert [(r.subject.label, r.type, r.target.label) for r in relations] == [(subject, "reports_to", manager)]
