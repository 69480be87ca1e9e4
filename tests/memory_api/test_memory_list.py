"""GET /v1/memory (SPEC §2.4, docs/api/memory.md): the memories the signed-in user can see,
newest first, with the wider filter set and the keyset envelope of /v1/dev/mcp-requests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone as dt_timezone
from typing import Any
from urllib.parse import quote

from django.test import Client
from django.utils import timezone

from memory.agent_memory.services import memory_forget_one, Writer
from memory.engine.live import Viewer
from memory.models import AgentMemory, Workspace
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import KEY, URL, assert_invalid, bearer, scope_user, user_label, write

ENVELOPE = {"items", "next_cursor", "page_size", "total_count", "current_page", "total_pages"}


def listed(client: Client, auth: dict[str, str], query: str = "") -> dict[str, Any]:
    response = client.get(URL + query, headers=auth)
    assert response.status_code == 200, response.content
    return dict(response.json())


def references(body: dict[str, Any]) -> list[str]:
    return [item["reference"] for item in body["items"]]


def test_it_lists_memories_newest_first_with_their_provenance(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    first = write(workspace, "The launch is planned for March.")
    second = write(workspace, "Dana prefers written status updates.", path="people/dana", team="eng", project="pam")
    body = listed(client, auth)
    assert set(body) == ENVELOPE
    assert references(body) == [second.reference, first.reference]
    item = body["items"][0]
    assert item["credential"] == KEY and item["provenance"]["kind"] == "agent_key"
    assert (item["team"], item["project"], item["status"], item["deleted_at"]) == ("eng", "pam", "live", None)
    assert item["source_path"] == "company_context/agent_memory/public.md"
    assert "history" not in item


def test_an_empty_workspace_is_an_empty_first_page(client: Client, auth: dict[str, str]) -> None:
    assert listed(client, auth) == {
        "items": [], "next_cursor": None, "page_size": 10, "total_count": 0, "current_page": 1, "total_pages": 0,
    }


def test_a_cursor_continues_where_the_page_ended(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    refs = [write(workspace, f"Decision number {i} about topic {i * 7}.", path=f"d/{i}").reference for i in range(5)][::-1]
    first = listed(client, auth, "?limit=2")
    assert references(first) == refs[:2] and first["total_pages"] == 3
    second = listed(client, auth, f"?limit=2&cursor={quote(first['next_cursor'])}")
    assert references(second) == refs[2:4] and second["current_page"] == 2
    unencoded = listed(client, auth, f"?limit=2&cursor={second['next_cursor']}")  # "+00:00" read as " 00:00"
    assert references(unencoded) == refs[4:] and unencoded["next_cursor"] is None
    assert references(listed(client, auth, "?limit=2&page=3")) == refs[4:]


def test_it_filters_by_bucket_team_project_type_path_prefix_and_provenance(
    client: Client, auth: dict[str, str], workspace: Workspace
) -> None:
    eng = write(workspace, "Eng uses trunk-based development.", path="eng/process", team="eng", bucket="eng", memory_type="decision")
    pam = write(workspace, "PAM ships weekly.", path="projects/pam/release", project="pam")
    other_key = write(workspace, "The sales deck lives in the drive.", path="projects/pamela/notes", label="pam_mkey_other002")
    assert references(listed(client, auth, "?bucket=eng")) == [eng.reference]
    assert references(listed(client, auth, "?team=eng")) == [eng.reference]
    assert references(listed(client, auth, "?project=pam")) == [pam.reference]
    assert references(listed(client, auth, "?memory_type=decision")) == [eng.reference]
    assert references(listed(client, auth, "?path_prefix=projects/pam/")) == [pam.reference]
    assert references(listed(client, auth, "?path_prefix=projects/pam")) == [other_key.reference, pam.reference]
    assert references(listed(client, auth, "?credential=pam_mkey_other002")) == [other_key.reference]
    assert listed(client, auth, "?bucket=eng&team=sales")["items"] == []


def test_created_ranges_are_inclusive_after_and_exclusive_before(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    old, new = write(workspace, "Old memory about budgets."), write(workspace, "New memory about hiring.", path="x")
    t0 = datetime(2026, 1, 1, tzinfo=dt_timezone.utc)
    AgentMemory.objects.filter(pk=old.pk).update(created_at=t0)
    AgentMemory.objects.filter(pk=new.pk).update(created_at=t0 + timedelta(days=1))
    assert references(listed(client, auth, f"?created_after={quote(t0.isoformat())}")) == [new.reference, old.reference]
    assert references(listed(client, auth, "?created_after=2026-01-01T00:00:01Z")) == [new.reference]
    assert references(listed(client, auth, "?created_before=2026-01-02T00:00:00Z")) == [old.reference]
    assert references(listed(client, auth, "?created_after=2026-01-01T00:00:00 00:00&created_before=2026-01-03")) == [
        new.reference, old.reference,
    ]
    assert references(listed(client, auth, "?created_after=2026-01-01 00:00:01")) == [new.reference]  # a space, no offset: UTC


def test_expiry_ranges_leave_out_memories_that_never_expire(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    soon = write(workspace, "The promo code works this week.", expires_at=timezone.now() + timedelta(days=3))
    write(workspace, "The office is in Lisbon.", path="office")
    later = (timezone.now() + timedelta(days=10)).isoformat()
    assert references(listed(client, auth, f"?expires_before={quote(later)}")) == [soon.reference]
    assert listed(client, auth, f"?expires_after={quote(later)}")["items"] == []


def test_forgotten_and_expired_memories_show_only_on_request(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    live = write(workspace, "Live memory about the roadmap.")
    gone = write(workspace, "Forgotten memory about the old office.", path="old")
    memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=gone.reference, reason="moved")
    expired = write(workspace, "Expired memory about a promo.", path="promo")
    AgentMemory.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    assert references(listed(client, auth)) == [live.reference]
    forgotten = listed(client, auth, "?include_forgotten=true")
    assert references(forgotten) == [gone.reference, live.reference]
    assert forgotten["items"][0]["status"] == "forgotten" and forgotten["items"][0]["deleted_at"]
    assert references(listed(client, auth, "?include_expired=1"))[0] == expired.reference
    assert listed(client, auth, "?include_expired=1")["items"][0]["status"] == "expired"


def test_a_user_sees_only_the_buckets_and_teams_on_their_row(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    public = write(workspace, "Public note about lunch.")
    write(workspace, "Eng note about deploys.", path="eng", bucket="eng")
    write(workspace, "Sales team note.", path="sales", team="sales")
    scope_user(workspace, buckets=["public"], teams=["eng"])
    assert references(listed(client, auth)) == [public.reference]
    assert_invalid(client.get(URL + "?bucket=eng", headers=auth), "bucket")
    assert_invalid(client.get(URL + "?team=sales", headers=auth), "team")


def test_private_memories_are_only_their_writers(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    write(workspace, "The agent's private scratch note.", bucket="private")
    mine = write(workspace, "My own private note.", path="me", bucket="private", label=user_label(workspace))
    assert references(listed(client, auth)) == [mine.reference]
    assert references(listed(client, auth, "?bucket=private")) == [mine.reference]
    assert listed(client, auth, f"?credential={KEY}")["items"] == []


def test_it_never_lists_another_workspaces_memories(client: Client, workspace: Workspace, other: Workspace) -> None:
    write(other, "Globex secret roadmap item.")
    mine = write(workspace, "Acme roadmap item.")
    assert references(listed(client, bearer(client, workspace), "?include_forgotten=1&include_expired=1")) == [mine.reference]


def test_bad_filters_are_422_naming_each_field(client: Client, auth: dict[str, str]) -> None:
    errors = assert_invalid(client.get(URL + "?limit=0&created_after=yesterday&include_forgotten=maybe", headers=auth), "limit")
    assert {e["field"] for e in errors} == {"limit", "created_after", "include_forgotten"}
    assert_invalid(client.get(URL + "?cursor=nonsense", headers=auth), "cursor")
    assert_invalid(client.get(URL + "?bucket=", headers=auth), "bucket")
    assert_invalid(client.get(URL + "?limit=101", headers=auth), "limit")
    assert_invalid(client.get(URL + "?created_after=2026-02-01&created_before=2026-01-01", headers=auth), "created_before")


def test_it_needs_a_jwt(client: Client, agent_key: str) -> None:
    assert_error(client.get(URL), 401, "invalid_token")
    assert_error(client.get(URL, headers={"Authorization": agent_key}), 401, "invalid_token")
    assert_error(client.get(URL, headers={"Authorization": f"Bearer {agent_key}"}), 401, "invalid_token")


def test_a_disabled_workspace_is_refused(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)
    assert_error(client.get(URL, headers=auth), 403, "workspace_disabled")
