"""Notion and Confluence exports: a .zip (or its unpacked folder) of Markdown and HTML pages,
with CSV databases and attachments. Each member goes to the kind that reads its type (through
the safe reader of `archive`); nested archives are listed, not expanded.

Notion names every file "Page Title <32 hex id>.md" (folders too): the id is moved to the
document's metadata and cleaned out of titles; a page's "Created: March 3, 2025" property line
dates it. Confluence's HTML pages are titled by their own page title (the `html` kind drops the
"Space : " prefix and the export's breadcrumbs and footer).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from memory.sources.archive import ArchiveError, open_zip
from memory.sources.base import Item, RawDocument, Skipped, date_from_words, parse_guarded, title_from_name, walk
from memory.sources.docx import DocxKind
from memory.sources.html import HtmlKind
from memory.sources.jsondoc import JsonKind
from memory.sources.mail import EmailKind
from memory.sources.markdown import MarkdownKind
from memory.sources.pdf import PdfKind
from memory.sources.tabular import CsvKind
from memory.sources.text import TextKind

_NOTION_ID = re.compile(r"\s+([0-9a-f]{32})(?=(?:_all)?(?:\.\w+)?$|/)")
_TITLE_ID = re.compile(r"\s[0-9a-f]{32}\b", re.IGNORECASE)
_PROPERTY_DATE = re.compile(
    r"^(?:Created|Created time|Date|Last edited time|Last edited|Updated)\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE
)


def member_kinds() -> list[Any]:
    """The kinds that read one file from bytes (mailboxes and nested archives excluded)."""
    return [MarkdownKind(), HtmlKind(), TextKind(), CsvKind(), JsonKind(), DocxKind(), PdfKind(), EmailKind()]


def clean_notion_name(name: str) -> str:
    """"Team Wiki 1a2b…32hex/Sub Page 3c4d…32hex.md" → "Team Wiki/Sub Page.md"."""
    return _NOTION_ID.sub("", name)


def tidy(item: Item) -> Item:
    """Notion ids out of titles (into metadata); a Notion page's date from its properties."""
    if not isinstance(item, RawDocument):
        return item
    ids = _NOTION_ID.findall(item.path)
    if ids:
        item.metadata = {**item.metadata, "notion_id": ids[-1]}
        # Titles taken from the file name (no "# " heading, a CSV database) still carry the id.
        if item.title == title_from_name(item.path) or _TITLE_ID.search(item.title):
            stem = Path(clean_notion_name(item.path)).stem.removesuffix("_all")
            item.title = " ".join(stem.replace("_", " ").split()) or item.title
    if item.doc_date is None and item.fmt == "markdown":
        match = _PROPERTY_DATE.search(item.text[:3000])
        if match:
            item.doc_date = date_from_words(match.group(1))
    return item


def iter_zip(path: Path, *, max_bytes: int, prefix: str = "", label: str = "") -> Iterator[Item]:
    label = label or path.name
    opened = open_zip(path, max_bytes=max_bytes, label=label)
    if isinstance(opened, Skipped):
        yield opened
        return
    kinds = member_kinds()
    with opened as archive:
        try:
            for member in archive.members(prefix):
                if isinstance(member, Skipped):
                    yield member
                    continue
                name, info = member
                kind = next((k for k in kinds if k.handles(Path(name))), None)
                if kind is None:
                    yield Skipped(prefix + name, f"unsupported file type {Path(name).suffix or '(none)'}")
                    continue
                data = archive.read_member(name, info, prefix)
                if isinstance(data, Skipped):
                    yield data
                    continue
                yield tidy(parse_guarded(kind, prefix + name, data))
        except ArchiveError as exc:
            yield Skipped(label, str(exc), error=True)


class ExportKind:
    """`notion`, `confluence` (and, from `auto`, any other .zip of documents)."""

    def __init__(self, name: str = "export") -> None:
        self.name = name

    def handles(self, path: Path) -> bool:
        return path.suffix.lower() == ".zip" and path.is_file()

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        if root.is_file() and root.suffix.lower() == ".zip":
            yield from iter_zip(root, max_bytes=max_bytes)
            return
        for item in walk(root, max_bytes=max_bytes, kinds=member_kinds()):
            yield tidy(item)
