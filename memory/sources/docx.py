"""Word documents (`.docx`), read with python-docx, written out as Markdown in body order:
Title and "Heading N" paragraphs become `#` headings, list paragraphs bullets, table rows
"Column: value; Column: value" bullets under the table's header row.

A DOCX is a zip: before python-docx reads it (it loads every part), the container is checked
against the archive-expansion limit like any upload. Title: the document's Title property, else
its first Title/Heading 1 paragraph, else the file name. Date: a "Date:" line or the file name,
else the last-modified or created property.
"""

from __future__ import annotations

import datetime as dt
import io
import re

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from memory.sources.archive import check_expansion, expansion_limit
from memory.sources.base import FileKind, Item, RawDocument, Skipped, date_from_text_or_name, record_line, title_from_name

EXTENSIONS = (".docx",)
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
# python-docx's blank template carries this creation time: it says nothing about the content.
_TEMPLATE_CREATED = dt.datetime(2013, 12, 23, 23, 15, tzinfo=dt.timezone.utc)


def _paragraph_line(paragraph: Paragraph) -> str:
    text = " ".join(paragraph.text.split())
    if not text:
        return ""
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    heading = _HEADING_STYLE.match(style)
    if style.lower() == "title":
        return f"# {text}"
    if heading:
        # The document's title is the one "#": Heading 1 sections are "##", and so on down.
        return f"{'#' * min(int(heading.group(1)) + 1, 6)} {text}"
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    if style.lower().startswith("list") or numbered:
        return f"- {text}"
    return text


def _table_lines(table: Table) -> list[str]:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            value = " ".join(cell.text.split())
            cells.append(value)
        rows.append(cells)
    if len(rows) < 2:
        return [record_line([("", c) for c in row]) for row in rows if any(row)]
    header = rows[0]
    return [line for row in rows[1:] if (line := record_line(list(zip(header, row))))]


def to_markdown(document: docx.document.Document) -> str:
    blocks: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            line = _paragraph_line(block)
            if line:
                blocks.append(line)
        else:
            lines = _table_lines(block)
            if lines:
                blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def parse(relpath: str, data: bytes) -> Item:
    refused = check_expansion(data, max_bytes=expansion_limit())
    if refused:
        return Skipped(relpath, f"Word document refused: {refused}", error=True)
    try:
        document = docx.Document(io.BytesIO(data))
        text = to_markdown(document)
        props = document.core_properties
        meta_title = " ".join((props.title or "").split())
        stamps = [props.modified, props.created]
        author = props.author or ""
    except Exception as exc:  # noqa: BLE001 - python-docx and lxml raise many types on damaged files
        return Skipped(relpath, f"corrupt Word document: {type(exc).__name__}: {exc}"[:300], error=True)
    first_heading = re.search(r"^#{1,2} (.+)$", text, re.MULTILINE)
    title = meta_title or (first_heading.group(1) if first_heading else "") or title_from_name(relpath)
    if not text.startswith(f"# {title}\n"):
        text = f"# {title}\n\n{text}"  # the extractor reads the first H1 as the title
    meta_date = next((s.date() for s in stamps if s is not None and s != _TEMPLATE_CREATED), None)
    doc_date = date_from_text_or_name(text, relpath) or meta_date
    metadata = {"author": author} if author and author != "python-docx" else {}
    return RawDocument(path=relpath, title=title[:500], text=text, doc_date=doc_date, fmt="markdown", metadata=metadata)


class DocxKind(FileKind):
    name = "docx"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
