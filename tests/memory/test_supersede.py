"""Supersession: a newer statement about the same thing replaces an older one (SPEC §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.engine import retrieve
from memory.engine.report import render_report
from memory.models import Fact, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create

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
    return import_files(
        workspace,
        folder,
        {"older.md": ("Pricing notes", "2025-11-03", older), "newer.md": ("Pricing update", "2026-03-18", newer)},
    )


def import_files(workspace: Workspace, folder: Path, files: dict[str, tuple[str, str, str]]) -> Source:
    """A new source of the folder holding these documents (name → title, date, statement), synced."""
    folder.mkdir()
    for name, (title, date, statement) in files.items():
        (folder / name).write_text(document(title, date, statement))
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
    import_files(
        workspace,
        tmp_path / "pricing",
        {"a.md": ("Pricing update", "2026-03-18", PRO_NEW), "b.md": ("Pricing notes", "2025-11-03", PRO_OLD)},
    )

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
    import_files(workspace, tmp_path / "first", {"pricing.md": ("Pricing notes", "2025-11-03", PRO_OLD)})
    assert fact(PRO_OLD).superseded_by is None

    import_files(workspace, tmp_path / "second", {"pricing.md": ("Pricing update", "2026-03-18", PRO_NEW)})

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


PRO_LATEST = "The Pro plan now costs $69 per seat per month."


def test_a_later_mark_already_stored_is_kept_when_an_older_newcomer_arrives(
    workspace: Workspace, tmp_path: Path
) -> None:
    # $49 (Nov 2025) was superseded by $69 (Jun 2026); a source added later brings $59 (Mar
    # 2026). The $49 statement keeps its latest successor, and $59 is superseded by $69 too.
    import_files(
        workspace,
        tmp_path / "first",
        {"old.md": ("Pricing notes", "2025-11-03", PRO_OLD), "latest.md": ("Pricing today", "2026-06-01", PRO_LATEST)},
    )
    assert fact(PRO_OLD).superseded_by == fact(PRO_LATEST)

    import_files(workspace, tmp_path / "second", {"update.md": ("Pricing update", "2026-03-18", PRO_NEW)})

    assert fact(PRO_OLD).superseded_by == fact(PRO_LATEST)
    assert fact(PRO_NEW).superseded_by == fact(PRO_LATEST)
    assert fact(PRO_LATEST).superseded_by is None


def test_documents_a_failed_run_stored_are_compared_by_the_next_run(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run dies after storing the new document and before comparing it; the next run finds
    # the file unchanged, and still compares its facts (they are pending in the database).
    from memory.models import Document
    from memory.pipelines import sync as sync_module

    source = import_pair(workspace, tmp_path / "pricing", PRO_OLD, "The Pro plan includes priority support.")
    (Path(source.location) / "newer.md").write_text(document("Pricing update", "2026-03-18", PRO_NEW))

    def dies(**_: object) -> int:
        raise RuntimeError("worker died")

    with monkeypatch.context() as patch:
        patch.setattr(sync_module, "supersession_update", dies)
        failed = source_sync(run_id=run_create(source=source).pk)
    assert failed.status == "failed"
    assert fact(PRO_OLD).superseded_by is None
    assert Document.objects.get(path="newer.md").supersession_pending is True

    sync(source)

    assert fact(PRO_OLD).superseded_by == fact(PRO_NEW)
    assert not Document.objects.filter(supersession_pending=True).exists()
