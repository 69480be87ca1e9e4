"""Shared by the REST memory API tests (/v1/memory, SPEC §2.4): a client that returns 500s
instead of raising, a JWT for the workspace admin, memories written through the `remember`
service as an agent key would, and the two error shapes (SPEC §3; 422 of SPEC §2.4)."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from django.test import Client

from memory.agent_memory.services import MemoryDraft, Writer, memory_remember
from memory.engine.live import Viewer
from memory.models import AgentMemory, User, Workspace
from tests.developer_api.conftest import access_token

URL = "/v1/memory"
KEY = "pam_mkey_agent001"  # the credential label of the agent that writes the fixtures


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


@pytest.fixture
def auth(client: Client, workspace: Workspace) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token(client)}"}


@pytest.fixture
def other(make_workspace: Callable[..., Workspace]) -> Workspace:
    return make_workspace("globex")


def bearer(client: Client, workspace: Workspace) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token(client, f'admin@{workspace.slug}.example')}"}


def write(workspace: Workspace, content: str, path: str = "projects/pam/decisions", *, label: str = KEY, **more: Any) -> AgentMemory:
    """A memory written as the agent key `label` would write it with `remember`."""
    draft = MemoryDraft(path=path, content=content, bucket=more.pop("bucket", "public"), **more)
    done = memory_remember(
        workspace=workspace, viewer=Viewer(label=label), writer=Writer(label=label, kind="agent_key", request_id=""), draft=draft
    )
    return done.memory


def user_label(workspace: Workspace) -> str:
    return f"user:{User.objects.get(email=f'admin@{workspace.slug}.example').pk}"


def scope_user(workspace: Workspace, *, buckets: list[str] | None = None, teams: list[str] | None = None) -> None:
    User.objects.filter(email=f"admin@{workspace.slug}.example").update(memory_buckets=buckets or [], memory_teams=teams or [])


def assert_invalid(response: Any, *fields: str) -> list[dict[str, str]]:
    """HTTP 422 in SPEC §2.4's shape, naming `fields`."""
    assert response.status_code == 422, response.content
    body = response.json()
    assert set(body) == {"error_code", "error_message", "errors"}
    assert body["error_code"] == "invalid_arguments"
    named = [e["field"] for e in body["errors"]]
    for field in fields:
        assert field in named, body
        assert f"'{named[0]}'" in body["error_message"] or not named[0]
    return list(body["errors"])

