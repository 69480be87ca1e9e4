"""python manage.py rotate_key --workspace SLUG: the new key alone on one stdout line (SPEC §7)."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from developer_api.keys import api_key_authenticate
from developer_api.models import AgentKey
from memory.models import Workspace


def rotate_key(slug: str) -> str:
    out = StringIO()
    call_command("rotate_key", workspace=slug, stdout=out, stderr=StringIO())
    return out.getvalue()


def mcp_ping(key: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    response = Client().post(
        "/v1/mcp/memory", data=body, content_type="application/json", headers={"Authorization": key}
    )
    return int(response.status_code)


def test_it_prints_exactly_one_line_that_is_the_key(workspace: Workspace) -> None:
    out = rotate_key("acme")

    assert out.endswith("\n")
    lines = out.splitlines()
    assert len(lines) == 1
    key = lines[0]
    assert re.fullmatch(r"pam_mkey_[A-Za-z0-9]{16,}", key)
    found = api_key_authenticate(key)
    assert found is not None and found.workspace == workspace


def test_the_printed_key_works_on_the_mcp_endpoint(workspace: Workspace) -> None:
    key = rotate_key("acme").strip()

    assert mcp_ping(key) == 200


def test_it_revokes_the_previous_key(workspace: Workspace, agent_key: str) -> None:
    assert mcp_ping(agent_key) == 200

    key = rotate_key("acme").strip()

    assert key != agent_key
    assert api_key_authenticate(agent_key) is None
    assert mcp_ping(agent_key) == 401
    assert AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).count() == 1


def test_each_run_prints_a_new_key(workspace: Workspace) -> None:
    first = rotate_key("acme").strip()
    second = rotate_key("acme").strip()

    assert first != second
    assert api_key_authenticate(first) is None
    assert api_key_authenticate(second) is not None


def test_it_rejects_an_unknown_workspace(workspace: Workspace, agent_key: str) -> None:
    with pytest.raises(CommandError) as excinfo:
        rotate_key("no-such-workspace")

    assert "no-such-workspace" in str(excinfo.value)
    assert excinfo.value.returncode == 1
    assert api_key_authenticate(agent_key) is not None


def test_it_requires_the_workspace_option(workspace: Workspace) -> None:
    with pytest.raises(CommandError):
        call_command("rotate_key", stdout=StringIO(), stderr=StringIO())

    assert not AgentKey.objects.exists()


def test_it_refuses_other_workspace(make_workspace: Callable[..., Workspace]) -> None:
    """Rotating one workspace's key never touches another's."""
    acme = make_workspace("acme")
    make_workspace("globex")
    acme_key = rotate_key("acme").strip()

    globex_key = rotate_key("globex").strip()

    assert api_key_authenticate(acme_key).workspace == acme  # type: ignore[union-attr]
    assert api_key_authenticate(globex_key).workspace.slug == "globex"  # type: ignore[union-attr]


def test_scope_bucket_and_team_options_shape_the_key(workspace: Workspace) -> None:
    out = StringIO()
    call_command(
        "rotate_key", workspace="acme", scope=["memory:read"], bucket=["eng"], team=["platform", "data"],
        stdout=out, stderr=StringIO(),
    )
    key = api_key_authenticate(out.getvalue().strip())
    assert key is not None
    assert key.scopes == ["memory:read"] and key.buckets == ["eng"] and key.teams == ["data", "platform"]


def test_without_options_the_key_has_both_scopes_and_every_bucket(workspace: Workspace) -> None:
    key = api_key_authenticate(rotate_key("acme").strip())
    assert key is not None
    assert sorted(key.scopes) == ["memory:read", "memory:write"] and key.buckets == [] and key.teams == []


def test_an_invalid_bucket_is_refused(workspace: Workspace) -> None:
    with pytest.raises(CommandError):
        call_command("rotate_key", workspace="acme", bucket=["Bad Bucket"], stdout=StringIO(), stderr=StringIO())
