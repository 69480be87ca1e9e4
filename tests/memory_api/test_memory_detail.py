"""GET /v1/memory/{reference} (SPEC §2.4): one memory with its history and audit rows;
forgotten and expired ones too; 404 for what the user cannot see."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from memory.agent_memory.services import Writer, memory_forget_one
from memory.engine.live import Viewer
from memory.models import AgentMemory, Workspace
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import KEY, URL, bearer, scope_user, write


def test_it_shows_the_memory_with_history_and_audit(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Invoices go out on the 1st.", semantic_key="invoices")
    write(workspace, "Invoices go out on the 5th.", semantic_key="invoices")
    body = client.get(f"{URL}/{memory.reference}", headers=auth).json()
    assert body["content"] == "Invoices go out on the 5th." and body["status"] == "live"
    assert [v["content"] for v in body["history"]] == ["Invoices go out on the 1st."]
    assert body["history"][0]["replaced_by"] == KEY and body["history"][0]["action"] == "updated"
    assert [a["action"] for a in body["audit"]] == ["created", "updated"]


def test_forgotten_and_expired_memories_are_still_shown(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    gone = write(workspace, "An old fact about parking.")
    memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=gone.reference, reason="stale")
    expired = write(workspace, "A promo about coffee.", path="promo")
    AgentMemory.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert client.get(f"{URL}/{gone.reference}", headers=auth).json()["status"] == "forgotten"
    assert client.get(f"{URL}/{gone.reference}", headers=auth).json()["audit"][-1]["reason"] == "stale"
    assert client.get(f"{URL}/{expired.reference}", headers=auth).json()["status"] == "expired"


def test_an_unknown_reference_is_404(client: Client, auth: dict[str, str]) -> None:
    assert_error(client.get(f"{URL}/mem_000000000000000000000000", headers=auth), 404, "not_found")
    assert_error(client.get(f"{URL}/not-a-reference", headers=auth), 404, "not_found")


def test_it_refuses_other_workspace(client: Client, workspace: Workspace, other: Workspace) -> None:
    theirs = write(other, "Globex pricing is confidential.")
    assert_error(client.get(f"{URL}/{theirs.reference}", headers=bearer(client, workspace)), 404, "not_found")


def test_a_bucket_team_or_private_memory_the_user_cannot_see_is_404(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    private = write(workspace, "The agent's private note.", bucket="private")
    finance = write(workspace, "Finance closes the books on day 3.", path="fin", bucket="finance")
    sales = write(workspace, "Sales kickoff is in May.", path="sales", team="sales")
    scope_user(workspace, buckets=["public"], teams=["eng"])
    for memory in (private, finance, sales):
        assert_error(client.get(f"{URL}/{memory.reference}", headers=auth), 404, "not_found")


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    memory = write(workspace, "Anything.")
    assert_error(client.get(f"{URL}/{memory.reference}"), 401, "invalid_token")
