"""JSON documents (`.json`) and JSON Lines (`.jsonl`, `.ndjson`), read with the standard
library's json module and written out as Markdown:

- an array of objects (or JSON Lines): one bullet per object, "Key: value; Key: value";
- an object: its scalar fields as "Key: value" bullets, each nested object or array of
  objects as a `##` section (deeper levels flattened as "parent.child" keys).

Title: a top-level "title"/"name"/"subject" string, else the file name. Date: a top-level
"date"/"created_at"/… field, else a date in the file name. (Named `jsondoc` so that
`import json` keeps meaning the standard library.)
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from memory.sources.base import (
    FileKind,
    Item,
    RawDocument,
    Skipped,
    decode,
    parse_date,
    record_line,
    title_from_name,
)

EXTENSIONS = (".json", ".jsonl", ".ndjson")
TITLE_KEYS = ("title", "name", "subject", "headline")
DATE_KEYS = ("date", "created_at", "created", "updated_at", "updated", "published_at", "timestamp")
MAX_HEADING_DEPTH = 3


def _label(key: str) -> str:
    """"owner_name" → "Owner name": keys read as column names in the statements."""
    words = " ".join(str(key).replace("_", " ").split())
    return words[:1].upper() + words[1:] if words.islower() else words


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """An object as (key, value) pairs; nested objects as "parent.child" keys."""
    if isinstance(value, dict):
        pairs: list[tuple[str, str]] = []
        for key, item in value.items():
            pairs += _flatten(item, f"{prefix}.{_label(key)}" if prefix else _label(key))
        return pairs
    if isinstance(value, list):
        if all(_is_scalar(v) for v in value):
            return [(prefix, ", ".join(s for s in map(_scalar, value) if s))]
        pairs = []
        for index, item in enumerate(value, 1):
            pairs += _flatten(item, f"{prefix}.{index}" if prefix else str(index))
        return pairs
    return [(prefix, _scalar(value))]


def _records(items: list[Any]) -> list[str]:
    lines = []
    for item in items:
        line = record_line(_flatten(item)) if isinstance(item, (dict, list)) else record_line([("", _scalar(item))])
        if line:
            lines.append(line)
    return lines


def _object(obj: dict[str, Any], depth: int, skip: set[str]) -> list[str]:
    lines: list[str] = []
    sections: list[str] = []
    for key, value in obj.items():
        if key in skip:
            continue
        if _is_scalar(value) or (isinstance(value, list) and all(_is_scalar(v) for v in value)):
            line = record_line(_flatten(value, _label(key)))
            if line:
                lines.append(line)
        elif depth >= MAX_HEADING_DEPTH:
            line = record_line(_flatten(value, _label(key)))
            if line:
                lines.append(line)
        else:
            body = _object(value, depth + 1, set()) if isinstance(value, dict) else _records(value)
            if body:
                sections += ["", f"{'#' * (depth + 1)} {_label(key)}", "", *body]
    return lines + sections


def _title_and_date(obj: Any) -> tuple[str, dt.date | None, set[str]]:
    if not isinstance(obj, dict):
        return "", None, set()
    used: set[str] = set()
    title = ""
    for key in TITLE_KEYS:
        if isinstance(obj.get(key), str) and obj[key].strip():
            title = " ".join(obj[key].split())
            used.add(key)
            break
    when = None
    for key in DATE_KEYS:
        if isinstance(obj.get(key), str):
            when = parse_date(obj[key])
            if when:
                break
    return title, when, used


def parse(relpath: str, data: bytes) -> Item:
    text = decode(data)
    if text is None:
        return Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
    try:
        if relpath.lower().endswith((".jsonl", ".ndjson")):
            value: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return Skipped(relpath, f"not valid JSON: {exc}"[:300], error=True)
    title, when, used = _title_and_date(value)
    title = title or title_from_name(relpath)
    if isinstance(value, dict):
        body = _object(value, 1, used)
    elif isinstance(value, list):
        body = _records(value)
    else:
        body = [record_line([("", _scalar(value))])]
    markdown = "\n".join([f"# {title}", "", *body]).strip() + "\n"
    return RawDocument(
        path=relpath, title=title[:500], text=markdown, doc_date=when or parse_date(relpath.rsplit("/", 1)[-1]), fmt="markdown"
    )


class JsonKind(FileKind):
    name = "json"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
