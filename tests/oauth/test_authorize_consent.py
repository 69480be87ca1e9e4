"""`/v1/oauth/authorize` (RFC 6749 §4.1, RFC 9207, SPEC §4): sign-in with the PAM account, the
consent page, Allow and Cancel."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

from memory.models import User, Workspace
from tests.oauth.conftest import CLAUDE_CALLBACK, ISSUER, authorize_params, consent, pkce, query_of, register


@pytest.fixture
def acme(workspace: Workspace) -> Workspace:
    Workspace.objects.filter(pk=workspace.pk).update(name="Acme")
    return workspace


def test_an_anonymous_user_is_sent_to_sign_in_and_back(client: Client, acme: Workspace) -> None:
    app = register(client)
    params = authorize_params(app, pkce())
    response = client.get("/v1/oauth/authorize", params)
    assert response.status_code == 302
    sign_in = response["Location"]
    assert sign_in.startswith("/v1/oauth/sign-in?next=")

    page = client.get(sign_in)
    assert page.status_code == 200
    assert b'name="username"' in page.content and b'name="password"' in page.content
    signed = client.post(sign_in, {"username": "Admin@Acme.example", "password": "pw-123456789", "next": page.context["next"]})
    assert signed.status_code == 302
    back = signed["Location"]
    assert urlsplit(back).path == "/v1/oauth/authorize"
    consent_page = client.get(back)
    assert consent_page.status_code == 200
    assert consent_page.context["client_name"] == "Claude"


def test_a_wrong_password_shows_the_sign_in_form_again(client: Client, acme: Workspace) -> None:
    response = client.post("/v1/oauth/sign-in", {"username": "admin@acme.example", "password": "wrong"})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert "_auth_user_id" not in client.session


def test_sign_in_never_redirects_off_site(client: Client, acme: Workspace) -> None:
    response = client.post(
        "/v1/oauth/sign-in", {"username": "admin@acme.example", "password": "pw-123456789", "next": "https://evil.example/"}
    )
    assert response.status_code == 302
    assert not response["Location"].startswith("https://evil.example")


def test_the_consent_page_names_the_client_its_redirect_host_and_the_workspace(
    client: Client, signed_in: Client, acme: Workspace
) -> None:
    app = register(client, client_name="claude.ai")
    page = client.get("/v1/oauth/authorize", authorize_params(app, pkce()))
    assert page.status_code == 200
    text = " ".join(page.content.decode().split())
    assert "claude.ai will be able to read your company memory in workspace Acme" in text.replace("<strong>", "").replace("</strong>", "")
    assert "admin@acme.example" in text


def test_the_pages_carry_no_inline_script_or_style(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client)
    pages = [client.get("/v1/oauth/authorize", authorize_params(app, pkce())), Client().get("/v1/oauth/sign-in")]
    for page in pages:
        html = page.content.decode()
        assert "<script" not in html and "<style" not in html and "style=" not in html
        assert '<meta name="viewport"' in html
        assert "/static/pam/pam.css" in html


def test_allow_returns_the_code_the_state_and_the_issuer(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client)
    answer = consent(client, app, pkce(), state="xyz-42")
    assert set(answer) == {"code", "state", "iss"}
    assert answer["state"] == "xyz-42"
    assert answer["iss"] == ISSUER


def test_allow_redirects_to_the_registered_uri_exactly(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client)
    page = client.get("/v1/oauth/authorize", authorize_params(app, pkce()))
    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    response = client.post("/v1/oauth/authorize", {**data, "allow": "Allow"})
    assert response["Location"].startswith(CLAUDE_CALLBACK + "?")


def test_cancel_returns_access_denied_with_the_state(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client)
    answer = consent(client, app, pkce(), allow=False, state="xyz-42")
    assert answer["error"] == "access_denied"
    assert answer["state"] == "xyz-42"
    assert answer["iss"] == ISSUER
    assert "code" not in answer


def test_a_loopback_client_may_come_back_on_another_port(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client, redirect_uris=["http://127.0.0.1:33418/callback"])
    page = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), redirect_uri="http://127.0.0.1:51000/callback"))
    assert page.status_code == 200
    assert page.context["redirect_host"] == "127.0.0.1"


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "https://claude.com/api/mcp/auth_callback",
        CLAUDE_CALLBACK + "?x=1",
        CLAUDE_CALLBACK + "/",
        "https://evil.example/callback",
    ],
)
def test_a_redirect_uri_that_is_not_registered_exactly_is_refused_without_redirecting(
    client: Client, signed_in: Client, acme: Workspace, redirect_uri: str
) -> None:
    app = register(client)
    response = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "Location" not in response
    assert b"not valid" in response.content


def test_an_unknown_client_is_refused_without_redirecting(client: Client, signed_in: Client, acme: Workspace) -> None:
    response = client.get("/v1/oauth/authorize", authorize_params({"client_id": "nope", "redirect_uris": [CLAUDE_CALLBACK]}, pkce()))
    assert response.status_code in (400, 401)
    assert "Location" not in response


def test_a_user_without_a_workspace_gets_a_clear_error_page(client: Client, db: None) -> None:
    operator = User.objects.create_user("operator@pam.example", "pw-123456789", is_staff=True)
    client.force_login(operator)
    app = register(client)
    response = client.get("/v1/oauth/authorize", authorize_params(app, pkce()))
    assert response.status_code == 403
    assert b"belongs to no workspace" in response.content


def test_a_member_of_a_disabled_workspace_cannot_connect(client: Client, signed_in: Client, acme: Workspace) -> None:
    Workspace.objects.filter(pk=acme.pk).update(disabled=True)
    app = register(client)
    response = client.get("/v1/oauth/authorize", authorize_params(app, pkce()))
    assert response.status_code == 403
    assert b"is disabled" in response.content


def test_any_active_member_may_consent(client: Client, acme: Workspace) -> None:
    member = User.objects.create_user("dana@acme.example", "pw-123456789", workspace=acme)
    client.force_login(member)
    app = register(client)
    assert "code" in consent(client, app, pkce())


def test_the_consent_form_is_csrf_protected(acme: Workspace) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(email="admin@acme.example"))
    app = register(browser)
    page = browser.get("/v1/oauth/authorize", authorize_params(app, pkce()))
    data: dict[str, Any] = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    refused = browser.post("/v1/oauth/authorize", {**data, "allow": "Allow"})
    assert refused.status_code == 403
    token = browser.cookies["csrftoken"].value
    allowed = browser.post("/v1/oauth/authorize", {**data, "allow": "Allow", "csrfmiddlewaretoken": token})
    assert allowed.status_code == 302
    assert "code" in query_of(allowed["Location"])


def test_a_client_cannot_skip_the_consent_page(client: Client, signed_in: Client, acme: Workspace) -> None:
    app = register(client)
    consent(client, app, pkce())
    page = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), approval_prompt="auto"))
    assert page.status_code == 200
    assert page.context["client_name"] == "Claude"


def test_a_browser_s_sign_in_post_with_its_origin_passes_the_csrf_check(acme: Workspace) -> None:
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/v1/oauth/sign-in")
    assert "no-referrer" not in page.content.decode()  # it would make browsers send Origin: null
    token = browser.cookies["csrftoken"].value
    response = browser.post(
        "/v1/oauth/sign-in",
        {"username": "admin@acme.example", "password": "pw-123456789", "csrfmiddlewaretoken": token},
        HTTP_ORIGIN=ISSUER,
        HTTP_HOST="127.0.0.1:8000",
    )
    assert response.status_code == 302
    refused = Client(enforce_csrf_checks=True)
    refused.get("/v1/oauth/sign-in")
    forged = refused.post(
        "/v1/oauth/sign-in",
        {"username": "admin@acme.example", "password": "pw-123456789", "csrfmiddlewaretoken": refused.cookies["csrftoken"].value},
        HTTP_ORIGIN="https://evil.example",
    )
    assert forged.status_code == 403
