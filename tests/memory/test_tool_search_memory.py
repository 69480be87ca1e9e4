"""Tool `search_memory` (SPEC §2.4): strict matching (weak matches are not returned) with every
filter applied exactly; buckets and teams from the credential; validation; isolation."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from memory.models import Workspace
from tests.conftest import Mcp
from tests.memory.xmemo import error_of, listed, mcp_for, read_only, remember


def search(mcp: Mcp, query: str, **more: Any) -> dict[str, Any]:
    result = mcp.call({"query": query, **more}, name="search_memory")
    assert result["isError"] is False, result
    return result


def contents(result: dict[str, Any]) -> list[str]:
    return [r["content"] for r in result["structuredContent"]["results"]]


def test_it_is_listed_with_its_schema_title_and_annotations(workspace: Workspace) -> None:
    tool = listed(read_only(workspace))["search_memory"]
    assert tool["title"] == "Search memory (strict)"
    assert set(tool["inputSchema"]["properties"]) == {
        "query", "limit", "project", "team", "bucket", "path_filter", "memory_type",
    }
    assert tool["inputSchema"]["properties"]["limit"]["default"] == 10
    assert tool["annotations"]["readOnlyHint"] is True and tool["annotations"]["idempotentHint"] is True


def test_it_answers_in_the_golden_text_with_its_filters(mcp: Mcp, agent_key: str) -> None:
    ref = remember(mcp, "Tern billing migration is owned by Ana.", project="tern", memory_type="decision")["reference"]
    result = search(mcp, "Tern billing migration owner", project="tern")
    [item] = result["structuredContent"]["results"]
    assert result["content"][0]["text"] == (
        "### XMemo Search\n"
        "Query: Tern billing migration owner\n"
        "Filters: project=tern\n"
        "Results: 1\n"
        "\n"
        f"1. Reference: {ref} | Type: decision | Location: projects/pam/decisions\n"
        f"   Relevance: {round(item['relevance_score'] * 100)}%\n"
        "   Content: Tern billing migration is owned by Ana.\n"
        f"   Attribution: agent memory; bucket public; written by {agent_key[:17]} at {item['attribution']['written_at']}; "
        "project tern"
    )
    assert result["structuredContent"]["filters"] == {"project": "tern"}


def test_weak_matches_are_not_returned(mcp: Mcp) -> None:
    remember(mcp, "Tern billing migration is owned by Ana.")
    query = "Tern migration timeline and budget"
    assert contents(search(mcp, query)) == []
    # recall, tolerant, does return the weak match.
    assert mcp.call({"query": query}, name="recall")["structuredContent"]["count"] == 1


def test_every_filter_is_applied_exactly(mcp: Mcp) -> None:
    remember(mcp, "Loon launch checklist is ready.", path="projects/loon/launch", project="loon", team="growth", memory_type="task", bucket="eng")
    remember(mcp, "Loon launch checklist is ready too.", path="projects/loonx/launch", project="loonx", team="growth2", memory_type="note")
    query = "Loon launch checklist ready"
    assert len(contents(search(mcp, query))) == 2
    assert contents(search(mcp, query, project="loon")) == ["Loon launch checklist is ready."]
    assert contents(search(mcp, query, project="loo")) == []
    assert contents(search(mcp, query, team="growth")) == ["Loon launch checklist is ready."]
    assert contents(search(mcp, query, bucket="public")) == ["Loon launch checklist is ready too."]
    assert contents(search(mcp, query, memory_type="task")) == ["Loon launch checklist is ready."]
    assert contents(search(mcp, query, path_filter="projects/loon")) == ["Loon launch checklist is ready."]
    assert contents(search(mcp, query, path_filter="projects/loon/launch")) == ["Loon launch checklist is ready."]
    assert contents(search(mcp, query, path_filter="projects/lo")) == []


def test_company_facts_match_strictly_and_only_without_memory_filters(imported_workspace: Workspace, mcp: Mcp) -> None:
    result = search(mcp, "Northwind Retail account owner")
    assert any("Lena Park" in c for c in contents(result))
    assert contents(search(mcp, "Northwind Retail account owner", project="northwind")) == []
    assert contents(search(mcp, "Northwind Retail account owner", path_filter="clients")) != []
    assert contents(search(mcp, "Northwind Retail account owner", path_filter="projects")) == []


def test_a_team_or_bucket_the_key_cannot_see_is_invalid_arguments(workspace: Workspace) -> None:
    scoped = mcp_for(workspace, buckets=["eng"], teams=["platform"])
    code, message = error_of(scoped.call({"query": "x", "team": "sales"}, name="search_memory"))
    assert code == "invalid_arguments" and "'team'" in message and "not visible" in message
    code, message = error_of(scoped.call({"query": "x", "bucket": "public"}, name="search_memory"))
    assert code == "invalid_arguments" and "'bucket'" in message


def test_a_team_restricted_key_does_not_see_other_teams(workspace: Workspace) -> None:
    admin = mcp_for(workspace)
    remember(admin, "Grebe roadmap review is on Monday.", team="platform")
    remember(admin, "Grebe roadmap review is on Monday for sales.", team="sales", path="sales/grebe")
    scoped = mcp_for(workspace, teams=["platform"])
    assert contents(search(scoped, "Grebe roadmap review Monday")) == ["Grebe roadmap review is on Monday."]


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"query": "x", "limit": 0}, "limit", "between 1 and 50 (got 0)"),
        ({"query": "x", "limit": 99}, "limit", "between 1 and 50 (got 99)"),
        ({"query": "x", "team": ""}, "team", "non-empty"),
        ({"query": "x", "project": "p" * 101}, "project", "at most 100"),
        ({"query": "x", "path_filter": "a\tb"}, "path_filter", "one line"),
        ({"query": "x", "memory_type": "NOTE"}, "memory_type", "lower-case"),
        ({"query": "x", "filters": {"team": "a"}}, "filters", "unknown argument"),
        ({"query": 7}, "query", "string"),
    ],
)
def test_bad_arguments_and_malformed_filters_are_invalid_arguments(
    mcp: Mcp, arguments: dict[str, Any], field: str, says: str
) -> None:
    code, message = error_of(mcp.call(arguments, name="search_memory"))
    assert code == "invalid_arguments"
    assert f"'{field}'" in message and says in message, message


def test_it_never_crosses_workspaces(mcp: Mcp, make_workspace: Callable[..., Workspace]) -> None:
    remember(mcp, "Shearwater vendor is Acme Metals.", project="shearwater")
    other = mcp_for(make_workspace("other"))
    assert contents(search(other, "Shearwater vendor Acme Metals")) == []
    assert contents(search(other, "Shearwater vendor Acme Metals", project="shearwater")) == []
