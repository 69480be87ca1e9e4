"""Tool `retrieve_memory` (SPEC §2.2, §2.3): arguments, errors, success, request log, sessions
and tenant isolation, all through the real MCP endpoint."""

from __future__ import annotations

import re
import uuid
from typing import Any

import jsonschema
import pytest
from django.test import Client

from developer_api.keys import api_key_rotate
from developer_api.models import AgentKey, RequestLog
from memory.mcp.sessions import history_get
from memory.models import IndexVersion, PipelineRun, Source, Workspace
from tests.conftest import FIXTURE_CORPUS, Mcp, load_schema

RESULT_SCHEMA = load_schema("retrieve_memory.result.json")
ERROR_SCHEMA = load_schema("retrieve_memory.error.json")

MERIDIAN_PROMPT = "Who owns the Meridian platform rollout?"
UNRELATED_PROMPT = "What is the boiling point of mercury on Jupiter?"
GREETING = "Thanks, that's all for now!"


def assert_error(result: dict[str, Any], code: str) -> dict[str, Any]:
    assert result["isError"] is True, result
    structured = result["structuredContent"]
    jsonschema.validate(structured, ERROR_SCHEMA)
    assert structured["error_code"] == code, structured
    assert result["content"] == [{"type": "text", "text": structured["error_message"]}]
    return structured


def assert_success(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    structured = result["structuredContent"]
    jsonschema.validate(structured, RESULT_SCHEMA)
    assert result["content"] == [{"type": "text", "text": structured["content_text"]}]
    return structured


def add_source(workspace: Workspace, name: str, *run_statuses: str) -> Source:
    source = Source.objects.create(workspace=workspace, name=name, kind="markdown", location=f"/srv/{name}")
    for status in run_statuses:
        PipelineRun.objects.create(workspace=workspace, source=source, status=status)
    return source


# --- Arguments (SPEC §2.3) ---------------------------------------------------------------------

INVALID_ARGUMENTS = {
    "missing_prompt": {},
    "empty_prompt": {"prompt": ""},
    "whitespace_prompt": {"prompt": " \t\n  "},
    "number_prompt": {"prompt": 42},
    "null_prompt": {"prompt": None},
    "list_prompt": {"prompt": ["Who owns Meridian?"]},
    "object_prompt": {"prompt": {"text": "Who owns Meridian?"}},
    "bool_prompt": {"prompt": True},
    "prompt_of_8001_characters": {"prompt": "a" * 8001},
    "prompt_of_8001_emoji": {"prompt": "\U0001F600" * 8001},
    "lone_surrogate_prompt": {"prompt": "Who owns \ud800 Meridian?"},
    "null_session_id": {"prompt": "Who owns Meridian?", "session_id": None},
    "empty_session_id": {"prompt": "Who owns Meridian?", "session_id": ""},
    "session_id_of_201_characters": {"prompt": "Who owns Meridian?", "session_id": "s" * 201},
    "number_session_id": {"prompt": "Who owns Meridian?", "session_id": 12345},
    "unknown_extra_argument": {"prompt": "Who owns Meridian?", "limit": 5},
}


@pytest.mark.parametrize("arguments", INVALID_ARGUMENTS.values(), ids=INVALID_ARGUMENTS.keys())
def test_it_rejects_invalid_arguments(mcp: Mcp, arguments: dict[str, Any]) -> None:
    structured = assert_error(mcp.call(arguments), "invalid_arguments")
    assert structured["error_message"].startswith("Invalid arguments")


def test_it_rejects_unknown_argument_by_name(mcp: Mcp) -> None:
    structured = assert_error(mcp.call({"prompt": "Who owns Meridian?", "top_k": 3}), "invalid_arguments")
    assert "top_k" in structured["error_message"]


def test_it_names_the_missing_prompt(mcp: Mcp) -> None:
    structured = assert_error(mcp.call({}), "invalid_arguments")
    assert "prompt" in structured["error_message"]


@pytest.mark.parametrize("arguments", ["Who owns Meridian?", ["Who owns Meridian?"], 7, True])
def test_it_rejects_arguments_that_are_not_an_object(mcp: Mcp, arguments: Any) -> None:
    assert_error(mcp.call(arguments), "invalid_arguments")


def test_it_treats_missing_arguments_as_an_empty_object(mcp: Mcp) -> None:
    response = mcp.request("tools/call", {"name": "retrieve_memory"})
    assert response.status_code == 200
    structured = assert_error(response.json()["result"], "invalid_arguments")
    assert "prompt" in structured["error_message"]


def test_it_treats_null_arguments_as_an_empty_object(mcp: Mcp) -> None:
    response = mcp.request("tools/call", {"name": "retrieve_memory", "arguments": None})
    assert response.status_code == 200
    structured = assert_error(response.json()["result"], "invalid_arguments")
    assert "prompt" in structured["error_message"]


# A fresh workspace has no sources: arguments that pass validation reach the readiness check.
ACCEPTED_ARGUMENTS = {
    "prompt_of_8000_characters": {"prompt": "a" * 8000},
    "prompt_of_8000_emoji": {"prompt": "\U0001F600" * 8000},
    "prompt_of_8000_astral_cjk": {"prompt": "\U00020000" * 8000},
    "session_id_of_200_characters": {"prompt": "Who owns Meridian?", "session_id": "s" * 200},
    "session_id_of_1_character": {"prompt": "Who owns Meridian?", "session_id": "s"},
    "prompt_with_surrounding_whitespace": {"prompt": "  Who owns Meridian?  "},
}


@pytest.mark.parametrize("arguments", ACCEPTED_ARGUMENTS.values(), ids=ACCEPTED_ARGUMENTS.keys())
def test_it_accepts_arguments_within_the_limits(mcp: Mcp, arguments: dict[str, Any]) -> None:
    assert_error(mcp.call(arguments), "no_sources_connected")


# --- Readiness errors (SPEC §2.3, §3.1) --------------------------------------------------------


def test_it_reports_no_sources_connected_for_a_fresh_workspace(mcp: Mcp) -> None:
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "no_sources_connected")


def test_it_checks_arguments_before_readiness(mcp: Mcp) -> None:
    assert_error(mcp.call({"prompt": ""}), "invalid_arguments")


def test_it_reports_memory_not_ready_while_a_run_is_queued(mcp: Mcp, workspace: Workspace) -> None:
    add_source(workspace, "docs", PipelineRun.Status.QUEUED)
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "memory_not_ready")


def test_it_reports_memory_not_ready_for_a_source_with_no_run_yet(mcp: Mcp, workspace: Workspace) -> None:
    add_source(workspace, "docs")
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "memory_not_ready")


def test_it_reports_memory_not_ready_while_the_index_is_building(mcp: Mcp, workspace: Workspace) -> None:
    add_source(workspace, "docs", PipelineRun.Status.RUNNING)
    IndexVersion.objects.create(workspace=workspace, version=1, status=IndexVersion.Status.BUILDING)
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "memory_not_ready")


def test_it_reports_memory_not_ready_when_only_some_sources_failed(mcp: Mcp, workspace: Workspace) -> None:
    add_source(workspace, "docs", PipelineRun.Status.FAILED)
    add_source(workspace, "chat", PipelineRun.Status.RUNNING)
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "memory_not_ready")


def test_it_reports_memory_unavailable_when_every_latest_run_failed(mcp: Mcp, workspace: Workspace) -> None:
    add_source(workspace, "docs", PipelineRun.Status.FAILED)
    add_source(workspace, "chat", PipelineRun.Status.COMPLETED, PipelineRun.Status.FAILED)
    structured = assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "memory_unavailable")
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR
    assert row.error_code == "memory_unavailable"
    assert structured["error_message"]


# --- Entitlement (SPEC §2.3) -------------------------------------------------------------------


def test_it_requires_entitlement_when_the_workspace_is_disabled(mcp: Mcp, workspace: Workspace) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "entitlement_required")
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.ENTITLEMENT_BLOCKED
    assert row.error_code == "entitlement_required"
    assert row.is_error is True


def test_it_requires_entitlement_when_the_plan_is_disabled(mcp: Mcp, workspace: Workspace) -> None:
    plan = workspace.plan
    plan.enabled = False
    plan.save()
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "entitlement_required")
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.ENTITLEMENT_BLOCKED


def test_it_checks_entitlement_before_arguments(mcp: Mcp, workspace: Workspace) -> None:
    Workspace.objects.filter(pk=workspace.pk).update(disabled=True)
    assert_error(mcp.call({"prompt": 42, "bogus": 1}), "entitlement_required")
    assert RequestLog.objects.get(workspace=workspace).outcome == RequestLog.Outcome.ENTITLEMENT_BLOCKED


def test_it_requires_entitlement_even_with_a_ready_memory(
    mcp: Mcp, imported_workspace: Workspace
) -> None:
    Workspace.objects.filter(pk=imported_workspace.pk).update(disabled=True)
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "entitlement_required")


# --- Timeout (SPEC §2.3) -----------------------------------------------------------------------


def test_it_reports_retrieval_timeout_past_the_limit(
    mcp: Mcp, imported_workspace: Workspace, settings: Any
) -> None:
    settings.PAM_RETRIEVAL_TIMEOUT_S = 1e-9
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "retrieval_timeout")
    row = RequestLog.objects.get(workspace=imported_workspace)
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR
    assert row.error_code == "retrieval_timeout"


# --- Success (SPEC §2.3) -----------------------------------------------------------------------


def test_it_works(mcp: Mcp, imported_workspace: Workspace) -> None:
    result = mcp.call({"prompt": MERIDIAN_PROMPT})
    structured = assert_success(result)
    assert structured["status"] == "ok"
    assert structured["memory_ready"] is True
    assert structured["readiness_state"] in ("ready_minimal", "ready_rich")
    assert structured["triage"]["decision"] == "retrieve"
    assert structured["triage"]["rewritten_query"] == MERIDIAN_PROMPT

    retrieval = structured["retrieval"]
    meridian = [f for f in retrieval["facts"] if "Platform Engineering owns the Meridian" in f["statement"]]
    assert meridian, retrieval["facts"]
    assert re.fullmatch(r"company_context/projects/[a-z0-9_]+\.md", meridian[0]["source_path"])
    assert retrieval["facts"][0]["relevance_score"] >= meridian[0]["relevance_score"] > 0.5
    scores = [f["relevance_score"] for f in retrieval["facts"]]
    assert scores == sorted(scores, reverse=True)


def test_it_renders_the_report(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    report = structured["content_text"]
    assert report.startswith("# Retrieved Company Context")
    assert f"**Query:** {MERIDIAN_PROMPT}" in report
    assert "## How This Context Was Found" in report
    assert "## Relevant Facts" in report
    assert "Platform Engineering owns the Meridian" in report
    assert f"Coverage: {structured['retrieval']['coverage_assessment']}" in report


def section_file(tree_path: str) -> str:
    """SPEC §2.3: `Company Context > <Area> > <Topic>` → `company_context/<area>/<topic>.md`."""
    names = [re.sub(r"[^a-z0-9]+", "_", part.strip().lower()) for part in tree_path.split(" > ")]
    return "/".join(names) + ".md"


def test_it_lists_the_searched_sections_in_the_report(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    paths = [t["tree_path"] for t in structured["phase1"]["targeted_sections"]]
    assert "Company Context > Projects > Meridian Platform Rollout" in paths
    without_root = ", ".join(p.removeprefix("Company Context > ") for p in paths)
    assert f"**Sections searched:** {without_root}\n" in structured["content_text"]


def test_it_names_fact_files_after_their_sections(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    meridian = next(
        f for f in structured["retrieval"]["facts"] if "Platform Engineering owns the Meridian" in f["statement"]
    )
    assert meridian["source_path"] == section_file("Company Context > Projects > Meridian Platform Rollout")
    assert meridian["source_path"] == "company_context/projects/meridian_platform_rollout.md"


def test_it_ranks_facts_in_the_report_with_percentages(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    report = structured["content_text"]
    for fact in structured["retrieval"]["facts"]:
        percent = round(fact["relevance_score"] * 100)
        assert f"- [{percent}%] **{fact['statement']}** (source: " in report
    retrieval = structured["retrieval"]
    footer = (
        f"*Retrieved {retrieval['total_items']} items | "
        f"Avg relevance: {round(retrieval['avg_relevance_score'] * 100)}% | "
        f"Coverage: {retrieval['coverage_assessment']}*"
    )
    assert report.rstrip().endswith(footer)


def test_it_counts_every_returned_item(mcp: Mcp, imported_workspace: Workspace) -> None:
    retrieval = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))["retrieval"]
    assert retrieval["total_items"] == (
        len(retrieval["facts"])
        + len(retrieval["entities"])
        + len(retrieval["relationships"])
        + len(retrieval["documents"])
    )
    facts = retrieval["facts"]
    expected_avg = sum(f["relevance_score"] for f in facts) / len(facts) if facts else 0
    assert retrieval["avg_relevance_score"] == pytest.approx(expected_avg, abs=0.01)


def test_it_returns_documents_with_their_path_inside_the_source(mcp: Mcp, imported_workspace: Workspace) -> None:
    retrieval = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))["retrieval"]
    for document in retrieval["documents"]:
        assert document["source_path"] in FIXTURE_CORPUS


def test_it_reports_diagnostics_matching_the_request_log(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    diagnostics = structured["diagnostics"]
    row = RequestLog.objects.get(workspace=imported_workspace)
    assert diagnostics["request_id"] == str(row.request_id)
    assert str(uuid.UUID(diagnostics["request_id"])) == diagnostics["request_id"]
    assert diagnostics["sections_searched"] == [t["tree_path"] for t in structured["phase1"]["targeted_sections"]]
    assert diagnostics["gemini_calls_estimate"] == 0
    assert diagnostics["estimated_tokens"] > 0


def test_it_finds_little_for_an_unrelated_prompt(mcp: Mcp, imported_workspace: Workspace) -> None:
    retrieval = assert_success(mcp.call({"prompt": UNRELATED_PROMPT}))["retrieval"]
    assert retrieval["coverage_assessment"] in ("none", "minimal")
    assert all(f["relevance_score"] <= 0.5 for f in retrieval["facts"]), retrieval["facts"]


def test_it_answers_a_greeting_with_triage_only(mcp: Mcp, imported_workspace: Workspace) -> None:
    structured = assert_success(mcp.call({"prompt": GREETING}))
    assert structured["triage"]["decision"] == "triage_only"
    assert structured["phase1"]["targeted_sections"] == []
    retrieval = structured["retrieval"]
    assert retrieval["facts"] == []
    assert retrieval["entities"] == []
    assert retrieval["relationships"] == []
    assert retrieval["documents"] == []
    assert retrieval["total_items"] == 0
    assert retrieval["coverage_assessment"] == "none"
    assert structured["content_text"].startswith("# Retrieved Company Context")
    assert "**Sections searched:** none" in structured["content_text"]
    assert "## Relevant Facts" not in structured["content_text"]
    row = RequestLog.objects.get(workspace=imported_workspace)
    assert row.outcome == RequestLog.Outcome.SUCCESS
    assert row.triage_only is True
    assert row.retrieval_ran is False


def test_it_always_retrieves_when_triage_is_disabled(
    mcp: Mcp, imported_workspace: Workspace, settings: Any
) -> None:
    settings.PAM_TRIAGE_ENABLED = False
    for prompt in (GREETING, "hello", "what is 2 + 2?", MERIDIAN_PROMPT):
        structured = assert_success(mcp.call({"prompt": prompt}))
        assert structured["triage"]["decision"] == "retrieve", prompt


def test_it_ignores_history_when_triage_is_disabled(
    mcp: Mcp, imported_workspace: Workspace, settings: Any
) -> None:
    settings.PAM_TRIAGE_ENABLED = False
    mcp.call({"prompt": "Tell me about the Meridian platform rollout", "session_id": "conv"})
    structured = assert_success(mcp.call({"prompt": "and who leads it?", "session_id": "conv"}))
    assert structured["triage"]["rewritten_query"] == "and who leads it?"


# --- Request log (SPEC §2.2) -------------------------------------------------------------------


def test_it_logs_a_success(mcp: Mcp, imported_workspace: Workspace, agent_key: str) -> None:
    result = mcp.call({"prompt": MERIDIAN_PROMPT, "session_id": "sess-42"})
    row = RequestLog.objects.get(workspace=imported_workspace)
    assert row.outcome == RequestLog.Outcome.SUCCESS
    assert row.tool_name == "retrieve_memory"
    assert row.prompt == MERIDIAN_PROMPT
    assert row.session_id == "sess-42"
    assert row.arguments == {"prompt": MERIDIAN_PROMPT, "session_id": "sess-42"}
    assert row.result == result
    assert row.is_error is False
    assert row.error_code == ""
    assert row.retrieval_ran is True
    assert row.triage_only is False
    assert row.item_count == result["structuredContent"]["retrieval"]["total_items"]
    assert row.estimated_tokens == result["structuredContent"]["diagnostics"]["estimated_tokens"]
    assert row.credential == agent_key[:17]
    assert row.agent_key == AgentKey.objects.get(workspace=imported_workspace, revoked_at__isnull=True)


def test_it_logs_invalid_arguments(mcp: Mcp, workspace: Workspace) -> None:
    result = mcp.call({"prompt": "Who owns Meridian?", "bogus": True})
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR
    assert row.error_code == "invalid_arguments"
    assert row.tool_name == "retrieve_memory"
    assert row.prompt == "Who owns Meridian?"
    assert row.arguments == {"prompt": "Who owns Meridian?", "bogus": True}
    assert row.result == result
    assert row.is_error is True


def test_it_logs_arguments_that_are_not_an_object(mcp: Mcp, workspace: Workspace) -> None:
    mcp.call(["not", "an", "object"])
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR
    assert row.error_code == "invalid_arguments"
    assert row.prompt == ""


def test_it_logs_a_lone_surrogate_prompt_without_failing(mcp: Mcp, workspace: Workspace) -> None:
    assert_error(mcp.call({"prompt": "bad \ud800 text"}), "invalid_arguments")
    row = RequestLog.objects.get(workspace=workspace)
    assert row.error_code == "invalid_arguments"
    assert "\ud800" not in row.prompt


def test_it_logs_no_sources_connected(mcp: Mcp, workspace: Workspace) -> None:
    result = mcp.call({"prompt": MERIDIAN_PROMPT, "session_id": "sess-1"})
    row = RequestLog.objects.get(workspace=workspace)
    assert row.outcome == RequestLog.Outcome.TOOL_ERROR
    assert row.error_code == "no_sources_connected"
    assert row.prompt == MERIDIAN_PROMPT
    assert row.session_id == "sess-1"
    assert row.result == result


def test_it_logs_every_call_once(mcp: Mcp, imported_workspace: Workspace) -> None:
    mcp.call({"prompt": MERIDIAN_PROMPT})
    mcp.call({"prompt": ""})
    mcp.call({"prompt": GREETING})
    mcp.request("ping")
    mcp.request("tools/list")
    mcp.request("initialize", {"protocolVersion": "2025-11-25"})
    rows = list(RequestLog.objects.filter(workspace=imported_workspace).order_by("id"))
    assert [r.outcome for r in rows] == ["success", "tool_error", "success"]
    assert len({r.request_id for r in rows}) == 3


def test_it_logs_the_handshake_session_when_no_session_id_is_given(
    mcp: Mcp, imported_workspace: Workspace
) -> None:
    handshake = mcp.request("initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
    mcp.call({"prompt": MERIDIAN_PROMPT})  # no Mcp-Session-Id header, no session_id argument
    mcp.call({"prompt": MERIDIAN_PROMPT}, headers={"Mcp-Session-Id": handshake})
    sessions = list(RequestLog.objects.filter(workspace=imported_workspace).values_list("session_id", flat=True))
    assert sessions == [handshake, handshake]


def test_it_marks_the_key_verified_only_after_a_success(
    mcp: Mcp, imported_workspace: Workspace, agent_key: str
) -> None:
    key = AgentKey.objects.get(workspace=imported_workspace, revoked_at__isnull=True)
    assert key.mcp_verified is False
    mcp.call({"prompt": ""})
    key.refresh_from_db()
    assert key.mcp_verified is False
    assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    key.refresh_from_db()
    assert key.mcp_verified is True


def test_it_does_not_verify_the_key_on_a_readiness_error(mcp: Mcp, workspace: Workspace) -> None:
    assert_error(mcp.call({"prompt": MERIDIAN_PROMPT}), "no_sources_connected")
    assert AgentKey.objects.get(workspace=workspace).mcp_verified is False


# --- Session history (SPEC §2.3) ---------------------------------------------------------------


def test_it_keeps_the_last_five_prompts_of_a_session(mcp: Mcp, imported_workspace: Workspace) -> None:
    prompts = [f"Question number {n} about the Meridian rollout" for n in range(1, 8)]
    for prompt in prompts:
        assert_success(mcp.call({"prompt": prompt, "session_id": "history-test"}))
    assert history_get(workspace=imported_workspace, session_key="history-test") == prompts[2:]


def test_it_rewrites_a_follow_up_from_its_session(mcp: Mcp, imported_workspace: Workspace) -> None:
    assert_success(mcp.call({"prompt": "Tell me about the Meridian platform rollout", "session_id": "conv-1"}))
    structured = assert_success(mcp.call({"prompt": "and who leads it?", "session_id": "conv-1"}))
    assert structured["triage"]["decision"] == "retrieve"
    assert "Meridian" in structured["triage"]["rewritten_query"]


def test_it_does_not_rewrite_a_follow_up_from_another_session(mcp: Mcp, imported_workspace: Workspace) -> None:
    assert_success(mcp.call({"prompt": "Tell me about the Meridian platform rollout", "session_id": "conv-1"}))
    structured = assert_success(mcp.call({"prompt": "and who leads it?", "session_id": "conv-2"}))
    assert "Meridian" not in structured["triage"]["rewritten_query"]


def test_it_gives_triage_only_the_last_three_prompts(mcp: Mcp, imported_workspace: Workspace) -> None:
    assert_success(mcp.call({"prompt": "Tell me about the Meridian platform rollout", "session_id": "conv-4"}))
    for prompt in ("What is the refund policy?", "Who is the Northwind account owner?", "What was repaired on Monday?"):
        assert_success(mcp.call({"prompt": prompt, "session_id": "conv-4"}))
    structured = assert_success(mcp.call({"prompt": "and who leads it?", "session_id": "conv-4"}))
    assert "Meridian" not in structured["triage"]["rewritten_query"]


def test_it_keys_history_on_the_handshake_session_without_a_session_id(
    mcp: Mcp, imported_workspace: Workspace
) -> None:
    assert_success(mcp.call({"prompt": "Tell me about the Meridian platform rollout"}))
    structured = assert_success(mcp.call({"prompt": "and who leads it?"}))
    assert "Meridian" in structured["triage"]["rewritten_query"]


def test_it_does_not_carry_earlier_results_over(mcp: Mcp, imported_workspace: Workspace) -> None:
    first = assert_success(mcp.call({"prompt": MERIDIAN_PROMPT, "session_id": "conv-3"}))
    second = assert_success(mcp.call({"prompt": UNRELATED_PROMPT, "session_id": "conv-3"}))
    first_statements = {f["statement"] for f in first["retrieval"]["facts"] if f["relevance_score"] > 0.5}
    second_statements = {f["statement"] for f in second["retrieval"]["facts"] if f["relevance_score"] > 0.5}
    assert not first_statements & second_statements


# --- Tenant isolation (DESIGN §3.4) ------------------------------------------------------------


def test_it_refuses_other_workspace(
    mcp: Mcp, client: Client, imported_workspace: Workspace, make_workspace: Any
) -> None:
    other = make_workspace("beta")
    other_mcp = Mcp(client, api_key_rotate(workspace=other).api_key)
    result = other_mcp.call({"prompt": MERIDIAN_PROMPT})
    assert_error(result, "no_sources_connected")
    assert "Meridian" not in str(result)

    assert RequestLog.objects.filter(workspace=other).count() == 1
    assert RequestLog.objects.filter(workspace=imported_workspace).count() == 0

    assert_success(mcp.call({"prompt": MERIDIAN_PROMPT}))
    assert RequestLog.objects.filter(workspace=other).count() == 1
    assert RequestLog.objects.filter(workspace=imported_workspace).count() == 1


def test_it_keeps_session_histories_apart_per_workspace(
    mcp: Mcp, client: Client, imported_workspace: Workspace, make_workspace: Any
) -> None:
    other = make_workspace("beta")
    other_mcp = Mcp(client, api_key_rotate(workspace=other).api_key)
    mcp.call({"prompt": "Tell me about the Meridian platform rollout", "session_id": "shared"})
    other_mcp.call({"prompt": "Something for beta", "session_id": "shared"})
    assert history_get(workspace=imported_workspace, session_key="shared") == [
        "Tell me about the Meridian platform rollout"
    ]
    assert history_get(workspace=other, session_key="shared") == ["Something for beta"]
