"""Plain-text files (`.txt`, `.text`): title from the first line or the file name."""

from __future__ import annotations

from memory.sources.base import FileKind, Item, RawDocument, Skipped, date_from_text_or_name, decode, title_from_name

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


class TextKind(FileKind):
    name = "text"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
