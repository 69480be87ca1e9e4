"""RFC 9728: the MCP endpoint's protected-resource metadata (SPEC §2.1, §4)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tests.oauth.conftest import ISSUER, MCP_URL

ROOT = "/.well-known/oauth-protected-resource"
PATH_INSERTED = "/.well-known/oauth-protected-resource/v1/mcp/memory"


@pytest.mark.parametrize("path", [ROOT, PATH_INSERTED])
def test_it_describes_the_mcp_endpoint(client: Client, db: None, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    data = response.json()
    assert data["resource"] == MCP_URL
    assert data["authorization_servers"] == [ISSUER]
    assert data["scopes_supported"] == ["memory:read", "memory:write"]
    assert data["bearer_methods_supported"] == ["header"]


def test_it_never_offers_offline_access(client: Client, db: None) -> None:
    # The 2026-07-28 revision: offline_access stays out of the resource's scopes and challenge.
    assert "offline_access" not in client.get(PATH_INSERTED).json()["scopes_supported"]
    challenge = client.post("/v1/mcp/memory", {}, content_type="application/json")["WWW-Authenticate"]
    assert "offline_access" not in challenge


def test_the_mcp_endpoint_s_401_points_at_a_document_that_exists(client: Client, db: None) -> None:
    response = client.post(
        "/v1/mcp/memory", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), content_type="application/json"
    )
    assert response.status_code == 401
    match = re.search(r'resource_metadata="([^"]+)"', response["WWW-Authenticate"])
    assert match is not None
    assert match.group(1) == f"{ISSUER}{PATH_INSERTED}"
    assert client.get(PATH_INSERTED).json()["resource"] == MCP_URL


def test_it_answers_404_for_a_resource_it_does_not_protect(client: Client, db: None) -> None:
    assert client.get("/.well-known/oauth-protected-resource/v1/dev/readiness").status_code == 404


@pytest.mark.parametrize("path", [ROOT, PATH_INSERTED])
def test_browsers_may_read_it_from_any_origin(client: Client, db: None, path: str) -> None:
    assert client.get(path, HTTP_ORIGIN="https://chatgpt.com")["Access-Control-Allow-Origin"] == "*"
    preflight = client.options(path, HTTP_ORIGIN="https://chatgpt.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
