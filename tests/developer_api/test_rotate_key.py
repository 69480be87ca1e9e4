"""POST /v1/dev/rotate-key (SPEC §3: a new agent key, shown once; the old one revoked at once)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any, Callable

import jwt
import pytest
from django.test import Client
from django.utils import timezone
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken

from developer_api.keys import api_key_authenticate, api_key_rotate, key_hash
from developer_api.models import AgentKey
from memory.models import Workspace
from tests.developer_api.conftest import access_token, assert_error

URL = "/v1/dev/rotate-key"


def rotate(client: Client, bearer: str | None) -> Any:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer is not None else {}
    return client.post(URL, headers=headers)


def mcp_ping(client: Client, key: str) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    return client.post("/v1/mcp/memory", data=body, content_type="application/json", headers={"Authorization": key})


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


@pytest.fixture
def token(client: Client, workspace: Workspace) -> str:
    return access_token(client)


def test_it_works(client: Client, workspace: Workspace, token: str) -> None:
    response = rotate(client, token)

    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"api_key", "key_prefix", "rotated_at"}
    assert re.fullmatch(r"pam_mkey_[A-Za-z0-9]{16,}", body["api_key"])
    assert body["api_key"].startswith(body["key_prefix"])
    assert body["key_prefix"] == body["api_key"][: len("pam_mkey_") + 8]


def test_rotated_at_is_iso_8601_utc_with_an_offset(client: Client, token: str) -> None:
    before = timezone.now()

    rotated_at = rotate(client, token).json()["rotated_at"]

    assert rotated_at.endswith("+00:00")
    parsed = datetime.fromisoformat(rotated_at)
    assert parsed.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= parsed <= timezone.now() + timedelta(seconds=1)


def test_the_key_is_stored_only_as_a_hash(client: Client, workspace: Workspace, token: str) -> None:
    api_key = rotate(client, token).json()["api_key"]

    stored = AgentKey.objects.get(workspace=workspace, revoked_at__isnull=True)
    assert stored.key_hash == key_hash(api_key)
    assert api_key not in {stored.key_hash, stored.key_prefix}


def test_the_new_key_works_on_the_mcp_endpoint(client: Client, token: str) -> None:
    api_key = rotate(client, token).json()["api_key"]

    response = mcp_ping(client, api_key)

    assert response.status_code == 200, response.content
    assert response.json()["result"] == {}


def test_the_old_key_is_refused_on_the_mcp_endpoint_at_once(client: Client, agent_key: str, token: str) -> None:
    assert mcp_ping(client, agent_key).status_code == 200

    rotate(client, token)

    response = mcp_ping(client, agent_key)
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"


def test_it_leaves_exactly_one_active_key(client: Client, workspace: Workspace, agent_key: str, token: str) -> None:
    keys = [rotate(client, token).json()["api_key"] for _ in range(3)]

    active = AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True)
    assert active.count() == 1
    assert active.get().key_hash == key_hash(keys[-1])
    assert [api_key_authenticate(k) is not None for k in [agent_key, *keys]] == [False, False, False, True]


def test_it_issues_a_key_when_there_was_none(client: Client, workspace: Workspace, token: str) -> None:
    assert not AgentKey.objects.filter(workspace=workspace).exists()

    response = rotate(client, token)

    assert response.status_code == 200
    assert mcp_ping(client, response.json()["api_key"]).status_code == 200


def test_it_refuses_a_request_without_a_token(client: Client, workspace: Workspace, agent_key: str) -> None:
    response = rotate(client, None)

    assert_error(response, 401, "invalid_token")
    assert response.has_header("WWW-Authenticate")
    assert api_key_authenticate(agent_key) is not None


@pytest.mark.parametrize("header", ["{key}", "Bearer {key}"])
def test_it_refuses_an_agent_key_as_the_credential(
    client: Client, workspace: Workspace, agent_key: str, header: str
) -> None:
    response = client.post(URL, headers={"Authorization": header.format(key=agent_key)})

    assert_error(response, 401, "invalid_token")
    assert api_key_authenticate(agent_key) is not None


def test_it_refuses_an_expired_access_token(client: Client, workspace: Workspace, agent_key: str) -> None:
    user = workspace.users.get()
    fresh = AccessToken.for_user(user)
    expired = AccessToken.for_user(user)
    expired.set_exp(from_time=timezone.now() - timedelta(minutes=16))

    assert_error(rotate(client, str(expired)), 401, "invalid_token")
    assert api_key_authenticate(agent_key) is not None
    assert rotate(client, str(fresh)).status_code == 200  # the same token, unexpired, works


def test_it_refuses_a_refresh_token_as_the_bearer(client: Client, workspace: Workspace) -> None:
    refresh = RefreshToken.for_user(workspace.users.get())

    assert_error(rotate(client, str(refresh)), 401, "invalid_token")


def test_it_refuses_a_malformed_token(client: Client, workspace: Workspace) -> None:
    assert_error(rotate(client, "not-a-jwt"), 401, "invalid_token")


def test_it_refuses_a_disabled_workspace(client: Client, workspace: Workspace, agent_key: str, token: str) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)

    assert_error(rotate(client, token), 403, "workspace_disabled")
    assert AgentKey.objects.filter(workspace=workspace).count() == 1
    assert api_key_authenticate(agent_key) is not None


def test_it_refuses_get(client: Client, token: str) -> None:
    response = client.get(URL, headers={"Authorization": f"Bearer {token}"})

    assert response.status_code == 405
    assert set(response.json()) == {"error_code", "error_message"}


def test_it_refuses_other_workspace(client: Client, make_workspace: Callable[..., Workspace]) -> None:
    """Workspace B's admin rotating never touches workspace A's key."""
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    acme_key = api_key_rotate(workspace=acme).api_key

    response = rotate(client, access_token(client, "admin@globex.example"))

    assert response.status_code == 200
    new_key = response.json()["api_key"]
    assert api_key_authenticate(acme_key).workspace == acme  # type: ignore[union-attr]
    assert api_key_authenticate(new_key).workspace == globex  # type: ignore[union-attr]
    assert AgentKey.objects.filter(workspace=acme, revoked_at__isnull=True).count() == 1
    assert mcp_ping(client, acme_key).status_code == 200


def test_it_refuses_an_unsigned_token(client: Client, workspace: Workspace, token: str) -> None:
    claims = jwt.decode(token, options={"verify_signature": False})
    unsigned = jwt.encode(claims, "", algorithm="none")

    assert_error(rotate(client, unsigned), 401, "invalid_token")
    assert not AgentKey.objects.filter(workspace=workspace).exists()


def test_it_refuses_the_token_of_a_deleted_user(client: Client, workspace: Workspace, token: str) -> None:
    workspace.users.all().delete()

    assert_error(rotate(client, token), 401, "invalid_token")
    assert not AgentKey.objects.filter(workspace=workspace).exists()


ODD_USER_IDS = ["abc", "1.5", "²", "", " 1", [1], {"id": 1}, True, 0, -1, 2**70, None]


@pytest.mark.parametrize("user_id", ODD_USER_IDS, ids=repr)
def test_it_refuses_a_validly_signed_token_whose_user_id_is_not_a_row_id(
    client: Client, workspace: Workspace, user_id: Any
) -> None:
    # Issue 17 defect 4: a non-integer user_id reached the database lookup, a 500.
    token = AccessToken.for_user(workspace.users.get())
    token["user_id"] = user_id

    assert_error(rotate(client, str(token)), 401, "invalid_token")
    assert not AgentKey.objects.filter(workspace=workspace).exists()


def test_it_does_not_round_a_fractional_user_id_to_a_real_user(client: Client, workspace: Workspace) -> None:
    user = workspace.users.get()
    token = AccessToken.for_user(user)
    token["user_id"] = user.pk + 0.25  # Django would coerce it to user.pk

    assert_error(rotate(client, str(token)), 401, "invalid_token")


# --- SPEC §2.4: scopes, buckets and teams of the new key ---------------------------------------


def rotate_with(client: Client, token: str, body: Any) -> Any:
    return client.post(URL, data=json.dumps(body), content_type="application/json", headers={"Authorization": f"Bearer {token}"})


def test_without_a_body_the_key_has_both_scopes_and_sees_every_bucket_and_team(
    client: Client, workspace: Workspace, token: str
) -> None:
    rotate(client, token)
    key = AgentKey.objects.get(workspace=workspace, revoked_at__isnull=True)
    assert sorted(key.scopes) == ["memory:read", "memory:write"]
    assert key.buckets == [] and key.teams == []


def test_it_takes_scopes_buckets_and_teams(client: Client, workspace: Workspace, token: str) -> None:
    response = rotate_with(client, token, {"scopes": ["memory:read"], "buckets": ["eng", "public"], "teams": ["platform"]})
    assert response.status_code == 200, response.content
    key = api_key_authenticate(response.json()["api_key"])
    assert key is not None
    assert key.scopes == ["memory:read"] and key.buckets == ["eng", "public"] and key.teams == ["platform"]
    tools = mcp_tools(client, response.json()["api_key"])
    assert "remember" not in tools and "recall" in tools


def mcp_tools(client: Client, key: str) -> list[str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    response = client.post("/v1/mcp/memory", data=body, content_type="application/json", headers={"Authorization": key})
    return [tool["name"] for tool in response.json()["result"]["tools"]]


@pytest.mark.parametrize(
    "body",
    [
        {"scopes": ["memory:admin"]},
        {"scopes": []},
        {"scopes": "memory:read"},
        {"buckets": ["Not A Bucket"]},
        {"teams": ["t" * 101]},
        [1, 2],
    ],
)
def test_bad_options_are_a_400_and_keep_the_old_key(client: Client, workspace: Workspace, token: str, body: Any) -> None:
    old = api_key_rotate(workspace=workspace).api_key
    response = rotate_with(client, token, body)
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"error_code", "error_message"}
    assert api_key_authenticate(old) is not None
