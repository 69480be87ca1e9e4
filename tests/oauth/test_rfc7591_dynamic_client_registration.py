"""RFC 7591: `POST /v1/oauth/register`, open to clients whose redirect URIs are trusted (SPEC §4)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.contrib.auth.hashers import check_password
from django.test import Client
from oauth2_provider.models import Application

from oauth.models import RegisteredClient
from tests.oauth.conftest import CLAUDE_CALLBACK, consent, exchange, pkce, register

REGISTER = "/v1/oauth/register"
CHATGPT_CALLBACK = "https://chatgpt.com/connector/oauth/cnr_6f1f0c2a9b"


def post(client: Client, body: Any) -> Any:
    return client.post(REGISTER, body, content_type="application/json")


def assert_refused(response: Any, error: str) -> None:
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"error", "error_description"}
    assert response.json()["error"] == error


def test_a_claude_style_public_client_gets_every_field_strict_clients_parse(client: Client, db: None) -> None:
    response = post(client, {"client_name": "Claude", "redirect_uris": [CLAUDE_CALLBACK], "token_endpoint_auth_method": "none"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) >= {
        "client_id", "client_id_issued_at", "client_name", "redirect_uris", "grant_types",
        "response_types", "token_endpoint_auth_method", "scope",
    }
    assert body["client_name"] == "Claude"
    assert body["redirect_uris"] == [CLAUDE_CALLBACK]
    assert body["grant_types"] == ["authorization_code", "refresh_token"]
    assert body["response_types"] == ["code"]
    assert body["token_endpoint_auth_method"] == "none"
    assert body["scope"] == "memory:read memory:write"
    assert isinstance(body["client_id_issued_at"], int)
    assert "client_secret" not in body
    assert Application.objects.get(client_id=body["client_id"]).client_type == "public"


def test_a_chatgpt_style_confidential_client_gets_a_secret_stored_only_hashed(client: Client, db: None) -> None:
    body = post(
        client,
        {
            "client_name": "ChatGPT",
            "redirect_uris": [CHATGPT_CALLBACK],
            "token_endpoint_auth_method": "client_secret_post",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": "memory:read",
        },
    ).json()
    assert body["token_endpoint_auth_method"] == "client_secret_post"
    assert body["scope"] == "memory:read"
    assert body["client_secret_expires_at"] == 0
    stored = Application.objects.get(client_id=body["client_id"])
    assert stored.client_type == "confidential"
    assert stored.client_secret != body["client_secret"]
    assert check_password(body["client_secret"], stored.client_secret)


def test_a_confidential_client_authenticates_at_the_token_endpoint_with_its_secret(
    client: Client, signed_in: Client
) -> None:
    for method in ("client_secret_post", "client_secret_basic"):
        app = register(client, token_endpoint_auth_method=method, redirect_uris=[CHATGPT_CALLBACK])
        challenge = pkce()
        code = consent(client, app, challenge)["code"]
        if method == "client_secret_post":
            response = exchange(client, app, code, challenge.verifier, client_secret=app["client_secret"])
        else:
            basic = base64.b64encode(f"{app['client_id']}:{app['client_secret']}".encode()).decode()
            response = client.post(
                "/v1/oauth/token",
                {"grant_type": "authorization_code", "code": code, "redirect_uri": CHATGPT_CALLBACK,
                 "code_verifier": challenge.verifier},
                HTTP_AUTHORIZATION=f"Basic {basic}",
            )
        assert response.status_code == 200, (method, response.content)


def test_a_confidential_client_with_a_wrong_secret_is_refused(client: Client, signed_in: Client) -> None:
    app = register(client, token_endpoint_auth_method="client_secret_post", redirect_uris=[CHATGPT_CALLBACK])
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    response = exchange(client, app, code, challenge.verifier, client_secret="wrong")
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


@pytest.mark.parametrize(
    "uri",
    ["http://127.0.0.1:33418/callback", "http://localhost:6274/oauth/callback", "http://127.0.0.1/cb"],
)
def test_a_native_client_registers_a_loopback_uri_on_any_port(client: Client, db: None, uri: str) -> None:
    body = post(client, {"client_name": "Claude Code", "redirect_uris": [uri], "token_endpoint_auth_method": "none"}).json()
    assert body["redirect_uris"] == [uri]
    assert body["application_type"] == "native"


def test_it_stores_the_application_type_it_is_given(client: Client, db: None) -> None:
    body = post(client, {"redirect_uris": [CLAUDE_CALLBACK], "application_type": "web", "token_endpoint_auth_method": "none"}).json()
    assert body["application_type"] == "web"
    assert RegisteredClient.objects.get(application__client_id=body["client_id"]).application_type == "web"


def test_an_operator_may_trust_more_redirect_uris(client: Client, db: None, settings: Any) -> None:
    settings.PAM_OAUTH_REDIRECT_URIS = ["https://agents.acme.example/oauth/callback"]
    response = post(client, {"redirect_uris": ["https://agents.acme.example/oauth/callback"], "token_endpoint_auth_method": "none"})
    assert response.status_code == 201
    assert response.json()["client_name"] == "agents.acme.example"  # named after its callback host


@pytest.mark.parametrize(
    "uri",
    [
        "https://evil.example/callback",
        "https://claude.ai.evil.example/api/mcp/auth_callback",
        "https://claude.ai@evil.example/api/mcp/auth_callback",
        "https://claude.ai/api/mcp/auth_callback/../../evil",
        "https://claude.ai/api/mcp/auth_callback#x",
        "http://claude.ai/api/mcp/auth_callback",
        "https://chatgpt.com/connector/oauth/abc/extra",
        "https://chatgpt.com/connector/oauth/",
        "http://192.168.1.5:8080/callback",
        "https://127.0.0.1:8443/callback",
        "myapp://callback",
        "not a uri",
    ],
)
def test_an_untrusted_redirect_uri_is_refused(client: Client, db: None, uri: str) -> None:
    assert_refused(post(client, {"redirect_uris": [CLAUDE_CALLBACK, uri]}), "invalid_redirect_uri")
    assert Application.objects.count() == 0


def test_redirect_uris_are_required(client: Client, db: None) -> None:
    assert_refused(post(client, {"client_name": "x"}), "invalid_redirect_uri")
    assert_refused(post(client, {"redirect_uris": []}), "invalid_redirect_uri")


@pytest.mark.parametrize(
    "metadata",
    [
        {"grant_types": ["client_credentials"]},
        {"grant_types": ["authorization_code", "implicit"]},
        {"response_types": ["token"]},
        {"token_endpoint_auth_method": "private_key_jwt"},
        {"scope": ["memory:read"]},
        {"application_type": "desktop"},
        {"client_name": 42},
        {"redirect_uris": CLAUDE_CALLBACK},
    ],
)
def test_bad_client_metadata_is_refused(client: Client, db: None, metadata: dict[str, Any]) -> None:
    body = {"redirect_uris": [CLAUDE_CALLBACK], **metadata}
    assert_refused(post(client, body), "invalid_client_metadata")


def test_a_body_that_is_not_a_json_object_is_refused(client: Client, db: None) -> None:
    assert_refused(client.post(REGISTER, "not json", content_type="application/json"), "invalid_client_metadata")
    assert_refused(post(client, [CLAUDE_CALLBACK]), "invalid_client_metadata")


def test_unknown_scopes_are_dropped_and_the_answer_says_what_was_granted(client: Client, db: None) -> None:
    answer = post(client, {"redirect_uris": [CLAUDE_CALLBACK], "scope": "openid memory:read offline_access"}).json()
    assert answer["scope"] == "memory:read"
    assert post(client, {"redirect_uris": [CLAUDE_CALLBACK], "scope": "offline_access"}).json()["scope"] == (
        "memory:read memory:write"
    )


def test_unknown_metadata_is_ignored(client: Client, db: None) -> None:
    response = post(client, {"redirect_uris": [CLAUDE_CALLBACK], "logo_uri": "https://claude.ai/logo.png", "contacts": ["a@b.c"]})
    assert response.status_code == 201


def test_a_client_may_ask_only_for_the_scopes_it_registered(client: Client, signed_in: Client) -> None:
    app = register(client, scope="memory:read")
    page = client.get(
        "/v1/oauth/authorize",
        {"response_type": "code", "client_id": app["client_id"], "redirect_uri": CLAUDE_CALLBACK, "state": "s",
         "code_challenge": pkce().challenge, "code_challenge_method": "S256", "scope": "memory:read memory:write"},
    )
    assert page.status_code == 302
    assert "error=invalid_scope" in page["Location"]


def test_registration_answers_browsers_from_any_origin(client: Client, db: None) -> None:
    preflight = client.options(REGISTER, HTTP_ORIGIN="https://claude.ai", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    response = post(client, {"redirect_uris": [CLAUDE_CALLBACK]})
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Cache-Control"] == "no-store"
