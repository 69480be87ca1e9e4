"""`POST /v1/mcp/memory`: the transport rules of SPEC §2.1, grouped by the spec they come from.

MCP 2025-11-25, Transports §Streamable HTTP and Lifecycle; JSON-RPC 2.0 §4/§5; RFC 6750 §3 and
RFC 9728 §5.1 for the 401 challenge. Each test is one row of the SPEC §2.1 table or one step of
its order of checks.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from developer_api.keys import api_key_revoke, api_key_rotate
from memory.models import McpSession, Workspace
from tests.conftest import Mcp

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
RETRIEVE_MEMORY_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"prompt": {"type": "string"}, "session_id": {"type": "string"}},
    "required": ["prompt"],
}


def json_body(response: Any) -> Any:
    """The decoded body, after checking that every non-202 answer is application/json."""
    assert response["Content-Type"].split(";")[0].strip() == "application/json", response["Content-Type"]
    return json.loads(response.content)


def expected_challenge(base_url: str) -> str:
    metadata = f"{base_url}/.well-known/oauth-protected-resource/v1/mcp/memory"
    return f'Bearer resource_metadata="{metadata}", scope="memory:read"'


def assert_invalid_token(response: Any, base_url: str) -> None:
    assert response.status_code == 401
    body = json_body(response)
    assert body["error"] == "invalid_token"
    assert isinstance(body["error_description"], str) and body["error_description"]
    assert response["WWW-Authenticate"] == expected_challenge(base_url)


def assert_jsonrpc_error(response: Any, status: int, code: int, msg_id: Any = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = json_body(response)
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == msg_id
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert "result" not in body
    return body["error"]


def other_workspace_key(make_workspace: Any, slug: str = "beta") -> tuple[Workspace, str]:
    other = make_workspace(slug)
    return other, api_key_rotate(workspace=other).api_key


# --- RFC 6750 §3 / RFC 9728 §5.1: credentials ---------------------------------------------------


def test_it_answers_401_without_authorization(mcp: Mcp, settings: Any) -> None:
    response = mcp.request("ping", key=None)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_answers_401_with_a_blank_authorization(mcp: Mcp, settings: Any) -> None:
    response = mcp.request("ping", key="   ")
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_answers_401_for_an_unknown_key(mcp: Mcp, settings: Any) -> None:
    response = mcp.request("ping", key="pam_mkey_" + "A" * 32)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_answers_401_for_a_key_that_differs_only_after_its_prefix(
    mcp: Mcp, agent_key: str, settings: Any
) -> None:
    tampered = agent_key[:-1] + ("a" if agent_key[-1] != "a" else "b")
    response = mcp.request("ping", key=tampered)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_answers_401_for_a_revoked_key(mcp: Mcp, workspace: Workspace, settings: Any) -> None:
    assert mcp.request("ping").status_code == 200
    assert api_key_revoke(workspace=workspace) is True
    response = mcp.request("ping")
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_builds_the_challenge_from_the_public_base_url(mcp: Mcp, settings: Any) -> None:
    settings.PAM_PUBLIC_BASE_URL = "https://memory.acme.example"
    response = mcp.request("ping", key=None)
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="https://memory.acme.example/.well-known/oauth-protected-resource'
        '/v1/mcp/memory", scope="memory:read"'
    )


def test_it_refuses_a_developer_api_jwt(mcp: Mcp, client: Client, workspace: Workspace, settings: Any) -> None:
    login = client.post(
        "/v1/auth/token",
        data={"email": "admin@acme.example", "password": "pw-123456789"},
        content_type="application/json",
    )
    assert login.status_code == 200, login.content
    access = login.json()["access"]
    # The same JWT is good on the Developer API...
    assert client.get("/v1/dev/readiness", headers={"Authorization": f"Bearer {access}"}).status_code == 200
    # ...and refused on the MCP endpoint: only agent keys and OAuth tokens are accepted here.
    response = mcp.request("ping", key=f"Bearer {access}")
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)
    response = mcp.request("ping", key=access)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_accepts_a_bare_agent_key(mcp: Mcp, agent_key: str) -> None:
    response = mcp.request("ping", key=agent_key)
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


def test_it_accepts_an_agent_key_as_a_bearer_token(mcp: Mcp, agent_key: str) -> None:
    response = mcp.request("ping", key=f"Bearer {agent_key}")
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


# --- MCP 2025-11-25, Transports §Security Warning: Origin (DNS rebinding) -----------------------


def test_it_forbids_a_foreign_origin(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    json_body(response)


def test_it_answers_403_with_a_jsonrpc_error_without_id(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Origin": "http://127.0.0.1.evil.example"})
    assert_jsonrpc_error(response, 403, -32600, None)


def test_it_forbids_the_null_origin(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Origin": "null"})
    assert response.status_code == 403
    json_body(response)


def test_it_allows_the_origin_of_the_public_base_url(mcp: Mcp, settings: Any) -> None:
    parts = urlsplit(settings.PAM_PUBLIC_BASE_URL)
    response = mcp.request("ping", headers={"Origin": f"{parts.scheme}://{parts.netloc}"})
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


def test_it_allows_an_origin_on_the_allowed_list(mcp: Mcp, settings: Any) -> None:
    settings.PAM_ALLOWED_ORIGINS = ["https://claude.ai"]
    response = mcp.request("ping", headers={"Origin": "https://claude.ai"})
    assert response.status_code == 200
    assert mcp.request("ping", headers={"Origin": "https://chatgpt.com"}).status_code == 403


def test_it_serves_requests_without_an_origin(mcp: Mcp) -> None:
    assert mcp.request("ping").status_code == 200


# --- Body size (SPEC §2.1: 413 with a JSON-RPC error, id null, -32600) -------------------------


def padded(message: dict[str, Any], size: int) -> bytes:
    raw = json.dumps(message).encode()
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))  # trailing whitespace is still valid JSON


def test_it_answers_413_for_a_body_over_the_limit(mcp: Mcp, settings: Any) -> None:
    settings.PAM_MAX_REQUEST_BYTES = 200
    response = mcp.post(None, raw=padded(PING, 201))
    assert_jsonrpc_error(response, 413, -32600, None)


def test_it_accepts_a_body_exactly_at_the_limit(mcp: Mcp, settings: Any) -> None:
    settings.PAM_MAX_REQUEST_BYTES = 200
    response = mcp.post(None, raw=padded(PING, 200))
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


def test_it_answers_413_for_a_two_mebibyte_body_with_the_default_limit(mcp: Mcp, settings: Any) -> None:
    assert settings.PAM_MAX_REQUEST_BYTES == 1024 * 1024
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "retrieve_memory", "arguments": {"prompt": "x" * (2 * 1024 * 1024)}},
    }
    response = mcp.post(message)
    assert_jsonrpc_error(response, 413, -32600, None)


# --- Order of checks (SPEC §2.1) ---------------------------------------------------------------


def test_it_checks_the_body_size_before_credentials(mcp: Mcp, settings: Any) -> None:
    settings.PAM_MAX_REQUEST_BYTES = 100
    response = mcp.post(None, raw=padded(PING, 101), key=None)
    assert_jsonrpc_error(response, 413, -32600, None)


def test_it_checks_the_origin_before_the_body_size_and_credentials(mcp: Mcp, settings: Any) -> None:
    settings.PAM_MAX_REQUEST_BYTES = 100
    response = mcp.post(None, raw=padded(PING, 101), key=None, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403


def test_it_checks_credentials_before_parsing_json(mcp: Mcp, settings: Any) -> None:
    response = mcp.post(None, raw=b"{not json", key=None)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


def test_it_checks_the_message_shape_before_the_protocol_version(mcp: Mcp) -> None:
    response = mcp.post([PING], headers={"MCP-Protocol-Version": "2025-11-25"})
    assert_jsonrpc_error(response, 400, -32600, None)
    response = mcp.post(None, raw=b"{", headers={"MCP-Protocol-Version": "1999-01-01"})
    assert_jsonrpc_error(response, 400, -32700, None)


def test_it_checks_the_protocol_version_before_the_session(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"MCP-Protocol-Version": "1999-01-01", "Mcp-Session-Id": "nope"})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


def test_it_checks_the_session_before_the_method(mcp: Mcp) -> None:
    response = mcp.request("no/such/method", headers={"Mcp-Session-Id": "nope"})
    assert response.status_code == 404


# --- JSON-RPC 2.0 §4/§5: parse errors and message shape ----------------------------------------


def test_it_answers_400_parse_error_for_invalid_json(mcp: Mcp) -> None:
    response = mcp.post(None, raw=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"')
    assert_jsonrpc_error(response, 400, -32700, None)


def test_it_answers_400_parse_error_for_a_body_that_is_not_utf8(mcp: Mcp) -> None:
    response = mcp.post(None, raw=b"\xff\xfe\xfa")
    assert_jsonrpc_error(response, 400, -32700, None)


def test_it_answers_400_parse_error_for_an_empty_body(mcp: Mcp) -> None:
    response = mcp.post(None, raw=b"")
    assert_jsonrpc_error(response, 400, -32700, None)


@pytest.mark.parametrize("depth", [2000, 900, 65])
def test_it_answers_400_parse_error_for_deeply_nested_json(mcp: Mcp, depth: int) -> None:
    # Issue 17 defect 1: RecursionError escaped as a 500 (in the Developer API's shape).
    arguments = '{"prompt": ' + "[" * depth + "]" * depth + "}"
    raw = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "retrieve_memory", "arguments": ' + arguments + "}}"
    assert_jsonrpc_error(mcp.post(None, raw=raw.encode()), 400, -32700, None)
    assert_jsonrpc_error(mcp.post(None, raw=("[" * depth + "]" * depth).encode()), 400, -32700, None)


def test_it_refuses_a_batch(mcp: Mcp) -> None:
    response = mcp.post([PING, {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    assert_jsonrpc_error(response, 400, -32600, None)


def test_it_refuses_an_empty_batch(mcp: Mcp) -> None:
    response = mcp.post([])
    assert_jsonrpc_error(response, 400, -32600, None)


@pytest.mark.parametrize("message", ["ping", 42, None, True], ids=["string", "number", "null", "bool"])
def test_it_refuses_a_message_that_is_not_an_object(mcp: Mcp, message: Any) -> None:
    response = mcp.post(message)
    assert_jsonrpc_error(response, 400, -32600, None)


def test_it_refuses_a_message_without_jsonrpc(mcp: Mcp) -> None:
    response = mcp.post({"id": 1, "method": "ping"})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


def test_it_refuses_a_message_with_the_wrong_jsonrpc_version(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "1.0", "id": 1, "method": "ping"})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


def test_it_refuses_a_request_with_a_null_id(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": None, "method": "ping"})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


def test_it_refuses_a_message_without_method_result_or_error(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 1})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


def test_it_refuses_a_request_with_params_that_are_not_an_object(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1, 2]})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600


# --- MCP 2025-11-25, Transports §Protocol Version Header ---------------------------------------


def test_it_refuses_an_unsupported_protocol_version_header(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 400
    error = json_body(response)["error"]
    assert error["code"] == -32600
    for version in SUPPORTED_VERSIONS:
        assert version in error["message"]


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_it_accepts_a_supported_protocol_version_header(mcp: Mcp, version: str) -> None:
    response = mcp.request("ping", headers={"MCP-Protocol-Version": version})
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


# --- MCP 2025-11-25, Lifecycle §Initialization and §Version Negotiation ------------------------


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_it_echoes_a_supported_protocol_version_on_initialize(mcp: Mcp, version: str) -> None:
    response = mcp.request(
        "initialize",
        {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    assert response.status_code == 200
    assert json_body(response)["result"]["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2024-11-05", "2099-01-01", None])
def test_it_answers_its_latest_version_to_an_unknown_one(mcp: Mcp, version: str | None) -> None:
    params: dict[str, Any] = {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    if version is not None:
        params["protocolVersion"] = version
    response = mcp.request("initialize", params)
    assert response.status_code == 200
    assert json_body(response)["result"]["protocolVersion"] == "2025-11-25"


def test_it_answers_initialize_with_capabilities_server_info_and_instructions(mcp: Mcp) -> None:
    response = mcp.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    assert response.status_code == 200
    body = json_body(response)
    assert body["jsonrpc"] == "2.0" and body["id"] == 1
    result = body["result"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "pam_memory_mcp"
    assert isinstance(result["serverInfo"]["version"], str) and result["serverInfo"]["version"]
    assert isinstance(result["instructions"], str) and "retrieve_memory" in result["instructions"]
    assert response["Mcp-Session-Id"]
    assert McpSession.objects.filter(session_id=response["Mcp-Session-Id"]).exists()


def test_it_returns_one_session_per_workspace(mcp: Mcp, client: Client, make_workspace: Any) -> None:
    first = mcp.request("initialize", {"protocolVersion": "2025-11-25"})
    second = mcp.request("initialize", {"protocolVersion": "2025-06-18"})
    assert first["Mcp-Session-Id"] == second["Mcp-Session-Id"]

    _, other_key = other_workspace_key(make_workspace)
    other = Mcp(client, other_key).request("initialize", {"protocolVersion": "2025-11-25"})
    assert other.status_code == 200
    assert other["Mcp-Session-Id"] != first["Mcp-Session-Id"]


def test_it_keeps_a_session_for_thirty_days_from_creation(mcp: Mcp, workspace: Workspace) -> None:
    session_id = mcp.request("initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
    session = McpSession.objects.get(session_id=session_id)
    assert session.workspace_id == workspace.pk
    assert session.expires_at - session.created_at == timedelta(days=30)


def test_it_only_sends_the_session_header_on_initialize(mcp: Mcp) -> None:
    session_id = mcp.request("initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
    response = mcp.request("ping", headers={"Mcp-Session-Id": session_id})
    assert response.status_code == 200
    assert not response.has_header("Mcp-Session-Id")


# --- MCP 2025-11-25, Transports §Sending Messages: notifications and responses ----------------


def test_it_accepts_a_notification_with_202_and_no_body(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert response.status_code == 202
    assert response.content == b""


def test_it_accepts_an_unknown_notification_with_202(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    assert response.status_code == 202
    assert response.content == b""


def test_it_accepts_a_client_response_with_202(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 7, "result": {}})
    assert response.status_code == 202
    assert response.content == b""


def test_it_still_authenticates_notifications(mcp: Mcp, settings: Any) -> None:
    response = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, key=None)
    assert_invalid_token(response, settings.PAM_PUBLIC_BASE_URL)


# --- MCP 2025-11-25, Basic §Utilities and Server Features: methods ----------------------------


def test_it_echoes_a_zero_id(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 0, "method": "ping"})
    assert response.status_code == 200
    assert json_body(response) == {"jsonrpc": "2.0", "id": 0, "result": {}}


def test_it_does_not_check_accept(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert json_body(response)["result"] == {}


def test_it_accepts_meta_in_tool_call_params(mcp: Mcp) -> None:
    response = mcp.request(
        "tools/call",
        {"name": "retrieve_memory", "arguments": {"prompt": "Who owns Meridian?"}, "_meta": {"progressToken": 1}},
    )
    assert response.status_code == 200
    assert json_body(response)["result"]["structuredContent"]["error_code"] == "no_sources_connected"


def test_it_answers_ping_with_an_empty_object(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": "abc", "method": "ping"})
    assert response.status_code == 200
    assert json_body(response) == {"jsonrpc": "2.0", "id": "abc", "result": {}}


def test_it_lists_retrieve_memory(mcp: Mcp) -> None:
    response = mcp.request("tools/list")
    assert response.status_code == 200
    tools = {tool["name"]: tool for tool in json_body(response)["result"]["tools"]}
    tool = tools["retrieve_memory"]
    assert tool["inputSchema"] == RETRIEVE_MEMORY_INPUT_SCHEMA
    assert tool["title"] == "Retrieve company memory"
    assert isinstance(tool["description"], str) and "company" in tool["description"].lower()
    assert tool["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert "outputSchema" not in tool


def test_it_publishes_the_input_schema_byte_for_byte(mcp: Mcp) -> None:
    raw = json.loads(mcp.request("tools/list").content)
    tool = next(t for t in raw["result"]["tools"] if t["name"] == "retrieve_memory")
    assert json.dumps(tool["inputSchema"], separators=(",", ":")) == (
        '{"type":"object","properties":{"prompt":{"type":"string"},"session_id":{"type":"string"}},'
        '"required":["prompt"]}'
    )


def test_it_lists_no_resources(mcp: Mcp) -> None:
    response = mcp.request("resources/list")
    assert response.status_code == 200
    assert json_body(response)["result"] == {"resources": []}


def test_it_lists_no_prompts(mcp: Mcp) -> None:
    response = mcp.request("prompts/list")
    assert response.status_code == 200
    assert json_body(response)["result"] == {"prompts": []}


def test_it_answers_method_not_found_for_an_unknown_method(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 5, "method": "does/not/exist"})
    assert_jsonrpc_error(response, 200, -32601, 5)


def test_it_answers_method_not_found_for_server_discover(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 6, "method": "server/discover", "params": {}})
    assert_jsonrpc_error(response, 200, -32601, 6)


def test_it_answers_invalid_params_for_an_unknown_tool(mcp: Mcp) -> None:
    response = mcp.post(
        {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "drop_tables", "arguments": {}}}
    )
    assert_jsonrpc_error(response, 200, -32602, 8)


def test_it_answers_invalid_params_for_a_tool_call_without_a_name(mcp: Mcp) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"arguments": {}}})
    assert_jsonrpc_error(response, 200, -32602, 9)


def test_it_answers_bad_tool_arguments_with_a_tool_result(mcp: Mcp) -> None:
    response = mcp.request("tools/call", {"name": "retrieve_memory", "arguments": {"prompt": 3}})
    assert response.status_code == 200
    result = json_body(response)["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error_code"] == "invalid_arguments"


# --- MCP 2025-11-25, Transports §Session Management --------------------------------------------


def test_it_serves_requests_without_a_session_header(mcp: Mcp) -> None:
    response = mcp.request("tools/list")
    assert response.status_code == 200
    assert "tools" in json_body(response)["result"]


def test_it_serves_requests_with_the_current_session(mcp: Mcp) -> None:
    session_id = mcp.request("initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
    response = mcp.request("tools/list", headers={"Mcp-Session-Id": session_id})
    assert response.status_code == 200


def test_it_answers_404_for_an_unknown_session(mcp: Mcp) -> None:
    mcp.request("initialize", {"protocolVersion": "2025-11-25"})
    response = mcp.request("ping", headers={"Mcp-Session-Id": "0123456789abcdef0123456789abcdef"})
    assert response.status_code == 404
    json_body(response)


def test_it_answers_404_for_an_oversized_session_id(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Mcp-Session-Id": "x" * 500})
    assert response.status_code == 404


def test_it_answers_404_for_an_expired_session(mcp: Mcp, workspace: Workspace) -> None:
    session_id = mcp.request("initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
    McpSession.objects.filter(session_id=session_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = mcp.request("ping", headers={"Mcp-Session-Id": session_id})
    assert response.status_code == 404
    json_body(response)
    # The client re-initializes and gets a fresh session that works.
    fresh = mcp.request("initialize", {"protocolVersion": "2025-11-25"}, headers={"Mcp-Session-Id": session_id})
    assert fresh.status_code == 200
    assert fresh["Mcp-Session-Id"] != session_id
    assert mcp.request("ping", headers={"Mcp-Session-Id": fresh["Mcp-Session-Id"]}).status_code == 200


def test_it_refuses_a_session_of_another_workspace(mcp: Mcp, client: Client, make_workspace: Any) -> None:
    mcp.request("initialize", {"protocolVersion": "2025-11-25"})
    _, other_key = other_workspace_key(make_workspace)
    other_session = Mcp(client, other_key).request("initialize", {"protocolVersion": "2025-11-25"})[
        "Mcp-Session-Id"
    ]
    response = mcp.request("ping", headers={"Mcp-Session-Id": other_session})
    assert response.status_code == 404
    json_body(response)


def test_it_ignores_a_bad_session_header_on_initialize(mcp: Mcp) -> None:
    response = mcp.request(
        "initialize", {"protocolVersion": "2025-11-25"}, headers={"Mcp-Session-Id": "not-a-session"}
    )
    assert response.status_code == 200
    session_id = response["Mcp-Session-Id"]
    assert session_id and session_id != "not-a-session"
    assert mcp.request("ping", headers={"Mcp-Session-Id": session_id}).status_code == 200


# --- HTTP methods and hosts --------------------------------------------------------------------


def test_it_answers_405_to_get(client: Client, agent_key: str) -> None:
    response = client.get("/v1/mcp/memory", headers={"Authorization": agent_key})
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    json_body(response)


def test_it_answers_405_to_delete(client: Client, agent_key: str) -> None:
    response = client.delete("/v1/mcp/memory", headers={"Authorization": agent_key})
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    json_body(response)


def test_it_answers_400_to_a_host_outside_allowed_hosts(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Host": "attacker.example"})
    assert response.status_code == 400


def test_it_checks_the_host_before_the_origin(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Host": "attacker.example", "Origin": "https://evil.example"})
    assert response.status_code == 400


def test_it_answers_a_host_outside_allowed_hosts_with_json(mcp: Mcp) -> None:
    response = mcp.request("ping", headers={"Host": "attacker.example"})
    assert response.status_code == 400
    assert json_body(response)["error"]["code"] == -32600
