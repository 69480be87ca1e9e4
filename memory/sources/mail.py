"""Mail: single messages (`.eml`, kind `email`) and mailboxes (`.mbox`, kind `mbox`), read
with the standard library (`email` with the modern policy, `mailbox`).

One message is one document of `fmt="messages"`: title = subject, author = the sender's display
name (else the address), date = the message's Date, the people of the From/To/Cc headers in
its metadata. An mbox yields one document per message, at "<mbox path>/<n>" (n from 1).

Quoted replies are not kept twice: mail-parser-reply cuts the message at the first reply
header ("On … wrote:", Outlook's "From: … Sent: …", "-----Original Message-----"), and the
remaining "> " lines are dropped. A short sign-off at the end ("Best,\\nBob") goes too; a long
"signature" is kept, since that parser's sign-off patterns can also match real text.
"""

from __future__ import annotations

import datetime as dt
import email
import email.utils
import mailbox
import re
from email import policy
from email.message import EmailMessage, Message as StdMessage
from pathlib import Path
from typing import Any, Iterator

from mailparser_reply.parser import EmailMessage as ReplyParser

from memory.sources.base import FileKind, Item, Message, RawDocument, Skipped, decode, messages_text, to_utc
from memory.sources.html import convert as html_to_markdown

SIGN_OFF_MAX_LINES = 4
_MD_HEADING = re.compile(r"^#{1,6}\s+", re.MULTILINE)
_MD_STRONG = re.compile(r"(\*\*|__)(.+?)\1")


def _addresses(msg: EmailMessage, header: str) -> list[tuple[str, str]]:
    """(display name, address) of a header, tolerant of malformed values."""
    value = msg.get(header)
    if value is None:
        return []
    try:
        return [(a.display_name, a.addr_spec) for a in value.addresses]
    except Exception:  # noqa: BLE001 - a header the registry could not parse: fall back
        return [pair for pair in email.utils.getaddresses([str(value)]) if any(pair)]


def _header_text(value: object) -> str:
    """A header value as text, one line. Raw 8-bit bytes in a header (UTF-8 sent without
    RFC 2047 encoding, common from scripts and older clients) reach us as surrogate escapes,
    which no database accepts: they are decoded as the body's bytes would be."""
    text = " ".join(str(value).split())
    if any("\udc80" <= c <= "\udcff" for c in text):
        text = decode(text.encode("utf-8", "surrogateescape")) or text.encode("utf-8", "replace").decode("utf-8")
    return text


def _person(name: str, address: str) -> str:
    return _header_text(name or address).strip("'\"")


def _sent_at(msg: EmailMessage) -> dt.datetime | None:
    raw = msg.get("date")
    if raw is None:
        return None
    when = getattr(raw, "datetime", None)
    if when is None:
        try:
            when = email.utils.parsedate_to_datetime(str(raw))
        except (TypeError, ValueError, IndexError):
            return None
    return to_utc(when)


def _part_text(part: StdMessage) -> str:
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except (LookupError, ValueError, AssertionError, UnicodeError):
        pass  # an unknown or lying charset: decode the bytes as every text kind does
    payload = part.get_payload(decode=True)
    return (decode(payload) or "") if isinstance(payload, bytes) else ""


def body_text(msg: EmailMessage) -> str:
    """The message's own text: its plain part, else its HTML part as Markdown."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _part_text(part)
    if part.get_content_subtype() == "html":
        # Markdown keeps paragraphs and lists apart; a message is plain text, so no "#" or "**".
        text = html_to_markdown(text).markdown
        text = _MD_HEADING.sub("", _MD_STRONG.sub(r"\2", text))
    return text


def strip_quoted(text: str) -> str:
    """The newest reply of a message body, without the text it quotes."""
    parsed = ReplyParser(text=text, languages=["en"], keep_hyphen_lists=True).read()
    if parsed.replies:
        reply = parsed.replies[0]
        text = reply.full_body
        for disclaimer in reply.disclaimers or []:
            text = text.replace(disclaimer, "")
        sign_off = (reply.signatures or "").strip()
        if sign_off and len([l for l in sign_off.splitlines() if l.strip()]) <= SIGN_OFF_MAX_LINES:
            text = text.replace(sign_off, "")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
    return "\n".join(lines).strip()


def parse_message(relpath: str, data: bytes) -> Item:
    if decode(data) is None:
        return Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
    msg: Any = email.message_from_bytes(data, policy=policy.default)
    if not any(msg.get(h) for h in ("from", "date", "subject", "message-id")):
        return Skipped(relpath, "not an email message (no From, Date or Subject header)", error=True)
    senders = _addresses(msg, "from")
    author = _person(*senders[0]) if senders else ""
    sent_at = _sent_at(msg)
    subject = _header_text(msg.get("subject") or "")
    text = strip_quoted(body_text(msg))
    message_id = _header_text(msg.get("message-id") or "")
    messages = [Message(text=text, author=author, sent_at=sent_at, ref=message_id)] if text else []
    people = []
    for header in ("from", "to", "cc"):
        for name, address in _addresses(msg, header):
            person = _person(name, address)
            if person and person not in people:
                people.append(person)
    metadata = {
        key: _header_text(msg.get(key))[:1000]
        for key in ("from", "to", "cc", "message-id", "in-reply-to")
        if msg.get(key)
    }
    if people:
        metadata["people"] = ", ".join(people)[:1000]
    return RawDocument(
        path=relpath,
        title=(subject or (f"Message from {author}" if author else "(no subject)"))[:500],
        text=messages_text(messages),
        doc_date=sent_at.date() if sent_at else None,
        fmt="messages",
        metadata=metadata,
        messages=messages,
    )


class EmailKind(FileKind):
    """Single messages; a folder of `.eml` files is walked like any folder."""

    name = "email"
    extensions = (".eml",)

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse_message(relpath, data)


class MboxKind(FileKind):
    """Mailboxes: one file, many messages. `mailbox` reads a file on disk, so this kind reads
    files through `iter_file` (from a folder walk or a single-file source), not `parse`."""

    name = "mbox"
    extensions = (".mbox",)

    def iter_file(self, path: Path, relpath: str, *, max_bytes: int) -> Iterator[Item]:
        try:
            with path.open("rb") as handle:
                head = handle.read(8192)
            if decode(head) is None:
                yield Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
                return
            box = mailbox.mbox(path, create=False)
            keys = list(box.iterkeys())
        except Exception as exc:  # noqa: BLE001 - an unreadable mailbox is one error
            yield Skipped(relpath, f"not a readable mbox file: {type(exc).__name__}: {exc}"[:300], error=True)
            return
        if not keys:
            yield Skipped(relpath, "no messages found (not an mbox file?)", error=True)
            return
        for index, key in enumerate(keys, 1):
            item_path = f"{relpath}/{index}"
            try:
                data = box.get_bytes(key)
            except Exception as exc:  # noqa: BLE001
                yield Skipped(item_path, f"could not be read: {type(exc).__name__}: {exc}"[:300], error=True)
                continue
            try:
                yield parse_message(item_path, data)
            except Exception as exc:  # noqa: BLE001 - one odd message never stops the mailbox
                yield Skipped(item_path, f"could not be parsed ({type(exc).__name__}: {exc})"[:300], error=True)

    def parse(self, relpath: str, data: bytes) -> Item:
        return Skipped(relpath, "an mbox file is read from disk, not from bytes", error=True)
