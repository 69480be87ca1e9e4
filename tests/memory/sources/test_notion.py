"""The `notion` kind: a Notion export zip of nested Markdown pages and CSV databases."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path
from typing import Callable

from memory.models import Document, Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read, skipped

WIKI = "Team Wiki 0123456789abcdef0123456789abcdef"
ONBOARDING = "Onboarding fedcba9876543210fedcba9876543210"
TASKS = "Tasks 11112222333344445555666677778888"
NOTES = "Meeting notes 99990000aaaabbbbccccddddeeeeffff"

MEMBERS: dict[str, str | bytes] = {
    f"{WIKI}.md": f"""# Team Wiki

Created: March 3, 2025 10:00 AM
Owner: Ana Ruiz

The team wiki collects how Platform Engineering works.

[Onboarding]({WIKI.replace(" ", "%20")}/{ONBOARDING.replace(" ", "%20")}.md)
""",
    f"{WIKI}/{ONBOARDING}.md": """# Onboarding

New engineers get production access after their second week.

## First week

- Pair with the on-call engineer on Wednesday.
""",
    f"{WIKI}/{TASKS}.csv": "Name,Status,Owner\nMigrate billing,In progress,Bo Chen\nRotate keys,Done,Ana Ruiz\n",
    f"{WIKI}/{NOTES}.md": "Retro on 2025-03-07: the deploy freeze ends on Monday.\n",
    f"{WIKI}/diagram 1234.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
}


def make_export(path: Path, members: dict[str, str | bytes] = MEMBERS) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def test_nested_pages_keep_their_paths_and_lose_their_ids_in_titles(tmp_path: Path) -> None:
    items = read("notion", make_export(tmp_path / "notion.zip"))

    docs = documents(items)
    assert set(docs) == {f"{WIKI}.md", f"{WIKI}/{ONBOARDING}.md", f"{WIKI}/{TASKS}.csv", f"{WIKI}/{NOTES}.md"}
    titles = {d.title for d in docs.values()}
    assert titles == {"Team Wiki", "Onboarding", "Tasks", "Meeting notes"}
    assert docs[f"{WIKI}/{ONBOARDING}.md"].metadata["notion_id"] == "fedcba9876543210fedcba9876543210"
    assert skipped(items) == {f"{WIKI}/diagram 1234.png": "unsupported file type .png"}
    assert errors(items) == {}


def test_page_properties_date_the_page(tmp_path: Path) -> None:
    docs = documents(read("notion", make_export(tmp_path / "notion.zip")))

    assert docs[f"{WIKI}.md"].doc_date == dt.date(2025, 3, 3)
    # A date merely mentioned in the text does not date the page.
    assert docs[f"{WIKI}/{NOTES}.md"].doc_date is None


def test_a_database_csv_becomes_one_bullet_per_row(tmp_path: Path) -> None:
    docs = documents(read("notion", make_export(tmp_path / "notion.zip")))

    assert "- Name: Migrate billing; Status: In progress; Owner: Bo Chen" in docs[f"{WIKI}/{TASKS}.csv"].text


def test_an_unpacked_export_folder_reads_the_same(tmp_path: Path) -> None:
    zipfile.ZipFile(make_export(tmp_path / "notion.zip")).extractall(tmp_path / "unpacked")

    docs = documents(read("notion", tmp_path / "unpacked"))

    assert {d.title for d in docs.values()} == {"Team Wiki", "Onboarding", "Tasks", "Meeting notes"}


def test_bad_members_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    members = dict(MEMBERS)
    members["../evil.md"] = "# Evil\n\nThis page tries to escape the export.\n"
    members[f"{WIKI}/junk.md"] = bytes(range(256)) * 8
    members[f"{WIKI}/empty.md"] = ""

    items = read("notion", make_export(tmp_path / "notion.zip", members))

    assert set(errors(items)) == {"../evil.md", f"{WIKI}/junk.md", f"{WIKI}/empty.md"}
    assert len(documents(items)) == 4


def test_auto_reads_a_zip_that_is_not_slack_as_an_export(tmp_path: Path) -> None:
    assert len(documents(read("auto", make_export(tmp_path / "notion.zip")))) == 4


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    run = sync(make_export(tmp_path / "notion.zip"), kind="notion")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert Document.objects.get(path=f"{WIKI}/{ONBOARDING}.md").title == "Onboarding"
    pairing = Fact.objects.get(statement__contains="Pair with the on-call engineer on Wednesday")
    assert pairing.heading_path == "Onboarding > First week"
    wiki = Fact.objects.get(statement__contains="collects how Platform Engineering works")
    assert wiki.effective_date == dt.date(2025, 3, 3)
