"""POST /v1/memory/{reference}/restore (issue 14): undo a forget, with an audit row; the
memory answers recall again at once."""

from __future__ import annotations

from django.test import Client

from memory.agent_memory.services import Writer, memory_forget_one
from memory.engine.live import Viewer
from memory.models import AgentMemory, Workspace
from tests.conftest import Mcp
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import KEY, URL, assert_invalid, bearer, write


def forgotten(workspace: Workspace, content: str) -> AgentMemory:
    memory = write(workspace, content)
    return memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=memory.reference, reason="oops")


def restore(client: Client, auth: dict[str, str], reference: str, body: object = None) -> object:
    return client.post(f"{URL}/{reference}/restore", body if body is not None else {}, content_type="application/json", headers=auth)


def test_it_restores_and_recall_finds_it_again(client: Client, auth: dict[str, str], workspace: Workspace, mcp: Mcp) -> None:
    memory = forgotten(workspace, "The billing cutoff is the 25th.")
    assert mcp.call({"query": "billing cutoff"}, name="recall")["structuredContent"]["count"] == 0
    response = restore(client, auth, memory.reference, {"reason": "forgotten by mistake"})
    body = response.json()  # type: ignore[attr-defined]
    assert body["status"] == "live" and body["deleted_at"] is None
    assert [a["action"] for a in body["audit"]] == ["created", "forgotten", "restored"]
    assert body["audit"][-1]["reason"] == "forgotten by mistake"
    assert mcp.call({"query": "billing cutoff"}, name="recall")["structuredContent"]["count"] == 1


def test_the_reason_is_optional(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = forgotten(workspace, "Another fact.")
    assert restore(client, auth, memory.reference).status_code == 200  # type: ignore[attr-defined]


def test_restoring_a_live_memory_is_a_conflict(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Still here.")
    assert_error(restore(client, auth, memory.reference), 409, "conflict")  # type: ignore[arg-type]


def test_a_bad_reason_is_422(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = forgotten(workspace, "Fact.")
    assert_invalid(restore(client, auth, memory.reference, {"reason": ["why"]}), "reason")
    assert_invalid(restore(client, auth, memory.reference, {"reason": "x" * 1001}), "reason")  # type: ignore[arg-type]


def test_it_refuses_other_workspace(client: Client, workspace: Workspace, other: Workspace) -> None:
    theirs = forgotten(other, "Globex fact.")
    assert_error(restore(client, bearer(client, workspace), theirs.reference), 404, "not_found")  # type: ignore[arg-type]
    assert AgentMemory.objects.get(pk=theirs.pk).deleted_at is not None
