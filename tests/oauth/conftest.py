"""Shared by the OAuth tests: a registered client, PKCE pairs, the consent round trip and the
token exchange, all through the real endpoints (DOT's views, PAM's glue, the database)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from memory.models import User, Workspace

CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback"
MCP_URL = "http://127.0.0.1:8000/v1/mcp/memory"
ISSUER = "http://127.0.0.1:8000"


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


@dataclass
class Pkce:
    verifier: str
    challenge: str


def pkce() -> Pkce:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return Pkce(verifier, base64.urlsafe_b64encode(digest).decode().rstrip("="))


def register(client: Client, **metadata: Any) -> dict[str, Any]:
    body = {"client_name": "Claude", "redirect_uris": [CLAUDE_CALLBACK], "token_endpoint_auth_method": "none"}
    body.update(metadata)
    response = client.post("/v1/oauth/register", body, content_type="application/json")
    assert response.status_code == 201, response.content
    return dict(response.json())


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


def authorize_params(app: dict[str, Any], challenge: Pkce, **extra: Any) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": app["client_id"],
        "redirect_uri": app["redirect_uris"][0],
        "state": "state-123",
        "code_challenge": challenge.challenge,
        "code_challenge_method": "S256",
        "scope": "memory:read",
        "resource": MCP_URL,
    }
    params.update({k: v for k, v in extra.items() if v is not None})
    for name in [k for k, v in extra.items() if v is None]:
        params.pop(name, None)
    return params


def consent(client: Client, app: dict[str, Any], challenge: Pkce, allow: bool = True, **extra: Any) -> dict[str, str]:
    """GET the consent page as the signed-in user, post its form; the redirect's parameters."""
    page = client.get("/v1/oauth/authorize", authorize_params(app, challenge, **extra))
    assert page.status_code == 200, page.content
    form = page.context["form"]
    data = {name: value for name, value in form.initial.items() if value is not None}
    if allow:
        data["allow"] = "Allow"
    response = client.post("/v1/oauth/authorize?" + page.request["QUERY_STRING"], data)
    assert response.status_code == 302, response.content
    return query_of(response["Location"])


def exchange(client: Client, app: dict[str, Any], code: str, verifier: str, **extra: Any) -> Any:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app["redirect_uris"][0],
        "client_id": app["client_id"],
        "code_verifier": verifier,
        "resource": MCP_URL,
    }
    data.update({k: v for k, v in extra.items() if v is not None})
    for name in [k for k, v in extra.items() if v is None]:
        data.pop(name, None)
    return client.post("/v1/oauth/token", data)


def refresh(client: Client, app: dict[str, Any], refresh_token: str) -> Any:
    return client.post(
        "/v1/oauth/token",
        {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app["client_id"]},
    )


@pytest.fixture
def member(workspace: Workspace) -> User:
    return User.objects.get(email="admin@acme.example")


@pytest.fixture
def signed_in(client: Client, member: User) -> Client:
    client.force_login(member)
    return client


def connect(client: Client, scope: str = "memory:read", **metadata: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Register, consent and exchange: (client registration, token answer)."""
    app = register(client, **metadata)
    challenge = pkce()
    redirect = consent(client, app, challenge, scope=scope)
    response = exchange(client, app, redirect["code"], challenge.verifier)
    assert response.status_code == 200, response.content
    return app, dict(response.json())


def mcp_call(client: Client, token: str, method: str = "tools/list", params: dict[str, Any] | None = None) -> Any:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    return client.post(
        "/v1/mcp/memory", message, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )

