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


def _people(statement: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str]]]:
    entities, relations = extract(statement)
    return (
        {e.label: e.properties for e in entities if e.type == "person"},
        [(r.subject.label, r.type, r.target.label) for r in relations],
    )


@pytest.mark.parametrize(
    ("statement", "subject", "role", "manager"),
    [
        (
            "Nadia Kowalczyk, Site Manager, Sheffield Cross-Dock — reports to Fenella Graystock",
            "Nadia Kowalczyk", "Site Manager", "Fenella Graystock",
        ),
        (
            "Daniel Okafor — VP Engineering, reports to Łukasz Wiśniewski (Leeds)",
            "Daniel Okafor", "VP Engineering", "Łukasz Wiśniewski",
        ),
        (
            "Marcus Oyelaran — Chief Operating Officer (COO). Reports to Dana Whitfield.",
            "Marcus Oyelaran", "Chief Operating Officer", "Dana Whitfield",
        ),
        (
            "Greg Hollis — General Manager, Newcastle (reports to Dan Whitlock)",
            "Greg Hollis", "General Manager", "Dan Whitlock",
        ),
        (
            "Yusuf Demir, Health & Safety Manager — reports to Dr Ines Carvalho",
            "Yusuf Demir", "Health & Safety Manager", "Ines Carvalho",
        ),
        (
            "Stuart McKellar, Site Manager, Teesport Freezer Centre — reports to Fenella Graystock",
            "Stuart McKellar", "Site Manager", "Fenella Graystock",
        ),
        (
            "Jess Cartwright — People & Culture Advisor (reports to Sinéad O'Brien)",
            "Jess Cartwright", "People & Culture Advisor", "Sinéad O'Brien",
        ),
        (
            'Nguyễn Thị Lan ("Lan") — General Manager, Reno DC (RNO). Reports to Tom Brezinski.',
            "Nguyễn Thị Lan", "General Manager", "Tom Brezinski",
        ),
    ],
)
def test_an_org_chart_line_gives_the_person_a_title_and_a_manager(
    statement: str, subject: str, role: str, manager: str
) -> None:
    people, relations = _people(statement)

    assert people[subject] == {"role": role}
    assert relations == [(subject, "reports_to", manager)]


@pytest.mark.parametrize(
    ("statement", "subject", "role"),
    [
        ("Operations (under the COO): Paul Okafor — Inventory Control Lead", "Paul Okafor", "Inventory Control Lead"),
        ("Dr. Anjali Rao DipECVDI — Head of Imaging, Carlow Referral & Imaging Centre", "Anjali Rao", "Head of Imaging"),
        ("Niamh Doyle RVN — Group Nursing Lead", "Niamh Doyle", "Group Nursing Lead"),
    ],
)
def test_an_org_chart_line_under_a_heading_or_with_letters_after_the_name_still_names_the_person(
    statement: str, subject: str, role: str
) -> None:
    people, relations = _people(statement)

    assert people == {subject: {"role": role}}
    assert relations == []


def test_a_title_in_brackets_between_a_person_and_their_manager_is_read_over() -> None:
    people, relations = _people(
        "Clinical teams: Kilkenny: Dr. Seán Kinsella (Veterinary Surgeon) reports to Dr. Orla Comerford."
    )

    assert relations == [("Seán Kinsella", "reports_to", "Orla Comerford")]


@pytest.mark.parametrize(
    "statement",
    [
        "Gareth Pryce: the site manager says the dock is clear",  # a chat message
        "Priya Raman, Leeds and Kraków are the offices she visits",  # no job after the comma
        "Fiona Gallagher — Chief Executive Officer (reports to the Board)",  # a board is nobody
    ],
)
def test_a_line_that_is_no_org_chart_entry_gives_no_title_or_manager(statement: str) -> None:
    people, relations = _people(statement)

    assert all("role" not in props for name, props in people.items() if name != "Fiona Gallagher")
    assert relations == []


def test_a_staff_directory_row_is_a_person_with_title_team_and_manager() -> None:
    people, relations = _people(
        "Staff directory: name: Hannah Lowe; title: Job Scheduler; team: Operations; manager: Priya Nandakumar; "
        "email: hannah.lowe@example.com"
    )

    assert people == {
        "Hannah Lowe": {"role": "Job Scheduler", "team": "Operations"},
        "Priya Nandakumar": {},
    }
    assert relations == [("Hannah Lowe", "reports_to", "Priya Nandakumar")]


def test_a_job_named_column_holding_a_name_holds_a_person_and_a_role_written_in_capitals_does_not() -> None:
    sites, _ = _people("site_id: S06; site_name: Sheffield Cross-Dock; site_manager: Nadia Kowalczyk; opened: 2023-02-06")
    board, relations = _people("Person: Declan Furlong; Role title: Chief Executive; Reports to: Board of Directors")
    chief, chief_relations = _people("Person: Ruairí Dempsey; Role title: Head of Operations; Reports to: Chief Executive")

    assert sites == {"Nadia Kowalczyk": {}}
    assert board == {"Declan Furlong": {"role": "Chief Executive"}} and relations == []
    assert chief == {"Ruairí Dempsey": {"role": "Head of Operations"}} and chief_relations == []


def test_a_name_column_with_no_title_beside_it_is_no_person() -> None:
    people, _ = _people("client_id: C-104; name: Kilkenny Hunt Stables; type: Equine yard; town: Kilkenny")

    assert people == {}


@pytest.mark.parametrize(
    ("statement", "parent", "relations"),
    [
        # Nested under her line, with no manager of his own: he reports to her.
        (
            "Finance (under the CFO): Omar Haddad — Billing Analyst",
            "Lauren Fiske — Billing Manager. Reports to Priya Raghunathan.",
            [("Omar Haddad", "reports_to", "Lauren Fiske")],
        ),
        ("Kevin Szabo — Shift Supervisor, 1st Shift", "Angela Brooks — General Manager, Columbus DC (CMH).", [
            ("Kevin Szabo", "reports_to", "Angela Brooks"),
        ]),
        # A manager the line names wins over the line it sits under.
        (
            "José Peña — EHS Manager. Reports to Tom Brezinski.",
            "Angela Brooks — General Manager, Columbus DC (CMH).",
            [("José Peña", "reports_to", "Tom Brezinski")],
        ),
        # Under a line that is no person's entry (a team, a plain bullet), nobody is the manager.
        ("Mike Dolan — Carrier Manager", "Brokerage desk (Chicago)", []),
        ("Mike Dolan — Carrier Manager", "Carriers are paid on 30-day terms", []),
        # Under an org chart line, a line that is no entry itself reports to nobody.
        ("Weekly review on Mondays, 9:00", "Angela Brooks — General Manager, Columbus DC (CMH).", []),
    ],
)
def test_an_org_chart_line_nested_under_another_reports_to_that_line_s_person(
    statement: str, parent: str, relations: list[tuple[str, str, str]]
) -> None:
    _, found = extract(statement, parent=parent)

    assert [(r.subject.label, r.type, r.target.label) for r in found] == relations


@pytest.mark.parametrize(
    ("statement", "role"),
    [
        ("Kevin Szabo — Shift Supervisor, 1st Shift (6:00 AM – 2:30 PM)", "Shift Supervisor"),
        ("Jess Whitaker — Transportation Planner (parcel and LTL routing)", "Transportation Planner"),
        ("Sam Petrakis — Senior Freight Broker", "Senior Freight Broker"),
        ("Nicole Tran — HR Generalist. Reports to Renée Castellanos.", "HR Generalist"),
        ("Hannah Lowe — Job Scheduler, Wollongong (reports to Priya Nandakumar)", "Job Scheduler"),
        ("Declan Ryan — Warranty Technician (reports to Aroha Ngata)", "Warranty Technician"),
        ("Ellie Marsh — Apprentice Electrician, 3rd year (reports to Tui Faleolo)", "Apprentice Electrician"),
        ("Rhiannon Price, QA Pharmacist (Responsible Person, GDP) — reports to Dr Ines Carvalho", "QA Pharmacist"),
    ],
)
def test_a_floor_or_trade_job_is_a_title_too(statement: str, role: str) -> None:
    people, _ = _people(statement)

    assert [props.get("role") for props in people.values()][0] == role
