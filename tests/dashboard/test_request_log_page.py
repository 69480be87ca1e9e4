"""The Request Log page (SPEC §2.2, §6; issue 15): the workspace's calls newest first, search
and filters, keyset pages that never count the log, and the row partial of the live feed."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any, Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.models import User, Workspace
from tests.dashboard.conftest import T0, UTC, admin_client, assert_no_inline_code, log_call

URL = "/admin/dashboard/requests/"


def listed(response: Any) -> list[str]:
    return re.findall(r'<tr data-request-id="([0-9a-f-]+)"', response.content.decode())


@pytest.fixture
def admin(workspace: Workspace) -> Client:
    return admin_client(workspace)


def test_it_lists_the_workspace_calls_newest_first(admin: Client, workspace: Workspace) -> None:
    ids = [log_call(workspace, prompt=f"question {i}", at=T0 + timedelta(minutes=i)) for i in range(3)]
    response = admin.get(URL)
    assert response.status_code == 200
    assert listed(response) == ids[::-1]
    html = response.content.decode()
    assert "question 2" in html and "pam_mkey_abcdefgh" in html and "120 ms" in html
    assert 'data-mode="prepend"' in html
    assert_no_inline_code(html)


def test_it_shows_an_empty_state(admin: Client) -> None:
    response = admin.get(URL)
    assert response.status_code == 200 and "No calls yet" in response.content.decode()


def test_it_never_shows_another_workspaces_calls(admin: Client, workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    other = make_workspace("other")
    mine = log_call(workspace)
    log_call(other, prompt="secret of the other workspace")
    response = admin.get(URL)
    assert listed(response) == [mine]
    assert "secret of the other workspace" not in response.content.decode()


def test_it_redirects_a_visitor_and_a_non_staff_user_to_sign_in(workspace: Workspace) -> None:
    assert Client().get(URL).url.startswith("/admin/login/")
    user = User.objects.create_user("member@acme.example", "pw-123456789", workspace=workspace)
    client = Client()
    client.force_login(user)
    response = client.get(URL)
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_an_operator_chooses_the_workspace(workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    other = make_workspace("other")
    log_call(workspace, prompt="acme question")
    theirs = log_call(other, prompt="other question")
    operator = User.objects.create_superuser("op@pam.example", "pw-123456789")
    client = Client()
    client.force_login(operator)
    response = client.get(URL, {"workspace": "other"})
    assert listed(response) == [theirs]
    assert "acme question" not in response.content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"q": "Meridian"}, [0]),
        ({"q": "refund policy"}, [1]),
        ({"outcome": "tool_error"}, [2]),
        ({"tool": "recall"}, [3]),
        ({"credential": "oauth:7"}, [3]),
        ({"from": "2026-05-29"}, [3, 2]),
        ({"to": "2026-05-28"}, [1, 0]),
        ({"from": "2026-05-28", "to": "2026-05-29", "outcome": "success"}, [1, 0]),
        ({"from": "0001-01-01", "to": "9999-12-31"}, [3, 2, 1, 0]),
    ],
)
def test_each_filter_narrows_the_list(admin: Client, workspace: Workspace, query: dict[str, str], expected: list[int]) -> None:
    ids = [
        log_call(workspace, prompt="Meridian status?", at=T0),
        log_call(workspace, prompt="What is the refund policy?", at=T0 + timedelta(hours=1)),
        log_call(workspace, prompt="broken", outcome="tool_error", at=T0 + timedelta(days=1)),
        log_call(workspace, prompt="kickoff", tool="recall", credential="oauth:7", text="found", at=T0 + timedelta(days=2)),
    ]
    response = admin.get(URL, query)
    assert response.status_code == 200
    assert listed(response) == [ids[i] for i in expected]
    assert 'data-mode="notice"' in response.content.decode()  # filtered: live calls only announced


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"outcome": "bogus"}, "Select a valid choice"),
        ({"tool": "drop_tables"}, "Select a valid choice"),
        ({"from": "yesterday"}, "Enter a valid date"),
        ({"from": "2026-05-30", "to": "2026-05-01"}, "The end date is before the start date"),
        ({"cursor": "garbage"}, "This page link is broken"),
        ({"q": "x" * 201}, "at most 200 characters"),
        ({"q": "nul\x00byte"}, "Null characters are not allowed"),
    ],
)
def test_a_bad_filter_is_a_clear_message_not_a_500(admin: Client, workspace: Workspace, query: dict[str, str], message: str) -> None:
    log_call(workspace)
    response = admin.get(URL, query)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html and 'data-testid="filter-errors"' in html
    assert listed(response) == []


def test_pages_go_back_in_time_without_counting_the_log(admin: Client, workspace: Workspace) -> None:
    ids = [log_call(workspace, prompt=f"question {i}", at=T0 + timedelta(seconds=i)) for i in range(30)][::-1]
    with CaptureQueriesContext(connection) as queries:
        first = admin.get(URL)
    assert listed(first) == ids[:25]
    older = re.search(r'href="\?([^"]+)"[^>]*rel="next"', first.content.decode())
    assert older is not None
    with CaptureQueriesContext(connection) as more_queries:
        second = admin.get(URL + "?" + older.group(1).replace("&amp;", "&"))
    assert listed(second) == ids[25:]
    assert 'rel="next"' not in second.content.decode()
    assert "Newest" in second.content.decode()
    for captured in (queries, more_queries):
        assert not [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]


def test_the_row_partial_is_one_row_of_the_workspace(admin: Client, workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    mine = log_call(workspace, prompt="live question")
    response = admin.get(f"{URL}{mine}/row/")
    assert response.status_code == 200
    html = response.content.decode().strip()
    assert html.startswith(f'<tr data-request-id="{mine}">') and "live question" in html
    theirs = log_call(make_workspace("other"))
    assert admin.get(f"{URL}{theirs}/row/").status_code == 404
    assert admin.get(f"{URL}not-a-uuid/row/").status_code == 404
