"""The `slack` kind: a workspace export (folder or zip), one document per channel-day."""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path
from typing import Any, Callable

from memory.models import Document, Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read, skipped

UTC = dt.timezone.utc


def ts(day: int, hour: int, minute: int = 0) -> str:
    return f"{dt.datetime(2025, 3, day, hour, minute, tzinfo=UTC).timestamp():.6f}"


USERS = [
    {
        "id": "U01ANA",
        "name": "ana",
        "real_name": "Ana Ruiz",
        "tz_label": "Central European Time",
        "profile": {"real_name": "Ana Ruiz", "display_name": "ana", "title": "Head of Product, Platform", "email": "ana@acme.test"},
    },
    {"id": "U02BO", "name": "bo", "profile": {"real_name": "", "display_name": "Bo Chen"}},
    {"id": "U03BOT", "name": "deploy", "is_bot": True, "profile": {"real_name": "Deploy Bot"}},
    {"id": "U04OLD", "name": "gone", "deleted": True, "profile": {"real_name": "Old Timer", "title": "Intern"}},
]
CHANNELS = [
    {"id": "C01GEN", "name": "general", "purpose": {"value": "Company-wide announcements"}},
    {"id": "C02ENG", "name": "engineering"},
]
GENERAL_DAY_1 = [
    {"type": "message", "subtype": "channel_join", "user": "U02BO", "text": "<@U02BO> has joined the channel", "ts": ts(3, 8)},
    {
        "type": "message",
        "user": "U01ANA",
        "text": "Can we ship the Atlas release on Friday? <@U02BO> please check QA",
        "ts": ts(3, 9),
        "thread_ts": ts(3, 9),
        "reply_count": 2,
    },
    {"type": "message", "user": "U02BO", "text": "QA finishes on Thursday, so Friday works.", "ts": ts(3, 9, 30), "thread_ts": ts(3, 9)},
    {"type": "message", "user": "U01ANA", "text": "Lunch order closes at 11 &amp; is in <#C02ENG|engineering>.", "ts": ts(3, 10)},
]
GENERAL_DAY_2 = [
    {"type": "message", "user": "U01ANA", "text": "Great, the Atlas release is confirmed for Friday.", "ts": ts(4, 8), "thread_ts": ts(3, 9)},
    {"type": "message", "subtype": "bot_message", "username": "Deploy Bot", "text": "Deployed billing v2.4 to production <https://ci.example/run/7|run 7>", "ts": ts(4, 12)},
]
ENGINEERING_DAY = [
    {"type": "message", "user": "U9GONE", "user_profile": {"real_name": "Former Employee"}, "text": "The on-call rota moves to PagerDuty next week.", "ts": ts(5, 14)},
]


def write_export(root: Path, *, users: Any = USERS) -> Path:
    files: dict[str, Any] = {
        "channels.json": CHANNELS,
        "general/2025-03-03.json": GENERAL_DAY_1,
        "general/2025-03-04.json": GENERAL_DAY_2,
        "engineering/2025-03-05.json": ENGINEERING_DAY,
        "integration_logs.json": [],
    }
    if users is not None:
        files["users.json"] = users
    for name, value in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    return root


def zip_folder(folder: Path, target: Path, *, top: str = "") -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, top + path.relative_to(folder).as_posix())
    return target


def check_export(items: list[Any], prefix: str = "") -> None:
    docs = documents(items)
    assert set(docs) == {
        f"{prefix}users.json",
        f"{prefix}general/2025-03-03.json",
        f"{prefix}general/2025-03-04.json",
        f"{prefix}engineering/2025-03-05.json",
    }
    day1 = docs[f"{prefix}general/2025-03-03.json"]
    assert day1.title == "#general 2025-03-03"
    assert day1.doc_date == dt.date(2025, 3, 3)
    assert day1.fmt == "messages"
    assert day1.messages is not None
    assert [(m.author, m.text) for m in day1.messages] == [
        ("Ana Ruiz", "Can we ship the Atlas release on Friday? @Bo Chen please check QA"),
        ("Bo Chen", "QA finishes on Thursday, so Friday works."),
        ("Ana Ruiz", "Lunch order closes at 11 & is in #engineering."),
    ]
    assert day1.messages[0].sent_at == dt.datetime(2025, 3, 3, 9, tzinfo=UTC)
    assert day1.text.splitlines()[1] == "Bo Chen: QA finishes on Thursday, so Friday works."


def test_it_reads_a_folder_export_resolving_user_ids(tmp_path: Path) -> None:
    check_export(read("slack", write_export(tmp_path / "export")))


def test_it_reads_a_zip_export_too_with_or_without_a_top_folder(tmp_path: Path) -> None:
    folder = write_export(tmp_path / "export")

    check_export(read("slack", zip_folder(folder, tmp_path / "slack.zip")))
    check_export(read("slack", zip_folder(folder, tmp_path / "nested.zip", top="Acme Slack export/")))


def test_thread_replies_carry_the_root_even_on_a_later_day(tmp_path: Path) -> None:
    docs = documents(read("slack", write_export(tmp_path / "export")))

    day1 = docs["general/2025-03-03.json"].messages or []
    day2 = docs["general/2025-03-04.json"].messages or []
    root = "Can we ship the Atlas release on Friday"
    assert [m.thread for m in day1] == [root, root, ""]
    assert day2[0].thread == root
    assert day2[1].author == "Deploy Bot"
    assert day2[1].text == "Deployed billing v2.4 to production run 7"


def test_the_member_directory_is_a_document_of_records_with_titles_people_only(tmp_path: Path) -> None:
    directory = documents(read("slack", write_export(tmp_path / "export")))["users.json"]

    assert directory.title == "Slack members"
    assert directory.text.splitlines()[2:] == [
        "- Name: Ana Ruiz; Title: Head of Product, Platform; Display name: ana; Email: ana@acme.test; "
        "Time zone: Central European Time",
        "- Name: Bo Chen; Display name: Bo Chen",
    ]


def test_an_unknown_user_takes_the_name_from_the_message_profile(tmp_path: Path) -> None:
    docs = documents(read("slack", write_export(tmp_path / "export")))

    assert (docs["engineering/2025-03-05.json"].messages or [])[0].author == "Former Employee"


def test_a_bad_day_file_and_a_missing_users_file_are_errors_and_the_rest_comes_through(tmp_path: Path) -> None:
    folder = write_export(tmp_path / "export", users=None)
    (folder / "general" / "2025-03-06.json").write_text("[{not json")
    (folder / "general" / "2025-03-07.json").write_text("")
    (folder / "general" / "notes.txt").write_text("not part of the export")

    items = read("slack", folder)

    assert set(errors(items)) == {"users.json", "general/2025-03-06.json", "general/2025-03-07.json"}
    assert set(skipped(items)) == {"general/notes.txt"}
    docs = documents(items)
    assert len(docs) == 3  # the day files: no users.json, no member directory
    # Without users.json, ids stay ids: nothing is made up.
    assert (docs["general/2025-03-03.json"].messages or [])[0].author == "U01ANA"


def test_auto_recognises_a_slack_folder_or_zip_by_its_layout(tmp_path: Path) -> None:
    folder = write_export(tmp_path / "corpus" / "slack")
    (tmp_path / "corpus" / "handbook.md").write_text("# Handbook\n\nWe work from home on Fridays.\n")
    archive = zip_folder(folder, tmp_path / "slack.zip")

    check_export(read("auto", folder))
    check_export(read("auto", archive))
    items = read("auto", tmp_path / "corpus")
    assert documents(items)["handbook.md"].title == "Handbook"
    check_export([i for i in items if i.path != "handbook.md"], prefix="slack/")


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    archive = zip_folder(write_export(tmp_path / "export"), tmp_path / "slack.zip")

    run = sync(archive, kind="slack")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert Document.objects.filter(path="general/2025-03-03.json", title="#general 2025-03-03").exists()
    reply = Fact.objects.get(statement="Bo Chen: QA finishes on Thursday, so Friday works.")
    assert reply.effective_date == dt.date(2025, 3, 3)
    assert reply.heading_path == "#general 2025-03-03 > Can we ship the Atlas release on Friday"
    confirmed = Fact.objects.get(statement__startswith="Ana Ruiz: Great, the Atlas release is confirmed")
    assert confirmed.effective_date == dt.date(2025, 3, 4)
    assert not Fact.objects.filter(statement__contains="has joined").exists()
