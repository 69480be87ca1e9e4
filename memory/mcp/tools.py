"""The tool registry (SPEC §2.2, §2.3, §4): what a tool declares, and nothing it does.

A tool is one module `memory/mcp/tool_<name>.py`, listed in `TOOL_MODULES`, that registers a
`Tool`: its published definition (the literal `inputSchema` of the SPEC, whatever validates
it), one pydantic argument model (`extra="forbid"`), the scope a credential needs and a handler
`handle(call, args) -> ToolOutput` that calls one service and shapes its answer. The service
raises `PamError` (`pam.errors`) for every refusal. Entitlement, quota, argument validation,
the deadline, error results, the request log and the key touch are `memory.mcp.calls`, the
one path every `tools/call` takes.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel

from developer_api.models import SCOPE_READ

if TYPE_CHECKING:
    from memory.mcp.credentials import Credential
    from memory.models import Workspace

# Modules that register tools when imported.
TOOL_MODULES = (
    "memory.mcp.tool_retrieve_memory",
    "memory.mcp.tool_recall",
    "memory.mcp.tool_recall_context",
    "memory.mcp.tool_search_memory",
    "memory.mcp.tool_remember",
    "memory.mcp.tool_forget",
)


@dataclass
class CallContext:
    """What the transport knows about a request."""

    credential: Credential
    handshake_session_id: str | None  # the Mcp-Session-Id header when valid


@dataclass
class ToolCall:
    """What a handler knows about its call."""

    credential: Credential
    request_id: str  # the request log's id, also `diagnostics.request_id` of retrieve_memory
    started: float  # time.monotonic() when the call arrived
    deadline: float  # time.monotonic() past which the call answers `retrieval_timeout`
    session_id: str  # the handshake session; a handler sets the session it used (logged)

    @property
    def workspace(self) -> Workspace:
        return self.credential.workspace


@dataclass
class ToolOutput:
    """A successful answer: the text content, the structured content and the request log's
    figures (SPEC §2.2)."""

    text: str
    structured: dict[str, Any]
    retrieval_ran: bool = False
    triage_only: bool = False
    item_count: int = 0
    estimated_tokens: int = 0
    llm_calls: int = 0


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    arguments: type[BaseModel]
    handler: Callable[[ToolCall, Any], ToolOutput]  # called with an instance of `arguments`
    scope: str = SCOPE_READ
    # SPEC §3.2: only retrieve_memory counts against the hourly limit and the allowances.
    counts_against_quota: bool = False
    # SPEC §2.2: a key becomes `mcp_verified` after its first successful call of this tool.
    verifies_key: bool = False
    # SPEC §2.2: the argument the request log keeps in its prompt column.
    prompt_argument: str = "prompt"

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }


REGISTRY: dict[str, Tool] = {}


def register(tool: Tool) -> Tool:
    REGISTRY[tool.name] = tool
    return tool


def _load() -> None:
    for module in TOOL_MODULES:
        importlib.import_module(module)  # registers on first import


def tools_for(scopes: frozenset[str]) -> list[Tool]:
    """The tools a credential with `scopes` sees in `tools/list`."""
    _load()
    return [tool for tool in REGISTRY.values() if tool.scope in scopes]


def prompt_argument(name: str) -> str:
    """The argument of tool `name` logged as the prompt ("prompt" for an unknown tool)."""
    tool = tool_get(name)
    return tool.prompt_argument if tool is not None else "prompt"


def tool_get(name: str) -> Tool | None:
    _load()
    return REGISTRY.get(name)
