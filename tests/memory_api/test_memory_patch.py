"""PATCH /v1/memory/{reference} (SPEC §2.4): content, metadata, importance and expiry; the
replaced values become a version; the capture policy applies; recall sees the new content on
the next call."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from memory.agent_memory.services import Writer, memory_forget_one
from memory.engine.live import Viewer
from memory.models import AgentMemory, AgentMemoryAudit, AgentMemoryVersion, Workspace
from tests.conftest import Mcp
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import KEY, URL, assert_invalid, bearer, scope_user, user_label, write


def patch(client: Client, auth: dict[str, str], reference: str, body: Any) -> Any:
    return client.patch(f"{URL}/{reference}", body, content_type="application/json", headers=auth)


def test_it_changes_the_fields_and_keeps_the_history(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "The design review is on Mondays.", importance=0.4, metadata={"room": "A"})
    expires = timezone.now() + timedelta(days=7)
    response = patch(client, auth, memory.reference, {
        "content": "The design review is on Thursdays.", "metadata": {"room": "B"}, "importance": 0.8,
        "expires_at": expires.isoformat(),
    })
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["content"], body["metadata"], body["importance"]) == ("The design review is on Thursdays.", {"room": "B"}, 0.8)
    assert body["expires_at"] == expires.isoformat()
    [version] = body["history"]
    assert (version["content"], version["metadata"], version["importance"], version["expires_at"]) == (
        "The design review is on Mondays.", {"room": "A"}, 0.4, None,
    )
    assert version["replaced_by"] == user_label(workspace) and version["valid_from"] == memory.updated_at.isoformat()
    assert body["audit"][-1]["action"] == "updated" and "content" in body["audit"][-1]["reason"]
    assert body["credential"] == KEY  # who wrote it first stays its provenance


def test_null_clears_importance_and_expiry(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Temporary note.", importance=0.5, expires_at=timezone.now() + timedelta(days=1))
    body = patch(client, auth, memory.reference, {"importance": None, "expires_at": None}).json()
    assert (body["importance"], body["expires_at"]) == (None, None)


def test_recall_sees_the_patched_content_at_once(client: Client, auth: dict[str, str], workspace: Workspace, mcp: Mcp) -> None:
    memory = write(workspace, "The staging database is called orchid.")
    patch(client, auth, memory.reference, {"content": "The staging database is called tulip."})
    result = mcp.call({"query": "what is the staging database called"}, name="recall")
    [hit] = [r for r in result["structuredContent"]["results"] if r["reference"] == memory.reference]
    assert hit["content"] == "The staging database is called tulip."
    assert not [r for r in mcp.call({"query": "orchid"}, name="recall")["structuredContent"]["results"] if r["reference"] == memory.reference]


def test_a_patch_that_changes_nothing_writes_nothing(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Same content.", importance=0.5)
    assert patch(client, auth, memory.reference, {"content": "Same content.", "importance": 0.5}).status_code == 200
    assert not AgentMemoryVersion.objects.exists() and AgentMemoryAudit.objects.count() == 1


def test_the_capture_policy_refuses_a_secret(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Where the deploy key lives.")
    body = assert_error(patch(client, auth, memory.reference, {"content": "api_key: sk-proj-abcdefghijklmnopqrstuvwxyz"}), 422, "capture_refused")
    assert "API key" in body["error_message"]
    assert_error(patch(client, auth, memory.reference, {"metadata": {"note": "password: hunter22"}}), 422, "capture_refused")
    assert AgentMemory.objects.get(pk=memory.pk).content == "Where the deploy key lives."


def test_invalid_patches_are_422_naming_each_field(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    ref = write(workspace, "Something.").reference
    assert_invalid(patch(client, auth, ref, {}), "")
    errors = assert_invalid(patch(client, auth, ref, {"path": "elsewhere", "importance": "high", "content": ""}), "path", "importance", "content")
    assert len(errors) == 3
    assert_invalid(patch(client, auth, ref, {"expires_at": "2001-01-01T00:00:00Z"}), "expires_at")
    assert_invalid(patch(client, auth, ref, {"metadata": ["a"]}), "metadata")
    assert_invalid(patch(client, auth, ref, {"importance": True}), "importance")


def test_a_forgotten_memory_must_be_restored_first(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Old news.")
    memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=memory.reference, reason="x")
    assert_error(patch(client, auth, memory.reference, {"content": "New news."}), 409, "conflict")


def test_an_expired_memory_can_get_a_new_expiry(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Quarterly promo code details.")
    AgentMemory.objects.filter(pk=memory.pk).update(expires_at=timezone.now() - timedelta(days=1))
    body = patch(client, auth, memory.reference, {"expires_at": (timezone.now() + timedelta(days=90)).isoformat()}).json()
    assert body["status"] == "live"


def test_it_refuses_other_workspace(client: Client, workspace: Workspace, other: Workspace) -> None:
    theirs = write(other, "Globex roadmap.")
    assert_error(patch(client, bearer(client, workspace), theirs.reference, {"content": "hijacked"}), 404, "not_found")
    assert AgentMemory.objects.get(pk=theirs.pk).content == "Globex roadmap."


def test_a_memory_outside_the_users_buckets_is_404(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Finance note.", bucket="finance")
    private = write(workspace, "Agent private note.", path="x", bucket="private")
    scope_user(workspace, buckets=["public"])
    assert_error(patch(client, auth, memory.reference, {"content": "changed"}), 404, "not_found")
    scope_user(workspace)
    assert_error(patch(client, auth, private.reference, {"content": "changed"}), 404, "not_found")
