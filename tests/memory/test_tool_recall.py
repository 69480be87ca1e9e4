"""Tool `recall` (SPEC §2.4; seed xmemo-recall.fr.md): tolerant search over agent memories and
company facts, ranked text with reference, location, content and attribution; an empty result
is a valid answer; read-your-writes; buckets, teams, private; validation; isolation."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from django.test import Client

from developer_api.models import RequestLog
from memory.models import AgentMemory, Workspace
from tests.conftest import Mcp
from tests.memory.xmemo import error_of, listed, mcp_for, read_only, remember


def recall(mcp: Mcp, query: str, **more: Any) -> dict[str, Any]:
    result = mcp.call({"query": query, **more}, name="recall")
    assert result["isError"] is False, result
    return result


def test_it_is_listed_with_its_schema_title_and_annotations(workspace: Workspace) -> None:
    tool = listed(read_only(workspace))["recall"]
    assert tool["title"] == "Recall memories"
    assert tool["inputSchema"]["required"] == ["query"]
    assert set(tool["inputSchema"]["properties"]) == {"query", "limit", "bucket"}
    assert tool["inputSchema"]["properties"]["limit"] == {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}
    assert tool["annotations"] == {
        "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False,
    }


def test_it_answers_a_remembered_memory_in_the_golden_text(mcp: Mcp, agent_key: str) -> None:
    ref = remember(mcp, "We chose OAuth 2.1 for the MCP authentication decision.", memory_type="decision")["reference"]
    result = recall(mcp, "current MCP authentication decision", limit=3)
    [item] = result["structuredContent"]["results"]
    written_at = item["attribution"]["written_at"]
    assert result["content"][0]["text"] == (
        "### XMemo Recall\n"
        "Query: current MCP authentication decision\n"
        "Results: 1\n"
        "\n"
        f"1. Reference: {ref} | Type: decision | Location: projects/pam/decisions\n"
        f"   Relevance: {round(item['relevance_score'] * 100)}%\n"
        "   Content: We chose OAuth 2.1 for the MCP authentication decision.\n"
        f"   Attribution: agent memory; bucket public; written by {agent_key[:17]} at {written_at}"
    )
    assert item["origin"] == "agent_memory" and item["location"] == "projects/pam/decisions"
    assert result["structuredContent"]["count"] == 1


def test_an_empty_result_is_a_valid_answer_not_an_error(mcp: Mcp, workspace: Workspace) -> None:
    result = recall(mcp, "a topic that was never saved", limit=3)
    assert result["content"][0]["text"] == (
        "### XMemo Recall\nQuery: a topic that was never saved\nResults: 0\n\nNo matching XMemo memory was found."
    )
    assert result["structuredContent"]["results"] == []
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == "success" and row.prompt == "a topic that was never saved"


def test_it_finds_company_facts_with_their_attribution(imported_workspace: Workspace, mcp: Mcp) -> None:
    result = recall(mcp, "Who is the account owner for Northwind Retail?")
    items = result["structuredContent"]["results"]
    assert items and items[0]["origin"] == "company_fact"
    assert "Lena Park" in items[0]["content"]
    assert items[0]["reference"].startswith("fact_") and items[0]["type"] == "fact"
    assert items[0]["location"] == "clients/northwind.md"
    assert "Attribution: company fact; section" in result["content"][0]["text"]


def test_a_remembered_memory_is_found_on_the_very_next_call_from_another_process(
    imported_workspace: Workspace, mcp: Mcp
) -> None:
    ref = remember(mcp, "The Meridian rollout retro is booked for 14 June with Dana Ortiz.")["reference"]
    # Another web process: a new client and no engine state shared with the writer.
    from memory.engine import index

    index._loaded.clear()
    other = Mcp(Client(), mcp.key)
    refs = [r["reference"] for r in recall(other, "When is the Meridian rollout retro?")["structuredContent"]["results"]]
    assert refs[0] == ref
    # retrieve_memory finds it too, as a fact of the built-in agent source.
    result = other.call({"prompt": "When is the Meridian rollout retro booked?"})
    facts = result["structuredContent"]["retrieval"]["facts"]
    mine = [f for f in facts if f.get("memory_reference") == ref]
    assert mine and mine[0]["source_path"] == "company_context/agent_memory/public.md"
    assert "retro is booked for 14 June" in result["content"][0]["text"]


def test_bucket_narrows_to_one_bucket(mcp: Mcp) -> None:
    remember(mcp, "Kestrel deploy window is Friday.", bucket="eng")
    remember(mcp, "Kestrel launch party is Friday.", bucket="public")
    items = recall(mcp, "Kestrel Friday", bucket="eng")["structuredContent"]["results"]
    assert [i["attribution"]["bucket"] for i in items] == ["eng"]
    assert len(recall(mcp, "Kestrel Friday")["structuredContent"]["results"]) == 2


def test_private_memories_are_visible_only_to_the_credential_that_wrote_them(workspace: Workspace) -> None:
    writer = mcp_for(workspace)
    remember(writer, "My scratch: Osprey estimate is nine days.", bucket="private")
    assert len(recall(writer, "Osprey estimate")["structuredContent"]["results"]) == 1
    another = mcp_for(workspace)  # a new key: another credential
    assert recall(another, "Osprey estimate")["structuredContent"]["results"] == []
    assert recall(another, "Osprey estimate", bucket="private")["structuredContent"]["results"] == []


def test_buckets_and_teams_come_from_the_credential(workspace: Workspace) -> None:
    admin = mcp_for(workspace)
    remember(admin, "Heron budget is approved.", bucket="finance")
    remember(admin, "Heron staffing is two engineers.", bucket="eng", team="platform")
    remember(admin, "Heron sales target is ten deals.", bucket="eng", team="sales")
    scoped = mcp_for(workspace, buckets=["eng"], teams=["platform"])
    contents = [i["content"] for i in recall(scoped, "Heron")["structuredContent"]["results"]]
    assert contents == ["Heron staffing is two engineers."]
    code, message = error_of(scoped.call({"query": "Heron", "bucket": "finance"}, name="recall"))
    assert code == "invalid_arguments" and "'bucket'" in message and "not visible" in message


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"query": "x", "limit": 0}, "limit", "between 1 and 50 (got 0)"),
        ({"query": "x", "limit": 51}, "limit", "between 1 and 50 (got 51)"),
        ({"query": "x", "limit": "5"}, "limit", "integer"),
        ({"query": "x", "limit": True}, "limit", "integer"),
        ({"query": "x", "top_k": 3}, "top_k", "unknown argument"),
        ({"query": ""}, "query", "non-empty"),
        ({"query": "x" * 8001}, "query", "at most 8000"),
        ({"query": "x", "bucket": "Bad Bucket!"}, "bucket", "lower-case"),
        ({"query": "x", "bucket": None}, "bucket", "string"),
        ({}, "query", "is required"),
    ],
)
def test_bad_arguments_are_invalid_arguments_naming_the_field_and_range(
    mcp: Mcp, arguments: dict[str, Any], field: str, says: str
) -> None:
    code, message = error_of(mcp.call(arguments, name="recall"))
    assert code == "invalid_arguments"
    assert f"'{field}'" in message and says in message, message


def test_it_needs_entitlement(mcp: Mcp, workspace: Workspace) -> None:
    workspace.disabled = True
    workspace.save()
    assert error_of(mcp.call({"query": "x"}, name="recall"))[0] == "entitlement_required"


def test_it_never_counts_against_quotas(mcp: Mcp, workspace: Workspace) -> None:
    from developer_api.models import Plan

    Plan.objects.filter(pk=workspace.plan_id).update(hourly_limit=0, weekly_limit=0, monthly_limit=0)
    assert recall(mcp, "anything")["isError"] is False


def test_it_never_crosses_workspaces(
    imported_workspace: Workspace, mcp: Mcp, make_workspace: Callable[..., Workspace]
) -> None:
    remember(mcp, "Pelican is the codename of the Northwind renewal.")
    other = mcp_for(make_workspace("other"))
    for query in ("Pelican codename Northwind renewal", "Who is the account owner for Northwind Retail?"):
        assert recall(other, query)["structuredContent"]["results"] == []
    assert AgentMemory.objects.count() == 1


def test_an_expired_memory_is_no_longer_recalled(mcp: Mcp) -> None:
    from datetime import timedelta

    from django.utils import timezone

    ref = remember(mcp, "Temporary freeze on Wren deploys.", expires_at="2999-01-01T00:00:00Z")["reference"]
    assert [r["reference"] for r in recall(mcp, "Wren deploys freeze")["structuredContent"]["results"]] == [ref]
    AgentMemory.objects.filter(reference=ref).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert recall(mcp, "Wren deploys freeze")["structuredContent"]["results"] == []


def test_a_name_only_a_remembered_memory_holds_is_known_to_retrieve_memory(
    imported_workspace: Workspace, mcp: Mcp
) -> None:
    # The company memory never mentions Zanzibarco: the answer is minimal until an agent's
    # memory names it, and then that memory answers.
    prompt = "Who owns the Zanzibarco rollout?"
    before = mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]
    assert before["coverage_assessment"] in ("minimal", "none")

    remember(mcp, "Dana Ortiz owns the Zanzibarco rollout from May.")
    after = mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]

    assert any("Zanzibarco" in f["statement"] for f in after["facts"])
    assert after["coverage_assessment"] in ("partial", "comprehensive")


def test_a_possessive_name_a_remembered_memory_holds_is_known_too(imported_workspace: Workspace, mcp: Mcp) -> None:
    # "Zanzibarco's" in the prompt, "Zanzibarco" in the memory: the same name.
    remember(mcp, "Dana Ortiz owns the Zanzibarco rollout from May.")

    after = mcp.call({"prompt": "Who owns Zanzibarco's rollout?"})["structuredContent"]["retrieval"]

    assert any("Zanzibarco" in f["statement"] for f in after["facts"])
    assert after["coverage_assessment"] in ("partial", "comprehensive")
