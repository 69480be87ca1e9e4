"""`auto` and `folder`: every kind by file type and by layout; the kind names."""

from __future__ import annotations

import json
import zipfile
from io import StringIO
from pathlib import Path
from typing import Callable

import docx
import pytest
from django.core.management import call_command
from fpdf import FPDF

from memory.models import Document, PipelineRun, Source, Workspace
from memory.sources.registry import kind_for, kind_names
from tests.memory.sources.conftest import documents, errors, read, skipped
from tests.memory.sources.test_mbox import MBOX
from tests.memory.sources.test_slack import write_export, zip_folder

ALL_KINDS = [
    "auto", "folder", "git", "markdown", "text", "html", "pdf", "docx", "csv", "json",
    "email", "mbox", "slack", "notion", "confluence",
]  # fmt: skip


def test_every_kind_name_is_known() -> None:
    assert kind_names() == ALL_KINDS
    for name in ALL_KINDS:
        kind = kind_for(name)
        assert kind.name == name
        assert callable(kind.iter_documents) and callable(kind.handles)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(KeyError):
        kind_for("sharepoint")


def make_mixed_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "handbook.md").write_text("# Handbook\n\nEveryone works from home on Fridays.\n")
    (root / "notes.txt").write_text("Weekly notes\n\nThe coffee machine was repaired on Monday.\n")
    (root / "runbook.html").write_text("<h1>Runbook</h1><p>Restart the queue worker before paging anyone.</p>")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "The vendor contract renews every January.")
    pdf.output(str(root / "contract.pdf"))
    document = docx.Document()
    document.add_heading("Hiring Plan", 0)
    document.add_paragraph("The data team hires two analysts in Q3.")
    document.save(str(root / "hiring.docx"))
    (root / "roster.csv").write_text("Name,Team\nAna Ruiz,Platform\n")
    (root / "account.json").write_text(json.dumps({"title": "Globex account", "owner": "Lena Park"}))
    (root / "mail").mkdir()
    (root / "mail" / "note.eml").write_text(
        "From: Ana Ruiz <ana@acme.example>\nSubject: Offsite\nDate: Mon, 03 Mar 2025 10:00:00 +0000\n\n"
        "The offsite is booked for the second week of May.\n"
    )
    (root / "mail" / "team.mbox").write_text(MBOX)
    with zipfile.ZipFile(root / "wiki.zip", "w") as archive:
        archive.writestr("Wiki 0123456789abcdef0123456789abcdef.md", "# Wiki\n\nThe wiki lives in Notion.\n")
    write_export(root / "chat")
    (root / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / ".hidden.md").write_text("# Hidden\n\nNever read.\n")
    return root


def test_auto_reads_every_type_and_layout_in_one_folder(tmp_path: Path) -> None:
    items = read("auto", make_mixed_folder(tmp_path / "corpus"))

    assert set(documents(items)) == {
        "handbook.md",
        "notes.txt",
        "runbook.html",
        "contract.pdf",
        "hiring.docx",
        "roster.csv",
        "account.json",
        "mail/note.eml",
        "mail/team.mbox/1",
        "mail/team.mbox/2",
        "mail/team.mbox/3",
        "wiki.zip/Wiki 0123456789abcdef0123456789abcdef.md",
        "chat/users.json",
        "chat/general/2025-03-03.json",
        "chat/general/2025-03-04.json",
        "chat/engineering/2025-03-05.json",
    }
    assert skipped(items) == {"diagram.png": "unsupported file type .png"}
    assert errors(items) == {}


def test_a_single_kind_reads_only_its_own_files(tmp_path: Path) -> None:
    items = read("html", make_mixed_folder(tmp_path / "corpus"))

    assert set(documents(items)) == {"runbook.html"}
    assert "handbook.md" in skipped(items)


def test_a_slack_zip_in_auto_is_read_as_slack(tmp_path: Path) -> None:
    archive = zip_folder(write_export(tmp_path / "export"), tmp_path / "slack.zip")

    docs = documents(read("auto", archive))

    assert docs["general/2025-03-03.json"].fmt == "messages"


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    run = sync(make_mixed_folder(tmp_path / "corpus"), kind="folder")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert run.errors == []
    assert Document.objects.count() == 16  # 15 files and the Slack export's member directory


def test_import_source_accepts_every_new_kind(workspace: Workspace, tmp_path: Path) -> None:
    archive = zip_folder(write_export(tmp_path / "export"), tmp_path / "slack.zip")
    out = StringIO()

    call_command("import_source", str(archive), workspace="acme", kind="slack", stdout=out, stderr=StringIO())

    assert "4 documents" in out.getvalue()  # three channel-days and the member directory
    assert Source.objects.get(workspace=workspace).kind == "slack"
