"""POST /v1/dev/revoke-key (SPEC §3: {"revoked": true}, or 404 no_active_key)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Callable

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework_simplejwt.tokens import AccessToken

from developer_api.keys import api_key_authenticate, api_key_rotate
from developer_api.models import AgentKey
from memory.models import Workspace
from tests.developer_api.conftest import access_token

URL = "/v1/dev/revoke-key"


def revoke(client: Client, bearer: str | None) -> Any:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer is not None else {}
    return client.post(URL, headers=headers)


def mcp_ping(client: Client, key: str) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    return client.post("/v1/mcp/memory", data=body, content_type="application/json", headers={"Authorization": key})


def assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error_code", "error_message"}
    assert body["error_code"] == code
    assert body["error_message"]


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


@pytest.fixture
def token(client: Client, workspace: Workspace) -> str:
    return access_token(client)


def test_it_works(client: Client, workspace: Workspace, agent_key: str, token: str) -> None:
    response = revoke(client, token)

    assert response.status_code == 200, response.content
    assert response.json() == {"revoked": True}
    assert not AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).exists()
    assert AgentKey.objects.get(workspace=workspace).revoked_at is not None


def test_the_revoked_key_is_refused_on_the_mcp_endpoint(client: Client, agent_key: str, token: str) -> None:
    assert mcp_ping(client, agent_key).status_code == 200

    revoke(client, token)

    response = mcp_ping(client, agent_key)
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"


def test_revoking_again_answers_no_active_key(client: Client, agent_key: str, token: str) -> None:
    assert revoke(client, token).status_code == 200

    assert_error(revoke(client, token), 404, "no_active_key")


def test_it_answers_no_active_key_when_no_key_was_ever_issued(client: Client, token: str) -> None:
    assert_error(revoke(client, token), 404, "no_active_key")


def test_a_rotation_after_revoking_issues_a_working_key(client: Client, agent_key: str, token: str) -> None:
    revoke(client, token)

    rotated = client.post("/v1/dev/rotate-key", headers={"Authorization": f"Bearer {token}"})

    assert rotated.status_code == 200
    assert mcp_ping(client, rotated.json()["api_key"]).status_code == 200
    assert mcp_ping(client, agent_key).status_code == 401


def test_it_refuses_a_request_without_a_token(client: Client, workspace: Workspace, agent_key: str) -> None:
    assert_error(revoke(client, None), 401, "invalid_token")
    assert api_key_authenticate(agent_key) is not None


@pytest.mark.parametrize("header", ["{key}", "Bearer {key}"])
def test_it_refuses_an_agent_key_as_the_credential(
    client: Client, workspace: Workspace, agent_key: str, header: str
) -> None:
    response = client.post(URL, headers={"Authorization": header.format(key=agent_key)})

    assert_error(response, 401, "invalid_token")
    assert api_key_authenticate(agent_key) is not None


def test_it_refuses_an_expired_access_token(client: Client, workspace: Workspace, agent_key: str) -> None:
    expired = AccessToken.for_user(workspace.users.get())
    expired.set_exp(from_time=timezone.now() - timedelta(minutes=16))

    assert_error(revoke(client, str(expired)), 401, "invalid_token")
    assert api_key_authenticate(agent_key) is not None


def test_it_refuses_a_disabled_workspace(client: Client, workspace: Workspace, agent_key: str, token: str) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)

    assert_error(revoke(client, token), 403, "workspace_disabled")
    assert api_key_authenticate(agent_key) is not None


def test_it_refuses_other_workspace(client: Client, make_workspace: Callable[..., Workspace]) -> None:
    """Workspace B's admin revoking never touches workspace A's key."""
    acme = make_workspace("acme")
    make_workspace("globex")
    acme_key = api_key_rotate(workspace=acme).api_key

    response = revoke(client, access_token(client, "admin@globex.example"))

    assert_error(response, 404, "no_active_key")
    assert api_key_authenticate(acme_key) is not None
    assert mcp_ping(client, acme_key).status_code == 200


def test_it_revokes_only_its_own_workspaces_key(client: Client, make_workspace: Callable[..., Workspace]) -> None:
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    acme_key = api_key_rotate(workspace=acme).api_key
    globex_key = api_key_rotate(workspace=globex).api_key

    assert revoke(client, access_token(client, "admin@globex.example")).json() == {"revoked": True}

    assert api_key_authenticate(globex_key) is None
    assert api_key_authenticate(acme_key) is not None
