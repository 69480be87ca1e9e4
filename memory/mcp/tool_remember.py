"""Tool `remember` (SPEC §2.4): persist a durable memory once the workspace's capture policy
approves it (`capture_refused` with the reason otherwise). `semantic_key` upserts; a
near-duplicate on the same path is merged, not stored twice. Needs `memory:write`.
"""

from __future__ import annotations

from typing import Any

from developer_api.models import SCOPE_WRITE
from memory.agent_memory.drafts import MEMORY_FIELDS_SCHEMA, MemoryFields
from memory.agent_memory.services import memory_remember
from memory.engine.live import source_path
from memory.engine.tokens import count_tokens
from memory.mcp.tools import Tool, ToolCall, ToolOutput, register
from memory.mcp.xmemo import viewer_of, writer_of

INPUT_SCHEMA: dict[str, Any] = MEMORY_FIELDS_SCHEMA

DESCRIPTION = (
    "Remember a durable fact, decision or preference so later sessions can recall it. The "
    "workspace's capture policy refuses secrets (API keys, tokens, passwords, private keys, "
    "connection strings) with `capture_refused`. A `semantic_key` updates the memory holding "
    "that key; a near-duplicate on the same path is merged. Answers the memory's reference, "
    "which `forget` accepts. Needs the memory:write scope."
)


class RememberArguments(MemoryFields):
    """The memory's fields, checked as POST /v1/memory and a JSONL import check them."""


def handle(call: ToolCall, args: RememberArguments) -> ToolOutput:
    draft = args.draft()
    done = memory_remember(workspace=call.workspace, viewer=viewer_of(call), writer=writer_of(call), draft=draft)
    memory = done.memory
    verb = {"created": "Remembered", "updated": "Updated", "merged": "Merged into"}[done.action]
    text = "\n".join(
        [
            "### XMemo Remember",
            f"{verb} {memory.reference}.",
            f"Reference: {memory.reference} | Type: {memory.memory_type} | Location: {memory.path}",
            f"Bucket: {memory.bucket}",
            f"Action: {done.action}",
        ]
    )
    structured = {
        "status": "ok",
        "action": done.action,
        "reference": memory.reference,
        "path": memory.path,
        "bucket": memory.bucket,
        "team": memory.team,
        "project": memory.project,
        "memory_type": memory.memory_type,
        "source_path": source_path(memory.bucket),
        "semantic_key": memory.semantic_key,
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "expires_at": memory.expires_at.isoformat() if memory.expires_at else None,
    }
    return ToolOutput(text=text, structured=structured, item_count=1, estimated_tokens=count_tokens(text))


TOOL = register(
    Tool(
        name="remember",
        title="Remember a durable memory",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations={"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
        arguments=RememberArguments,
        handler=handle,
        scope=SCOPE_WRITE,
        prompt_argument="content",
    )
)
