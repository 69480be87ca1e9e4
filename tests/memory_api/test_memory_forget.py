"""POST /v1/memory/{reference}/forget (SPEC §2.4): a soft delete with a reason and an audit
row; the memory leaves recall at once."""

from __future__ import annotations

from django.test import Client

from memory.models import AgentMemory, AgentMemoryAudit, Workspace
from tests.conftest import Mcp
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import URL, assert_invalid, bearer, scope_user, user_label, write


def forget(client: Client, auth: dict[str, str], reference: str, body: object) -> object:
    return client.post(f"{URL}/{reference}/forget", body, content_type="application/json", headers=auth)


def test_it_forgets_with_the_reason_in_the_audit(client: Client, auth: dict[str, str], workspace: Workspace, mcp: Mcp) -> None:
    memory = write(workspace, "The VPN gateway is vpn2.acme.example.")
    assert mcp.call({"query": "vpn gateway"}, name="recall")["structuredContent"]["count"] == 1
    response = forget(client, auth, memory.reference, {"reason": "replaced by the new gateway"})
    assert response.status_code == 200, response.content  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["status"] == "forgotten" and body["deleted_at"]
    assert body["audit"][-1] == {**body["audit"][-1], "action": "forgotten", "reason": "replaced by the new gateway", "credential": user_label(workspace)}
    assert mcp.call({"query": "vpn gateway"}, name="recall")["structuredContent"]["count"] == 0
    assert AgentMemory.objects.filter(pk=memory.pk).exists()  # soft


def test_forgetting_twice_is_a_conflict(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Something to forget.")
    forget(client, auth, memory.reference, {"reason": "first"})
    assert_error(forget(client, auth, memory.reference, {"reason": "again"}), 409, "conflict")  # type: ignore[arg-type]
    assert AgentMemoryAudit.objects.filter(action="forgotten").count() == 1


def test_a_reason_is_required(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Keep me.")
    assert_invalid(forget(client, auth, memory.reference, {}), "reason")
    assert_invalid(forget(client, auth, memory.reference, {"reason": ""}), "reason")
    assert_invalid(forget(client, auth, memory.reference, {"reason": "x" * 1001}), "reason")
    assert AgentMemory.objects.get(pk=memory.pk).deleted_at is None


def test_it_refuses_other_workspace(client: Client, workspace: Workspace, other: Workspace) -> None:
    theirs = write(other, "Globex fact.")
    assert_error(forget(client, bearer(client, workspace), theirs.reference, {"reason": "x"}), 404, "not_found")  # type: ignore[arg-type]
    assert AgentMemory.objects.get(pk=theirs.pk).deleted_at is None


def test_a_memory_outside_the_users_teams_is_404(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Sales note.", team="sales")
    scope_user(workspace, teams=["eng"])
    assert_error(forget(client, auth, memory.reference, {"reason": "x"}), 404, "not_found")  # type: ignore[arg-type]
