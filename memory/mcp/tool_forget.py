"""Tool `forget` (SPEC §2.4): `target` is a memory reference (`mem_…`) or an exact path of
agent memories; every matching memory the caller can see is soft-deleted at once, with an
audit row (who, when, why). Needs `memory:write`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr, field_validator

from developer_api.models import SCOPE_WRITE
from memory.agent_memory.services import memory_forget
from memory.engine.tokens import count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.agent_memory.drafts import path_check, text_check
from memory.mcp.xmemo import viewer_of, writer_of

MAX_REASON_CHARS = 1000

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "target": {"type": "string", "description": "A memory reference (mem_…) or an exact memory path."},
        "reason": {"type": "string", "description": "Why it is forgotten (kept in the audit trail)."},
    },
    "required": ["target", "reason"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Forget agent memories: `target` is a memory reference returned by remember/recall "
    "(mem_…) or an exact path, which forgets every memory you can see at that path. The "
    "memories leave every answer at once; an audit row keeps who, when and `reason`. Company "
    "facts from connected sources cannot be forgotten here. Needs the memory:write scope."
)


class ForgetArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: StrictStr
    reason: StrictStr

    @field_validator("target")
    @classmethod
    def _target(cls, value: str) -> str:
        return path_check(value)

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        return text_check(value, max_chars=MAX_REASON_CHARS).strip()


def handle(call: ToolCall, args: ForgetArguments) -> ToolOutput:
    forgotten = memory_forget(
        workspace=call.workspace, viewer=viewer_of(call), writer=writer_of(call), target=args.target, reason=args.reason
    )
    lines = ["### XMemo Forget", f"Forgotten: {len(forgotten)}", f"Reason: {args.reason}"]
    lines += [f"Reference: {m.reference} | Type: {m.memory_type} | Location: {m.path}" for m in forgotten]
    text = "\n".join(lines)
    structured = {
        "status": "ok",
        "target": args.target,
        "reason": args.reason,
        "forgotten": [m.reference for m in forgotten],
        "count": len(forgotten),
        "forgotten_at": forgotten[0].deleted_at.isoformat() if forgotten and forgotten[0].deleted_at else None,
    }
    return ToolOutput(text=text, structured=structured, item_count=len(forgotten), estimated_tokens=count_tokens(text))


TOOL = register(
    Tool(
        name="forget",
        title="Forget memories",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
        arguments=ForgetArguments,
        handler=handle,
        scope=SCOPE_WRITE,
        prompt_argument="target",
    )
)
