"""GET /v1/memory/export (issue 14): every memory the user can see as JSON Lines, streamed,
one object per memory with its provenance, history and audit; the list's filters apply."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from memory.agent_memory.services import Writer, memory_forget_one
from memory.engine.live import Viewer
from memory.models import Workspace
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import KEY, URL, assert_invalid, bearer, scope_user, write

EXPORT = f"{URL}/export"


def exported(client: Client, auth: dict[str, str], query: str = "") -> list[dict[str, Any]]:
    response = client.get(EXPORT + query, headers=auth)
    assert response.status_code == 200, response.content
    assert response.streaming and response["Content-Type"].startswith("application/x-ndjson")
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_it_streams_one_line_per_memory_oldest_first_with_history(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    first = write(workspace, "Releases happen on Wednesdays.", semantic_key="release-day")
    write(workspace, "Releases happen on Thursdays.", semantic_key="release-day")
    second = write(workspace, "The CFO approves refunds over $5,000.", path="finance/refunds", team="finance")
    response = client.get(EXPORT, headers=auth)
    assert 'attachment; filename="pam-memory-acme-' in response["Content-Disposition"]
    lines = exported(client, auth)
    assert [line["reference"] for line in lines] == [first.reference, second.reference]
    assert lines[0]["content"] == "Releases happen on Thursdays." and lines[0]["credential"] == KEY
    assert [v["content"] for v in lines[0]["history"]] == ["Releases happen on Wednesdays."]
    assert [a["action"] for a in lines[0]["audit"]] == ["created", "updated"]
    assert lines[0]["provenance"]["credential"] == KEY and lines[1]["team"] == "finance"


def test_the_lists_filters_apply(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    write(workspace, "Public note.")
    eng = write(workspace, "Eng note.", path="eng", bucket="eng")
    gone = write(workspace, "Forgotten note.", path="gone")
    memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=gone.reference, reason="x")
    assert [line["reference"] for line in exported(client, auth, "?bucket=eng")] == [eng.reference]
    assert len(exported(client, auth)) == 2
    assert exported(client, auth, "?include_forgotten=true")[-1]["status"] == "forgotten"


def test_bad_filters_are_422_before_anything_streams(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    assert_invalid(client.get(EXPORT + "?created_before=soon", headers=auth), "created_before")
    scope_user(workspace, buckets=["public"])
    assert_invalid(client.get(EXPORT + "?bucket=eng", headers=auth), "bucket")


def test_only_what_the_user_can_see_is_exported(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    public = write(workspace, "Public note.")
    write(workspace, "Agent private note.", path="p", bucket="private")
    write(workspace, "Finance note.", path="f", bucket="finance")
    scope_user(workspace, buckets=["public"])
    assert [line["reference"] for line in exported(client, auth)] == [public.reference]


def test_it_never_exports_another_workspace(client: Client, workspace: Workspace, other: Workspace) -> None:
    write(other, "Globex secret plan.")
    assert exported(client, bearer(client, workspace), "?include_forgotten=1&include_expired=1") == []


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    assert_error(client.get(EXPORT), 401, "invalid_token")
