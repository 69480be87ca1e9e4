"""What the five XMemo tools share (SPEC §2.4; seeds xmemo-recall.fr.md,
xmemo-recall_context.pt.md): range checks, the caller as a `Viewer` and `Writer`, and the
ranked-text layout of `recall` and `search_memory` (the memory fields' checks are
`memory.agent_memory.drafts`, shared with /v1/memory). Each tool is still its own module
(`tool_<name>.py`).
"""

from __future__ import annotations

from typing import Any

from memory.agent_memory.selectors import Item
from memory.agent_memory.services import Writer
from memory.engine.live import Viewer
from memory.mcp.tools import ToolCall

MAX_QUERY_CHARS = 8000
NO_MATCH = "No matching XMemo memory was found."


def viewer_of(call: ToolCall) -> Viewer:
    credential = call.credential
    return Viewer(label=credential.label, buckets=credential.buckets, teams=credential.teams)


def writer_of(call: ToolCall) -> Writer:
    return Writer(label=call.credential.label, kind=call.credential.kind, request_id=call.request_id)


# --- Argument checks (each raises ValueError with the message after the field's name; the
# memory fields' checks are memory.agent_memory.drafts', shared with /v1/memory) --------------


def range_check(value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ValueError(f"must be between {low} and {high} (got {value})")
    return value


# --- The ranked text of recall and search_memory -----------------------------------------------


def _attribution_line(item: Item) -> str:
    a = item.attribution
    if item.origin == "agent_memory":
        parts = [f"bucket {a['bucket']}", f"written by {a['written_by'] or 'unknown'} at {a['written_at']}"]
        parts += [f"{name} {a[name]}" for name in ("team", "project") if name in a]
        return "Attribution: agent memory; " + "; ".join(parts)
    parts = [f"section {a['section'] or a['source_path']}", f"file {a['source_path']}"]
    if "effective_date" in a:
        parts.append(f"dated {a['effective_date']}")
    return "Attribution: company fact; " + "; ".join(parts)


def ranked_text(header: str, query: str, items: list[Item], extra: list[str] | None = None) -> str:
    """`### <header>`, the query, `Results: <n>`, then one block per item, best first:
    `<rank>. Reference: <id> | Type: <type> | Location: <path>`, its relevance, content and
    attribution; `No matching XMemo memory was found.` when there is none."""
    lines = [f"### {header}", f"Query: {query}", *(extra or []), f"Results: {len(items)}", ""]
    if not items:
        lines.append(NO_MATCH)
        return "\n".join(lines)
    for rank, item in enumerate(items, 1):
        lines += [
            f"{rank}. Reference: {item.reference} | Type: {item.type} | Location: {item.location}",
            f"   Relevance: {round(item.relevance_score * 100)}%",
            f"   Content: {item.content}",
            f"   {_attribution_line(item)}",
            "",
        ]
    return "\n".join(lines).rstrip("\n")


def ranked_structured(query: str, items: list[Item], **more: Any) -> dict[str, Any]:
    return {"status": "ok", "query": query, **more, "count": len(items), "results": [i.as_dict() for i in items]}
