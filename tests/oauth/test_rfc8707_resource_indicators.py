"""RFC 8707: every token is bound to the MCP endpoint, exactly as RFC 9728's `resource` says."""

from __future__ import annotations

from django.test import Client
from oauth2_provider.models import AccessToken, RefreshToken

from tests.oauth.conftest import MCP_URL, authorize_params, consent, exchange, mcp_call, pkce, query_of, refresh, register


def test_a_token_asked_for_the_mcp_endpoint_is_bound_to_it(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge, resource=MCP_URL)["code"]
    tokens = exchange(client, app, code, challenge.verifier).json()
    assert AccessToken.objects.get().resource == [MCP_URL]
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 200


def test_a_request_without_resource_is_bound_to_the_mcp_endpoint_too(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge, resource=None)["code"]
    tokens = exchange(client, app, code, challenge.verifier, resource=None).json()
    assert AccessToken.objects.get().resource == [MCP_URL]
    assert RefreshToken.objects.get().resource == [MCP_URL]
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 200


def test_another_resource_is_refused_at_authorization(client: Client, signed_in: Client) -> None:
    app = register(client)
    for resource in ("https://elsewhere.example/mcp", f"{MCP_URL}/", "http://127.0.0.1:8000"):
        response = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), resource=resource))
        assert response.status_code == 302
        answer = query_of(response["Location"])
        assert answer["error"] == "invalid_target", resource
        assert answer["state"] == "state-123"


def test_another_resource_is_refused_at_the_token_endpoint(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    response = exchange(client, app, code, challenge.verifier, resource="https://elsewhere.example/mcp")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"


def test_a_tampered_consent_form_cannot_widen_the_resource(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    page = client.get("/v1/oauth/authorize", authorize_params(app, challenge))
    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    data.update(allow="Allow", resource="https://elsewhere.example/mcp")
    response = client.post("/v1/oauth/authorize", data)
    assert query_of(response["Location"])["error"] == "invalid_target"
    assert AccessToken.objects.count() == 0


def test_a_refreshed_token_keeps_the_binding(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    tokens = exchange(client, app, code, challenge.verifier).json()
    renewed = refresh(client, app, tokens["refresh_token"]).json()
    assert AccessToken.objects.get().resource == [MCP_URL]
    assert mcp_call(client, renewed["access_token"], "ping").status_code == 200
