"""Markdown files (`.md`, `.markdown`): YAML front matter (title, date), first `# ` heading."""

from __future__ import annotations

import re
from typing import Any

import yaml

from memory.sources.base import (
    FileKind,
    Item,
    RawDocument,
    Skipped,
    date_from_text_or_name,
    decode,
    parse_date,
    title_from_name,
)

EXTENSIONS = (".md", ".markdown", ".mdown")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def parse(relpath: str, data: bytes) -> Item:
    text = decode(data)
    if text is None:
        return Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
    meta: dict[str, Any] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
            meta = loaded if isinstance(loaded, dict) else {}
        except yaml.YAMLError:
            meta = {}
        text = text[match.end() :]
    h1 = _H1.search(text)
    title = str(meta.get("title") or (h1.group(1) if h1 else "") or title_from_name(relpath)).strip()
    doc_date = parse_date(meta.get("date")) or date_from_text_or_name(text, relpath)
    safe_meta = {k: str(v) for k, v in meta.items() if k not in ("title", "date")}
    return RawDocument(path=relpath, title=title[:500], text=text, doc_date=doc_date, fmt="markdown", metadata=safe_meta)


class MarkdownKind(FileKind):
    name = "markdown"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
