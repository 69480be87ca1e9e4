"""GET /v1/dev/oauth-connections (SPEC §3): one row per refresh-token family, the seed's shape."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.test import Client
from django.utils import timezone
from oauth2_provider.models import Application

from memory.models import User, Workspace
from oauth.models import OAuthConnection
from tests.developer_api.conftest import access_token, assert_error
from tests.oauth.conftest import CLAUDE_CALLBACK, connect, mcp_call, refresh

URL = "/v1/dev/oauth-connections"
FIELDS = {"id", "client_id", "client_name", "scope", "created_at", "expires_at", "last_used_at", "revoked_at", "status"}


def sign_in(client: Client, email: str = "admin@acme.example") -> None:
    client.force_login(User.objects.get(email=email))


def test_it_lists_a_connection_in_the_seed_s_shape(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    app, tokens = connect(client, client_name="ChatGPT", redirect_uris=["https://chatgpt.com/connector/oauth/abc"])
    mcp_call(client, tokens["access_token"], "ping")
    body = client.get(URL, headers=auth).json()
    assert list(body) == ["items"]
    [item] = body["items"]
    assert set(item) == FIELDS
    connection = OAuthConnection.objects.get()
    assert item["id"] == connection.pk
    assert item["client_id"] == app["client_id"]
    assert item["client_name"] == "ChatGPT"
    assert item["scope"] == "memory:read"
    assert item["status"] == "active"
    assert item["revoked_at"] is None
    for name in ("created_at", "expires_at", "last_used_at"):
        assert item[name].endswith("+00:00"), item[name]
        datetime.fromisoformat(item[name])


def test_one_row_per_family_survives_refreshes(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    app, tokens = connect(client)
    for _ in range(3):
        tokens = refresh(client, app, tokens["refresh_token"]).json()
    assert len(client.get(URL, headers=auth).json()["items"]) == 1


def test_reconnecting_the_same_client_replaces_its_connection(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    _old_app, old = connect(client)
    first = OAuthConnection.objects.get()
    _new_app, new = connect(client)  # Claude registers anew on every connect
    items = client.get(URL, headers=auth).json()["items"]
    assert [item["id"] for item in items] == [first.pk]
    assert items[0]["status"] == "active"
    assert mcp_call(client, old["access_token"], "ping").status_code == 401  # the old family is revoked
    assert mcp_call(client, new["access_token"], "ping").status_code == 200


def test_another_client_name_or_redirect_is_another_connection(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    connect(client, client_name="Claude")
    connect(client, client_name="ChatGPT", redirect_uris=["https://chatgpt.com/connector/oauth/abc"])
    connect(client, client_name="Claude", redirect_uris=[CLAUDE_CALLBACK, "https://claude.com/api/mcp/auth_callback"])
    items = client.get(URL, headers=auth).json()["items"]
    assert len(items) == 3
    assert items[0]["created_at"] >= items[1]["created_at"] >= items[2]["created_at"]  # newest first


def test_it_shows_expired_and_revoked_connections(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    connect(client, client_name="One")
    connect(client, client_name="Two")
    one, two = OAuthConnection.objects.order_by("id")
    OAuthConnection.objects.filter(pk=one.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    OAuthConnection.objects.filter(pk=two.pk).update(revoked_at=timezone.now())
    statuses = {item["id"]: item["status"] for item in client.get(URL, headers=auth).json()["items"]}
    assert statuses == {one.pk: "expired", two.pk: "revoked"}


def test_it_lists_only_the_callers_workspace(client: Client, make_workspace: Any, workspace: Workspace) -> None:
    make_workspace("other")
    sign_in(client, "admin@other.example")
    connect(client)
    auth = {"Authorization": f"Bearer {access_token(client)}"}
    assert client.get(URL, headers=auth).json()["items"] == []


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    assert_error(client.get(URL), 401, "invalid_token")


def test_reconnecting_forgets_the_old_registration(client: Client, auth: dict[str, str]) -> None:
    sign_in(client)
    _old_app, _old = connect(client)
    new_app, _new = connect(client)
    assert list(Application.objects.values_list("client_id", flat=True)) == [new_app["client_id"]]
    assert client.get(URL, headers=auth).json()["items"][0]["client_id"] == new_app["client_id"]
