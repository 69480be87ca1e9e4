"""Supersession: a newer statement about the same thing replaces an older one (SPEC §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.engine import retrieve
from memory.engine.report import render_report
from memory.models import Fact, Source, Workspace
from memory.pipelines.sync import run_create, source_sync

PRO_OLD = "The Pro plan costs $49 per seat per month."
PRO_NEW = "The Pro plan now costs $59 per seat per month."
Q4 = "Revenue for Q4 2025 was $2.1 million."
Q1 = "Revenue for Q1 2026 was $2.3 million."
ATLAS = "Project Atlas is owned by the Data team."
LANTERN = "Project Lantern is owned by the Data team."
# Near-identical wording with a changed figure: only the period, or the project, tells them apart.
NORTHWIND_Q4 = "The Northwind Retail account revenue for Q4 2025 was $2.1 million."
NORTHWIND_Q1 = "The Northwind Retail account revenue for Q1 2026 was $2.3 million."
ATLAS_BUDGET = "Project Atlas has a budget of $40,000."
LANTERN_BUDGET = "Project Lantern has a budget of $50,000."


def document(title: str, date: str, statement: str) -> str:
    return f"---\ntitle: {title}\ndate: {date}\n---\n# {title}\n\n{statement}\n"


def import_pair(workspace: Workspace, folder: Path, older: str, newer: str) -> Source:
    folder.mkdir()
    (folder / "older.md").write_text(document("Pricing notes", "2025-11-03", older))
    (folder / "newer.md").write_text(document("Pricing update", "2026-03-18", newer))
    source = Source.objects.create(workspace=workspace, name=folder.name, kind="auto", location=str(folder))
    sync(source)
    return source


def sync(source: Source) -> None:
    run = source_sync(run_id=run_create(source=source).pk)
    assert run.status == "completed", run.errors


def fact(statement: str) -> Fact:
    return Fact.objects.get(statement=statement)


def test_a_newer_price_supersedes_the_older_one(workspace: Workspace, tmp_path: Path) -> None:
    import_pair(workspace, tmp_path / "pricing", PRO_OLD, PRO_NEW)

    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)
    assert fact(PRO_NEW).superseded_by is None


def test_the_document_dates_decide_which_is_newer_not_the_order_of_the_files(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder = tmp_path / "pricing"
    folder.mkdir()
    (folder / "a.md").write_text(document("Pricing update", "2026-03-18", PRO_NEW))
    (folder / "b.md").write_text(document("Pricing notes", "2025-11-03", PRO_OLD))
    sync(Source.objects.create(workspace=workspace, name="p", kind="auto", location=str(folder)))

    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)
    assert fact(PRO_NEW).superseded_by is None


@pytest.mark.parametrize(("older", "newer"), [(Q4, Q1), (NORTHWIND_Q4, NORTHWIND_Q1)])
def test_facts_about_different_periods_do_not_supersede_each_other(
    workspace: Workspace, tmp_path: Path, older: str, newer: str
) -> None:
    import_pair(workspace, tmp_path / "revenue", older, newer)

    assert fact(older).superseded_by is None
    assert fact(newer).superseded_by is None


@pytest.mark.parametrize(("older", "newer"), [(ATLAS, LANTERN), (ATLAS_BUDGET, LANTERN_BUDGET)])
def test_facts_about_different_projects_do_not_supersede_each_other(
    workspace: Workspace, tmp_path: Path, older: str, newer: str
) -> None:
    import_pair(workspace, tmp_path / "projects", older, newer)

    assert fact(older).superseded_by is None
    assert fact(newer).superseded_by is None


def test_a_later_document_in_another_source_supersedes_too(workspace: Workspace, tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    (first / "pricing.md").write_text(document("Pricing notes", "2025-11-03", PRO_OLD))
    sync(Source.objects.create(workspace=workspace, name="first", kind="auto", location=str(first)))
    assert fact(PRO_OLD).superseded_by is None
    second = tmp_path / "second"
    second.mkdir()
    (second / "pricing.md").write_text(document("Pricing update", "2026-03-18", PRO_NEW))

    sync(Source.objects.create(workspace=workspace, name="second", kind="auto", location=str(second)))

    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)


def test_reimporting_is_idempotent(workspace: Workspace, tmp_path: Path) -> None:
    source = import_pair(workspace, tmp_path / "pricing", PRO_OLD, PRO_NEW)
    before = sorted(Fact.objects.values_list("id", "statement", "superseded_by_id"))

    sync(source)
    sync(source)

    assert sorted(Fact.objects.values_list("id", "statement", "superseded_by_id")) == before
    assert Fact.objects.filter(statement=PRO_OLD).count() == 1
    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)


def test_editing_the_newer_document_keeps_the_supersession(workspace: Workspace, tmp_path: Path) -> None:
    source = import_pair(workspace, tmp_path / "pricing", PRO_OLD, PRO_NEW)
    newer = Path(source.location) / "newer.md"
    newer.write_text(newer.read_text() + "\nThe Pro plan includes priority support.\n")

    sync(source)

    assert Fact.objects.filter(statement=PRO_NEW).count() == 1
    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)


def test_retrieval_ranks_the_newer_statement_first_and_marks_the_superseded_one(
    workspace: Workspace, tmp_path: Path
) -> None:
    import_pair(workspace, tmp_path / "pricing", PRO_OLD, PRO_NEW)
    prompt = "What does the Pro plan cost?"

    result = retrieve(workspace, prompt)

    statements = [f.statement for f in result.facts]
    assert statements.index(PRO_NEW) < statements.index(PRO_OLD)
    assert statements[0] == PRO_NEW
    by_statement = {f.statement: f for f in result.facts}
    assert by_statement[PRO_OLD].superseded is True
    assert by_statement[PRO_NEW].superseded is False
    assert by_statement[PRO_NEW].relevance_score >= by_statement[PRO_OLD].relevance_score
    report = render_report(prompt, result)
    lines = report.split("## Relevant Facts", 1)[1].split("\n## ", 1)[0].splitlines()
    [old_line] = [line for line in lines if PRO_OLD in line]
    [new_line] = [line for line in lines if PRO_NEW in line]
    assert "superseded by a newer statement" in old_line
    assert "superseded" not in new_line
