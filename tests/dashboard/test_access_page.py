"""The Access page (SPEC §3, §4, §6, issue 15): the agent key with rotate and revoke, and the
connected browser apps with revoke; another workspace's connection is a 404."""

from __future__ import annotations

import re
from typing import Callable

from django.test import Client

from developer_api.keys import api_key_authenticate, api_key_rotate
from developer_api.models import AgentKey
from memory.models import User, Workspace
from oauth.models import OAuthConnection
from tests.oauth.conftest import connect, mcp_call

ACCESS = "/admin/dashboard/access/"


def signed_in(workspace: Workspace) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(User.objects.get(email=f"admin@{workspace.slug}.example"))
    return client


def test_the_page_shows_the_key_and_the_connected_apps(workspace: Workspace) -> None:
    client = signed_in(workspace)
    connect(client, client_name="Claude")
    key = api_key_rotate(workspace=workspace).key
    response = client.get(ACCESS)
    assert response.status_code == 200
    html = response.content.decode()
    assert key.key_prefix in html and "memory:read" in html and "never" in html
    assert "Claude" in html and f"oauth:{OAuthConnection.objects.get().pk}" in html
    assert 'data-confirm="Revoke the agent key?' in html and 'data-confirm="Disconnect Claude?' in html


def test_an_empty_workspace_says_what_to_do(workspace: Workspace) -> None:
    html = signed_in(workspace).get(ACCESS).content.decode()
    assert "No active key: generate one" in html and "No connected apps yet" in html


def test_rotating_shows_the_new_key_once_and_revokes_the_old_one(workspace: Workspace) -> None:
    old = api_key_rotate(workspace=workspace).api_key
    client = signed_in(workspace)
    response = client.post(f"{ACCESS}key/rotate/")
    shown = re.search(r'data-testid="new-key">(pam_mkey_[A-Za-z0-9]+)<', response.content.decode())
    assert response.status_code == 200 and shown is not None
    assert api_key_authenticate(shown.group(1)) is not None and api_key_authenticate(old) is None
    assert shown.group(1) not in client.get(ACCESS).content.decode()


def test_revoking_the_key_refuses_it_from_then_on(workspace: Workspace) -> None:
    raw = api_key_rotate(workspace=workspace).api_key
    client = signed_in(workspace)
    response = client.post(f"{ACCESS}key/revoke/", follow=True)
    assert response.redirect_chain == [(ACCESS, 302)]
    assert api_key_authenticate(raw) is None
    again = client.post(f"{ACCESS}key/revoke/", follow=True)
    assert [str(m) for m in again.context["messages"]] == ["There was no active agent key to revoke."]


def test_revoking_a_connection_cuts_its_tokens(workspace: Workspace) -> None:
    client = signed_in(workspace)
    _app, tokens = connect(client, client_name="ChatGPT")
    connection = OAuthConnection.objects.get()
    response = client.post(f"{ACCESS}connections/{connection.pk}/revoke/", follow=True)
    assert response.redirect_chain == [(ACCESS, 302)]
    assert OAuthConnection.objects.get().status == "revoked"
    assert mcp_call(Client(), tokens["access_token"], "ping").status_code == 401


def test_a_workspace_admin_cannot_touch_another_workspace(make_workspace: Callable[..., Workspace]) -> None:
    own = make_workspace("own")
    other = make_workspace("other")
    other_client = signed_in(other)
    connect(other_client, client_name="Claude")
    theirs = OAuthConnection.objects.get(workspace=other)
    their_key = api_key_rotate(workspace=other).key
    client = signed_in(own)
    assert client.post(f"{ACCESS}connections/{theirs.pk}/revoke/").status_code == 404
    assert client.post(f"{ACCESS}connections/999999/revoke/").status_code == 404
    client.post(f"{ACCESS}key/revoke/?workspace=other")
    client.post(f"{ACCESS}key/rotate/?workspace=other")
    assert OAuthConnection.objects.get(pk=theirs.pk).status == "active"
    assert AgentKey.objects.get(workspace=other, revoked_at__isnull=True) == their_key
    assert f'data-connection-id="{theirs.pk}"' not in client.get(ACCESS, {"workspace": "other"}).content.decode()


def test_an_operator_revokes_a_connection_of_the_workspace_they_picked(make_workspace: Callable[..., Workspace]) -> None:
    make_workspace("alpha")
    beta = make_workspace("beta")
    connect(signed_in(beta), client_name="Claude")
    connection = OAuthConnection.objects.get()
    operator = Client()
    operator.force_login(User.objects.create_superuser("root@pam.example", "pw-123456789"))
    assert operator.post(f"{ACCESS}connections/{connection.pk}/revoke/?workspace=alpha").status_code == 404
    assert operator.post(f"{ACCESS}connections/{connection.pk}/revoke/?workspace=beta").status_code == 302
    assert OAuthConnection.objects.get().status == "revoked"
