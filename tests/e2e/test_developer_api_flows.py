"""The seed's Developer API flows (issue 11) as a script runs them against a real server:
poll readiness until ready, fetch mcp-config, rotate the key, call the MCP endpoint, page the
request log with a cursor while new calls arrive, read usage. Every answer is checked against
the OpenAPI document the server itself publishes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

pytestmark = pytest.mark.e2e

SLUG = "flows"
EMAIL = f"admin@{SLUG}.example"


def _schema_check(document: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    schema = document["paths"][path][method]["responses"][str(response.status_code)]["content"]["application/json"]["schema"]
    Draft202012Validator({"allOf": [schema], "components": document["components"]}).validate(response.json())


def _mcp(url: str, key: str, prompt: str) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "retrieve_memory", "arguments": {"prompt": prompt}}}
    response = httpx.post(url, json=message, headers={"Authorization": key, "Accept": "application/json, text/event-stream"}, timeout=60)
    return dict(response.json()["result"])


def test_a_script_runs_the_seeds_flows_against_a_live_server(live_server_process: Any, tmp_path: Path) -> None:
    server = live_server_process
    server.manage("create_workspace", SLUG, "--admin-email", EMAIL, "--admin-password", "pw-123456789", "--plan", "paid")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "meridian.md").write_text("# Meridian\n\nPlatform Engineering owns the Meridian platform rollout through Q3.\n")
    server.manage("import_source", str(corpus), "--workspace", SLUG)

    api = httpx.Client(base_url=server.url, timeout=30)
    document = api.get("/v1/dev/openapi.json").json()
    token = api.post("/v1/auth/token", json={"email": EMAIL, "password": "pw-123456789"})
    _schema_check(document, "/v1/auth/token", "post", token)
    api.headers["Authorization"] = f"Bearer {token.json()['access']}"

    deadline = time.monotonic() + 60
    while True:  # poll readiness until ready
        readiness = api.get("/v1/dev/readiness")
        _schema_check(document, "/v1/dev/readiness", "get", readiness)
        if readiness.json()["ready"] or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert readiness.json()["ready"]

    config = api.get("/v1/dev/mcp-config")
    _schema_check(document, "/v1/dev/mcp-config", "get", config)
    assert config.json()["api_key"] is None and config.json()["mcp_url"] == f"{server.url}/v1/mcp/memory"
    assert config.json()["quota"]["plan"] == "paid" and config.json()["quota"]["weekly_limit"] == 300

    rotated = api.post("/v1/dev/rotate-key")
    _schema_check(document, "/v1/dev/rotate-key", "post", rotated)
    key = rotated.json()["api_key"]
    for n in range(7):
        assert not _mcp(config.json()["mcp_url"], key, f"Who owns the Meridian rollout? ({n})")["isError"]
    assert api.get("/v1/dev/mcp-config").json()["mcp_verified"] is True

    first = api.get("/v1/dev/mcp-requests", params={"limit": 3})
    _schema_check(document, "/v1/dev/mcp-requests", "get", first)
    seen = [item["request_id"] for item in first.json()["items"]]
    for n in range(2):  # new calls arrive while the script pages
        _mcp(config.json()["mcp_url"], key, f"What is new? ({n})")
    cursor = first.json()["next_cursor"]
    while cursor:
        page = api.get("/v1/dev/mcp-requests", params={"limit": 3, "cursor": cursor})
        _schema_check(document, "/v1/dev/mcp-requests", "get", page)
        seen += [item["request_id"] for item in page.json()["items"]]
        cursor = page.json()["next_cursor"]
    assert len(seen) == len(set(seen)) == 7  # every call before the first page, once

    detail = api.get(f"/v1/dev/mcp-requests/{seen[0]}")
    _schema_check(document, "/v1/dev/mcp-requests/{request_id}", "get", detail)
    assert detail.json()["prompt"].startswith("Who owns the Meridian rollout?")

    usage = api.get("/v1/dev/mcp-usage-stats", params={"days": 7})
    _schema_check(document, "/v1/dev/mcp-usage-stats", "get", usage)
    assert usage.json()["summary"]["total_calls"] == 9 and len(usage.json()["daily"]) == 7
    quota = api.get("/v1/dev/mcp-config").json()["quota"]
    assert quota["requests_this_week"] == 9 and quota["remaining_this_week"] == 291
