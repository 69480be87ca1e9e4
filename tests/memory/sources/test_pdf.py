"""The `pdf` kind: text read with pypdf; larger lines become headings."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Callable

from fpdf import FPDF

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read


def make_pdf(path: Path, *, title: str | None = "Atlas Launch Plan", created: dt.datetime | None = None) -> Path:
    pdf = FPDF()
    if title:
        pdf.set_title(title)
    pdf.set_creation_date(created or dt.datetime(2025, 3, 3, tzinfo=dt.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 20)
    pdf.cell(0, 10, "Atlas Launch Plan", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(
        0,
        6,
        "The Atlas launch is planned for 14 April 2025 and Platform Engineering owns the rollout "
        "across all regions, including the final QA sign-off by the release team.",
    )
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "Risks", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 6, "The vendor sign-off for Atlas is delayed by two weeks.")
    pdf.add_page()
    pdf.multi_cell(0, 6, "The Atlas budget for the launch quarter is 40,000 dollars.")
    pdf.output(str(path))
    return path


def test_it_reads_title_date_headings_and_every_page(tmp_path: Path) -> None:
    make_pdf(tmp_path / "atlas.pdf")

    doc = documents(read("pdf", tmp_path))["atlas.pdf"]

    assert doc.title == "Atlas Launch Plan"
    assert doc.doc_date == dt.date(2025, 3, 3)
    assert doc.fmt == "markdown"
    assert doc.metadata["pages"] == "2"
    assert doc.text.startswith("# Atlas Launch Plan\n")
    assert "## Risks" in doc.text
    # A paragraph wrapped over two lines is one paragraph again.
    assert "owns the rollout across all regions, including the final QA sign-off" in doc.text
    assert "40,000 dollars" in doc.text


def test_without_a_title_property_the_first_heading_is_the_title(tmp_path: Path) -> None:
    make_pdf(tmp_path / "plan.pdf", title=None)

    assert documents(read("pdf", tmp_path))["plan.pdf"].title == "Atlas Launch Plan"


def test_corrupt_truncated_and_textless_pdfs_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "atlas.pdf")
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    (tmp_path / "truncated.pdf").write_bytes(good.read_bytes()[:600])
    (tmp_path / "not-a-pdf.pdf").write_text("Just some text with a .pdf name.")
    blank = FPDF()
    blank.add_page()
    blank.output(str(tmp_path / "scan.pdf"))
    (tmp_path / "empty.pdf").write_bytes(b"")

    items = read("pdf", tmp_path)

    assert set(documents(items)) == {"atlas.pdf"}
    found = errors(items)
    assert set(found) == {"corrupt.pdf", "truncated.pdf", "not-a-pdf.pdf", "scan.pdf", "empty.pdf"}
    assert "corrupt" in found["corrupt.pdf"]
    assert "no text layer" in found["scan.pdf"]


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    make_pdf(tmp_path / "atlas.pdf")

    run = sync(tmp_path / "atlas.pdf", kind="pdf")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    risk = Fact.objects.get(statement__contains="vendor sign-off for Atlas is delayed")
    assert risk.heading_path == "Atlas Launch Plan > Risks"
    assert risk.effective_date == dt.date(2025, 3, 3)
    assert risk.document.path == "atlas.pdf"
