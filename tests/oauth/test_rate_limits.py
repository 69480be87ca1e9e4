"""SPEC §3: the OAuth token and registration endpoints, and the sign-in form, are rate-limited
per client address (pam/ratelimit.py): 429 `rate_limited` with `Retry-After`."""

from __future__ import annotations

from typing import Any

from django.test import Client

from memory.models import Workspace
from tests.oauth.conftest import CLAUDE_CALLBACK, register


def assert_limited(response: Any) -> None:
    assert response.status_code == 429, response.content
    assert response.json()["error"] == "rate_limited"
    assert int(response["Retry-After"]) >= 1


def test_registration_is_limited_per_address(client: Client, db: None, settings: Any) -> None:
    settings.PAM_RATE_LIMIT_OAUTH_REGISTER = "2/3600"
    register(client)
    register(client)
    assert_limited(client.post("/v1/oauth/register", {"redirect_uris": [CLAUDE_CALLBACK]}, content_type="application/json"))
    other = Client(REMOTE_ADDR="203.0.113.9")
    assert other.post("/v1/oauth/register", {"redirect_uris": [CLAUDE_CALLBACK]}, content_type="application/json").status_code == 201


def test_the_token_endpoint_is_limited_per_address(client: Client, db: None, settings: Any) -> None:
    settings.PAM_RATE_LIMIT_OAUTH_TOKEN = "2/3600"
    for _ in range(2):
        assert client.post("/v1/oauth/token", {"grant_type": "refresh_token", "refresh_token": "x"}).status_code != 429
    assert_limited(client.post("/v1/oauth/token", {"grant_type": "refresh_token", "refresh_token": "x"}))


def test_sign_in_shares_the_login_budget(client: Client, workspace: Workspace, settings: Any) -> None:
    settings.PAM_RATE_LIMIT_AUTH_TOKEN = "2/3600"
    client.post("/v1/auth/token", {"email": "admin@acme.example", "password": "wrong"}, content_type="application/json")
    client.post("/v1/oauth/sign-in", {"username": "admin@acme.example", "password": "wrong"})
    from django.db import connection
    with connection.cursor() as c:
        c.execute("select * from pam_ratelimit_counter"); print(c.fetchall())
    response = client.post("/v1/oauth/sign-in", {"username": "admin@acme.example", "password": "pw-123456789"})
    print(response.status_code, response.content[:3000])
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert b"Too many sign-in attempts" in response.content
    assert "_auth_user_id" not in client.session
