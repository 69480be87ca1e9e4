"""Tool `forget` (SPEC §2.4): by reference or exact path, a soft delete with an audit row (who,
when, why) that takes the memory out of every answer at once; memory:write; isolation."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from developer_api.models import SCOPE_WRITE, RequestLog
from memory.models import AgentMemory, AgentMemoryAudit, Workspace
from tests.conftest import Mcp
from tests.memory.xmemo import error_of, listed, mcp_for, read_only, remember


def forget(mcp: Mcp, target: str, reason: str = "outdated") -> dict[str, Any]:
    result = mcp.call({"target": target, "reason": reason}, name="forget")
    assert result["isError"] is False, result
    return result


def recalled(mcp: Mcp, query: str) -> list[str]:
    return [r["reference"] for r in mcp.call({"query": query}, name="recall")["structuredContent"]["results"]]


def test_it_is_listed_with_its_schema_title_and_annotations(mcp: Mcp) -> None:
    tool = listed(mcp)["forget"]
    assert tool["title"] == "Forget memories"
    assert tool["inputSchema"]["required"] == ["target", "reason"]
    assert tool["annotations"] == {
        "readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False,
    }


def test_forgetting_a_reference_answers_the_golden_text_and_audits_who_when_why(
    mcp: Mcp, workspace: Workspace, agent_key: str
) -> None:
    ref = remember(mcp, "Auk standup moved to 9:30.", memory_type="note")["reference"]
    result = forget(mcp, ref, "The standup moved back to 10:00.")
    assert result["content"][0]["text"] == (
        "### XMemo Forget\n"
        "Forgotten: 1\n"
        "Reason: The standup moved back to 10:00.\n"
        f"Reference: {ref} | Type: note | Location: projects/pam/decisions"
    )
    assert result["structuredContent"]["forgotten"] == [ref]
    memory = AgentMemory.objects.get(reference=ref)
    assert memory.deleted_at is not None  # soft delete: the row stays for the audit
    audit = AgentMemoryAudit.objects.get(memory=memory, action="forgotten")
    assert audit.credential == agent_key[:17]
    assert audit.reason == "The standup moved back to 10:00." and audit.created_at == memory.deleted_at
    row = RequestLog.objects.filter(tool_name="forget").get()
    assert row.prompt == ref and str(row.request_id) == audit.request_id


def test_a_forgotten_memory_leaves_every_answer_on_the_next_call(imported_workspace: Workspace, mcp: Mcp) -> None:
    ref = remember(mcp, "The Meridian rollout retro is booked for 14 June with Dana Ortiz.")["reference"]
    prompt = "When is the Meridian rollout retro booked?"
    assert recalled(mcp, prompt)[0] == ref
    forget(mcp, ref)
    assert ref not in recalled(mcp, prompt)
    search = mcp.call({"query": prompt}, name="search_memory")["structuredContent"]["results"]
    assert ref not in [r["reference"] for r in search]
    pack = mcp.call({"query": prompt}, name="recall_context")["structuredContent"]["items"]
    assert ref not in [i["reference"] for i in pack]
    facts = mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"]
    assert all(f.get("memory_reference") != ref for f in facts)


def test_an_exact_path_forgets_every_memory_there_and_nothing_else(mcp: Mcp) -> None:
    a = remember(mcp, "Plover API is versioned by date.", path="projects/plover")["reference"]
    b = remember(mcp, "Plover SDK is generated nightly.", path="projects/plover")["reference"]
    c = remember(mcp, "Plover docs live in the wiki.", path="projects/plover/docs")["reference"]
    result = forget(mcp, "projects/plover")
    assert sorted(result["structuredContent"]["forgotten"]) == sorted([a, b])
    assert recalled(mcp, "Plover") == [c]


def test_an_unknown_target_is_a_not_found_error(mcp: Mcp) -> None:
    code, message = error_of(mcp.call({"target": "mem_000000000000000000000000", "reason": "x"}, name="forget"))
    assert code == "not_found" and "nothing was forgotten" in message


def test_another_credentials_private_memory_cannot_be_forgotten(workspace: Workspace) -> None:
    writer = mcp_for(workspace)
    ref = remember(writer, "My private Snipe note.", bucket="private")["reference"]
    another = mcp_for(workspace)
    assert error_of(another.call({"target": ref, "reason": "x"}, name="forget"))[0] == "not_found"
    assert AgentMemory.objects.get(reference=ref).deleted_at is None


def test_a_key_without_memory_write_does_not_see_it_and_is_refused_naming_the_scope(workspace: Workspace) -> None:
    ref = remember(mcp_for(workspace), "Dunlin fact.")["reference"]
    reader = read_only(workspace)
    assert "forget" not in listed(reader)
    response = reader.request("tools/call", {"name": "forget", "arguments": {"target": ref, "reason": "x"}})
    error = response.json()["error"]
    assert error["code"] == -32602 and SCOPE_WRITE in error["message"]
    assert AgentMemory.objects.get(reference=ref).deleted_at is None


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"target": "mem_x"}, "reason", "is required"),
        ({"reason": "x"}, "target", "is required"),
        ({"target": "", "reason": "x"}, "target", "non-empty"),
        ({"target": "mem_x", "reason": "r" * 1001}, "reason", "at most 1000"),
        ({"target": "mem_x", "reason": "x", "hard": True}, "hard", "unknown argument"),
    ],
)
def test_bad_arguments_are_invalid_arguments_naming_the_field(
    mcp: Mcp, arguments: dict[str, Any], field: str, says: str
) -> None:
    code, message = error_of(mcp.call(arguments, name="forget"))
    assert code == "invalid_arguments"
    assert f"'{field}'" in message and says in message, message


def test_it_never_crosses_workspaces(mcp: Mcp, make_workspace: Callable[..., Workspace]) -> None:
    ref = remember(mcp, "Curlew supplier is Nordic Steel.", path="suppliers/curlew")["reference"]
    other = mcp_for(make_workspace("other"))
    assert error_of(other.call({"target": ref, "reason": "x"}, name="forget"))[0] == "not_found"
    assert error_of(other.call({"target": "suppliers/curlew", "reason": "x"}, name="forget"))[0] == "not_found"
    assert AgentMemory.objects.get(reference=ref).deleted_at is None
