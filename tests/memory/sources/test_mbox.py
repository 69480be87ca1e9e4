"""The `mbox` kind: one message document per message of a mailbox, replies not duplicated."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Callable

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read

MBOX = """From alice@acme.example Mon Mar  3 10:00:00 2025
From: Alice Smith <alice@acme.example>
To: Bob Jones <bob@acme.example>
Subject: Atlas launch date
Date: Mon, 03 Mar 2025 10:00:00 +0000
Message-ID: <1@acme.example>

Can we ship the Atlas release on Friday? QA needs two more days.

From bob@acme.example Tue Mar  4 08:30:00 2025
From: Bob Jones <bob@acme.example>
To: Alice Smith <alice@acme.example>
Subject: Re: Atlas launch date
Date: Tue, 04 Mar 2025 08:30:00 +0000
Message-ID: <2@acme.example>
In-Reply-To: <1@acme.example>

Friday works if the vendor signs the contract by Wednesday.

On Mon, Mar 3, 2025 at 10:00 AM Alice Smith <alice@acme.example> wrote:
> Can we ship the Atlas release on Friday? QA needs two more days.

From alice@acme.example Wed Mar  5 17:45:00 2025
From: Alice Smith <alice@acme.example>
To: Bob Jones <bob@acme.example>
Subject: Budget review
Date: Wed, 05 Mar 2025 17:45:00 +0000
Message-ID: <3@acme.example>

The budget review moves to next Tuesday.
"""


def write_mbox(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MBOX)
    return path


def test_each_message_is_a_document_with_its_author_date_and_subject(tmp_path: Path) -> None:
    mbox = write_mbox(tmp_path / "team.mbox")

    docs = documents(read("mbox", mbox))

    assert list(docs) == ["team.mbox/1", "team.mbox/2", "team.mbox/3"]
    assert [d.title for d in docs.values()] == ["Atlas launch date", "Re: Atlas launch date", "Budget review"]
    assert [d.doc_date for d in docs.values()] == [dt.date(2025, 3, 3), dt.date(2025, 3, 4), dt.date(2025, 3, 5)]
    authors = [m.author for d in docs.values() for m in d.messages or []]
    assert authors == ["Alice Smith", "Bob Jones", "Alice Smith"]
    assert docs["team.mbox/2"].text == "Bob Jones: Friday works if the vendor signs the contract by Wednesday."


def test_the_quoted_first_message_is_not_duplicated(tmp_path: Path) -> None:
    mbox = write_mbox(tmp_path / "team.mbox")

    docs = documents(read("mbox", mbox))

    quoted = [path for path, doc in docs.items() if "QA needs two more days" in doc.text]
    assert quoted == ["team.mbox/1"]


def test_a_folder_of_mailboxes_and_bad_mailboxes(tmp_path: Path) -> None:
    write_mbox(tmp_path / "mail" / "team.mbox")
    (tmp_path / "mail" / "junk.mbox").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "mail" / "not-mail.mbox").write_text("no separator lines here\n")
    (tmp_path / "mail" / "empty.mbox").write_bytes(b"")

    items = read("mbox", tmp_path)

    assert set(documents(items)) == {"mail/team.mbox/1", "mail/team.mbox/2", "mail/team.mbox/3"}
    assert set(errors(items)) == {"mail/junk.mbox", "mail/not-mail.mbox", "mail/empty.mbox"}


def test_auto_reads_an_mbox_file_as_a_mailbox(tmp_path: Path) -> None:
    mbox = write_mbox(tmp_path / "team.mbox")

    assert len(documents(read("auto", mbox))) == 3
    assert len(documents(read("auto", tmp_path))) == 3


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    mbox = write_mbox(tmp_path / "team.mbox")

    run = sync(mbox, kind="mbox")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    reply = Fact.objects.get(document__path="team.mbox/2")
    assert reply.statement == "Bob Jones: Friday works if the vendor signs the contract by Wednesday."
    assert reply.effective_date == dt.date(2025, 3, 4)
    first = Fact.objects.get(document__path="team.mbox/1")
    assert first.statement.startswith("Alice Smith: Can we ship the Atlas release on Friday?")
    assert first.effective_date == dt.date(2025, 3, 3)
    assert Fact.objects.filter(statement__contains="QA needs two more days").count() == 1
