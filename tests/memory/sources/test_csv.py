"""The `csv` kind: one "Column: value; Column: value" bullet per row, under the header row."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Callable

from memory.engine import retrieve
from memory.models import Fact, PipelineRun
from memory.pipelines.extract import clean_inline
from tests.memory.sources.conftest import documents, errors, read

ROSTER = """Name,Team,Role,Start date
Ana Ruiz,Platform Engineering,Team lead,2023-04-01
Bo Chen,Data,"Analyst, senior",2024-09-15
,,,
Cleo Park,Support,,2025-01-06
"""


def test_each_row_is_a_bullet_naming_its_columns(tmp_path: Path) -> None:
    (tmp_path / "2025-02-01-team-roster.csv").write_text(ROSTER)

    doc = documents(read("csv", tmp_path))["2025-02-01-team-roster.csv"]

    assert doc.title == "Team roster"
    assert doc.doc_date == dt.date(2025, 2, 1)
    assert doc.fmt == "markdown"
    assert doc.text.splitlines() == [
        "# Team roster",
        "",
        "- Name: Ana Ruiz; Team: Platform Engineering; Role: Team lead; Start date: 2023-04-01",
        "- Name: Bo Chen; Team: Data; Role: Analyst, senior; Start date: 2024-09-15",
        "- Name: Cleo Park; Team: Support; Start date: 2025-01-06",
    ]
    assert doc.metadata == {"columns": "Name, Team, Role, Start date", "rows": "3"}


def test_semicolons_tabs_and_latin_1_are_read(tmp_path: Path) -> None:
    (tmp_path / "prices.csv").write_bytes("Produkt;Preis\nKäse;4,50 €\n".encode("cp1252"))
    (tmp_path / "vendors.tsv").write_text("Vendor\tOwner\nGlobex\tLena Park\n")

    docs = documents(read("csv", tmp_path))

    assert "- Produkt: Käse; Preis: 4,50 €" in docs["prices.csv"].text
    assert "- Vendor: Globex; Owner: Lena Park" in docs["vendors.tsv"].text


def test_binary_junk_and_empty_files_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text(ROSTER)
    (tmp_path / "junk.csv").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "empty.csv").write_bytes(b"")

    items = read("csv", tmp_path)

    assert set(documents(items)) == {"roster.csv"}
    assert set(errors(items)) == {"junk.csv", "empty.csv"}


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    (tmp_path / "team-roster.csv").write_text(ROSTER)

    run = sync(tmp_path, kind="csv")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    row = Fact.objects.get(statement__contains="Name: Ana Ruiz; Team: Platform Engineering")
    assert row.heading_path == "Team roster"
    assert row.document.path == "team-roster.csv"


ACCOUNTS = """account,mrr_usd,renewal_date,account_owner
Globex,4200,2026-09-30,Lena Park
Initech,1800,2027-01-15,Omar Haddad
"""


def test_snake_case_headers_keep_their_words_through_import(
    tmp_path: Path, sync: Callable[..., PipelineRun], workspace: Any
) -> None:
    # Issue 17 defect 6: `_…_` was stripped as emphasis, so mrr_usd became "mrrusd".
    (tmp_path / "accounts.csv").write_text(ACCOUNTS)

    run = sync(tmp_path, kind="csv")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    row = Fact.objects.get(statement__contains="Globex")
    assert "mrr_usd: 4200" in row.statement
    assert "renewal_date: 2026-09-30" in row.statement
    assert "account_owner: Lena Park" in row.statement
    for question in ("What is the MRR of Globex?", "When is the renewal date for Globex?", "Who is the account owner of Globex?"):
        assert "Globex" in retrieve(workspace, question).facts[0].statement, question


def test_underscores_are_stripped_only_where_they_are_emphasis() -> None:
    assert clean_inline("_Note_: the __final__ price of snake_case_name is `x_y`") == (
        "Note: the final price of snake_case_name is x_y"
    )
    assert clean_inline("account_owner_ and _leading") == "account_owner_ and _leading"
