"""The one small interface every source kind implements (DESIGN §3.12).

A kind turns a location into a stream of `RawDocument`s (and `Skipped` notes for files it
cannot read), one at a time, so a sync never holds a whole corpus in memory.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Protocol, Union

MAX_FILE_BYTES_DEFAULT = 52_428_800


@dataclass
class RawDocument:
    path: str  # inside the source, POSIX separators ("docs/refund-policy.md")
    title: str
    text: str  # the body (markdown or plain text)
    doc_date: dt.date | None = None
    fmt: str = "markdown"  # "markdown" | "text"
    metadata: dict[str, Any] = field(default_factory=dict)


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
        from memory.sources.folder import walk

        yield from walk(root, max_bytes=max_bytes, kinds=[self])

    def parse(self, relpath: str, data: bytes) -> Item:
        raise NotImplementedError


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
