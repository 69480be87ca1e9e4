"""GET /v1/dev/readiness (SPEC §3.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from django.test import Client

from developer_api.models import Plan
from memory.models import Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create

URL = "/v1/dev/readiness"
FIELDS = {
    "ready",
    "state",
    "connected_sources_count",
    "completed_sources_count",
    "latest_pipeline_status",
    "estimated_wait_message",
    "has_facts",
    "has_context_markdown",
    "has_tree_index",
}


def access_token(client: Client, email: str = "admin@acme.example") -> str:
    response = client.post(
        "/v1/auth/token", {"email": email, "password": "pw-123456789"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return str(response.json()["access"])


def readiness(client: Client, email: str = "admin@acme.example") -> dict[str, Any]:
    response = client.get(URL, headers={"Authorization": f"Bearer {access_token(client, email)}"})
    assert response.status_code == 200, response.content
    return dict(response.json())


def import_folder(workspace: Workspace, folder: Path) -> None:
    source = Source.objects.create(workspace=workspace, name=folder.name, kind="auto", location=str(folder))
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


def test_it_answers_exactly_the_readiness_fields(client: Client, workspace: Workspace) -> None:
    assert set(readiness(client)) == FIELDS


def test_a_new_workspace_is_waiting_for_sources(client: Client, workspace: Workspace) -> None:
    body = readiness(client)

    assert body == {
        "ready": False,
        "state": "waiting_for_sources",
        "connected_sources_count": 0,
        "completed_sources_count": 0,
        "latest_pipeline_status": None,
        "estimated_wait_message": body["estimated_wait_message"],
        "has_facts": False,
        "has_context_markdown": False,
        "has_tree_index": False,
    }
    assert isinstance(body["estimated_wait_message"], str) and body["estimated_wait_message"]


def test_it_is_ready_after_an_import(client: Client, imported_workspace: Workspace) -> None:
    body = readiness(client)

    assert body["ready"] is True
    assert body["state"] == "ready_minimal"  # the fixture corpus holds fewer than 50 facts
    assert body["connected_sources_count"] == 1
    assert body["completed_sources_count"] == 1
    assert body["latest_pipeline_status"] == "completed"
    assert body["estimated_wait_message"] is None
    assert body["has_facts"] is True
    assert body["has_context_markdown"] is True
    assert body["has_tree_index"] is True


def test_it_is_rich_when_the_threshold_is_met(client: Client, imported_workspace: Workspace, settings: Any) -> None:
    settings.PAM_RICH_MIN_FACTS = 3

    body = readiness(client)

    assert body["state"] == "ready_rich"
    assert body["ready"] is True


def test_it_says_processing_while_a_source_waits_for_its_first_sync(
    client: Client, workspace: Workspace, corpus_dir: Path
) -> None:
    source = Source.objects.create(workspace=workspace, name="corpus", kind="auto", location=str(corpus_dir))
    run_create(source=source)

    body = readiness(client)

    assert body["state"] == "processing"
    assert body["ready"] is False
    assert body["connected_sources_count"] == 1
    assert body["completed_sources_count"] == 0
    assert body["latest_pipeline_status"] == "queued"
    assert body["estimated_wait_message"] == "Sources are connected but initial sync has not finished yet."


def test_a_disabled_plan_is_not_provisioned(client: Client, workspace: Workspace) -> None:
    plan = Plan.objects.create(name="expired", enabled=False)
    Workspace.objects.filter(pk=workspace.pk).update(plan=plan)

    body = readiness(client)

    assert body["state"] == "not_provisioned"
    assert body["ready"] is False


def test_it_refuses_a_disabled_workspace(client: Client, workspace: Workspace) -> None:
    token = access_token(client)
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)

    response = client.get(URL, headers={"Authorization": f"Bearer {token}"})

    assert response.status_code == 403
    assert response.json()["error_code"] == "workspace_disabled"


def test_it_refuses_a_request_without_a_token(client: Client, workspace: Workspace) -> None:
    response = client.get(URL)

    assert response.status_code == 401
    assert response.json()["error_code"] == "invalid_token"


def test_it_refuses_an_agent_key(client: Client, agent_key: str) -> None:
    response = client.get(URL, headers={"Authorization": f"Bearer {agent_key}"})

    assert response.status_code == 401
    assert response.json()["error_code"] == "invalid_token"


def test_it_refuses_other_workspace(
    client: Client, make_workspace: Callable[..., Workspace], corpus_dir: Path
) -> None:
    """Another workspace's sources, runs and memory are never counted."""
    make_workspace("acme")
    globex = make_workspace("globex")
    import_folder(globex, corpus_dir)

    acme = readiness(client, "admin@acme.example")
    theirs = readiness(client, "admin@globex.example")

    assert theirs["state"] == "ready_minimal"
    assert acme["state"] == "waiting_for_sources"
    assert acme["connected_sources_count"] == 0
    assert acme["completed_sources_count"] == 0
    assert acme["latest_pipeline_status"] is None
    assert acme["has_facts"] is False
    assert acme["has_context_markdown"] is False
    assert acme["has_tree_index"] is False
