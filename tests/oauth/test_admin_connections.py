"""Connected apps in the admin (SPEC §3 "oauth connection", §6 Access): listed and revoked."""

from __future__ import annotations

from django.test import Client

from memory.models import User
from oauth.models import OAuthConnection
from tests.oauth.conftest import connect, mcp_call


def test_the_admin_lists_connections_and_revokes_them(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client, client_name="ChatGPT", redirect_uris=["https://chatgpt.com/connector/oauth/abc"])
    operator = Client()
    operator.force_login(User.objects.create_superuser("root@pam.example", "pw-123456789"))
    page = operator.get("/admin/oauth/oauthconnection/")
    assert page.status_code == 200
    assert b"ChatGPT" in page.content and b"active" in page.content

    connection = OAuthConnection.objects.get()
    response = operator.post(
        "/admin/oauth/oauthconnection/", {"action": "revoke", "_selected_action": [connection.pk]}
    )
    assert response.status_code == 302
    assert OAuthConnection.objects.get().status == "revoked"
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 401
