"""Quotas (SPEC §3.2) through the one tool-call path: what counts, what is refused, what is
released, and the quota object. A throwaway counted tool stands in for retrieve_memory where
the answer must be chosen (success or failure); retrieve_memory itself is checked too."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

import pytest

from developer_api.models import Plan, RequestLog
from developer_api.quotas import quota_get, windows_at
from memory.mcp.tools import Tool
from memory.models import Workspace
from tests.conftest import Mcp
from tests.memory.test_mcp_tool_calls import echo_tool, register  # noqa: F401 (fixture)


def plan(workspace: Workspace, *, weekly: int = -1, monthly: int = -1, hourly: int = -1, enabled: bool = True) -> None:
    workspace.plan = Plan.objects.create(
        name=f"p{Plan.objects.count()}", weekly_limit=weekly, monthly_limit=monthly, hourly_limit=hourly, enabled=enabled
    )
    workspace.save()


@pytest.fixture
def counted(register: Callable[..., Tool]) -> Tool:
    return register(echo_tool(counts_against_quota=True))


def call(mcp: Mcp, text: str = "hello") -> dict[str, Any]:
    return mcp.call({"text": text}, name="echo")


def quota(workspace: Workspace) -> dict[str, Any]:
    workspace.refresh_from_db()
    return quota_get(workspace=workspace)


def test_the_monthly_allowance_refuses_the_call_after_the_last_unit(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    plan(workspace, monthly=2)
    assert not call(mcp)["isError"] and not call(mcp)["isError"]
    refused = call(mcp)
    assert refused["isError"]
    assert refused["structuredContent"]["error_code"] == "quota_exceeded"
    reset = windows_at(datetime.now(timezone.utc))["month"].reset_at.isoformat()
    assert refused["content"][0]["text"] == f"Monthly retrieve_memory quota exceeded. Retry after {reset}."


def test_the_weekly_allowance_names_the_week_and_its_monday_reset(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    plan(workspace, weekly=1)
    call(mcp)
    text = call(mcp)["content"][0]["text"]
    reset = windows_at(datetime.now(timezone.utc))["week"].reset_at
    assert reset.weekday() == 0 and reset.hour == 0
    assert text == f"Weekly retrieve_memory quota exceeded. Retry after {reset.isoformat()}."


def test_a_blocked_call_is_logged_as_quota_exceeded_and_uses_no_allowance(
    mcp: Mcp, workspace: Workspace, counted: Tool
) -> None:
    plan(workspace, monthly=1)
    call(mcp)
    call(mcp)
    call(mcp)
    outcomes = list(RequestLog.objects.filter(workspace=workspace).order_by("id").values_list("outcome", flat=True))
    assert outcomes == ["success", "quota_exceeded", "quota_exceeded"]
    assert quota(workspace)["requests_this_month"] == 1


def test_a_call_that_fails_gives_its_allowance_back(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    plan(workspace, monthly=1, weekly=1)
    assert call(mcp, "refuse")["isError"]
    assert call(mcp, "crash")["structuredContent"]["error_code"] == "memory_unavailable"
    assert quota(workspace)["requests_this_month"] == 0
    assert quota(workspace)["requests_this_week"] == 0
    assert not call(mcp)["isError"]


def test_invalid_arguments_use_no_allowance_but_count_as_an_hourly_attempt(
    mcp: Mcp, workspace: Workspace, counted: Tool
) -> None:
    plan(workspace, monthly=5, hourly=10)
    assert call(mcp, 42)["structuredContent"]["error_code"] == "invalid_arguments"  # type: ignore[arg-type]
    assert (quota(workspace)["requests_this_month"], quota(workspace)["requests_this_hour"]) == (0, 1)


def test_the_hourly_limit_counts_every_attempt_including_blocked_ones(
    mcp: Mcp, workspace: Workspace, counted: Tool
) -> None:
    plan(workspace, hourly=2)
    assert not call(mcp, "refuse")["structuredContent"].get("error_code") == "quota_exceeded"
    assert not call(mcp)["isError"]
    blocked = call(mcp)
    assert blocked["structuredContent"]["error_code"] == "quota_exceeded"
    assert blocked["content"][0]["text"].startswith("Hourly retrieve_memory limit exceeded. Retry after ")
    call(mcp)
    q = quota(workspace)
    assert (q["requests_this_hour"], q["remaining_this_hour"], q["requests_this_month"]) == (4, 0, 1)


def test_tools_that_do_not_count_are_never_limited(mcp: Mcp, workspace: Workspace, register: Any) -> None:
    register(echo_tool())
    plan(workspace, monthly=0, weekly=0, hourly=0)
    assert not call(mcp)["isError"]
    assert quota(workspace)["requests_this_hour"] == 0


def test_retrieve_memory_counts_and_a_not_ready_answer_is_released(mcp: Mcp, workspace: Workspace) -> None:
    plan(workspace, monthly=3, hourly=5)
    result = mcp.call({"prompt": "Who owns the Meridian rollout?"})
    assert result["isError"]  # nothing imported: not ready
    q = quota(workspace)
    assert (q["requests_this_hour"], q["requests_this_month"]) == (1, 0)


def test_retrieve_memory_successes_use_the_allowances(mcp: Mcp, imported_workspace: Workspace) -> None:
    plan(imported_workspace, monthly=3, weekly=3)
    assert not mcp.call({"prompt": "Who owns the Meridian rollout?"})["isError"]
    q = quota(imported_workspace)
    assert (q["requests_this_week"], q["requests_this_month"], q["remaining_this_month"]) == (1, 1, 2)


def test_a_disabled_plan_is_entitlement_required_and_counts_nothing(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    plan(workspace, monthly=3, enabled=False)
    result = call(mcp)
    assert result["structuredContent"]["error_code"] == "entitlement_required"
    assert RequestLog.objects.get(workspace=workspace).outcome == "entitlement_blocked"
    q = quota(workspace)
    assert (q["status"], q["requests_this_hour"], q["requests_this_month"]) == ("entitlement_required", 0, 0)


def test_the_quota_object_has_both_shapes_and_the_hourly_meter(workspace: Workspace) -> None:
    plan(workspace, weekly=300, monthly=1000, hourly=100)
    q = quota(workspace)
    assert set(q) == {
        "plan", "status", "requests_this_week", "weekly_limit", "remaining_this_week", "requests_this_month",
        "monthly_limit", "remaining_this_month", "usage_percent", "week_reset_at", "month_reset_at",
        "retrieve_requests_used", "max_retrieve_requests", "retrieve_requests_left", "reset_at",
        "requests_this_hour", "hourly_limit", "remaining_this_hour", "hour_reset_at",
    }
    assert q["status"] == "ok" and q["usage_percent"] == 0
    assert (q["max_retrieve_requests"], q["retrieve_requests_left"], q["reset_at"]) == (1000, 1000, q["month_reset_at"])
    for field in ("week_reset_at", "month_reset_at", "reset_at", "hour_reset_at"):
        assert q[field].endswith("+00:00")
        assert datetime.fromisoformat(q[field]) > datetime.now(timezone.utc)


def test_the_status_goes_near_limit_past_80_percent_then_limited(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    plan(workspace, weekly=10, monthly=100)
    for _ in range(8):
        call(mcp)
    assert (quota(workspace)["status"], quota(workspace)["usage_percent"]) == ("ok", 80)
    call(mcp)
    assert (quota(workspace)["status"], quota(workspace)["usage_percent"]) == ("near_limit", 90)
    call(mcp)
    q = quota(workspace)
    assert (q["status"], q["usage_percent"], q["remaining_this_week"]) == ("limited", 100, 0)


def test_an_unlimited_plan_reports_unlimited_and_minus_one(mcp: Mcp, workspace: Workspace, counted: Tool) -> None:
    call(mcp)
    q = quota(workspace)
    assert (q["plan"], q["status"], q["weekly_limit"], q["remaining_this_month"]) == ("unlimited", "unlimited", -1, -1)
    assert q["requests_this_month"] == 1


def test_windows_are_the_utc_hour_the_monday_week_and_the_calendar_month() -> None:
    w = windows_at(datetime(2026, 12, 31, 23, 59, 59, tzinfo=timezone.utc))
    assert w["hour"].reset_at == datetime(2027, 1, 1, tzinfo=timezone.utc)
    assert w["week"].start == datetime(2026, 12, 28, tzinfo=timezone.utc)  # a Monday
    assert w["week"].reset_at == datetime(2027, 1, 4, tzinfo=timezone.utc)
    assert w["month"].start == datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert w["month"].reset_at == datetime(2027, 1, 1, tzinfo=timezone.utc)


def test_counters_of_two_workspaces_are_separate(mcp: Mcp, workspace: Workspace, make_workspace: Any, counted: Tool) -> None:
    other = make_workspace("other")
    plan(workspace, monthly=1)
    plan(other, monthly=1)
    call(mcp)
    assert quota(other)["requests_this_month"] == 0
