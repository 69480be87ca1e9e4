"""The one small interface every source kind implements (DESIGN §3.12).

A kind turns a location into a stream of `RawDocument`s (and `Skipped` notes for files it
cannot read), one at a time, so a sync never holds a whole corpus in memory.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
import os
from typing import Any, Iterator, Protocol, Sequence, Union

MAX_FILE_BYTES_DEFAULT = 52_428_800


@dataclass
class Message:
    """One message of a chat or mail document: it becomes one fact, keeping who and when."""

    text: str
    author: str = ""
    sent_at: dt.datetime | None = None
    thread: str = ""  # the thread or conversation it belongs to, when known
    ref: str = ""  # the message's own id in its source (Slack ts, Message-ID, a pushed id)


@dataclass
class RawDocument:
    path: str  # inside the source, POSIX separators ("docs/refund-policy.md")
    title: str
    text: str  # the body (markdown or plain text); for messages, their text joined
    doc_date: dt.date | None = None
    fmt: str = "markdown"  # "markdown" | "text" | "messages"
    metadata: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] | None = None  # chat/mail: one statement per message


@dataclass
class Skipped:
    path: str
    reason: str
    error: bool = False  # True: a per-document error (corrupt, too big); False: unsupported kind


Item = Union[RawDocument, Skipped]


class SourceKind(Protocol):
    name: str

    def handles(self, path: Path) -> bool: ...

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]: ...


class FileKind:
    """A kind that reads single files of some extensions; folders are walked for it."""

    name = ""
    extensions: tuple[str, ...] = ()

    def handles(self, path: Path) -> bool:
        return path.suffix.lower() in self.extensions

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        yield from walk(root, max_bytes=max_bytes, kinds=[self])

    def parse(self, relpath: str, data: bytes) -> Item:
        raise NotImplementedError

    def iter_file(self, path: Path, relpath: str, *, max_bytes: int) -> Iterator[Item]:
        """The documents of one file that `walk` has already checked (size, symlink, empty).
        One file is one document, except for containers (an mbox, a zip) that override this."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            yield Skipped(relpath, f"could not be read: {exc.strerror or exc}", error=True)
            return
        yield parse_guarded(self, relpath, data)


class FolderLayout(Protocol):
    """A folder read as one whole (a Slack export), recognised by the files it holds."""

    def is_layout(self, filenames: list[str]) -> bool: ...

    def iter_folder(self, root: Path, *, max_bytes: int, prefix: str) -> Iterator[Item]: ...


def _units(root: Path, layout: FolderLayout | None) -> Iterator[tuple[Path, str, bool]]:
    """(path, relpath, is a `layout` folder) in a stable order, one folder at a time: the
    tree is never listed whole (20,000 paths held at once cost 7 MB during a sync)."""
    if root.is_file():
        yield root, root.name, False
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        here = Path(dirpath)
        if layout is not None and layout.is_layout(filenames):
            dirnames[:] = []
            yield here, "" if here == root else here.relative_to(root).as_posix(), True
            continue
        prefix = "" if here == root else here.relative_to(root).as_posix() + "/"
        for filename in sorted(f for f in filenames if not f.startswith(".")):
            yield here / filename, prefix + filename, False


def walk(
    root: Path, *, max_bytes: int, kinds: Sequence[Any], layout: FolderLayout | None = None
) -> Iterator[Item]:
    """Every file under `root` (or `root` itself) handed to the first of `kinds` that handles
    it; a folder that is a `layout` is read as one. Dot files and folders are never read."""
    root = root.resolve()
    for full, relpath, is_layout in _units(root, layout):
        if is_layout:
            assert layout is not None
            yield from layout.iter_folder(full, max_bytes=max_bytes, prefix=f"{relpath}/" if relpath else "")
            continue
        kind = next((k for k in kinds if k.handles(full)), None)
        if kind is None:
            yield Skipped(relpath, f"unsupported file type {full.suffix or '(none)'}")
            continue
        if full.is_symlink():
            yield Skipped(relpath, "symbolic links are not followed")
            continue
        try:
            size = full.stat().st_size
        except OSError as exc:
            yield Skipped(relpath, f"could not be read: {exc.strerror or exc}", error=True)
            continue
        if size > max_bytes:
            yield Skipped(relpath, f"file is larger than the {max_bytes}-byte limit", error=True)
            continue
        if size == 0:
            yield Skipped(relpath, "empty file", error=True)
            continue
        try:
            yield from kind.iter_file(full, relpath, max_bytes=max_bytes)
        except Exception as exc:  # noqa: BLE001 - one bad file never stops the walk
            yield Skipped(relpath, f"could not be parsed ({type(exc).__name__}: {exc})"[:300], error=True)


_DATE_IN_NAME = re.compile(r"(20\d\d|19\d\d)-(\d\d)-(\d\d)")
_DATE_LINE = re.compile(r"^\s*(?:\*\*)?date(?:\*\*)?\s*:\s*(?:\*\*)?\s*(\d{4}-\d\d-\d\d)", re.IGNORECASE | re.MULTILINE)


def parse_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        match = _DATE_IN_NAME.search(value)
        if match:
            try:
                return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                return None
    return None


def parse_datetime(value: str) -> dt.datetime | None:
    """An ISO 8601 time ("2026-03-04T09:15:00Z", "2026-03-04 09:15"); a bare date counts as
    midnight UTC; anything else is None."""
    value = value.strip()
    if not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        day = parse_date(value)
        return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) if day else None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def date_from_text_or_name(text: str, relpath: str) -> dt.date | None:
    match = _DATE_LINE.search(text[:2000])
    if match:
        found = parse_date(match.group(1))
        if found:
            return found
    return parse_date(Path(relpath).name)


def decode(data: bytes) -> str | None:
    """Text from bytes: UTF-8 (with or without BOM), UTF-16 with BOM, else cp1252 when the
    bytes look like text; None for binary data."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            return None
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    text = data.decode("cp1252", errors="replace")
    controls = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\r\n\t\f")
    return None if controls > len(text[:8192]) * 0.01 else text


def title_from_name(relpath: str) -> str:
    stem = Path(relpath).stem
    stem = _DATE_IN_NAME.sub("", stem).strip("-_ ")
    return re.sub(r"[-_]+", " ", stem).strip().capitalize() or Path(relpath).name


# --- helpers shared by the document and message kinds ------------------------------------

_MONTH_DATE = re.compile(
    r"\b(?:(\d{1,2})\s+)?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+(?:(\d{1,2}),?\s+)?(\d{4})\b",
    re.IGNORECASE,
)
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}


def date_from_words(text: str) -> dt.date | None:
    """A date written out the way exports print them: "2025-03-03", "March 3, 2025",
    "Mar 03, 2025" (Notion properties, Confluence "last modified on"), "3 March 2025"."""
    found = parse_date(text)
    if found:
        return found
    match = _MONTH_DATE.search(text)
    if not match or bool(match.group(1)) == bool(match.group(3)):
        return None
    day = int(match.group(1) or match.group(3))
    try:
        return dt.date(int(match.group(4)), _MONTHS[match.group(2)[:3].lower()], day)
    except ValueError:
        return None


def to_utc(value: dt.datetime) -> dt.datetime:
    """An aware UTC time; a time without a zone (a mail header with none) is taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value.astimezone(dt.timezone.utc)


def messages_text(messages: list[Message]) -> str:
    """The text of a message document, "author: text" per line (what its content hash covers)."""
    lines = []
    for message in messages:
        body = " ".join(message.text.split())
        lines.append(f"{message.author}: {body}" if message.author else body)
    return "\n".join(lines)


def record_line(pairs: list[tuple[str, str]]) -> str:
    """One record (a CSV row, a JSON object) as a bullet: "- Column: value; Column: value"."""
    cells = []
    for key, value in pairs:
        value = " ".join(str(value).split())
        if value:
            cells.append(f"{' '.join(str(key).split())}: {value}" if key else value)
    return f"- {'; '.join(cells)}" if cells else ""


def parse_guarded(kind: Any, relpath: str, data: bytes) -> Item:
    """`kind.parse`, with a parser bug on odd input costing that one document, never the run:
    third-party parsers raise far more exception types than they document."""
    try:
        item: Item = kind.parse(relpath, data)
        return item
    except Exception as exc:  # noqa: BLE001 - whatever a parser raises is that document's error
        return Skipped(relpath, f"could not be parsed ({type(exc).__name__}: {exc})"[:300], error=True)
