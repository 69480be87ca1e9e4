"""Tool `recall_context` (SPEC §2.4; seed xmemo-recall_context.pt.md): the budgeted pack in the
seed's public text format, the structured pack with used_items/used_tokens, and a body after
`Context:` that never exceeds max_tokens by the documented counter (cl100k_base)."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from memory.models import Workspace
from tests.conftest import Mcp
from tests.memory.xmemo import body_of, error_of, listed, mcp_for, read_only, remember, tokens


def pack(mcp: Mcp, query: str, **more: Any) -> dict[str, Any]:
    result = mcp.call({"query": query, **more}, name="recall_context")
    assert result["isError"] is False, result
    return result


def test_it_is_listed_with_its_schema_title_and_annotations(workspace: Workspace) -> None:
    tool = listed(read_only(workspace))["recall_context"]
    assert tool["title"] == "Recall a context pack"
    props = tool["inputSchema"]["properties"]
    assert set(props) == {"query", "max_items", "max_tokens", "bucket"}
    assert (props["max_items"]["minimum"], props["max_items"]["maximum"], props["max_items"]["default"]) == (1, 50, 8)
    assert (props["max_tokens"]["minimum"], props["max_tokens"]["maximum"], props["max_tokens"]["default"]) == (1, 12000, 1500)
    assert tool["annotations"]["readOnlyHint"] is True and tool["annotations"]["destructiveHint"] is False


def test_it_answers_in_the_seed_text_format(mcp: Mcp) -> None:
    first = remember(mcp, "Recent decision: the memory-os project ships weekly.", path="projects/memory-os", memory_type="decision")
    second = remember(mcp, "Recent decision: memory-os uses PostgreSQL.", path="projects/memory-os/db", memory_type="decision")
    result = pack(mcp, "recent decisions on the memory-os project", max_items=6, max_tokens=1200)
    items = result["structuredContent"]["items"]
    order = [i["reference"] for i in items]
    assert sorted(order) == sorted([first["reference"], second["reference"]])
    lines = [f"Reference: {i['reference']} | Type: decision | Location: {i['location']}" for i in items]
    body = "\n\n".join(i["content"] for i in items)
    assert result["content"][0]["text"] == "\n".join(["### XMemo Context", "Items: 2", *lines, "Context:", body])
    structured = result["structuredContent"]
    assert structured["used_items"] == 2 and structured["used_tokens"] == tokens(body)
    assert structured["context_text"] == body
    assert {"version", "retrieval_plan", "budget", "items", "context_text", "used_items", "used_tokens"} <= set(structured)
    assert structured["budget"]["truncated"] is False and structured["budget"]["tokenizer"] == "cl100k_base"


def test_nothing_matching_says_so(mcp: Mcp) -> None:
    result = pack(mcp, "a topic that was never saved")
    assert result["content"][0]["text"] == "### XMemo Context\nItems: 0\nNo matching XMemo memory was found."
    assert result["structuredContent"]["used_items"] == 0 and result["structuredContent"]["used_tokens"] == 0


def test_max_tokens_1_keeps_the_body_to_one_token_and_says_why(mcp: Mcp) -> None:
    remember(mcp, "Albatross migration finished on Monday after three weeks of work.")
    remember(mcp, "Albatross migration owner is Priya.", path="people/priya")
    result = pack(mcp, "Albatross migration", max_tokens=1)
    text = result["content"][0]["text"]
    assert tokens(body_of(text)) <= 1
    assert result["structuredContent"]["used_tokens"] <= 1
    assert "Items: 1\n" in text
    assert "Budget: 1/1 tokens used; 1 item shortened to fit max_tokens=1; 1 item dropped to fit max_tokens=1" in text


def test_one_item_larger_than_the_budget_is_shortened_within_it(mcp: Mcp) -> None:
    long = "Cormorant incident report: " + " ".join(f"step {n} restarted the cormorant worker pool." for n in range(150))
    remember(mcp, long, path="incidents/cormorant")
    result = pack(mcp, "Cormorant incident report", max_tokens=50)
    body = body_of(result["content"][0]["text"])
    assert 0 < tokens(body) <= 50
    assert long.startswith(body)
    item = result["structuredContent"]["items"][0]
    assert item["shortened"] is True and result["structuredContent"]["budget"]["shortened_items"] == 1


@pytest.mark.parametrize("max_tokens", [1, 2, 3, 7, 20, 64, 200, 12000])
def test_the_body_never_exceeds_max_tokens(mcp: Mcp, max_tokens: int) -> None:
    for n in range(6):
        remember(mcp, f"Gannet release note {n}: " + "naïve café 数据 emoji 🚀 " * (n * 5 + 1), path=f"releases/{n}")
    result = pack(mcp, "Gannet release note", max_items=50, max_tokens=max_tokens)
    body = body_of(result["content"][0]["text"])
    assert tokens(body) <= max_tokens
    assert result["structuredContent"]["used_tokens"] == tokens(body)
    assert result["structuredContent"]["context_text"] == body


def test_items_over_max_items_are_dropped_and_counted(mcp: Mcp) -> None:
    for n in range(4):
        remember(mcp, f"Puffin sprint {n} goal is shipping feature {n}.", path=f"sprints/{n}")
    result = pack(mcp, "Puffin sprint goal", max_items=2)
    text = result["content"][0]["text"]
    assert "Items: 2\n" in text
    assert "; 2 items dropped over max_items=2" in text
    assert result["structuredContent"]["budget"]["dropped_over_items"] == 2


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"query": "x", "max_items": 0}, "max_items", "between 1 and 50 (got 0)"),
        ({"query": "x", "max_items": 51}, "max_items", "between 1 and 50 (got 51)"),
        ({"query": "x", "max_tokens": 0}, "max_tokens", "between 1 and 12000 (got 0)"),
        ({"query": "x", "max_tokens": 12001}, "max_tokens", "between 1 and 12000 (got 12001)"),
        ({"query": "x", "max_tokens": 1.5}, "max_tokens", "integer"),
        ({"query": "x", "limit": 3}, "limit", "unknown argument"),
        ({"query": "  "}, "query", "non-empty"),
    ],
)
def test_bad_arguments_are_invalid_arguments_naming_the_field_and_range(
    mcp: Mcp, arguments: dict[str, Any], field: str, says: str
) -> None:
    code, message = error_of(mcp.call(arguments, name="recall_context"))
    assert code == "invalid_arguments"
    assert f"'{field}'" in message and says in message, message


def test_a_bucket_the_key_cannot_see_is_invalid_arguments(workspace: Workspace) -> None:
    scoped = mcp_for(workspace, buckets=["eng"])
    code, message = error_of(scoped.call({"query": "x", "bucket": "hr"}, name="recall_context"))
    assert code == "invalid_arguments" and "'bucket'" in message


def test_it_never_crosses_workspaces(mcp: Mcp, make_workspace: Callable[..., Workspace]) -> None:
    remember(mcp, "Skua partner contract renews in March.")
    other = mcp_for(make_workspace("other"))
    result = pack(other, "Skua partner contract")
    assert result["structuredContent"]["used_items"] == 0
    assert "No matching XMemo memory was found." in result["content"][0]["text"]
