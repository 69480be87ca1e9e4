"""Tool `remember` (SPEC §2.4): capture policy, semantic-key upsert, near-duplicate merge,
provenance, the memory:write scope, buckets and teams, validation and workspace isolation,
through the real MCP endpoint."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from developer_api.models import SCOPE_READ, SCOPE_WRITE, RequestLog
from memory.models import AgentMemory, AgentMemoryAudit, Workspace
from tests.conftest import Mcp
from tests.memory.xmemo import error_of, listed, mcp_for, read_only, remember


def test_it_is_listed_with_its_schema_title_and_annotations(mcp: Mcp) -> None:
    tool = listed(mcp)["remember"]
    assert tool["title"] == "Remember a durable memory"
    assert tool["inputSchema"]["required"] == ["path", "content"]
    assert set(tool["inputSchema"]["properties"]) == {
        "path", "content", "bucket", "project", "team", "memory_type", "confidence", "importance",
        "expires_at", "semantic_key", "metadata",
    }
    assert tool["annotations"] == {
        "readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False,
    }


def test_it_remembers_a_memory_with_its_provenance_in_the_golden_text(
    mcp: Mcp, workspace: Workspace, agent_key: str
) -> None:
    result = mcp.call(
        {"path": "projects/pam/decisions", "content": "We chose OAuth 2.1 for browser MCP clients.", "memory_type": "decision"},
        name="remember",
    )
    assert result["isError"] is False
    memory = AgentMemory.objects.get(workspace=workspace)
    ref = memory.reference
    assert result["content"][0]["text"] == (
        "### XMemo Remember\n"
        f"Remembered {ref}.\n"
        f"Reference: {ref} | Type: decision | Location: projects/pam/decisions\n"
        "Bucket: public\n"
        "Action: created"
    )
    structured = result["structuredContent"]
    assert structured["status"] == "ok" and structured["action"] == "created"
    assert structured["reference"] == ref and ref.startswith("mem_")
    assert structured["source_path"] == "company_context/agent_memory/public.md"
    assert memory.credential == agent_key[:17]
    assert memory.provenance["kind"] == "agent_key" and memory.provenance["at"]
    assert memory.provenance["request_id"] == str(RequestLog.objects.get().request_id)
    assert list(AgentMemoryAudit.objects.values_list("action", flat=True)) == ["created"]


def test_it_works_in_a_workspace_without_any_source(mcp: Mcp, workspace: Workspace) -> None:
    assert not workspace.sources.exists()
    assert remember(mcp, "The staging database is refreshed every Sunday.")["action"] == "created"


def test_the_request_log_keeps_the_content_as_the_prompt(mcp: Mcp, workspace: Workspace) -> None:
    remember(mcp, "Deploys happen on Tuesdays.")
    row = RequestLog.objects.get(workspace=workspace)
    assert row.tool_name == "remember" and row.prompt == "Deploys happen on Tuesdays."
    assert row.outcome == "success"


def test_a_semantic_key_updates_the_memory_in_place(mcp: Mcp, workspace: Workspace) -> None:
    first = remember(mcp, "The release train leaves on Tuesdays.", semantic_key="release-day")
    second = remember(mcp, "The release train now leaves on Thursdays.", path="ops/release", semantic_key="release-day")
    assert second["action"] == "updated" and second["reference"] == first["reference"]
    memory = AgentMemory.objects.get(workspace=workspace)
    assert memory.content == "The release train now leaves on Thursdays." and memory.path == "ops/release"
    assert list(memory.audit.values_list("action", flat=True)) == ["created", "updated"]


def test_a_near_duplicate_on_the_same_path_is_merged_not_stored_twice(mcp: Mcp, workspace: Workspace) -> None:
    first = remember(mcp, "Dana Ortiz leads the Platform Engineering team.", importance=0.4)
    second = remember(mcp, "Dana Ortiz leads the Platform Engineering team!", importance=0.9)
    assert second["action"] == "merged" and second["reference"] == first["reference"]
    assert AgentMemory.objects.filter(workspace=workspace).count() == 1
    assert AgentMemory.objects.get().importance == 0.9
    # The same words on another path are another memory.
    assert remember(mcp, "Dana Ortiz leads the Platform Engineering team.", path="people/dana")["action"] == "created"


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        ("The deploy key is sk-proj-abcdefghijklmnopqrstuvwx1234", "api_key"),
        ("Use Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz", "token"),
        ("The admin password: Hunter2Hunter2", "password"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----", "private_key"),
        ("Connect with postgres://pam:s3cr3t@db.internal:5432/pam", "connection_string"),
    ],
)
def test_secrets_are_refused_with_capture_refused_and_the_reason(
    mcp: Mcp, workspace: Workspace, content: str, rule: str
) -> None:
    code, message = error_of(mcp.call({"path": "ops/secrets", "content": content}, name="remember"))
    assert code == "capture_refused"
    assert f"rule '{rule}'" in message
    assert not AgentMemory.objects.exists()
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == "tool_error" and row.error_code == "capture_refused"
    # The refused secret is not kept in the request log either.
    assert content not in row.prompt and content not in str(row.arguments) and content not in str(row.result)
    assert set(row.arguments) == {"path", "content"}


def test_the_capture_policy_is_configurable_per_workspace(
    mcp: Mcp, workspace: Workspace, make_workspace: Callable[..., Workspace]
) -> None:
    workspace.capture_policy = {
        "disabled_rules": ["password"],
        "extra_patterns": [{"name": "ticket", "pattern": "SECRET-[0-9]+"}],
    }
    workspace.save()
    assert remember(mcp, "The password: rotate-me-monthly is a placeholder.")["action"] == "created"
    code, message = error_of(mcp.call({"path": "ops", "content": "See SECRET-42 for details"}, name="remember"))
    assert code == "capture_refused" and "rule 'ticket'" in message
    # Another workspace keeps the default policy.
    other = mcp_for(make_workspace("other"))
    assert error_of(other.call({"path": "ops", "content": "The password: rotate-me-monthly"}, name="remember"))[0] == (
        "capture_refused"
    )


def test_a_key_without_memory_write_does_not_see_it_and_is_refused_naming_the_scope(workspace: Workspace) -> None:
    reader = read_only(workspace)
    assert "remember" not in listed(reader)
    response = reader.request("tools/call", {"name": "remember", "arguments": {"path": "a", "content": "b"}})
    error = response.json()["error"]
    assert error["code"] == -32602 and SCOPE_WRITE in error["message"]
    assert not AgentMemory.objects.exists()
    writer = mcp_for(workspace, scopes=[SCOPE_READ, SCOPE_WRITE])
    assert "remember" in listed(writer)


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"path": "a", "content": "b", "colour": "red"}, "colour", "unknown argument"),
        ({"path": "a"}, "content", "is required"),
        ({"path": "a", "content": "   "}, "content", "non-empty"),
        ({"path": "a", "content": "x" * 8001}, "content", "at most 8000 characters"),
        ({"path": "a", "content": "b", "bucket": "Not A Bucket"}, "bucket", "lower-case"),
        ({"path": "a", "content": "b", "confidence": 1.5}, "confidence", "between 0 and 1"),
        ({"path": "a", "content": "b", "importance": "high"}, "importance", "between 0 and 1"),
        ({"path": "a", "content": "b", "expires_at": "2001-01-01T00:00:00Z"}, "expires_at", "in the future"),
        ({"path": "a", "content": "b", "expires_at": "soon"}, "expires_at", "ISO 8601"),
        ({"path": "a", "content": "b", "metadata": [1]}, "metadata", "object"),
        ({"path": "a", "content": "b", "metadata": {"k": "v" * 5000}}, "metadata", "at most 4000"),
        ({"path": "a\nb", "content": "b"}, "path", "one line"),
        ({"path": "a", "content": "b", "memory_type": "Big Type"}, "memory_type", "lower-case"),
    ],
)
def test_bad_arguments_are_invalid_arguments_naming_the_field(
    mcp: Mcp, arguments: dict[str, Any], field: str, says: str
) -> None:
    code, message = error_of(mcp.call(arguments, name="remember"))
    assert code == "invalid_arguments"
    assert f"'{field}'" in message and says in message
    assert not AgentMemory.objects.exists()


def test_a_bucket_or_team_the_key_cannot_see_is_invalid_arguments(workspace: Workspace) -> None:
    scoped = mcp_for(workspace, buckets=["eng"], teams=["platform"])
    code, message = error_of(scoped.call({"path": "a", "content": "b", "bucket": "public"}, name="remember"))
    assert code == "invalid_arguments" and "'bucket'" in message and "not visible" in message
    code, message = error_of(scoped.call({"path": "a", "content": "b", "bucket": "eng", "team": "sales"}, name="remember"))
    assert code == "invalid_arguments" and "'team'" in message
    assert remember(scoped, "Platform owns the CI runners.", bucket="eng", team="platform")["action"] == "created"
    assert remember(scoped, "My own scratch note.", bucket="private")["bucket"] == "private"


def test_it_needs_entitlement(mcp: Mcp, workspace: Workspace) -> None:
    workspace.disabled = True
    workspace.save()
    assert error_of(mcp.call({"path": "a", "content": "b"}, name="remember"))[0] == "entitlement_required"
    assert not AgentMemory.objects.exists()


def test_a_memory_never_crosses_workspaces(mcp: Mcp, workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    mine = remember(mcp, "Zephyrine is the codename of the Q4 launch.", semantic_key="codename")
    other_ws = make_workspace("other")
    other = mcp_for(other_ws)
    # The same semantic key in another workspace creates its own memory, never updates ours.
    theirs = remember(other, "Zephyrine is their cafeteria.", semantic_key="codename")
    assert theirs["action"] == "created" and theirs["reference"] != mine["reference"]
    assert AgentMemory.objects.get(reference=mine["reference"]).content == "Zephyrine is the codename of the Q4 launch."
    recalled = other.call({"query": "Zephyrine codename Q4 launch"}, name="recall")["structuredContent"]["results"]
    assert [r["reference"] for r in recalled] == [theirs["reference"]]
