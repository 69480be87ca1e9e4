"""POST /v1/auth/refresh (SPEC §7 "PAM access JWT": a new pair, the old refresh token stops working)."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import jwt
import pytest
from django.test import Client
from django.utils import timezone
from rest_framework_simplejwt.tokens import RefreshToken

from memory.models import Workspace

URL = "/v1/auth/refresh"


def login(client: Client, email: str = "admin@acme.example") -> dict[str, Any]:
    response = client.post(
        "/v1/auth/token", {"email": email, "password": "pw-123456789"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return dict(response.json())


def refresh(client: Client, body: Any, *, raw: str | None = None) -> Any:
    return client.post(URL, data=raw if raw is not None else json.dumps(body), content_type="application/json")


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error_code", "error_message"}
    assert body["error_code"] == code
    assert body["error_message"]
    return body


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


def test_it_returns_a_new_pair(client: Client, workspace: Workspace) -> None:
    pair = login(client)

    response = refresh(client, {"refresh": pair["refresh"]})

    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"access", "refresh", "expires_in"}
    assert body["expires_in"] == 900
    assert body["refresh"] != pair["refresh"]
    assert body["access"] != pair["access"]


def test_the_new_tokens_have_the_usual_lifetimes(client: Client, workspace: Workspace) -> None:
    pair = login(client)
    before = time.time()

    body = refresh(client, {"refresh": pair["refresh"]}).json()

    access, new_refresh = claims(body["access"]), claims(body["refresh"])
    assert access["token_type"] == "access"
    assert new_refresh["token_type"] == "refresh"
    assert before + 15 * 60 - 5 <= access["exp"] <= time.time() + 15 * 60 + 5
    assert before + 7 * 86400 - 5 <= new_refresh["exp"] <= time.time() + 7 * 86400 + 5


def test_the_new_access_token_opens_the_developer_api(client: Client, workspace: Workspace) -> None:
    access = refresh(client, {"refresh": login(client)["refresh"]}).json()["access"]

    response = client.get("/v1/dev/readiness", headers={"Authorization": f"Bearer {access}"})

    assert response.status_code == 200


def test_the_old_refresh_token_stops_working(client: Client, workspace: Workspace) -> None:
    old = login(client)["refresh"]
    assert refresh(client, {"refresh": old}).status_code == 200

    assert_error(refresh(client, {"refresh": old}), 401, "invalid_token")


def test_the_new_refresh_token_keeps_working(client: Client, workspace: Workspace) -> None:
    first = refresh(client, {"refresh": login(client)["refresh"]}).json()

    second = refresh(client, {"refresh": first["refresh"]})

    assert second.status_code == 200
    assert second.json()["refresh"] != first["refresh"]


@pytest.mark.parametrize("garbage", ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30.AAAA", "x" * 5000])
def test_it_rejects_a_garbage_token(client: Client, workspace: Workspace, garbage: str) -> None:
    assert_error(refresh(client, {"refresh": garbage}), 401, "invalid_token")


def test_it_rejects_a_token_with_a_forged_signature(client: Client, workspace: Workspace) -> None:
    payload = claims(login(client)["refresh"])
    forged = jwt.encode(payload, "not-the-server-secret-but-long-enough-for-hs256", algorithm="HS256")

    assert_error(refresh(client, {"refresh": forged}), 401, "invalid_token")


def test_it_rejects_an_access_token_in_place_of_a_refresh_token(client: Client, workspace: Workspace) -> None:
    access = login(client)["access"]

    assert_error(refresh(client, {"refresh": access}), 401, "invalid_token")


def test_it_rejects_an_expired_refresh_token(client: Client, workspace: Workspace) -> None:
    token = RefreshToken.for_user(workspace.users.get())
    token.set_exp(from_time=timezone.now() - timedelta(days=8))

    assert_error(refresh(client, {"refresh": str(token)}), 401, "invalid_token")


def test_it_rejects_the_refresh_token_of_a_deactivated_user(client: Client, workspace: Workspace) -> None:
    old = login(client)["refresh"]
    workspace.users.update(is_active=False)

    assert_error(refresh(client, {"refresh": old}), 401, "invalid_token")


def test_it_rejects_the_refresh_token_of_a_deleted_user(client: Client, workspace: Workspace) -> None:
    """Regression: simplejwt looks the user up unguarded, which once answered 500 here."""
    old = login(client)["refresh"]
    workspace.users.all().delete()

    assert_error(refresh(client, {"refresh": old}), 401, "invalid_token")


@pytest.mark.parametrize(
    "body", [{}, {"token": "x"}, {"refresh": None}, {"refresh": 123}, {"refresh": ["a"]}, {"refresh": ""}, {"refresh": " "}]
)
def test_it_rejects_a_missing_field_naming_it(client: Client, workspace: Workspace, body: dict[str, Any]) -> None:
    error = assert_error(refresh(client, body), 400, "invalid_request")

    assert "refresh" in error["error_message"]


@pytest.mark.parametrize("raw", ["not json", "[]", "\"refresh\""])
def test_it_rejects_a_body_that_is_not_a_json_object(client: Client, workspace: Workspace, raw: str) -> None:
    assert_error(refresh(client, None, raw=raw), 400, "invalid_request")


@pytest.mark.parametrize("raw", ["[" * 2000 + "]" * 2000, '{"refresh": ' + "{\"a\": " * 3000 + "1" + "}" * 3001])
def test_a_deeply_nested_body_is_a_bad_request_not_a_500(client: Client, db: None, raw: str) -> None:
    # Issue 17 defect 1.
    assert_error(refresh(client, None, raw=raw), 400, "invalid_request")


@pytest.mark.parametrize("user_id", ["abc", "1.5", "²", [1], {"id": 1}, True, 0, 2**70, None, 1.25], ids=repr)
def test_it_rejects_a_validly_signed_refresh_token_whose_user_id_is_not_a_row_id(
    client: Client, workspace: Workspace, user_id: Any
) -> None:
    # Issue 17 defect 4: a 500 for non-integers; a missing or falsy one was not checked at all.
    token = RefreshToken.for_user(workspace.users.get())
    token["user_id"] = user_id

    assert_error(refresh(client, {"refresh": str(token)}), 401, "invalid_token")


def test_it_limits_attempts_per_client_address(client: Client, workspace: Workspace, settings: Any) -> None:
    # Issue 17 defect 8 / SPEC §3: 429 rate_limited with Retry-After.
    settings.PAM_RATE_LIMIT_AUTH_REFRESH = "2/3600"  # an hour: no window ends mid-test
    pair = login(client)
    for _ in range(2):
        assert_error(refresh(client, {"refresh": "garbage"}), 401, "invalid_token")

    refused = refresh(client, {"refresh": pair["refresh"]})

    assert_error(refused, 429, "rate_limited")
    assert 1 <= int(refused["Retry-After"]) <= 3600
    other = client.post(
        URL, json.dumps({"refresh": pair["refresh"]}), content_type="application/json", REMOTE_ADDR="198.51.100.9"
    )
    assert other.status_code == 200
