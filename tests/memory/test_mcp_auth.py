"""Credentials on `/v1/mcp/memory`: agent keys (SPEC §3 "Keys", DESIGN §3.5; RFC 6750 §3 for the
401 challenge). OAuth access tokens: tests/oauth/test_mcp_bearer_tokens.py."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from developer_api.keys import api_key_revoke, api_key_rotate
from developer_api.models import AgentKey, RequestLog
from memory.models import Workspace
from tests.conftest import Mcp

KEY_FORMAT = re.compile(r"pam_mkey_[A-Za-z0-9]{32}")


def assert_unauthorized(response: Any, settings: Any) -> None:
    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "invalid_token"
    assert response["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{settings.PAM_PUBLIC_BASE_URL}/.well-known/oauth-protected-resource'
        f'/v1/mcp/memory", scope="memory:read"'
    )


# --- Agent keys --------------------------------------------------------------------------------


def test_it_issues_keys_in_the_published_format(workspace: Workspace) -> None:
    issued = api_key_rotate(workspace=workspace)
    assert KEY_FORMAT.fullmatch(issued.api_key), issued.api_key
    secret = issued.api_key.removeprefix("pam_mkey_")
    assert issued.key.key_prefix == "pam_mkey_" + secret[:8]


def test_it_issues_a_different_key_every_time(workspace: Workspace) -> None:
    keys = {api_key_rotate(workspace=workspace).api_key for _ in range(5)}
    assert len(keys) == 5


def test_it_stores_only_the_digest_of_the_key(workspace: Workspace) -> None:
    issued = api_key_rotate(workspace=workspace)
    row = AgentKey.objects.get(pk=issued.key.pk)
    assert row.key_hash == hashlib.sha256(issued.api_key.encode()).hexdigest()
    secret = issued.api_key.removeprefix("pam_mkey_")
    for model_field in AgentKey._meta.concrete_fields:
        stored = str(getattr(row, model_field.attname))
        assert issued.api_key not in stored, model_field.name
        assert secret not in stored, model_field.name


def test_it_authenticates_with_the_issued_key(mcp: Mcp) -> None:
    response = mcp.request("ping")
    assert response.status_code == 200
    assert response.json()["result"] == {}


def test_it_revokes_the_previous_key_on_rotation(mcp: Mcp, workspace: Workspace, agent_key: str, settings: Any) -> None:
    assert mcp.request("ping").status_code == 200
    new_key = api_key_rotate(workspace=workspace).api_key
    assert new_key != agent_key
    assert_unauthorized(mcp.request("ping", key=agent_key), settings)
    assert mcp.request("ping", key=new_key).status_code == 200
    old = AgentKey.objects.get(workspace=workspace, key_prefix=agent_key[:17], key_hash=hashlib.sha256(agent_key.encode()).hexdigest())
    assert old.revoked_at is not None


def test_it_refuses_a_revoked_key(mcp: Mcp, workspace: Workspace, settings: Any) -> None:
    assert api_key_revoke(workspace=workspace) is True
    assert_unauthorized(mcp.request("ping"), settings)
    assert api_key_revoke(workspace=workspace) is False


def test_it_keeps_one_active_key_per_workspace(workspace: Workspace) -> None:
    for _ in range(3):
        api_key_rotate(workspace=workspace)
    assert AgentKey.objects.filter(workspace=workspace).count() == 3
    assert AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).count() == 1


def test_the_database_refuses_a_second_active_key(workspace: Workspace) -> None:
    api_key_rotate(workspace=workspace)
    with pytest.raises(IntegrityError), transaction.atomic():
        AgentKey.objects.create(workspace=workspace, key_prefix="pam_mkey_AAAAAAAA", key_hash="0" * 64)


def test_the_database_allows_revoked_keys_beside_the_active_one(workspace: Workspace) -> None:
    api_key_rotate(workspace=workspace)
    AgentKey.objects.create(
        workspace=workspace, key_prefix="pam_mkey_AAAAAAAA", key_hash="0" * 64, revoked_at=timezone.now()
    )
    assert AgentKey.objects.filter(workspace=workspace).count() == 2


def test_it_allows_one_active_key_in_each_workspace(make_workspace: Any) -> None:
    first, second = make_workspace("one"), make_workspace("two")
    api_key_rotate(workspace=first)
    api_key_rotate(workspace=second)
    assert AgentKey.objects.filter(revoked_at__isnull=True).count() == 2


def test_it_records_when_the_key_was_last_used(mcp: Mcp, workspace: Workspace) -> None:
    key = AgentKey.objects.get(workspace=workspace)
    assert key.last_used_at is None
    before = timezone.now()
    mcp.call({"prompt": "Who owns Meridian?"})
    key.refresh_from_db()
    assert key.last_used_at is not None and key.last_used_at >= before


def test_it_binds_a_key_to_its_workspace(client: Client, make_workspace: Any) -> None:
    first, second = make_workspace("one"), make_workspace("two")
    Mcp(client, api_key_rotate(workspace=first).api_key).call({"prompt": "Who owns Meridian?"})
    assert RequestLog.objects.filter(workspace=first).count() == 1
    assert RequestLog.objects.filter(workspace=second).count() == 0
