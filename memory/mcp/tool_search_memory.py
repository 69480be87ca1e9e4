"""Tool `search_memory` (SPEC §2.4): strict matching over the caller's agent memories and the
company facts. Weak matches are not returned and every filter (project, team, bucket,
path_filter, memory_type) is applied exactly; a bucket or team the credential cannot see is
`invalid_arguments`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, field_validator

from developer_api.models import SCOPE_READ
from memory.agent_memory.selectors import STRICT_FLOOR, SearchFilters, memory_search
from memory.engine.tokens import count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.agent_memory.drafts import bucket_check, label_check, memory_type_check, path_check, text_check
from memory.mcp.xmemo import MAX_QUERY_CHARS, range_check, ranked_structured, ranked_text, viewer_of

DEFAULT_LIMIT = 10
MAX_LIMIT = 50

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What must match."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        "project": {"type": "string", "description": "Only memories of this project."},
        "team": {"type": "string", "description": "Only memories of this team."},
        "bucket": {"type": "string", "description": "Only this bucket."},
        "path_filter": {"type": "string", "description": "An exact path, or a folder: 'projects/pam' matches 'projects/pam/…'."},
        "memory_type": {"type": "string", "description": "Only this type (e.g. decision, note; 'fact' for company facts)."},
    },
    "required": ["query"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Search memory strictly: only memories that clearly match the query are returned (weak "
    "matches are left out), with exact filters on project, team, bucket, path and memory type. "
    "Use it when an approximate answer would be unsafe; use `recall` for a tolerant quick look. "
    "Each result gives its reference, location, content and attribution. Read-only."
)


class SearchMemoryArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: StrictStr
    limit: StrictInt = DEFAULT_LIMIT
    project: StrictStr = None  # type: ignore[assignment]
    team: StrictStr = None  # type: ignore[assignment]
    bucket: StrictStr = None  # type: ignore[assignment]
    path_filter: StrictStr = None  # type: ignore[assignment]
    memory_type: StrictStr = None  # type: ignore[assignment]

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_QUERY_CHARS)

    @field_validator("limit")
    @classmethod
    def _limit(cls, value: int) -> int:
        return range_check(value, 1, MAX_LIMIT)

    @field_validator("project", "team")
    @classmethod
    def _label(cls, value: str) -> str:
        return label_check(value)

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        return bucket_check(value)

    @field_validator("path_filter")
    @classmethod
    def _path(cls, value: str) -> str:
        return path_check(value)

    @field_validator("memory_type")
    @classmethod
    def _memory_type(cls, value: str) -> str:
        return memory_type_check(value)


def handle(call: ToolCall, args: SearchMemoryArguments) -> ToolOutput:
    filters = SearchFilters(
        project=args.project, team=args.team, bucket=args.bucket, path_filter=args.path_filter, memory_type=args.memory_type
    )
    items = memory_search(
        workspace=call.workspace, viewer=viewer_of(call), query=args.query, limit=args.limit, filters=filters
    )
    shown = filters.as_dict()
    extra = [f"Filters: {', '.join(f'{k}={v}' for k, v in shown.items())}"] if shown else []
    text = ranked_text("XMemo Search", args.query, items, extra)
    structured = ranked_structured(
        args.query, items, limit=args.limit, filters=shown, match="strict", min_relevance=STRICT_FLOOR
    )
    return ToolOutput(
        text=text, structured=structured, retrieval_ran=True, item_count=len(items), estimated_tokens=count_tokens(text)
    )


TOOL = register(
    Tool(
        name="search_memory",
        title="Search memory (strict)",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        arguments=SearchMemoryArguments,
        handler=handle,
        scope=SCOPE_READ,
        prompt_argument="query",
    )
)
