"""The one path of every `tools/call` (memory.mcp.calls; SPEC §2.2, §2.3, §4, §6).

A throwaway tool registered here, with no code of its own for any of it, gets the request log,
the key touch, the deadline, entitlement, argument errors and error results; through the real
MCP endpoint.
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid
from typing import Any, Callable

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from pydantic import BaseModel, ConfigDict, StrictStr

from developer_api.models import SCOPE_WRITE, AgentKey, RequestLog
from developer_api.services import requests_group, storable
from memory.mcp import tools
from memory.mcp.tools import Tool, ToolCall, ToolOutput
from memory.models import Workspace
from pam.errors import EntitlementRequired, PamError
from tests.conftest import Mcp


class EchoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: StrictStr


def echo(call: ToolCall, args: EchoArguments) -> ToolOutput:
    """Succeeds with the text, or does what the text says."""
    if args.text == "refuse":
        raise PamError("nothing_to_echo", "Nothing to echo here.")
    if args.text == "unentitled":
        raise EntitlementRequired()
    if args.text == "crash":
        raise RuntimeError("a backing service failed")
    if args.text == "slow":
        time.sleep(0.05)
    call.session_id = "echo-session"
    return ToolOutput(text=args.text, structured={"status": "ok", "echo": args.text}, item_count=1)


def echo_tool(**overrides: Any) -> Tool:
    fields: dict[str, Any] = {
        "name": "echo",
        "title": "Echo",
        "description": "Answers with its text.",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
        "arguments": EchoArguments,
        "handler": echo,
    }
    return Tool(**(fields | overrides))


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Tool]:
    """Registers a tool for one test only."""

    def add(tool: Tool) -> Tool:
        tools.tool_get(tool.name)  # the real tools are loaded first
        monkeypatch.setitem(tools.REGISTRY, tool.name, tool)
        return tool

    return add


def logged(workspace: Workspace) -> RequestLog:
    return RequestLog.objects.get(workspace=workspace)


def test_a_registered_tool_is_listed_with_its_definition(mcp: Mcp, register: Any) -> None:
    register(echo_tool())
    listed = {tool["name"]: tool for tool in mcp.request("tools/list").json()["result"]["tools"]}
    assert listed["echo"] == {
        "name": "echo",
        "title": "Echo",
        "description": "Answers with its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    }
    assert "retrieve_memory" in listed


def test_a_registered_tool_is_called_and_logged(mcp: Mcp, workspace: Workspace, agent_key: str, register: Any) -> None:
    register(echo_tool())
    result = mcp.call({"text": "hello"}, name="echo")
    assert result == {
        "content": [{"type": "text", "text": "hello"}],
        "structuredContent": {"status": "ok", "echo": "hello"},
        "isError": False,
    }
    row = logged(workspace)
    assert row.tool_name == "echo"
    assert row.outcome == RequestLog.Outcome.SUCCESS
    assert row.arguments == {"text": "hello"}
    assert row.result == result
    assert row.response_text == "hello"
    assert row.item_count == 1
    assert row.session_id == "echo-session"
    assert row.credential == agent_key[:17]


def test_it_touches_the_key_but_verifies_it_only_through_a_verifying_tool(
    mcp: Mcp, workspace: Workspace, register: Any
) -> None:
    register(echo_tool())
    mcp.call({"text": "hello"}, name="echo")
    key = AgentKey.objects.get(workspace=workspace)
    assert key.last_used_at is not None
    assert key.mcp_verified is False


def test_a_refusal_of_the_service_becomes_an_error_result(mcp: Mcp, workspace: Workspace, register: Any) -> None:
    register(echo_tool())
    result = mcp.call({"text": "refuse"}, name="echo")
    assert result == {
        "content": [{"type": "text", "text": "Nothing to echo here."}],
        "structuredContent": {
            "status": "error",
            "error_code": "nothing_to_echo",
            "error_message": "Nothing to echo here.",
        },
        "isError": True,
    }
    row = logged(workspace)
    assert (row.outcome, row.error_code, row.is_error) == (RequestLog.Outcome.TOOL_ERROR, "nothing_to_echo", True)


def test_an_entitlement_refusal_is_logged_as_blocked(mcp: Mcp, workspace: Workspace, register: Any) -> None:
    register(echo_tool())
    assert mcp.call({"text": "unentitled"}, name="echo")["structuredContent"]["error_code"] == "entitlement_required"
    assert logged(workspace).outcome == RequestLog.Outcome.ENTITLEMENT_BLOCKED


def test_a_disabled_workspace_is_refused_before_the_handler_runs(
    mcp: Mcp, workspace: Workspace, register: Any
) -> None:
    register(echo_tool())
    workspace.disabled = True
    workspace.save()
    result = mcp.call({"text": "crash"}, name="echo")
    assert result["structuredContent"]["error_code"] == "entitlement_required"
    assert logged(workspace).outcome == RequestLog.Outcome.ENTITLEMENT_BLOCKED


def test_an_unexpected_failure_is_memory_unavailable_never_a_500(
    mcp: Mcp, workspace: Workspace, register: Any
) -> None:
    register(echo_tool())
    result = mcp.call({"text": "crash"}, name="echo")
    assert result["isError"] is True
    assert result["structuredContent"]["error_code"] == "memory_unavailable"
    assert logged(workspace).error_code == "memory_unavailable"


def test_a_call_past_the_deadline_answers_retrieval_timeout(
    mcp: Mcp, workspace: Workspace, register: Any, settings: Any
) -> None:
    register(echo_tool())
    settings.PAM_RETRIEVAL_TIMEOUT_S = 0.01
    assert mcp.call({"text": "slow"}, name="echo")["structuredContent"]["error_code"] == "retrieval_timeout"
    row = logged(workspace)
    assert (row.outcome, row.error_code) == (RequestLog.Outcome.TOOL_ERROR, "retrieval_timeout")


def test_its_arguments_are_validated_by_its_model(mcp: Mcp, workspace: Workspace, register: Any) -> None:
    register(echo_tool())
    structured = mcp.call({"text": "hi", "loud": True}, name="echo")["structuredContent"]
    assert structured["error_code"] == "invalid_arguments"
    assert structured["error_message"] == (
        "Invalid arguments: unknown argument 'loud': only 'text' is accepted."
    )
    structured = mcp.call([], name="echo")["structuredContent"]
    assert structured["error_message"] == "Invalid arguments: arguments must be an object."
    assert RequestLog.objects.filter(workspace=workspace, error_code="invalid_arguments").count() == 2


def test_a_tool_needing_another_scope_is_hidden_and_refused_naming_the_scope(
    mcp: Mcp, workspace: Workspace, register: Any
) -> None:
    AgentKey.objects.filter(workspace=workspace).update(scopes=["memory:read"])
    register(echo_tool(scope=SCOPE_WRITE))
    names = [tool["name"] for tool in mcp.request("tools/list").json()["result"]["tools"]]
    assert "echo" not in names
    response = mcp.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "memory:write" in error["message"]
    row = logged(workspace)
    assert (row.tool_name, row.error_code) == ("echo", "unknown_tool")


def test_it_pushes_every_logged_call_to_the_workspace_requests_group(
    mcp: Mcp, workspace: Workspace, register: Any, django_capture_on_commit_callbacks: Any
) -> None:
    register(echo_tool())
    layer = get_channel_layer()
    assert layer is not None
    channel = f"test-requests-{uuid.uuid4().hex}"
    async_to_sync(layer.group_add)(requests_group(workspace.pk), channel)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            mcp.call({"text": "hello"}, name="echo")
        event = async_to_sync(asyncio.wait_for)(layer.receive(channel), 2.0)
    finally:
        async_to_sync(layer.group_discard)(requests_group(workspace.pk), channel)
    row = logged(workspace)
    assert event == {
        "type": "request.logged",
        "request_id": str(row.request_id),
        "tool_name": "echo",
        "outcome": "success",
        "duration_ms": row.duration_ms,
        "created_at": row.created_at.isoformat(),
    }


# --- NaN and Infinity (hardening issue, defect 2) ---------------------------------------------


def test_storable_turns_nan_and_infinity_into_strings() -> None:
    assert storable({"a": [math.nan, math.inf, -math.inf, 1.5]}) == {"a": ["NaN", "Infinity", "-Infinity", 1.5]}


def test_an_unknown_tool_with_nan_arguments_answers_invalid_params_and_is_logged(
    mcp: Mcp, workspace: Workspace
) -> None:
    raw = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "nope", "arguments": {"x": NaN}}}'
    response = mcp.post(None, raw=raw)
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602
    row = logged(workspace)
    assert row.arguments == {"x": "NaN"}
    assert row.error_code == "unknown_tool"


def test_a_tool_call_with_infinite_arguments_is_logged(mcp: Mcp, workspace: Workspace) -> None:
    raw = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "retrieve_memory", "arguments": {"prompt": Infinity}}}'
    result = mcp.post(None, raw=raw).json()["result"]
    assert result["structuredContent"]["error_code"] == "invalid_arguments"
    row = logged(workspace)
    assert row.arguments == {"prompt": "Infinity"}
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR

