"""RFC 7009: `POST /v1/oauth/revoke`. Revoking either token of a connection disconnects it."""

from __future__ import annotations

from django.test import Client

from oauth.models import OAuthConnection
from tests.oauth.conftest import connect, mcp_call, refresh

REVOKE = "/v1/oauth/revoke"


def test_revoking_the_refresh_token_disconnects_the_app(client: Client, signed_in: Client) -> None:
    app, tokens = connect(client)
    response = client.post(REVOKE, {"token": tokens["refresh_token"], "token_type_hint": "refresh_token", "client_id": app["client_id"]})
    assert response.status_code == 200
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 401
    assert refresh(client, app, tokens["refresh_token"]).json()["error"] == "invalid_grant"
    assert OAuthConnection.objects.get().status == "revoked"


def test_revoking_the_access_token_disconnects_the_app(client: Client, signed_in: Client) -> None:
    app, tokens = connect(client)
    response = client.post(REVOKE, {"token": tokens["access_token"], "client_id": app["client_id"]})
    assert response.status_code == 200
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 401
    assert refresh(client, app, tokens["refresh_token"]).json()["error"] == "invalid_grant"
    assert OAuthConnection.objects.get().revoked_at is not None


def test_an_unknown_token_answers_200(client: Client, signed_in: Client) -> None:
    app, _tokens = connect(client)
    assert client.post(REVOKE, {"token": "nope", "client_id": app["client_id"]}).status_code == 200
    assert OAuthConnection.objects.get().status == "active"


def test_a_client_cannot_revoke_another_client_s_tokens(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    other, _ = connect(client, client_name="Other")
    assert client.post(REVOKE, {"token": tokens["refresh_token"], "client_id": other["client_id"]}).status_code == 200
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 200
    assert OAuthConnection.objects.filter(revoked_at__isnull=True).count() == 2
