"""Helpers of the XMemo tool tests (SPEC §2.4): keys with chosen scopes, buckets and teams,
calls through the real MCP endpoint, and agent memories as an earlier analyzer stored them."""

from __future__ import annotations

from typing import Any

from django.test import Client

from developer_api.keys import api_key_rotate
from developer_api.models import SCOPE_READ
from memory.engine.live import memory_index
from memory.engine.tokens import count_tokens
from memory.models import AgentMemory, Workspace
from tests.conftest import Mcp

XMEMO_TOOLS = ["recall", "recall_context", "search_memory", "remember", "forget"]
READ_TOOLS = ["retrieve_memory", "recall", "recall_context", "search_memory"]


def analysed_before(memory: AgentMemory, terms: str) -> None:
    """Store a saved memory's terms as an earlier analyzer wrote them (`terms`, space
    separated) and index those: what a migration that analyses memories again must mend."""
    memory.content_terms = f" {terms.strip()} "
    memory.save()
    memory_index([memory])


def mcp_for(
    workspace: Workspace,
    *,
    scopes: list[str] | None = None,
    buckets: list[str] | None = None,
    teams: list[str] | None = None,
) -> Mcp:
    """A client with a fresh key of `workspace` (the previous key is revoked)."""
    key = api_key_rotate(workspace=workspace, scopes=scopes, buckets=buckets, teams=teams).api_key
    return Mcp(Client(), key)


def read_only(workspace: Workspace) -> Mcp:
    return mcp_for(workspace, scopes=[SCOPE_READ])


def remember(mcp: Mcp, content: str, path: str = "projects/pam/decisions", **more: Any) -> dict[str, Any]:
    result = mcp.call({"path": path, "content": content, **more}, name="remember")
    assert result["isError"] is False, result
    return dict(result["structuredContent"])


def listed(mcp: Mcp) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.request("tools/list").json()["result"]["tools"]}


def error_of(result: dict[str, Any]) -> tuple[str, str]:
    assert result["isError"] is True, result
    return result["structuredContent"]["error_code"], result["structuredContent"]["error_message"]


def body_of(text: str) -> str:
    """The recall_context body: everything after the `Context:` line."""
    head, sep, body = text.partition("\nContext:\n")
    assert sep, text
    return body


def tokens(text: str) -> int:
    return count_tokens(text)
