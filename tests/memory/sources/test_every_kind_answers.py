"""Every source kind, imported side by side with `auto`, answers a question about its content."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from docx import Document as DocxDocument
from fpdf import FPDF

from memory.engine import retrieve
from memory.models import Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create


def _samples(root: Path) -> None:
    (root / "handbook.md").write_text("# Handbook\n\nThe Falcon desk answers Markdown questions on Mondays.\n")
    (root / "notes.txt").write_text("Notes\n\nThe Heron archive keeps plain text records for seven years.\n")
    (root / "page.html").write_text(
        "<html><body><h1>Wiki</h1><p>The Osprey portal is renewed every March by the web team.</p></body></html>"
    )
    (root / "accounts.csv").write_text("account,owner,tier\nPelican Foods,Maya Chen,Gold\n")
    (root / "record.json").write_text(json.dumps({"title": "Kestrel record", "summary": "The Kestrel grant funds two interns."}))
    (root / "hello.eml").write_text(
        "From: Omar Haddad <omar@example.com>\nTo: team@example.com\nSubject: Swift budget\n"
        "Date: Tue, 05 May 2026 09:00:00 +0000\n\nThe Swift budget was approved at $12,000 this morning.\n"
    )
    (root / "team.mbox").write_text(
        "From lena@example.com Wed May 06 10:00:00 2026\nFrom: Lena Park <lena@example.com>\n"
        "Subject: Wren launch\nDate: Wed, 06 May 2026 10:00:00 +0000\n\n"
        "The Wren launch moved to the second week of June.\n\n"
    )
    slack = root / "slack-export"
    (slack / "general").mkdir(parents=True)
    (slack / "users.json").write_text(json.dumps([{"id": "U1", "name": "ines", "real_name": "Ines Costa"}]))
    (slack / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]))
    (slack / "general" / "2026-05-07.json").write_text(
        json.dumps([{"type": "message", "user": "U1", "text": "The Magpie rollout is paused until the audit ends.", "ts": "1778140800.000100"}])
    )
    with zipfile.ZipFile(root / "notion-export.zip", "w") as archive:
        archive.writestr(
            "Team wiki 0123456789abcdef0123456789abcdef/Robin guide 0123456789abcdef0123456789abcdee.md",
            "# Robin guide\n\nThe Robin guide says onboarding takes ten working days.\n",
        )
    docx = DocxDocument()
    docx.add_heading("Policy", level=1)
    docx.add_paragraph("The Starling policy caps travel spend at $3,000 per trip.")
    docx.save(str(root / "policy.docx"))
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "The Albatross report is filed every quarter by Finance.")
    pdf.output(str(root / "report.pdf"))


QUESTIONS = [
    ("markdown", "When does the Falcon desk answer questions?", "Falcon desk"),
    ("text", "How long does the Heron archive keep records?", "Heron archive"),
    ("html", "When is the Osprey portal renewed?", "Osprey portal"),
    ("csv", "Who owns the Pelican Foods account?", "Maya Chen"),
    ("json", "What does the Kestrel grant fund?", "two interns"),
    ("email", "What was the Swift budget approved at?", "Omar Haddad: The Swift budget"),
    ("mbox", "When is the Wren launch?", "Lena Park: The Wren launch"),
    ("slack", "Why is the Magpie rollout paused?", "Ines Costa: The Magpie rollout"),
    ("notion", "How long does onboarding take according to the Robin guide?", "ten working days"),
    ("docx", "What is the Starling policy travel cap?", "$3,000"),
    ("pdf", "How often is the Albatross report filed?", "Albatross report"),
]


@pytest.fixture
def mixed_workspace(workspace: Workspace, tmp_path: Path) -> Workspace:
    root = tmp_path / "mixed"
    root.mkdir()
    _samples(root)
    source = Source.objects.create(workspace=workspace, name="mixed", kind="auto", location=str(root))
    run = source_sync(run_id=run_create(source=source).pk)
    assert run is not None and run.status == "completed", run and run.errors
    assert not run.errors, run.errors
    return workspace


@pytest.mark.parametrize(("kind", "question", "expected"), QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_each_kind_answers_a_question_about_its_content(
    mixed_workspace: Workspace, kind: str, question: str, expected: str
) -> None:
    result = retrieve(mixed_workspace, question)
    statements = [f.statement for f in result.facts[:5]]
    assert any(expected in s for s in statements), (kind, statements)
