"""The `docx` kind: Word documents in body order, headings, lists and tables kept."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path
from typing import Any, Callable

import docx

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read


def make_docx(path: Path, *, title: str = "Platform Team Charter", created: dt.datetime | None = None) -> Path:
    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = "Dana Ortiz"
    document.core_properties.created = created or dt.datetime(2025, 6, 1, 9, 0)
    document.core_properties.modified = created or dt.datetime(2025, 6, 2, 9, 0)
    document.add_heading("Platform Team Charter", 0)
    document.add_paragraph("Platform Engineering owns the deployment pipeline and the staging clusters.")
    document.add_heading("Responsibilities", 1)
    document.add_paragraph("Keep the staging cluster available during business hours.", style="List Bullet")
    document.add_paragraph("Review every production change before Friday noon.", style="List Bullet")
    document.add_heading("Members", 1)
    table = document.add_table(rows=3, cols=2)
    for row, (name, role) in enumerate([("Name", "Role"), ("Dana Ortiz", "Team lead"), ("Bo Chen", "SRE")]):
        table.cell(row, 0).text = name
        table.cell(row, 1).text = role
    document.add_paragraph("The charter is reviewed every quarter by the CTO.")
    document.save(str(path))
    return path


def test_it_reads_title_headings_lists_and_table_rows_in_order(tmp_path: Path) -> None:
    make_docx(tmp_path / "charter.docx")

    doc = documents(read("docx", tmp_path))["charter.docx"]

    assert doc.title == "Platform Team Charter"
    assert doc.doc_date == dt.date(2025, 6, 2)
    assert doc.metadata == {"author": "Dana Ortiz"}
    assert doc.text.startswith("# Platform Team Charter\n")
    order = [
        "Platform Engineering owns the deployment pipeline",
        "## Responsibilities",
        "- Keep the staging cluster available",
        "## Members",
        "- Name: Dana Ortiz; Role: Team lead",
        "- Name: Bo Chen; Role: SRE",
        "reviewed every quarter by the CTO",
    ]
    positions = [doc.text.index(part) for part in order]
    assert positions == sorted(positions)


def test_a_date_line_in_the_text_wins_over_the_properties(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Date: 2024-11-20")
    document.add_paragraph("The board approved the hiring plan for the data team.")
    document.save(str(tmp_path / "board-minutes.docx"))

    doc = documents(read("docx", tmp_path))["board-minutes.docx"]

    assert doc.doc_date == dt.date(2024, 11, 20)
    assert doc.title == "Board minutes"


def test_corrupt_documents_and_zip_bombs_are_errors_and_the_rest_comes_through(tmp_path: Path, settings: Any) -> None:
    good = make_docx(tmp_path / "charter.docx")
    (tmp_path / "corrupt.docx").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    (tmp_path / "truncated.docx").write_bytes(good.read_bytes()[:3000])
    not_word = io.BytesIO()
    with zipfile.ZipFile(not_word, "w") as archive:
        archive.writestr("hello.txt", "a zip, but not a Word document")
    (tmp_path / "not-word.docx").write_bytes(not_word.getvalue())
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"\x00" * 3_000_000)
    (tmp_path / "bomb.docx").write_bytes(bomb.getvalue())
    settings.PAM_MAX_UPLOAD_BYTES = 1_000_000

    items = read("docx", tmp_path, max_bytes=settings.PAM_MAX_UPLOAD_BYTES)

    assert set(documents(items)) == {"charter.docx"}
    found = errors(items)
    assert set(found) == {"corrupt.docx", "truncated.docx", "not-word.docx", "bomb.docx"}
    assert "expands beyond the 1000000-byte limit" in found["bomb.docx"]


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    make_docx(tmp_path / "charter.docx")

    run = sync(tmp_path, kind="docx")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    duty = Fact.objects.get(statement__contains="Review every production change")
    assert duty.heading_path == "Platform Team Charter > Responsibilities"
    assert duty.effective_date == dt.date(2025, 6, 2)
    assert Fact.objects.filter(statement__contains="Name: Dana Ortiz; Role: Team lead").exists()
