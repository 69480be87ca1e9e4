"""The `html` kind: pages become Markdown that keeps headings, lists and tables."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Callable

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read

PAGE = """<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>Incident Response Runbook</title>
  <meta name="date" content="2025-05-12">
  <style>body { color: red; }</style>
  <script>trackVisitor();</script>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/wiki">Wiki</a></nav>
  <h1>Incident Response Runbook</h1>
  <p>The on-call engineer acknowledges every page within <b>15 minutes</b>.</p>
  <h2>Escalation</h2>
  <ul>
    <li>Severity 1 incidents are escalated to the Head of Platform immediately.</li>
    <li>Customer communication is owned by the Support Lead.</li>
  </ul>
  <h2>Contacts</h2>
  <table>
    <tr><th>Role</th><th>Person</th></tr>
    <tr><td>Incident commander</td><td>Dana Ortiz</td></tr>
  </table>
  <footer>Copyright Acme Corp 2025. All rights reserved.</footer>
</body>
</html>
"""


def test_it_keeps_headings_lists_and_tables(tmp_path: Path) -> None:
    (tmp_path / "runbook.html").write_text(PAGE)

    doc = documents(read("html", tmp_path))["runbook.html"]

    assert doc.title == "Incident Response Runbook"
    assert doc.doc_date == dt.date(2025, 5, 12)
    assert doc.fmt == "markdown"
    assert "# Incident Response Runbook" in doc.text
    assert "## Escalation" in doc.text
    assert "- Severity 1 incidents are escalated to the Head of Platform immediately." in doc.text
    assert "| Incident commander | Dana Ortiz |" in doc.text
    assert "15 minutes" in doc.text


def test_it_drops_scripts_styles_navigation_and_footers(tmp_path: Path) -> None:
    (tmp_path / "runbook.html").write_text(PAGE)

    text = documents(read("html", tmp_path))["runbook.html"].text

    for noise in ("trackVisitor", "color: red", "Home", "Copyright"):
        assert noise not in text


def test_the_title_falls_back_to_the_first_heading_then_the_file_name(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<h1>Travel Policy</h1><p>Book trains for trips under four hours.</p>")
    (tmp_path / "2025-01-07-team-lunch.htm").write_text("<p>The team lunch moves to Thursdays.</p>")

    docs = documents(read("html", tmp_path))

    assert docs["a.html"].title == "Travel Policy"
    assert docs["2025-01-07-team-lunch.htm"].title == "Team lunch"
    assert docs["2025-01-07-team-lunch.htm"].doc_date == dt.date(2025, 1, 7)


def test_a_page_in_its_declared_charset_or_latin_1_is_read(tmp_path: Path) -> None:
    page = '<meta charset="iso-8859-1"><h1>Café Zürich</h1><p>Réunion à 10h.</p>'
    (tmp_path / "declared.html").write_bytes(page.encode("latin-1"))
    (tmp_path / "undeclared.html").write_bytes("<h1>Crème brûlée day</h1>".encode("latin-1"))
    (tmp_path / "utf16.html").write_bytes("<h1>Zoë's notes</h1>".encode("utf-16"))

    docs = documents(read("html", tmp_path))

    assert docs["declared.html"].title == "Café Zürich"
    assert docs["undeclared.html"].title == "Crème brûlée day"
    assert docs["utf16.html"].title == "Zoë's notes"


def test_binary_junk_and_empty_files_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    (tmp_path / "good.html").write_text(PAGE)
    (tmp_path / "junk.html").write_bytes(bytes(range(256)) * 16)
    (tmp_path / "empty.html").write_bytes(b"")

    items = read("html", tmp_path)

    assert set(documents(items)) == {"good.html"}
    assert set(errors(items)) == {"junk.html", "empty.html"}
    assert "binary" in errors(items)["junk.html"]


def test_a_file_over_the_limit_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "big.html").write_text("<p>" + "word " * 400 + "</p>")
    (tmp_path / "small.html").write_text("<h1>Small page</h1>")

    items = read("html", tmp_path, max_bytes=1000)

    assert set(documents(items)) == {"small.html"}
    assert "limit" in errors(items)["big.html"]


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    (tmp_path / "runbook.html").write_text(PAGE)

    run = sync(tmp_path, kind="html")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    escalation = Fact.objects.get(statement__contains="escalated to the Head of Platform")
    assert escalation.heading_path == "Incident Response Runbook > Escalation"
    assert escalation.effective_date == dt.date(2025, 5, 12)
    assert Fact.objects.filter(statement__contains="Incident commander; Person: Dana Ortiz").exists()
