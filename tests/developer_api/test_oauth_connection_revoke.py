"""POST /v1/dev/oauth-connections/{id}/revoke (SPEC §3): {"revoked": true, "id": 42}; the MCP
endpoint refuses the connection's tokens at once."""

from __future__ import annotations

from typing import Any

from django.test import Client

from memory.models import User, Workspace
from oauth.models import OAuthConnection
from tests.developer_api.conftest import assert_error
from tests.oauth.conftest import connect, mcp_call, refresh


def url(connection_id: int) -> str:
    return f"/v1/dev/oauth-connections/{connection_id}/revoke"


def test_it_revokes_and_cuts_the_mcp_endpoint_off_mid_session(client: Client, auth: dict[str, str]) -> None:
    client.force_login(User.objects.get(email="admin@acme.example"))
    app, tokens = connect(client)
    assert mcp_call(client, tokens["access_token"], "tools/list").status_code == 200
    connection = OAuthConnection.objects.get()

    response = client.post(url(connection.pk), headers=auth)
    assert response.status_code == 200
    assert response.json() == {"revoked": True, "id": connection.pk}

    assert mcp_call(client, tokens["access_token"], "tools/list").status_code == 401
    assert refresh(client, app, tokens["refresh_token"]).json()["error"] == "invalid_grant"
    listed = client.get("/v1/dev/oauth-connections", headers=auth).json()["items"][0]
    assert listed["status"] == "revoked" and listed["revoked_at"] is not None


def test_revoking_twice_still_answers_revoked(client: Client, auth: dict[str, str]) -> None:
    client.force_login(User.objects.get(email="admin@acme.example"))
    connect(client)
    connection = OAuthConnection.objects.get()
    client.post(url(connection.pk), headers=auth)
    assert client.post(url(connection.pk), headers=auth).json() == {"revoked": True, "id": connection.pk}


def test_another_workspace_s_connection_is_not_found(client: Client, auth: dict[str, str], make_workspace: Any) -> None:
    make_workspace("other")
    client.force_login(User.objects.get(email="admin@other.example"))
    _app, tokens = connect(client)
    connection = OAuthConnection.objects.get()
    assert_error(client.post(url(connection.pk), headers=auth), 404, "not_found")
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 200


def test_an_unknown_id_is_not_found(client: Client, auth: dict[str, str]) -> None:
    assert_error(client.post(url(999999), headers=auth), 404, "not_found")


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    assert_error(client.post(url(1)), 401, "invalid_token")
