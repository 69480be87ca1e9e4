"""POST /v1/memory (SPEC §2.4): the `remember` service over REST — the same checks, the same
capture policy, the same upsert and merge; the signed-in user is the writer."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from memory.models import AgentMemory, AgentMemoryAudit, Workspace
from tests.conftest import Mcp
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import URL, assert_invalid, scope_user, user_label


def create(client: Client, auth: dict[str, str], body: Any, status: int = 201) -> dict[str, Any]:
    response = client.post(URL, body, content_type="application/json", headers=auth)
    assert response.status_code == status, response.content
    return dict(response.json())


def test_it_remembers_and_answers_the_memory_with_its_history(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    expires = (timezone.now() + timedelta(days=30)).isoformat()
    body = create(client, auth, {
        "path": "projects/pam/decisions", "content": "We chose PostgreSQL for production.", "team": "eng",
        "project": "pam", "memory_type": "decision", "importance": 0.9, "confidence": 1, "expires_at": expires,
        "semantic_key": "pam-db", "metadata": {"ticket": "PAM-12"},
    })
    memory = body["memory"]
    assert body["action"] == "created" and memory["reference"].startswith("mem_")
    assert (memory["team"], memory["project"], memory["memory_type"], memory["importance"]) == ("eng", "pam", "decision", 0.9)
    assert memory["credential"] == user_label(workspace) and memory["provenance"]["kind"] == "user"
    assert memory["history"] == [] and [a["action"] for a in memory["audit"]] == ["created"]
    assert AgentMemory.objects.get(reference=memory["reference"]).workspace_id == workspace.pk


def test_a_semantic_key_updates_and_keeps_the_old_values(client: Client, auth: dict[str, str]) -> None:
    first = create(client, auth, {"path": "p", "content": "The standup is at 9:30.", "semantic_key": "standup"})
    second = create(client, auth, {"path": "p", "content": "The standup moved to 10:00.", "semantic_key": "standup"}, 200)
    assert second["action"] == "updated" and second["memory"]["reference"] == first["memory"]["reference"]
    assert second["memory"]["content"] == "The standup moved to 10:00."
    assert [(v["version"], v["content"]) for v in second["memory"]["history"]] == [(1, "The standup is at 9:30.")]


def test_the_recall_tool_finds_it_on_the_next_call(client: Client, auth: dict[str, str], mcp: Mcp) -> None:
    reference = create(client, auth, {"path": "ops/oncall", "content": "The on-call rotation changes every Tuesday."})["memory"]["reference"]
    result = mcp.call({"query": "when does the on-call rotation change"}, name="recall")
    assert reference in [r["reference"] for r in result["structuredContent"]["results"]]


def test_the_capture_policy_refuses_secrets_with_the_reason(client: Client, auth: dict[str, str]) -> None:
    response = client.post(
        URL, {"path": "ops", "content": "The db password: hunter2-Secret!"}, content_type="application/json", headers=auth
    )
    body = assert_error(response, 422, "capture_refused")
    assert "rule 'password'" in body["error_message"]
    assert not AgentMemory.objects.exists()


def test_invalid_fields_are_422_naming_each(client: Client, auth: dict[str, str]) -> None:
    errors = assert_invalid(
        client.post(URL, {"content": "", "bucket": "Not A Bucket", "importance": 2, "colour": "red"}, content_type="application/json", headers=auth),
        "path", "content", "bucket", "importance", "colour",
    )
    assert {"field": "colour", "message": "unknown field"} in errors
    past = (timezone.now() - timedelta(days=1)).isoformat()
    assert_invalid(client.post(URL, {"path": "p", "content": "c", "expires_at": past}, content_type="application/json", headers=auth), "expires_at")
    assert_invalid(client.post(URL, [1, 2], content_type="application/json", headers=auth), "")
    assert_invalid(client.post(URL, {"path": "p", "content": "x" * 8001}, content_type="application/json", headers=auth), "content")


def test_a_bucket_or_team_the_user_cannot_see_is_422(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    scope_user(workspace, buckets=["public"], teams=["eng"])
    assert_invalid(client.post(URL, {"path": "p", "content": "c", "bucket": "finance"}, content_type="application/json", headers=auth), "bucket")
    assert_invalid(client.post(URL, {"path": "p", "content": "c", "team": "sales"}, content_type="application/json", headers=auth), "team")
    assert create(client, auth, {"path": "p", "content": "Mine only.", "bucket": "private"})["memory"]["bucket"] == "private"


def test_a_malformed_body_or_media_type_is_refused_in_the_developer_api_shape(client: Client, auth: dict[str, str]) -> None:
    assert_error(client.post(URL, "{not json", content_type="application/json", headers=auth), 400, "invalid_request")
    assert_error(client.post(URL, "path=p", content_type="application/x-www-form-urlencoded", headers=auth), 415, "unsupported_media_type")
    deep = json.dumps({"path": "p", "content": "c", "metadata": json.loads("[" * 100 + "]" * 100)})
    assert_error(client.post(URL, deep, content_type="application/json", headers=auth), 400, "invalid_request")


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    assert_error(client.post(URL, {"path": "p", "content": "c"}, content_type="application/json"), 401, "invalid_token")
    assert not AgentMemoryAudit.objects.exists()
