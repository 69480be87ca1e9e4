"""The `email` kind: one `.eml` message is one message document, quoted text left out."""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read

REPLY = """From: "Bob Jones" <bob@acme.example>
To: Alice Smith <alice@acme.example>
Cc: carol@acme.example
Subject: Re: Atlas launch date
Date: Tue, 04 Mar 2025 09:30:00 +0100
Message-ID: <2@acme.example>
In-Reply-To: <1@acme.example>
Content-Type: text/plain; charset=utf-8

Agreed, we ship Atlas on Friday once QA signs off.

Best,
Bob

On Mon, 3 Mar 2025 at 10:00, Alice Smith <alice@acme.example> wrote:
> Can we ship the Atlas release on Friday?
> QA needs two more days.
"""


def test_it_reads_sender_date_subject_and_the_new_text_only(tmp_path: Path) -> None:
    (tmp_path / "reply.eml").write_text(REPLY)

    doc = documents(read("email", tmp_path))["reply.eml"]

    assert doc.title == "Re: Atlas launch date"
    assert doc.fmt == "messages"
    assert doc.doc_date == dt.date(2025, 3, 4)
    assert doc.messages is not None and len(doc.messages) == 1
    message = doc.messages[0]
    assert message.author == "Bob Jones"
    assert message.sent_at == dt.datetime(2025, 3, 4, 8, 30, tzinfo=dt.timezone.utc)
    assert message.text == "Agreed, we ship Atlas on Friday once QA signs off."
    assert doc.text == "Bob Jones: Agreed, we ship Atlas on Friday once QA signs off."
    assert "Can we ship" not in doc.text and "wrote:" not in doc.text
    assert doc.metadata["people"] == "Bob Jones, Alice Smith, carol@acme.example"
    assert doc.metadata["in-reply-to"] == "<1@acme.example>"


def test_interleaved_quotes_are_dropped(tmp_path: Path) -> None:
    body = "> Is the budget approved?\nYes, the CFO approved the budget on Monday.\n> And the hiring plan?\nThe hiring plan waits for Q3.\n"
    (tmp_path / "inline.eml").write_text(
        f"From: carol@acme.example\nSubject: Budget\nDate: Wed, 05 Mar 2025 12:00:00 +0000\n\n{body}"
    )

    doc = documents(read("email", tmp_path))["inline.eml"]

    assert doc.messages is not None
    assert doc.messages[0].author == "carol@acme.example"
    assert doc.messages[0].text == "Yes, the CFO approved the budget on Monday.\nThe hiring plan waits for Q3."


def test_an_html_only_message_and_an_unknown_charset_are_read(tmp_path: Path) -> None:
    html = EmailMessage()
    html["From"] = "Dana Ortiz <dana@acme.example>"
    html["Subject"] = "Release notes"
    html["Date"] = "Thu, 06 Mar 2025 16:00:00 +0000"
    html.set_content("<h1>Release 2.4</h1><p>Release 2.4 ships the new <b>billing</b> page.</p>", subtype="html")
    (tmp_path / "html.eml").write_bytes(html.as_bytes())
    (tmp_path / "odd.eml").write_bytes(
        b"From: Eve <eve@acme.example>\nSubject: Caf\xe9\nDate: Fri, 07 Mar 2025 08:00:00 +0000\n"
        b"Content-Type: text/plain; charset=x-unknown-charset\n\nThe caf\xe9 reopens on Monday.\n"
    )

    docs = documents(read("email", tmp_path))

    assert docs["html.eml"].messages is not None
    assert "Release 2.4 ships the new billing page." in docs["html.eml"].messages[0].text
    assert docs["odd.eml"].messages is not None
    assert docs["odd.eml"].messages[0].text == "The café reopens on Monday."


def test_junk_empty_and_headerless_files_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    (tmp_path / "reply.eml").write_text(REPLY)
    (tmp_path / "junk.eml").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "empty.eml").write_bytes(b"")
    (tmp_path / "plain.eml").write_text("just a note, not a message\n")

    items = read("email", tmp_path)

    assert set(documents(items)) == {"reply.eml"}
    assert set(errors(items)) == {"junk.eml", "empty.eml", "plain.eml"}


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    (tmp_path / "reply.eml").write_text(REPLY)

    run = sync(tmp_path, kind="email")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    fact = Fact.objects.get(document__path="reply.eml")
    assert fact.statement == "Bob Jones: Agreed, we ship Atlas on Friday once QA signs off."
    assert fact.effective_date == dt.date(2025, 3, 4)
    assert not Fact.objects.filter(statement__contains="QA needs two more days").exists()


RAW_UTF8_HEADERS = """From: Gráinne Ó Súilleabháin <grainne@wrenfield.example>
To: Séamus Ní Bhriain <seamus@wrenfield.example>
Subject: Fáilte: the new rota for Clonmel
Date: Mon, 20 Jan 2025 09:12:00 +0000
Message-ID: <3@wrenfield.example>
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: 8bit

The Clonmel rota starts on Monday, and Siobhán signs it off.
"""


def test_raw_utf8_in_headers_is_read_as_text_and_stored(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    # UTF-8 bytes in headers without RFC 2047 encoding (scripts, older clients) reached the
    # database as surrogate escapes, and the whole message failed to store.
    (tmp_path / "rota.eml").write_bytes(RAW_UTF8_HEADERS.encode("utf-8"))

    doc = documents(read("email", tmp_path))["rota.eml"]
    assert doc.title == "Fáilte: the new rota for Clonmel"
    assert doc.messages and doc.messages[0].author == "Gráinne Ó Súilleabháin"
    assert doc.metadata["people"] == "Gráinne Ó Súilleabháin, Séamus Ní Bhriain"

    run = sync(tmp_path, kind="email")
    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert run.errors == []
    fact = Fact.objects.get(document__path="rota.eml")
    assert fact.statement == "Gráinne Ó Súilleabháin: The Clonmel rota starts on Monday, and Siobhán signs it off."


NUMBERED_ANSWERS = """From: Tomasz Kowalczyk <tomasz@corvane.example>
Subject: Re: DPA questions
Date: Tue, 03 Mar 2026 10:00:00 +0000

Dear Ciaran,

1. Production data is hosted on AWS in London. Backups are replicated to AWS Ireland. No data leaves the UK/EEA.
2. We notify you within 48 hours of becoming aware of a personal data breach.
3. We delete customer data within 60 days of contract end, after offering you a full export in CSV and JSON,
and we confirm the deletion in writing to your named contact once it is complete.

Kind regards,
Tomasz Kowalczyk
"""


def test_a_numbered_answer_keeps_its_number_and_no_fact_is_a_number_alone(
    tmp_path: Path, sync: Callable[..., PipelineRun]
) -> None:
    # A long message is split into sentences; "… the UK/EEA. 2. We notify …" once gave
    # "Tomasz Kowalczyk: 2." as a fact of its own, which matched every question naming him.
    (tmp_path / "dpa.eml").write_text(NUMBERED_ANSWERS)

    run = sync(tmp_path, kind="email")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    statements = list(Fact.objects.filter(document__path="dpa.eml").values_list("statement", flat=True))
    assert "Tomasz Kowalczyk: 2. We notify you within 48 hours of becoming aware of a personal data breach." in statements
    assert "Tomasz Kowalczyk: Dear Ciaran, 1. Production data is hosted on AWS in London." in statements
    assert not [s for s in statements if len(s.split(": ", 1)[1]) <= 3]
