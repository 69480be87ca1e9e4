"""The tool registry: name → published definition, argument model and handler.

Each tool validates its arguments with one pydantic model (`extra="forbid"`), while
`tools/list` publishes the literal `inputSchema` of the SPEC, whatever the validator is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel

if TYPE_CHECKING:
    from memory.mcp.credentials import Credential


@dataclass
class CallContext:
    credential: Credential
    handshake_session_id: str | None  # the Mcp-Session-Id header when valid


@dataclass
class ToolResult:
    content: list[dict[str, Any]]
    structured: dict[str, Any]
    is_error: bool

    def as_json(self) -> dict[str, Any]:
        return {"content": self.content, "structuredContent": self.structured, "isError": self.is_error}


@dataclass
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    arguments: type[BaseModel]
    handler: Callable[[CallContext, Any], ToolResult]
    scope: str = "memory:read"
    extra: dict[str, Any] = field(default_factory=dict)

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }


_REGISTRY: dict[str, Tool] = {}


def register(tool: Tool) -> Tool:
    _REGISTRY[tool.name] = tool
    return tool


def _load() -> None:
    # Tool families register themselves on import.
    from memory.mcp import tool_retrieve_memory  # noqa: F401


def tools_for(scopes: frozenset[str]) -> list[Tool]:
    _load()
    return [tool for tool in _REGISTRY.values() if tool.scope in scopes]


def tool_named(name: str, scopes: frozenset[str]) -> Tool | None:
    _load()
    tool = _REGISTRY.get(name)
    if tool is None or tool.scope not in scopes:
        return None
    return tool
