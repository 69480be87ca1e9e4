"""Plain-text files (`.txt`, `.text`): title from the first line or the file name."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from memory.sources.base import Item, RawDocument, Skipped, date_from_text_or_name, decode, title_from_name

EXTENSIONS = (".txt", ".text")


def parse(relpath: str, data: bytes) -> Item:
    text = decode(data)
    if text is None:
        return Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    title = first if 0 < len(first) <= 120 and not first.endswith(".") else title_from_name(relpath)
    return RawDocument(
        path=relpath, title=title[:500], text=text, doc_date=date_from_text_or_name(text, relpath), fmt="text"
    )


class TextKind:
    name = "text"

    def handles(self, path: Path) -> bool:
        return path.suffix.lower() in EXTENSIONS

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        from memory.sources.folder import walk

        yield from walk(root, max_bytes=max_bytes, kinds=[self])

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
