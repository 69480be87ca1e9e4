"""GET /v1/dev/mcp-requests?limit=&page=&cursor=&q= (SPEC §3): newest first, the envelope of the
seed, keyset cursors stable while calls arrive, `q` over tool name, prompt and response."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from developer_api.services import LogEntry, request_log_create
from memory.models import Workspace
from tests.conftest import Mcp
from tests.developer_api.conftest import access_token, assert_error

URL = "/v1/dev/mcp-requests"
UTC = timezone.utc
ENVELOPE = {"items", "next_cursor", "page_size", "total_count", "current_page", "total_pages"}
ITEM = {"request_id", "tool_name", "prompt", "response_content_text", "response_json", "duration_ms", "created_at"}
T0 = datetime(2026, 5, 28, 16, 3, 11, 904000, tzinfo=UTC)


def log(workspace: Workspace, n: int, prompt: str = "", start: datetime = T0, text: str = "answer") -> list[str]:
    ids = []
    for i in range(n):
        request_id = str(uuid.uuid4())
        request_log_create(
            entry=LogEntry(
                request_id=request_id, workspace=workspace, credential="pam_mkey_test", agent_key=None,
                tool_name="retrieve_memory", arguments={"prompt": prompt or f"question {i}"},
                prompt=prompt or f"question {i}",
                result={"content": [{"type": "text", "text": f"{text} {i}"}], "structuredContent": {"status": "ok"}, "isError": False},
                created_at=start + timedelta(seconds=i),
            )
        )
        ids.append(request_id)
    return ids


def page(client: Client, auth: dict[str, str], query: str = "") -> dict[str, Any]:
    response = client.get(URL + query, headers=auth)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_an_empty_log_is_an_empty_first_page(client: Client, auth: dict[str, str]) -> None:
    assert page(client, auth) == {
        "items": [], "next_cursor": None, "page_size": 10, "total_count": 0, "current_page": 1, "total_pages": 0,
    }


def test_items_have_the_seeds_fields_newest_first(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    ids = log(workspace, 3)
    body = page(client, auth)
    assert set(body) == ENVELOPE
    assert [item["request_id"] for item in body["items"]] == ids[::-1]
    item = body["items"][0]
    assert set(item) == ITEM
    assert item["response_content_text"] == "answer 2"
    assert item["response_json"]["content"][0]["text"] == "answer 2" and item["response_json"]["isError"] is False
    assert item["created_at"] == (T0 + timedelta(seconds=2)).isoformat() and item["created_at"].endswith("+00:00")


def test_pages_split_the_log_and_the_last_page_has_no_cursor(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    ids = log(workspace, 25)[::-1]
    first, third = page(client, auth, "?limit=10&page=1"), page(client, auth, "?limit=10&page=3")
    assert (first["total_count"], first["total_pages"], first["current_page"]) == (25, 3, 1)
    assert [i["request_id"] for i in first["items"]] == ids[:10]
    assert first["next_cursor"] == f"{(T0 + timedelta(seconds=15)).isoformat()}|{first['next_cursor'].split('|')[1]}"
    assert [i["request_id"] for i in third["items"]] == ids[20:] and third["next_cursor"] is None
    assert page(client, auth, "?limit=10&page=4")["items"] == []


def test_a_cursor_continues_where_the_page_ended_while_calls_arrive(
    client: Client, auth: dict[str, str], workspace: Workspace
) -> None:
    ids = log(workspace, 12)[::-1]
    first = page(client, auth, "?limit=5")
    log(workspace, 3, prompt="arrived later", start=T0 + timedelta(hours=1))
    second = page(client, auth, f"?limit=5&cursor={quote(first['next_cursor'])}")
    third = page(client, auth, f"?limit=5&cursor={second['next_cursor']}")  # "+" unencoded: a space
    seen = [i["request_id"] for i in first["items"] + second["items"] + third["items"]]
    assert seen == ids and third["next_cursor"] is None
    assert second["total_count"] == 15 and second["current_page"] == 2


def test_a_cursor_wins_over_page(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    log(workspace, 6)
    first = page(client, auth, "?limit=3")
    assert page(client, auth, f"?limit=3&page=9&cursor={first['next_cursor']}")["items"]


def test_q_matches_prompt_response_and_tool_name(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    log(workspace, 2, prompt="Who owns the Meridian rollout?")
    log(workspace, 3, prompt="refund policy", text="Refunds above five thousand")
    assert page(client, auth, "?q=meridian")["total_count"] == 2
    assert page(client, auth, "?q=refunds")["total_count"] == 3
    assert page(client, auth, "?q=retrieve_memory")["total_count"] == 5
    assert page(client, auth, "?q=meridian%20rollout")["total_count"] == 2
    assert page(client, auth, "?q=nothingmatchesthis")["items"] == []


@pytest.mark.parametrize(
    "query, field",
    [
        ("?limit=0", "limit"), ("?limit=101", "limit"), ("?limit=x", "limit"), ("?page=0", "page"),
        ("?page=-3", "page"), ("?q=" + "x" * 201, "q"), ("?q=", "q"), ("?q=%20%20", "q"),
        ("?cursor=nonsense", "cursor"), ("?cursor=2026-05-28T16:03:11|abc", "cursor"),
        ("?cursor=2026-05-28T16:03:11%7C5", "cursor"), ("?cursor=%7C5", "cursor"), ("?limit=%C2%B2", "limit"),
    ],
)
def test_bad_parameters_are_a_400_naming_the_field(client: Client, auth: dict[str, str], query: str, field: str) -> None:
    body = assert_error(client.get(URL + query, headers=auth), 400, "invalid_request")
    assert body["error_message"].startswith(f"{field}:")


def test_limit_100_is_accepted(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    log(workspace, 3)
    assert page(client, auth, "?limit=100")["page_size"] == 100


def test_real_calls_appear_with_their_full_result(client: Client, auth: dict[str, str], mcp: Mcp) -> None:
    result = mcp.call({"prompt": "Who owns the Meridian rollout?"})
    item = page(client, auth)["items"][0]
    assert item["prompt"] == "Who owns the Meridian rollout?"
    assert item["response_json"] == result


def test_a_workspace_never_sees_another_workspaces_requests(
    client: Client, auth: dict[str, str], workspace: Workspace, make_workspace: Any
) -> None:
    other = make_workspace("other")
    log(other, 4, prompt="secret plans")
    assert page(client, auth)["total_count"] == 0
    assert page(client, auth, "?q=secret")["items"] == []
    theirs = {"Authorization": f"Bearer {access_token(client, 'admin@other.example')}"}
    assert page(client, theirs)["total_count"] == 4


def test_it_needs_a_token(client: Client, workspace: Workspace) -> None:
    assert_error(client.get(URL), 401, "invalid_token")


def test_q_results_are_newest_first_and_page_with_a_cursor(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    log(workspace, 3, prompt="unrelated")
    ids = log(workspace, 5, prompt="Who owns the Meridian rollout?", start=T0 + timedelta(minutes=5))[::-1]
    first = page(client, auth, "?q=meridian&limit=3")
    second = page(client, auth, f"?q=meridian&limit=3&cursor={quote(first['next_cursor'])}")
    assert [i["request_id"] for i in first["items"] + second["items"]] == ids
    assert (second["next_cursor"], second["current_page"], second["total_pages"]) == (None, 2, 2)


def test_the_count_of_a_search_stays_exact_as_matching_calls_arrive_and_leave(
    client: Client, auth: dict[str, str], workspace: Workspace
) -> None:
    from developer_api.services import request_log_purge

    now = datetime.now(UTC)
    log(workspace, 3, prompt="zebra rollout", start=now - timedelta(days=120))  # past the retention
    log(workspace, 4, prompt="zebra rollout", start=now - timedelta(days=2))
    log(workspace, 2, prompt="other things", start=now - timedelta(days=2))
    assert page(client, auth, "?q=zebra")["total_count"] == 7
    log(workspace, 2, prompt="zebra rollout", start=now)  # written just now: not settled yet
    log(workspace, 1, prompt="zebra replayed", start=now - timedelta(days=3))  # after the mark, dated earlier
    log(workspace, 1, prompt="other things", start=now)
    assert page(client, auth, "?q=zebra")["total_count"] == 10
    assert page(client, auth, "?q=zebra")["total_count"] == 10  # the settled part now comes from the cache
    assert page(client, auth, "?q=ZEBRA")["total_count"] == 10
    assert page(client, auth, "?q=zebra%20rollout")["total_count"] == 9
    assert request_log_purge(now=now) == 3
    assert page(client, auth, "?q=zebra")["total_count"] == 7
    assert page(client, auth, "?q=other")["total_count"] == 3


def test_a_search_count_is_never_shared_between_workspaces(
    client: Client, auth: dict[str, str], workspace: Workspace, make_workspace: Any
) -> None:
    other = make_workspace(slug="globex")
    now = datetime.now(UTC)
    log(other, 5, prompt="zebra rollout", start=now - timedelta(days=1))
    log(workspace, 2, prompt="zebra rollout", start=now - timedelta(days=1))
    assert page(client, auth, "?q=zebra")["total_count"] == 2
    log(other, 1, prompt="zebra rollout", start=now - timedelta(days=1))
    assert page(client, auth, "?q=zebra")["total_count"] == 2
