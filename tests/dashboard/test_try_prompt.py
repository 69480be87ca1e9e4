"""Try a prompt on Setup (SPEC §6, issue 15): retrieve_memory as the signed-in admin, shown as
rendered markdown, logged as `dashboard:<user id>`, never counted against the quota and never
verifying the agent key."""

from __future__ import annotations

from typing import Any

from django.test import Client

from developer_api.keys import api_key_rotate
from developer_api.models import AgentKey, RequestLog
from developer_api.quotas import quota_get
from memory.models import User, Workspace
from pam.dashboard.markdown import render_markdown

TRY = "/admin/dashboard/setup/try/"


def admin_client(workspace: Workspace) -> tuple[Client, User]:
    user = User.objects.get(email=f"admin@{workspace.slug}.example")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client, user


def test_a_prompt_answers_with_the_rendered_report_and_is_logged_as_the_dashboard(make_workspace: Any, corpus_dir: Any) -> None:
    from memory.services import source_import

    workspace = make_workspace("acme", plan="paid")
    source_import(workspace=workspace, path=corpus_dir)
    api_key_rotate(workspace=workspace)
    client, user = admin_client(workspace)
    before = quota_get(workspace=workspace)
    response = client.post(TRY, {"prompt": "Who owns the Meridian platform rollout?"})
    assert response.status_code == 200
    answer = response.context["try_answer"]
    assert answer.is_error is False and "Platform Engineering" in answer.text
    assert "<h2>" in answer.html and "Platform Engineering" in response.content.decode()
    row = RequestLog.objects.get(workspace=workspace)
    assert row.credential == f"dashboard:{user.pk}" and row.outcome == "success" and row.tool_name == "retrieve_memory"
    after = quota_get(workspace=workspace)
    assert (after["requests_this_week"], after["requests_this_month"], after["requests_this_hour"]) == (
        before["requests_this_week"], before["requests_this_month"], before["requests_this_hour"]
    )
    assert AgentKey.objects.get(workspace=workspace).mcp_verified is False


def test_a_prompt_before_memory_is_ready_shows_the_tool_error(workspace: Workspace) -> None:
    client, _user = admin_client(workspace)
    response = client.post(TRY, {"prompt": "Anything?"})
    assert response.status_code == 200
    assert response.context["try_answer"].is_error is True
    assert "No sources are connected" in response.content.decode()
    assert RequestLog.objects.get().error_code == "no_sources_connected"


def test_an_empty_or_overlong_prompt_is_refused_on_the_page(workspace: Workspace) -> None:
    client, _user = admin_client(workspace)
    empty = client.post(TRY, {"prompt": ""})
    assert empty.status_code == 200 and "This field is required." in empty.content.decode()
    long = client.post(TRY, {"prompt": "x" * 5000})
    assert long.status_code == 200 and "at most 4000 characters" in long.content.decode()
    assert not RequestLog.objects.exists()


def test_markdown_is_rendered_without_the_html_it_contains() -> None:
    html = render_markdown("# Title\n\n<script>alert(1)</script> and [x](javascript:alert(1))")
    assert "<h1>Title</h1>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "href=\"javascript" not in html
