"""Items pushed over REST (`POST /v1/dev/sources/{id}/items`): one JSON file per item.

The API writes each item to `<source folder>/<sha256(external_id)>.json`; a sync reads that
folder like any other source, so pushed items get the same incremental pipeline (the same
`external_id` updates its document, an unchanged one is skipped).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterator

from memory.sources.base import FileKind, Item, Message, RawDocument, Skipped, parse_date, parse_datetime


def item_filename(external_id: str) -> str:
    return hashlib.sha256(external_id.encode("utf-8")).hexdigest() + ".json"


def item_write(folder: Path, item: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / item_filename(item["external_id"])
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(item, ensure_ascii=False, default=str))
    tmp.replace(target)  # atomic: a concurrent sync never reads half an item


class PushKind(FileKind):
    name = "items"
    extensions = (".json",)

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        if not root.exists():
            return
        for path in sorted(root.glob("*.json")):
            yield self.parse(path.name, path.read_bytes())

    def parse(self, relpath: str, data: bytes) -> Item:
        try:
            item = json.loads(data)
            external_id = str(item["external_id"])
            text = str(item.get("text") or "")
            messages = _messages(item.get("messages"))
        except (ValueError, KeyError, TypeError, AttributeError):
            return Skipped(relpath, "not a valid pushed item", error=True)
        if not text and not messages:
            return Skipped(relpath, "not a valid pushed item (no text and no messages)", error=True)
        title = str(item.get("title") or external_id)
        metadata = {k: str(v) for k, v in (item.get("metadata") or {}).items()}
        for key in ("author", "url"):
            if item.get(key):
                metadata[key] = str(item[key])
        if messages:
            # A chat transcript: one fact per message, keeping its author, time and id.
            return RawDocument(
                path=external_id,
                title=title[:500],
                text="\n".join(f"{m.author}: {m.text}" if m.author else m.text for m in messages),
                doc_date=parse_date(item.get("created_at") or ""),
                fmt="messages",
                metadata=metadata,
                messages=messages,
            )
        body = text if text.lstrip().startswith("#") else f"# {title}\n\n{text}"
        return RawDocument(
            path=external_id,
            title=title[:500],
            text=body,
            doc_date=parse_date(item.get("created_at") or ""),
            fmt="markdown",
            metadata=metadata,
        )


def _messages(raw: Any) -> list[Message]:
    if raw is None:
        return []
    out = []
    for entry in raw:
        text = str(entry["text"]).strip()
        if text:
            out.append(
                Message(
                    text=text,
                    author=str(entry.get("author") or ""),
                    sent_at=parse_datetime(str(entry.get("sent_at") or "")),
                    ref=str(entry.get("id") or ""),
                )
            )
    return out
