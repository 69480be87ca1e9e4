"""A call's detail in the Request Log (SPEC §2.2, §6; issue 15): the prompt, the rendered
markdown answer, the structured JSON, the diagnostics and the call's figures; only for the
workspace's own calls."""

from __future__ import annotations

from typing import Callable

from django.test import Client

from memory.models import User, Workspace
from tests.dashboard.conftest import admin_client, assert_no_inline_code, log_call

URL = "/admin/dashboard/requests/{}/"
STRUCTURED = {
    "status": "ok",
    "retrieval": {"facts": [{"statement": "Dana leads <Platform> & co."}]},
    "diagnostics": {"request_id": "r-1", "triage": "full_retrieval", "elapsed_ms": 412},
}


def test_it_shows_the_prompt_the_answer_and_the_figures(workspace: Workspace) -> None:
    request_id = log_call(
        workspace, prompt="Who leads Platform?", text="# Retrieved Company Context\n\n- **Dana** leads it",
        structured=STRUCTURED, duration_ms=412, tokens=321, credential="pam_mkey_abcdefgh",
    )
    response = admin_client(workspace).get(URL.format(request_id))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Who leads Platform?" in html
    assert "<h1>Retrieved Company Context</h1>" in html and "<strong>Dana</strong> leads it" in html
    assert "Dana leads &lt;Platform&gt; &amp; co." in html  # the JSON, escaped
    assert "&quot;elapsed_ms&quot;: 412" in html.split('data-testid="diagnostics"')[1]
    assert "412 ms" in html and "321 (estimated)" in html and "pam_mkey_abcdefgh" in html and "retrieve_memory" in html
    assert request_id in html
    assert_no_inline_code(html)


def test_html_in_the_answer_is_shown_as_text(workspace: Workspace) -> None:
    request_id = log_call(workspace, text='Quoted: <script>alert(1)</script> <img src=x onerror="alert(2)">')
    html = admin_client(workspace).get(URL.format(request_id)).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert_no_inline_code(html)


def test_a_tool_error_shows_its_outcome_and_no_diagnostics(workspace: Workspace) -> None:
    request_id = log_call(workspace, outcome="tool_error", text="Memory is not ready yet.", structured={"error_code": "not_ready"})
    html = admin_client(workspace).get(URL.format(request_id)).content.decode()
    assert "pam-badge-warn\">tool_error<" in html and "isError" in html
    assert "This tool reports no diagnostics." in html


def test_it_refuses_another_workspaces_call(workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    theirs = log_call(make_workspace("other"), prompt="their secret")
    response = admin_client(workspace).get(URL.format(theirs))
    assert response.status_code == 404
    assert "their secret" not in response.content.decode()


def test_an_unknown_or_malformed_id_is_not_found(workspace: Workspace) -> None:
    client = admin_client(workspace)
    assert client.get(URL.format("00000000-0000-0000-0000-000000000000")).status_code == 404
    assert client.get(URL.format("not-a-uuid")).status_code == 404


def test_an_operator_opens_a_call_of_the_workspace_they_chose(workspace: Workspace, make_workspace: Callable[..., Workspace]) -> None:
    theirs = log_call(make_workspace("other"), prompt="other question")
    client = Client()
    client.force_login(User.objects.create_superuser("op@pam.example", "pw-123456789"))
    assert client.get(URL.format(theirs), {"workspace": "acme"}).status_code == 404
    response = client.get(URL.format(theirs), {"workspace": "other"})
    assert response.status_code == 200 and "other question" in response.content.decode()


def test_a_visitor_is_sent_to_sign_in(workspace: Workspace) -> None:
    request_id = log_call(workspace)
    assert Client().get(URL.format(request_id)).url.startswith("/admin/login/")
