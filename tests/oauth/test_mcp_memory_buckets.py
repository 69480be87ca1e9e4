"""An OAuth connection reads and writes agent memory with its user's buckets and teams (SPEC
§2.4: "agent keys and users carry `buckets` and `teams` lists (empty = all)")."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from memory.models import User, Workspace
from tests.memory.xmemo import mcp_for, remember
from tests.oauth.conftest import connect, mcp_call


def call(client: Client, token: str, name: str, **arguments: Any) -> dict[str, Any]:
    response = mcp_call(client, token, "tools/call", {"name": name, "arguments": arguments})
    return dict(response.json()["result"])


@pytest.fixture
def memories(workspace: Workspace) -> None:
    writer = mcp_for(workspace)  # a key that sees every bucket and team
    remember(writer, "Engineering runs the zebra migration on Fridays.", bucket="eng")
    remember(writer, "Sales closes the zebra deal with Globex.", bucket="sales")
    remember(writer, "The platform team owns the zebra cluster.", bucket="eng", team="platform")


def test_a_connection_of_a_user_narrowed_to_a_bucket_recalls_only_that_bucket(
    client: Client, signed_in: Client, member: User, memories: None
) -> None:
    member.memory_buckets = ["eng"]
    member.save()
    _app, tokens = connect(client)
    result = call(client, tokens["access_token"], "recall", query="zebra", limit=10)
    assert result["isError"] is False, result
    contents = sorted(item["content"] for item in result["structuredContent"]["results"])
    assert contents == ["Engineering runs the zebra migration on Fridays.", "The platform team owns the zebra cluster."]


def test_it_refuses_a_bucket_or_team_the_user_does_not_carry(
    client: Client, signed_in: Client, member: User, memories: None
) -> None:
    member.memory_buckets, member.memory_teams = ["eng"], ["data"]
    member.save()
    _app, tokens = connect(client, scope="memory:read memory:write")
    refused = call(client, tokens["access_token"], "recall", query="zebra", bucket="sales")
    assert refused["isError"] is True
    assert refused["structuredContent"]["error_code"] == "invalid_arguments"
    assert "sales" in refused["structuredContent"]["error_message"]
    written = call(client, tokens["access_token"], "remember", path="deals/globex", content="Globex renews in May.", bucket="sales")
    assert written["structuredContent"]["error_code"] == "invalid_arguments"
    # Team-scoped memories of other teams stay out of its answers.
    found = call(client, tokens["access_token"], "search_memory", query="zebra cluster")
    assert found["structuredContent"]["results"] == []


def test_a_user_without_labels_sees_every_bucket_through_a_connection(
    client: Client, signed_in: Client, memories: None
) -> None:
    _app, tokens = connect(client)
    result = call(client, tokens["access_token"], "recall", query="zebra", limit=10)
    assert len(result["structuredContent"]["results"]) == 3


@pytest.mark.parametrize(
    ("field", "value"),
    [("memory_buckets", ["Not A Bucket"]), ("memory_buckets", "eng"), ("memory_teams", [""]), ("memory_teams", [1])],
)
def test_a_user_labels_are_validated(member: User, field: str, value: Any) -> None:
    setattr(member, field, value)
    with pytest.raises(ValidationError) as raised:
        member.full_clean()
    assert field in raised.value.message_dict
