"""Tool `recall_context` (SPEC §2.4; seed xmemo-recall_context.pt.md): a token-budgeted pack of
several memories for a prompt; nothing is changed.

`content[0].text` is the seed's public text profile:

    ### XMemo Context
    Items: <n>
    Budget: <used>/<max_tokens> tokens used; <what was dropped or shortened, and why>   (only then)
    Reference: <id> | Type: <type> | Location: <path>        (one line per item)
    Context:
    <body>

or, when nothing matches, `### XMemo Context`, `Items: 0` and `No matching XMemo memory was
found.`. The body is the items' contents joined by a blank line; it never counts more than
`max_tokens` cl100k_base tokens (`memory.engine.tokens`). `structuredContent` is the seed's
structured pack (`version, retrieval_plan, budget, items, context_text`) plus `used_items` and
`used_tokens`, so a small answer can be told from a truncated one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, field_validator

from developer_api.models import SCOPE_READ
from memory.agent_memory.selectors import RECALL_FLOOR, Pack, context_pack
from memory.engine.tokens import ENCODING, count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.agent_memory.drafts import bucket_check, text_check
from memory.mcp.xmemo import MAX_QUERY_CHARS, NO_MATCH, range_check, viewer_of

PACK_VERSION = "1"
DEFAULT_MAX_ITEMS = 8
MAX_ITEMS = 50
DEFAULT_MAX_TOKENS = 1500
MAX_TOKENS = 12000

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Natural-language query the context pack is built for."},
        "max_items": {"type": "integer", "minimum": 1, "maximum": MAX_ITEMS, "default": DEFAULT_MAX_ITEMS},
        "max_tokens": {"type": "integer", "minimum": 1, "maximum": MAX_TOKENS, "default": DEFAULT_MAX_TOKENS},
        "bucket": {"type": "string", "description": "Only this bucket of agent memories."},
    },
    "required": ["query"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Build a bounded context pack for a prompt: several relevant memories (agent memories and "
    "company facts) within `max_items` (1-50, default 8) and `max_tokens` (1-12000, default "
    "1500, counted with the cl100k_base tokenizer on the body after 'Context:'). The answer "
    "lists each item's reference, type and location, says on a 'Budget:' line when items were "
    "dropped or shortened, and reports used_items/used_tokens. Use it at the start of a "
    "session or task to restore context; use `recall` for a quick look. Read-only."
)


class RecallContextArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: StrictStr
    max_items: StrictInt = DEFAULT_MAX_ITEMS
    max_tokens: StrictInt = DEFAULT_MAX_TOKENS
    bucket: StrictStr = None  # type: ignore[assignment]

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_QUERY_CHARS)

    @field_validator("max_items")
    @classmethod
    def _max_items(cls, value: int) -> int:
        return range_check(value, 1, MAX_ITEMS)

    @field_validator("max_tokens")
    @classmethod
    def _max_tokens(cls, value: int) -> int:
        return range_check(value, 1, MAX_TOKENS)

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        return bucket_check(value)


def _plural(n: int, word: str = "item") -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def budget_line(pack: Pack) -> str | None:
    """The `Budget:` line: only when items were dropped or shortened, saying how many and why."""
    reasons = []
    if pack.shortened:
        reasons.append(f"{_plural(pack.shortened)} shortened to fit max_tokens={pack.max_tokens}")
    if pack.dropped_over_tokens:
        reasons.append(f"{_plural(pack.dropped_over_tokens)} dropped to fit max_tokens={pack.max_tokens}")
    if pack.dropped_over_items:
        reasons.append(f"{_plural(pack.dropped_over_items)} dropped over max_items={pack.max_items}")
    if not reasons:
        return None
    return f"Budget: {pack.used_tokens}/{pack.max_tokens} tokens used; " + "; ".join(reasons)


def render(pack: Pack) -> str:
    lines = ["### XMemo Context", f"Items: {pack.used_items}"]
    if pack.candidates == 0:
        return "\n".join([*lines, NO_MATCH])
    line = budget_line(pack)
    if line:
        lines.append(line)
    for packed in pack.items:
        item = packed.item
        lines.append(f"Reference: {item.reference} | Type: {item.type} | Location: {item.location}")
    lines.append("Context:")
    return "\n".join(lines) + "\n" + pack.body


def handle(call: ToolCall, args: RecallContextArguments) -> ToolOutput:
    pack = context_pack(
        workspace=call.workspace,
        viewer=viewer_of(call),
        query=args.query,
        max_items=args.max_items,
        max_tokens=args.max_tokens,
        bucket=args.bucket,
    )
    text = render(pack)
    structured = {
        "status": "ok",
        "version": PACK_VERSION,
        "retrieval_plan": {
            "query": args.query,
            "strategy": "tolerant",
            "sources": ["agent_memory"] if args.bucket else ["agent_memory", "company_facts"],
            "bucket": args.bucket,
            "min_relevance": RECALL_FLOOR,
            "candidates": pack.candidates,
        },
        "budget": {
            "max_items": pack.max_items,
            "max_tokens": pack.max_tokens,
            "used_items": pack.used_items,
            "used_tokens": pack.used_tokens,
            "dropped_over_items": pack.dropped_over_items,
            "dropped_over_tokens": pack.dropped_over_tokens,
            "shortened_items": pack.shortened,
            "truncated": bool(pack.shortened or pack.dropped_over_tokens or pack.dropped_over_items),
            "tokenizer": ENCODING,
        },
        "items": [
            packed.item.as_dict() | {"text": packed.text, "tokens": packed.tokens, "shortened": packed.shortened}
            for packed in pack.items
        ],
        "context_text": pack.body,
        "used_items": pack.used_items,
        "used_tokens": pack.used_tokens,
    }
    return ToolOutput(
        text=text,
        structured=structured,
        retrieval_ran=True,
        item_count=pack.used_items,
        estimated_tokens=count_tokens(text),
    )


TOOL = register(
    Tool(
        name="recall_context",
        title="Recall a context pack",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        arguments=RecallContextArguments,
        handler=handle,
        scope=SCOPE_READ,
        prompt_argument="query",
    )
)
