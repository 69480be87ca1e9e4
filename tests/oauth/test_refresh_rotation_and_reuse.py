"""Refresh tokens (OAuth 2.1 §4.3, RFC 9700 §4.14.2, SPEC §4): ~1 hour access tokens, ~30 day
refresh tokens that rotate on every use; a spent one revokes its whole family."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken

from memory.models import User
from oauth.models import OAuthConnection
from tests.oauth.conftest import connect, consent, exchange, mcp_call, pkce, refresh, register


def test_access_tokens_last_about_an_hour_and_refresh_tokens_about_thirty_days(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    assert tokens["expires_in"] == settings.PAM_OAUTH_ACCESS_TOKEN_SECONDS == 3600
    connection = OAuthConnection.objects.get()
    expected = timezone.now() + timedelta(seconds=3600) + timedelta(days=30)
    assert abs((connection.expires_at - expected).total_seconds()) < 60


def test_every_refresh_rotates_the_refresh_token_and_retires_the_old_access_token(client: Client, signed_in: Client) -> None:
    app, first = connect(client)
    second = refresh(client, app, first["refresh_token"]).json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert second["scope"] == "memory:read"
    assert mcp_call(client, first["access_token"], "ping").status_code == 401
    assert mcp_call(client, second["access_token"], "ping").status_code == 200
    third = refresh(client, app, second["refresh_token"]).json()
    assert mcp_call(client, third["access_token"], "ping").status_code == 200


def test_a_refresh_keeps_one_connection_with_a_later_expiry(client: Client, signed_in: Client) -> None:
    app, tokens = connect(client)
    before = OAuthConnection.objects.get()
    AccessToken.objects.update(expires=timezone.now())  # as if the hour had passed
    refresh(client, app, tokens["refresh_token"])
    after = OAuthConnection.objects.get()
    assert after.pk == before.pk and after.token_family == before.token_family
    assert after.expires_at > before.expires_at - timedelta(hours=1)


def test_a_spent_refresh_token_revokes_the_whole_family(client: Client, signed_in: Client) -> None:
    app, first = connect(client)
    second = refresh(client, app, first["refresh_token"]).json()

    replay = refresh(client, app, first["refresh_token"])
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"

    # The family is gone: the newest tokens too, and the connection shows it.
    assert mcp_call(client, second["access_token"], "ping").status_code == 401
    assert refresh(client, app, second["refresh_token"]).json()["error"] == "invalid_grant"
    assert OAuthConnection.objects.get().status == "revoked"


def test_another_client_cannot_use_the_refresh_token(client: Client, signed_in: Client) -> None:
    _app, tokens = connect(client)
    other = register(client, client_name="Other")
    response = refresh(client, other, tokens["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_a_refresh_is_refused_once_the_user_is_deactivated(client: Client, signed_in: Client, member: User) -> None:
    app, tokens = connect(client)
    User.objects.filter(pk=member.pk).update(is_active=False)
    assert refresh(client, app, tokens["refresh_token"]).json()["error"] == "invalid_grant"


def test_an_unknown_refresh_token_is_refused(client: Client, signed_in: Client) -> None:
    app, _tokens = connect(client)
    assert refresh(client, app, "nope").json()["error"] == "invalid_grant"


def test_a_code_is_refused_once_its_user_has_left_the_workspace(client: Client, signed_in: Client, member: User) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    User.objects.filter(pk=member.pk).update(workspace=None)
    response = exchange(client, app, code, challenge.verifier)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert OAuthConnection.objects.count() == 0
