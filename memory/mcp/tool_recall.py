"""Tool `recall` (SPEC §2.4; seed xmemo-recall.fr.md): a tolerant, best-effort search over the
caller's agent memories and the company facts; ranked text with each result's reference,
location, content and attribution. An empty result is a valid answer, not an error.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, field_validator

from developer_api.models import SCOPE_READ
from memory.agent_memory.selectors import memory_recall
from memory.engine.tokens import count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.agent_memory.drafts import bucket_check, text_check
from memory.mcp.xmemo import MAX_QUERY_CHARS, range_check, ranked_structured, ranked_text, viewer_of

DEFAULT_LIMIT = 5
MAX_LIMIT = 50

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Natural-language question or topic to recall."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        "bucket": {"type": "string", "description": "Only this bucket of agent memories (e.g. public, private)."},
    },
    "required": ["query"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Recall durable context quickly: a tolerant, best-effort search over the memories agents "
    "saved with `remember` and the company's facts, returning the few most relevant, ranked, "
    "each with its reference, location, content and attribution. An empty result means nothing "
    "matched (not an error). Pass `bucket` to search one bucket only. For strict matching use "
    "`search_memory`; for a token-budgeted pack for a prompt use `recall_context`. Read-only."
)


class RecallArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: StrictStr
    limit: StrictInt = DEFAULT_LIMIT
    bucket: StrictStr = None  # type: ignore[assignment]  # absent is fine; null is not

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_QUERY_CHARS)

    @field_validator("limit")
    @classmethod
    def _limit(cls, value: int) -> int:
        return range_check(value, 1, MAX_LIMIT)

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        return bucket_check(value)


def handle(call: ToolCall, args: RecallArguments) -> ToolOutput:
    items = memory_recall(
        workspace=call.workspace, viewer=viewer_of(call), query=args.query, limit=args.limit, bucket=args.bucket
    )
    text = ranked_text("XMemo Recall", args.query, items)
    structured = ranked_structured(args.query, items, limit=args.limit, bucket=args.bucket)
    return ToolOutput(
        text=text, structured=structured, retrieval_ran=True, item_count=len(items), estimated_tokens=count_tokens(text)
    )


TOOL = register(
    Tool(
        name="recall",
        title="Recall memories",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        arguments=RecallArguments,
        handler=handle,
        scope=SCOPE_READ,
        prompt_argument="query",
    )
)
