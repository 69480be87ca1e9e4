"""RFC 8414: `/.well-known/oauth-authorization-server` (SPEC §4), with RFC 9207's `iss` flag."""

from __future__ import annotations

from django.test import Client

from tests.oauth.conftest import ISSUER

METADATA = "/.well-known/oauth-authorization-server"


def test_it_publishes_every_endpoint_under_the_public_base_url(client: Client, db: None) -> None:
    data = client.get(METADATA).json()
    assert data["issuer"] == ISSUER
    assert data["authorization_endpoint"] == f"{ISSUER}/v1/oauth/authorize"
    assert data["token_endpoint"] == f"{ISSUER}/v1/oauth/token"
    assert data["registration_endpoint"] == f"{ISSUER}/v1/oauth/register"
    assert data["revocation_endpoint"] == f"{ISSUER}/v1/oauth/revoke"


def test_its_issuer_equals_the_protected_resource_s_authorization_server_character_for_character(
    client: Client, db: None
) -> None:
    resource = client.get("/.well-known/oauth-protected-resource/v1/mcp/memory").json()
    assert client.get(METADATA).json()["issuer"] == resource["authorization_servers"][0]


def test_it_takes_its_urls_from_the_settings_never_from_the_host_header(client: Client, db: None) -> None:
    data = client.get(METADATA, HTTP_HOST="localhost").json()
    assert data["issuer"] == ISSUER
    assert all(data[name].startswith(f"{ISSUER}/") for name in ("authorization_endpoint", "token_endpoint"))


def test_it_offers_pkce_s256_only(client: Client, db: None) -> None:
    assert client.get(METADATA).json()["code_challenge_methods_supported"] == ["S256"]


def test_it_accepts_public_and_confidential_clients_at_the_token_endpoint(client: Client, db: None) -> None:
    methods = client.get(METADATA).json()["token_endpoint_auth_methods_supported"]
    assert set(methods) == {"none", "client_secret_post", "client_secret_basic"}


def test_it_names_only_the_grants_and_response_types_it_serves(client: Client, db: None) -> None:
    data = client.get(METADATA).json()
    assert data["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert data["response_types_supported"] == ["code"]
    assert data["scopes_supported"] == ["memory:read", "memory:write"]


def test_it_says_authorization_responses_carry_iss(client: Client, db: None) -> None:
    assert client.get(METADATA).json()["authorization_response_iss_parameter_supported"] is True


def test_it_says_nothing_of_client_id_metadata_documents(client: Client, db: None) -> None:
    # SPEC §4: not supported yet, and the metadata says so by omission.
    assert "client_id_metadata_document_supported" not in client.get(METADATA).json()


def test_browsers_may_read_it_from_any_origin(client: Client, db: None) -> None:
    response = client.get(METADATA, HTTP_ORIGIN="https://claude.ai")
    assert response["Access-Control-Allow-Origin"] == "*"
    preflight = client.options(
        METADATA,
        HTTP_ORIGIN="https://claude.ai",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="mcp-protocol-version",
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "mcp-protocol-version" in preflight["Access-Control-Allow-Headers"].lower()
