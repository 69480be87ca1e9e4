"""OAuth access tokens on `/v1/mcp/memory` (SPEC §1, §2.1, §4): the connection is the credential.

Tokens come from the real flow (registration, consent, code exchange); the MCP endpoint checks
the bound resource, the user's membership, the connection and the scopes per tool.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken

from developer_api.models import RequestLog
from memory.models import User, Workspace
from oauth.connections import connection_revoke
from oauth.models import OAuthConnection
from tests.oauth.conftest import connect, mcp_call, refresh


def assert_unauthorized(response: Any) -> None:
    assert response.status_code == 401, response.content
    assert response.json()["error"] == "invalid_token"
    assert 'resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/v1/mcp/memory"' in (
        response["WWW-Authenticate"]
    )


def test_it_accepts_an_access_token_and_logs_the_call_as_its_connection(
    client: Client, signed_in: Client, workspace: Workspace
) -> None:
    _app, tokens = connect(client)
    assert mcp_call(client, tokens["access_token"], "ping").json()["result"] == {}
    tools = mcp_call(client, tokens["access_token"]).json()["result"]["tools"]
    # A memory:read token sees the read tools; remember and forget need memory:write.
    assert [tool["name"] for tool in tools] == ["retrieve_memory", "recall", "recall_context", "search_memory"]

    response = mcp_call(client, tokens["access_token"], "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "Who owns Meridian?"}})
    assert response.json()["result"]["structuredContent"]["error_code"] == "no_sources_connected"
    connection = OAuthConnection.objects.get()
    row = RequestLog.objects.get(workspace=workspace)
    assert row.credential == f"oauth:{connection.pk}"
    assert row.agent_key is None
    assert tokens["access_token"] not in row.credential


def test_the_log_names_the_same_connection_after_a_refresh(client: Client, signed_in: Client, workspace: Workspace) -> None:
    app, tokens = connect(client)
    renewed = refresh(client, app, tokens["refresh_token"]).json()
    mcp_call(client, tokens["access_token"], "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "x"}})
    mcp_call(client, renewed["access_token"], "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "y"}})
    connection = OAuthConnection.objects.get()
    # The first token died with the rotation (its call is a 401, never logged).
    assert list(RequestLog.objects.values_list("credential", flat=True)) == [f"oauth:{connection.pk}"]


def test_it_records_when_the_connection_was_last_used(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    assert OAuthConnection.objects.get().last_used_at is None
    before = timezone.now()
    mcp_call(client, tokens["access_token"], "ping")
    last_used = OAuthConnection.objects.get().last_used_at
    assert last_used is not None and last_used >= before


def test_it_hides_retrieve_memory_from_a_token_without_the_read_scope(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client, scope="memory:write")
    tools = mcp_call(client, tokens["access_token"]).json()["result"]["tools"]
    assert "retrieve_memory" not in [tool["name"] for tool in tools]
    response = mcp_call(client, tokens["access_token"], "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "x"}})
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "memory:read" in error["message"]


def test_it_refuses_an_expired_access_token(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert_unauthorized(mcp_call(client, tokens["access_token"], "ping"))


def test_it_refuses_an_unknown_access_token(client: Client, signed_in: Client) -> None:
    connect(client)
    assert_unauthorized(mcp_call(client, "not-a-token", "ping"))


def test_a_revoked_connection_is_refused_at_once_mid_session(client: Client, signed_in: Client) -> None:
    app, tokens = connect(client)
    assert mcp_call(client, tokens["access_token"], "ping").status_code == 200
    connection_revoke(connection=OAuthConnection.objects.get())
    assert_unauthorized(mcp_call(client, tokens["access_token"], "ping"))
    assert refresh(client, app, tokens["refresh_token"]).json()["error"] == "invalid_grant"


def test_it_refuses_the_token_of_a_user_deactivated_since(client: Client, signed_in: Client, member: User) -> None:
    _app, tokens = connect(client)
    User.objects.filter(pk=member.pk).update(is_active=False)
    assert_unauthorized(mcp_call(client, tokens["access_token"], "ping"))


def test_it_refuses_the_token_of_a_user_who_left_the_workspace(
    client: Client, signed_in: Client, member: User, make_workspace: Any
) -> None:
    _app, tokens = connect(client)
    User.objects.filter(pk=member.pk).update(workspace=make_workspace("other"))
    assert_unauthorized(mcp_call(client, tokens["access_token"], "ping"))


def test_it_refuses_a_token_bound_to_another_resource(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    AccessToken.objects.update(resource=["https://elsewhere.example/mcp"])
    assert_unauthorized(mcp_call(client, tokens["access_token"], "ping"))


def test_it_serves_only_the_users_workspace(client: Client, make_workspace: Any) -> None:
    first, second = make_workspace("one"), make_workspace("two")
    client.force_login(User.objects.get(email="admin@two.example"))
    _app, tokens = connect(client)
    mcp_call(client, tokens["access_token"], "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "x"}})
    assert RequestLog.objects.filter(workspace=second).count() == 1
    assert RequestLog.objects.filter(workspace=first).count() == 0


def test_a_developer_api_jwt_is_not_an_mcp_credential(client: Client, workspace: Workspace) -> None:
    jwt = client.post(
        "/v1/auth/token", {"email": "admin@acme.example", "password": "pw-123456789"}, content_type="application/json"
    ).json()["access"]
    assert_unauthorized(mcp_call(client, jwt, "ping"))
