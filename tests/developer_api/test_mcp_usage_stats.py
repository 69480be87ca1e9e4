"""GET /v1/dev/mcp-usage-stats?days=N (SPEC §3): range, summary, zero-filled daily series,
UTC heatmap with 0 = Sunday, status breakdown; `days` outside 1..90 is a 400."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timezone
from typing import Any

import pytest
from django.test import Client

from developer_api.models import UsageHour
from developer_api.services import LogEntry, request_log_create
from developer_api.usage import usage_rebuild, usage_stats
from memory.models import Workspace
from tests.developer_api.conftest import access_token, assert_error

URL = "/v1/dev/mcp-usage-stats"
UTC = timezone.utc


def log(workspace: Workspace, at: datetime, outcome: str = "success", **fields: Any) -> None:
    request_log_create(
        entry=LogEntry(
            request_id=str(uuid.uuid4()), workspace=workspace, credential="pam_mkey_test", agent_key=None,
            tool_name="retrieve_memory", arguments={"prompt": "p"}, prompt="p", outcome=outcome,
            created_at=at, **fields,
        )
    )


def stats(client: Client, auth: dict[str, str], query: str = "") -> dict[str, Any]:
    response = client.get(URL + query, headers=auth)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_it_answers_the_seeds_shape(client: Client, auth: dict[str, str]) -> None:
    body = stats(client, auth)
    assert set(body) == {"range", "summary", "daily", "hourly_heatmap", "status_breakdown"}
    assert set(body["range"]) == {"days", "start_date", "end_date"}
    assert set(body["summary"]) == {
        "total_calls", "successful_calls", "error_calls", "success_rate", "average_duration_ms", "estimated_tokens",
        "gemini_calls_estimate", "retrieved_items_count", "triage_only_calls", "full_retrieval_calls", "last_called_at",
    }
    assert set(body["daily"][0]) == {
        "date", "total_calls", "successful_calls", "tool_error_calls", "quota_exceeded_calls",
        "entitlement_blocked_calls", "triage_only_calls", "full_retrieval_calls", "estimated_tokens",
        "average_duration_ms",
    }


def test_the_default_is_30_days_ending_today_utc(client: Client, auth: dict[str, str]) -> None:
    body = stats(client, auth)
    today = datetime.now(UTC).date()
    assert body["range"]["days"] == 30 and body["range"]["end_date"] == today.isoformat()
    assert len(body["daily"]) == 30 and body["daily"][-1]["date"] == today.isoformat()
    assert body["summary"]["last_called_at"] is None and body["summary"]["success_rate"] == 0


@pytest.mark.parametrize("days", ["0", "91", "-1", "abc", "1.5", "", "²", "9" * 40])
def test_days_outside_1_to_90_is_a_400_naming_the_field(client: Client, auth: dict[str, str], days: str) -> None:
    body = assert_error(client.get(f"{URL}?days={days}", headers=auth), 400, "invalid_request")
    assert body["error_message"].startswith("days:")


@pytest.mark.parametrize("days", [1, 90])
def test_the_edges_1_and_90_are_accepted(client: Client, auth: dict[str, str], days: int) -> None:
    assert len(stats(client, auth, f"?days={days}")["daily"]) == days


def test_every_calendar_day_is_there_across_a_month_boundary(workspace: Workspace) -> None:
    log(workspace, datetime(2026, 2, 27, 10, tzinfo=UTC))
    log(workspace, datetime(2026, 3, 2, 9, tzinfo=UTC), duration_ms=100)
    log(workspace, datetime(2026, 3, 2, 23, 59, tzinfo=UTC), duration_ms=300)
    body = usage_stats(workspace=workspace, days=5, today=date(2026, 3, 2))
    assert body["range"] == {"days": 5, "start_date": "2026-02-26", "end_date": "2026-03-02"}
    assert [d["date"] for d in body["daily"]] == ["2026-02-26", "2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]
    assert [d["total_calls"] for d in body["daily"]] == [0, 1, 0, 0, 2]
    assert body["daily"][-1]["average_duration_ms"] == 200
    assert body["daily"][0]["average_duration_ms"] == 0


def test_calls_outside_the_range_are_left_out(workspace: Workspace) -> None:
    log(workspace, datetime(2026, 2, 25, 23, 59, tzinfo=UTC))
    log(workspace, datetime(2026, 3, 3, 0, 0, tzinfo=UTC))
    body = usage_stats(workspace=workspace, days=5, today=date(2026, 3, 2))
    assert body["summary"]["total_calls"] == 0 and body["hourly_heatmap"] == []


def test_the_heatmap_is_utc_with_sunday_as_0(workspace: Workspace) -> None:
    log(workspace, datetime(2026, 3, 1, 9, 15, tzinfo=UTC))  # a Sunday
    log(workspace, datetime(2026, 3, 1, 9, 45, tzinfo=UTC))
    log(workspace, datetime(2026, 3, 7, 23, 5, tzinfo=UTC))  # a Saturday
    log(workspace, datetime(2026, 3, 2, 14, 0, tzinfo=UTC))  # a Monday
    body = usage_stats(workspace=workspace, days=7, today=date(2026, 3, 7))
    assert body["hourly_heatmap"] == [
        {"weekday": 0, "hour": 9, "total_calls": 2},
        {"weekday": 1, "hour": 14, "total_calls": 1},
        {"weekday": 6, "hour": 23, "total_calls": 1},
    ]


def test_the_summary_and_breakdown_count_every_outcome(workspace: Workspace) -> None:
    at = datetime(2026, 5, 28, 16, tzinfo=UTC)
    log(workspace, at, estimated_tokens=1000, llm_calls=2, item_count=5, retrieval_ran=True, duration_ms=40)
    log(workspace, at, triage_only=True, duration_ms=20)
    log(workspace, at, "tool_error", duration_ms=10)
    log(workspace, at.replace(minute=30), "quota_exceeded")
    log(workspace, at, "entitlement_blocked")
    body = usage_stats(workspace=workspace, days=30, today=date(2026, 5, 29))
    assert body["summary"] == {
        "total_calls": 5, "successful_calls": 2, "error_calls": 3, "success_rate": 40, "average_duration_ms": 14,
        "estimated_tokens": 1000, "gemini_calls_estimate": 2, "retrieved_items_count": 5, "triage_only_calls": 1,
        "full_retrieval_calls": 1, "last_called_at": "2026-05-28T16:30:00+00:00",
    }
    day = body["daily"][-2]
    assert (day["date"], day["tool_error_calls"], day["quota_exceeded_calls"], day["entitlement_blocked_calls"]) == (
        "2026-05-28", 1, 1, 1,
    )
    assert body["status_breakdown"] == [
        {"status": "success", "count": 2},
        {"status": "entitlement_blocked", "count": 1},
        {"status": "quota_exceeded", "count": 1},
        {"status": "tool_error", "count": 1},
    ]


def test_the_roll_up_equals_a_rebuild_from_the_log(workspace: Workspace) -> None:
    for hour in range(5):
        log(workspace, datetime(2026, 5, 28, hour, 10 * hour, tzinfo=UTC), estimated_tokens=hour, duration_ms=hour)
    live = sorted(UsageHour.objects.values_list("hour", "calls", "estimated_tokens", "duration_ms", "last_called_at"))
    usage_rebuild()
    assert sorted(UsageHour.objects.values_list("hour", "calls", "estimated_tokens", "duration_ms", "last_called_at")) == live


def test_a_workspace_sees_only_its_own_usage(client: Client, auth: dict[str, str], workspace: Workspace, make_workspace: Any) -> None:
    other = make_workspace("other")
    log(other, datetime.now(UTC))
    assert stats(client, auth)["summary"]["total_calls"] == 0
    theirs = {"Authorization": f"Bearer {access_token(client, 'admin@other.example')}"}
    assert stats(client, theirs)["summary"]["total_calls"] == 1


def test_it_needs_a_token(client: Client, workspace: Workspace) -> None:
    assert_error(client.get(URL), 401, "invalid_token")
