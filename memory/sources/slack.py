"""Slack workspace exports, as a folder or a .zip: `users.json`, `channels.json` (and
`groups.json`, `mpims.json` for private ones), and one JSON file per channel and day
(`<channel>/<YYYY-MM-DD>.json`), read with the standard library's json module.

Each channel-day file is one document of `fmt="messages"` at "<channel>/<date>.json", titled
"#<channel> <date>". User ids are resolved to names (users.json, else the message's own
profile), in authors and inside text (`<@U123>` → "@Ana Ruiz"); Slack's other markup (channel
links, URLs, `&amp;`) becomes plain text. Thread replies (and the root of a thread) carry the
root's first words as their `thread`. Joins, leaves and other channel events are left out.

`users.json` is also a document of its own, "Slack members": one record per member (name,
title, display name, e-mail, phone, time zone), so a question about someone's job title or
team is answered from the chat's own directory (SPEC §2.3; issue 16 point 2).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from memory.sources.archive import ArchiveError, SafeZip, expansion_limit, open_zip
from memory.sources.base import Item, Message, RawDocument, Skipped, messages_text, record_line

USERS = "users.json"
CHANNELS = "channels.json"
# Top-level files of an export that are not channel days; read (users, channels) or ignored.
EXPORT_FILES = {
    USERS, CHANNELS, "groups.json", "mpims.json", "dms.json", "integration_logs.json", "canvases.json",
    "org_users.json", "huddle_transcripts.json", "file_conversations.json",
}  # fmt: skip
SKIPPED_SUBTYPES = {
    "channel_join", "channel_leave", "group_join", "group_leave", "channel_archive", "channel_unarchive",
    "group_archive", "group_unarchive", "bot_add", "bot_remove", "pinned_item", "unpinned_item", "tombstone",
    "reminder_add", "joiner_notification", "huddle_thread",
}  # fmt: skip
THREAD_WORDS = 8
_DAY_FILE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.json$")
_USER_REF = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>]*))?>")
_CHANNEL_REF = re.compile(r"<#([CG][A-Z0-9]+)(?:\|([^>]*))?>")
_SPECIAL_REF = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>")
_GROUP_REF = re.compile(r"<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_DATE_REF = re.compile(r"<!date\^[^|>]*\|([^>]*)>")
_LINK_REF = re.compile(r"<((?:https?|mailto|tel):[^|>]+)(?:\|([^>]*))?>")

Read = Callable[[str], "bytes | Skipped"]


def is_slack_folder(path: Path) -> bool:
    return path.is_dir() and (path / USERS).is_file() and (path / CHANNELS).is_file()


def _zip_base(names: list[str]) -> str | None:
    """The folder inside a zip that holds users.json and channels.json ("" for the top)."""
    bases = sorted((n[: -len(USERS)] for n in names if n == USERS or n.endswith("/" + USERS)), key=len)
    present = set(names)
    return next((b for b in bases if b + CHANNELS in present and b.count("/") <= 1), None)


def is_slack_zip(path: Path, *, max_bytes: int) -> bool:
    try:
        with SafeZip(path, max_bytes=max_bytes) as archive:
            return _zip_base(archive.names()) is not None
    except ArchiveError:
        return False


def _load_list(name: str, read: Read, prefix: str) -> tuple[list[dict[str, Any]], Skipped | None]:
    data = read(name)
    if isinstance(data, Skipped):
        return [], data
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        return [], Skipped(prefix + name, f"not valid JSON: {exc}"[:300], error=True)
    if not isinstance(value, list):
        return [], Skipped(prefix + name, "not a Slack export file (expected a JSON array)", error=True)
    return [v for v in value if isinstance(v, dict)], None


def _user_name(user: dict[str, Any]) -> str:
    found = user.get("profile")
    profile: dict[str, Any] = found if isinstance(found, dict) else {}
    for value in (profile.get("real_name"), user.get("real_name"), profile.get("display_name"), user.get("name")):
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return str(user.get("id") or "")


MEMBERS_TITLE = "Slack members"


def members_document(rows: list[dict[str, Any]], path: str) -> RawDocument | None:
    """The export's member directory as records, people only (no bots, no deleted members)."""
    lines = []
    for user in rows:
        if user.get("deleted") is True or user.get("is_bot") is True:
            continue
        found = user.get("profile")
        profile: dict[str, Any] = found if isinstance(found, dict) else {}
        cells = [
            ("Name", _user_name(user)),
            ("Title", profile.get("title")),
            ("Display name", profile.get("display_name")),
            ("Email", profile.get("email")),
            ("Phone", profile.get("phone")),
            ("Time zone", user.get("tz_label") or user.get("tz")),
        ]
        line = record_line([(name, value) for name, value in cells if isinstance(value, str) and value.strip()])
        if line:
            lines.append(line)
    if not lines:
        return None
    return RawDocument(path=path, title=MEMBERS_TITLE, text="\n".join([f"# {MEMBERS_TITLE}", "", *lines]) + "\n")


def render(text: str, users: dict[str, str], channels: dict[str, str]) -> str:
    """Slack's markup as plain text, user ids resolved to names."""
    text = _USER_REF.sub(lambda m: "@" + (users.get(m.group(1)) or m.group(2) or m.group(1)), text)
    text = _CHANNEL_REF.sub(lambda m: "#" + (m.group(2) or channels.get(m.group(1)) or m.group(1)), text)
    text = _SPECIAL_REF.sub(lambda m: "@" + m.group(1), text)
    text = _GROUP_REF.sub(lambda m: m.group(1) or "@group", text)
    text = _DATE_REF.sub(lambda m: m.group(1), text)
    text = _LINK_REF.sub(lambda m: m.group(2) or m.group(1).removeprefix("mailto:"), text)
    return html.unescape(text).strip()


def _author(message: dict[str, Any], users: dict[str, str]) -> str:
    user = message.get("user")
    if isinstance(user, str) and user in users:
        return users[user]
    profile = message.get("user_profile")
    if isinstance(profile, dict):
        name = profile.get("real_name") or profile.get("display_name") or profile.get("name")
        if isinstance(name, str) and name.strip():
            return " ".join(name.split())
    bot = message.get("bot_profile")
    for value in (message.get("username"), bot.get("name") if isinstance(bot, dict) else None, user):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "unknown"


def _ts(value: Any) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(float(value), tz=dt.timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _first_words(text: str) -> str:
    words = text.split()
    label = " ".join(words[:THREAD_WORDS]).rstrip(".,;:!?")
    return label.replace(">", "-")


def day_messages(
    items: list[Any], users: dict[str, str], channels: dict[str, str], threads: dict[str, str]
) -> list[Message]:
    """The messages of one channel-day, oldest first; `threads` (thread ts → label) carries
    thread roots over to the replies of later days."""
    rows = [m for m in items if isinstance(m, dict) and m.get("type", "message") == "message"]
    rows.sort(key=lambda m: float(m["ts"]) if _ts(m.get("ts")) else 0.0)
    out: list[Message] = []
    for row in rows:
        if row.get("subtype") in SKIPPED_SUBTYPES:
            continue
        text = render(str(row.get("text") or ""), users, channels)
        files = [f.get("title") or f.get("name") for f in row.get("files") or [] if isinstance(f, dict)]
        if files:
            text = " ".join([text, *(f"(shared file: {name})" for name in files if name)]).strip()
        if not text:
            continue
        ts = str(row.get("ts") or "")
        thread_ts = str(row.get("thread_ts") or "")
        thread = ""
        if thread_ts and thread_ts == ts:
            threads[ts] = _first_words(text)
            if row.get("reply_count") or row.get("replies"):
                thread = threads[ts]
        elif thread_ts:
            started = _ts(thread_ts)
            thread = threads.get(thread_ts) or (f"thread of {started:%Y-%m-%d %H:%M}" if started else "thread")
        out.append(Message(text=text, author=_author(row, users), sent_at=_ts(ts), thread=thread, ref=ts))
    return out


def read_export(names: list[str], read: Read, prefix: str) -> Iterator[Item]:
    """The documents of an export whose files are `names` (relative to the export's top)."""
    present = set(names)
    users: dict[str, str] = {}
    if USERS in present:
        rows, problem = _load_list(USERS, read, prefix)
        if problem:
            yield problem
        users = {str(u["id"]): _user_name(u) for u in rows if u.get("id")}
        directory = members_document(rows, prefix + USERS)
        if directory is not None:
            yield directory
    else:
        yield Skipped(prefix + USERS, "missing from the Slack export: user ids are not resolved to names", error=True)
    channels: dict[str, str] = {}
    for name in (CHANNELS, "groups.json", "mpims.json"):
        if name in present:
            rows, problem = _load_list(name, read, prefix)
            if problem:
                yield problem
            channels.update({str(c["id"]): str(c.get("name") or c["id"]) for c in rows if c.get("id")})
    days: dict[str, list[str]] = {}
    for name in sorted(names):
        parts = name.split("/")
        if len(parts) == 2 and _DAY_FILE.match(parts[1]):
            days.setdefault(parts[0], []).append(parts[1])
        elif name not in EXPORT_FILES:
            yield Skipped(prefix + name, "not a channel-day file of the Slack export")
    for channel in sorted(days):
        threads: dict[str, str] = {}
        for day_file in sorted(days[channel]):
            path = f"{prefix}{channel}/{day_file}"
            data = read(f"{channel}/{day_file}")
            if isinstance(data, Skipped):
                yield data
                continue
            try:
                items = json.loads(data.decode("utf-8-sig"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                yield Skipped(path, f"not valid JSON: {exc}"[:300], error=True)
                continue
            if not isinstance(items, list):
                yield Skipped(path, "not a Slack channel-day file (expected a JSON array of messages)", error=True)
                continue
            messages = day_messages(items, users, channels, threads)
            if not messages:
                yield Skipped(path, "no messages to import (only channel events)")
                continue
            match = _DAY_FILE.match(day_file)
            assert match is not None
            day = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            yield RawDocument(
                path=path,
                title=f"#{channel} {day.isoformat()}",
                text=messages_text(messages),
                doc_date=day,
                fmt="messages",
                metadata={"channel": channel},
                messages=messages,
            )


def iter_folder(root: Path, *, max_bytes: int, prefix: str = "") -> Iterator[Item]:
    files: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in filenames:
            if not filename.startswith("."):
                full = Path(dirpath) / filename
                files[full.relative_to(root).as_posix()] = full

    def read(name: str) -> bytes | Skipped:
        full = files[name]
        try:
            if full.is_symlink():
                return Skipped(prefix + name, "symbolic links are not followed", error=True)
            size = full.stat().st_size
            if size > max_bytes:
                return Skipped(prefix + name, f"file is larger than the {max_bytes}-byte limit", error=True)
            if size == 0:
                return Skipped(prefix + name, "empty file", error=True)
            return full.read_bytes()
        except OSError as exc:
            return Skipped(prefix + name, f"could not be read: {exc.strerror or exc}", error=True)

    yield from read_export(sorted(files), read, prefix)


class ExportFolder:
    """The layout `auto` reads as a Slack export: a folder holding users.json and channels.json."""

    def is_layout(self, filenames: list[str]) -> bool:
        return USERS in filenames and CHANNELS in filenames

    def iter_folder(self, root: Path, *, max_bytes: int, prefix: str) -> Iterator[Item]:
        return iter_folder(root, max_bytes=max_bytes, prefix=prefix)


def iter_zip(path: Path, *, max_bytes: int, prefix: str = "", label: str = "") -> Iterator[Item]:
    label = label or path.name
    opened = open_zip(path, max_bytes=max_bytes, label=label)
    if isinstance(opened, Skipped):
        yield opened
        return
    with opened as archive:
        infos = {}
        refused: list[Skipped] = []
        for item in archive.members(prefix):
            if isinstance(item, Skipped):
                refused.append(item)
            else:
                infos[item[0]] = item[1]
        base = _zip_base(list(infos)) or ""
        names = [n[len(base) :] for n in infos if n.startswith(base)]
        yield from refused

        def read(name: str) -> bytes | Skipped:
            return archive.read_member(name, infos[base + name], prefix)

        try:
            yield from read_export(names, read, prefix)
        except ArchiveError as exc:
            yield Skipped(label, str(exc), error=True)


class SlackKind:
    name = "slack"

    def handles(self, path: Path) -> bool:
        if path.suffix.lower() == ".zip" and path.is_file():
            return is_slack_zip(path, max_bytes=expansion_limit())
        return is_slack_folder(path)

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        if root.is_dir():
            yield from iter_folder(root, max_bytes=max_bytes)
        elif root.suffix.lower() == ".zip":
            yield from iter_zip(root, max_bytes=max_bytes)
        else:
            yield Skipped(root.name, "not a Slack export (a folder or .zip with users.json and channels.json)", error=True)
