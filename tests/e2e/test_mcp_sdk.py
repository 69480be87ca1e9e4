"""The official MCP Python SDK (2.x) drives a real PAM server over Streamable HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import load_schema

pytestmark = pytest.mark.e2e


async def _session_calls(url: str, key: str, prompts: list[str]) -> tuple[Any, Any, list[Any]]:
    async with httpx2.AsyncClient(headers={"Authorization": key}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                results = [await session.call_tool("retrieve_memory", {"prompt": p}) for p in prompts]
                return init, tools, results


def _key(server: Any) -> str:
    return Path(server.env["PAM_DATA_DIR"], "demo_agent_key").read_text().strip()


def test_the_sdk_client_initializes_lists_and_retrieves_real_facts(live_server_process: Any) -> None:
    url = f"{live_server_process.url}/v1/mcp/memory"
    init, tools, results = anyio.run(
        _session_calls, url, _key(live_server_process), ["Who leads the Data team?", "What is a KSR?"]
    )

    assert init.server_info.name == "pam_memory_mcp"
    names = [tool.name for tool in tools.tools]
    assert names == ["retrieve_memory", "recall", "recall_context", "search_memory", "remember", "forget"]
    assert tools.tools[0].input_schema == {
        "type": "object",
        "properties": {"prompt": {"type": "string"}, "session_id": {"type": "string"}},
        "required": ["prompt"],
    }
    schema = load_schema("retrieve_memory.result.json")
    for result in results:
        assert result.is_error is False
        jsonschema.validate(result.structured_content, schema)
        assert result.content[0].text == result.structured_content["content_text"]
    leads = [f["statement"] for f in results[0].structured_content["retrieval"]["facts"][:5]]
    assert any("Delphine Achterberg leads" in s for s in leads), leads
    ksr = [f["statement"] for f in results[1].structured_content["retrieval"]["facts"][:5]]
    assert any("Kestrel Service Review" in s for s in ksr), ksr


def test_a_workspace_without_sources_gets_no_sources_connected(live_server_process: Any) -> None:
    live_server_process.manage(
        "create_workspace", "empty-co", "--admin-email", "ops@empty.example",
        "--admin-password", "pw-123456789", "--exists-ok",
    )
    key = live_server_process.manage("rotate_key", "--workspace", "empty-co").strip()
    assert key.startswith("pam_mkey_") and "\n" not in key
    url = f"{live_server_process.url}/v1/mcp/memory"
    _, _, results = anyio.run(_session_calls, url, key, ["Who owns Project Atlas?"])

    result = results[0]
    assert result.is_error is True
    jsonschema.validate(result.structured_content, load_schema("retrieve_memory.error.json"))
    assert result.structured_content["error_code"] == "no_sources_connected"


def test_a_plain_http_client_gets_401_with_resource_metadata(live_server_process: Any) -> None:
    response = httpx2.post(
        f"{live_server_process.url}/v1/mcp/memory",
        content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"
    assert "resource_metadata=" in response.headers["WWW-Authenticate"]
