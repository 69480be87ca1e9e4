"""The bookkeeping around one `retrieve_memory` call: what it asks the database and what it may
reuse. `bench/http_load.py --profile` measures the time of each part; these tests pin the
behaviour the optimisations must keep."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.utils import timezone

from developer_api.models import AgentKey
from memory.engine.index import index_for, published_version
from memory.mcp import sessions
from memory.models import IndexVersion, McpSession, Source, Workspace
from memory.readiness import readiness_get, serving_get
from memory.pipelines.sync import source_sync
from tests.conftest import run_create
from tests.conftest import Mcp

TRAVEL = "Travel expenses above $800 need approval from a director."


def test_readiness_and_the_published_version_are_one_query(
    imported_workspace: Workspace, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(1):
        serving = serving_get(workspace=imported_workspace)
    readiness, version = serving.readiness, serving.version

    newest = IndexVersion.objects.filter(workspace=imported_workspace, status="published").latest("version")
    assert readiness.ready is True
    assert version == newest.version
    assert readiness == readiness_get(workspace=imported_workspace)


def test_a_version_the_caller_has_read_is_served_without_a_query(
    imported_workspace: Workspace, django_assert_num_queries: Any
) -> None:
    assert published_version(imported_workspace) == 1
    index_for(imported_workspace)  # opened once per process
    with django_assert_num_queries(0):
        loaded = index_for(imported_workspace, 1)
    assert loaded is not None and loaded.version == 1
    with django_assert_num_queries(1):
        assert index_for(imported_workspace) is loaded


def test_a_version_published_between_two_calls_is_served_by_the_second(
    mcp: Mcp, imported_workspace: Workspace, corpus_dir: Path
) -> None:
    prompt = "Who approves travel expenses above $800?"
    before = mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"]
    assert not any("Travel" in f["statement"] for f in before)
    (corpus_dir / "processes" / "travel.md").write_text(f"# Travel Policy\n\n{TRAVEL}\n")
    source = Source.objects.get(workspace=imported_workspace)
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"

    after = mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"]

    assert after[0]["statement"] == TRAVEL


def test_a_confirmed_session_is_reused_for_at_most_a_second(
    workspace: Workspace, django_assert_num_queries: Any, monkeypatch: Any
) -> None:
    session_id = sessions.handshake_session(workspace=workspace)
    with django_assert_num_queries(1):
        assert sessions.session_is_valid(workspace=workspace, session_id=session_id)
    with django_assert_num_queries(0):
        assert sessions.session_is_valid(workspace=workspace, session_id=session_id)

    later = time.monotonic() + sessions.VALID_REUSE_S + 0.01
    monkeypatch.setattr(sessions.time, "monotonic", lambda: later)
    with django_assert_num_queries(1):
        assert sessions.session_is_valid(workspace=workspace, session_id=session_id)


def test_a_session_is_never_reused_past_its_expiry(workspace: Workspace) -> None:
    now = timezone.now()
    McpSession.objects.create(
        workspace=workspace, session_id="f" * 32, created_at=now, expires_at=now + timedelta(milliseconds=150)
    )
    assert sessions.session_is_valid(workspace=workspace, session_id="f" * 32)
    time.sleep(0.3)
    assert not sessions.session_is_valid(workspace=workspace, session_id="f" * 32)


def test_an_unknown_session_is_never_remembered(workspace: Workspace, django_assert_num_queries: Any) -> None:
    for _ in range(2):
        with django_assert_num_queries(1):
            assert not sessions.session_is_valid(workspace=workspace, session_id="0" * 32)


def test_last_used_at_is_written_at_most_once_a_second(mcp: Mcp, imported_workspace: Workspace) -> None:
    mcp.call({"prompt": "Who owns the Meridian platform rollout?"})
    first = AgentKey.objects.get(workspace=imported_workspace).last_used_at
    assert first is not None

    mcp.call({"prompt": "Who leads the Platform Engineering team?"})
    assert AgentKey.objects.get(workspace=imported_workspace).last_used_at == first

    AgentKey.objects.filter(workspace=imported_workspace).update(last_used_at=first - timedelta(seconds=2))
    mcp.call({"prompt": "Who leads the Platform Engineering team?"})
    assert AgentKey.objects.get(workspace=imported_workspace).last_used_at > first


def test_the_first_success_verifies_the_key_within_the_same_second(
    mcp: Mcp, imported_workspace: Workspace
) -> None:
    mcp.call({"prompt": ""})  # invalid arguments: used, not verified
    key = AgentKey.objects.get(workspace=imported_workspace)
    assert key.last_used_at is not None and key.mcp_verified is False

    assert mcp.call({"prompt": "Who owns the Meridian platform rollout?"})["isError"] is False

    assert AgentKey.objects.get(workspace=imported_workspace).mcp_verified is True
