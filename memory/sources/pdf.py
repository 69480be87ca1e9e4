"""PDF files (`.pdf`), read with pypdf (pure Python, no OCR).

PDF has no headings, only text drawn at some size: a line set clearly larger than the body
text (the size most characters use) becomes a Markdown heading, larger sizes first. This is a
heuristic that suits reports and exported documents; a PDF without a text layer (a scan) is a
per-document error, not an empty document.

Title: the PDF's own Title (unless it is a tool's placeholder), else the first heading, else the
file name. Date: a "Date:" line or the file name (what the author wrote), else the PDF's
modification or creation date.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from collections import Counter
from typing import Any

from pypdf import PdfReader

from memory.sources.base import FileKind, Item, RawDocument, Skipped, date_from_text_or_name, parse_date, title_from_name

EXTENSIONS = (".pdf",)
HEADING_RATIO = 1.2
_BULLET_GLYPHS = re.compile(r"^\s*[•●▪◦‣∙·–]\s*")
_PLACEHOLDER_TITLE = re.compile(r"^(untitled|microsoft (word|powerpoint) - .*|.*\.(docx?|pdf|pptx?|txt))$", re.IGNORECASE)


def _lines(reader: PdfReader) -> list[tuple[str, float]]:
    """(line, font size) in reading order; "" marks a page break."""
    out: list[tuple[str, float]] = []
    for page in reader.pages:
        line: list[str] = []
        sizes: list[float] = []

        def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) if tm and cm else 1.0
            parts = text.split("\n")
            for index, part in enumerate(parts):
                if index:
                    out.append(("".join(line), max(sizes, default=0.0)))
                    line.clear()
                    sizes.clear()
                if part.strip():
                    line.append(part)
                    sizes.append(round(float(size or 0) * (scale or 1.0), 1))
                elif part:
                    line.append(part)

        page.extract_text(visitor_text=visit)
        if line:
            out.append(("".join(line), max(sizes, default=0.0)))
        out.append(("", 0.0))
    return [(" ".join(text.split()), size) for text, size in out]


def to_markdown(lines: list[tuple[str, float]]) -> str:
    weights: Counter[float] = Counter()
    for text, size in lines:
        weights[size] += len(text)
    body = weights.most_common(1)[0][0] if weights else 0.0
    heading_sizes = sorted(
        {s for t, s in lines if t and body and s >= body * HEADING_RATIO and len(t) <= 120}, reverse=True
    )
    level = {size: min(index + 1, 3) for index, size in enumerate(heading_sizes)}
    blocks: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(" ".join(paragraph))
            paragraph.clear()

    for text, size in lines:
        if not text:
            flush()
        elif size in level and re.search(r"[A-Za-z]", text):
            flush()
            blocks.append(f"{'#' * level[size]} {text}")
        elif _BULLET_GLYPHS.match(text):
            flush()
            paragraph.append("- " + _BULLET_GLYPHS.sub("", text))
        elif paragraph and paragraph[0].startswith("- ") and text[:1].isupper():
            flush()
            paragraph.append(text)
        else:
            paragraph.append(text)
    flush()
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _metadata(reader: PdfReader) -> tuple[str, dt.date | None]:
    info = reader.metadata
    if info is None:
        return "", None
    title = " ".join(str(info.title or "").split())
    if _PLACEHOLDER_TITLE.match(title):
        title = ""
    when = None
    for attribute in ("modification_date", "creation_date"):
        try:
            when = parse_date(getattr(info, attribute))
        except (ValueError, TypeError):  # a malformed D:… date string
            when = None
        if when:
            break
    return title, when


def parse(relpath: str, data: bytes) -> Item:
    if b"%PDF-" not in data[:1024]:
        return Skipped(relpath, "corrupt file: not a PDF (no %PDF header)", error=True)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            return Skipped(relpath, "encrypted PDF: a password is needed", error=True)
        lines = _lines(reader)
        meta_title, meta_date = _metadata(reader)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on damaged files
        return Skipped(relpath, f"corrupt PDF: {type(exc).__name__}: {exc}"[:300], error=True)
    text = to_markdown(lines)
    if not text.strip():
        return Skipped(relpath, "no text layer (a scanned PDF?): text recognition is not supported", error=True)
    first_heading = re.search(r"^#{1,3} (.+)$", text, re.MULTILINE)
    title = meta_title or (first_heading.group(1) if first_heading else "") or title_from_name(relpath)
    if not first_heading or first_heading.group(1) != title:
        text = f"# {title}\n\n{text}"  # the extractor reads the first H1 as the title
    doc_date = date_from_text_or_name(text, relpath) or meta_date
    return RawDocument(
        path=relpath, title=title[:500], text=text, doc_date=doc_date, fmt="markdown", metadata={"pages": str(len(reader.pages))}
    )


class PdfKind(FileKind):
    name = "pdf"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
