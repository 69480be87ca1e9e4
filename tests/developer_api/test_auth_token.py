"""POST /v1/auth/token (SPEC §7 "PAM access JWT", §3 error shape)."""

from __future__ import annotations

import json
import time
from typing import Any

import jwt
import pytest
from django.test import Client

from memory.models import Workspace

URL = "/v1/auth/token"
EMAIL = "admin@acme.example"
PASSWORD = "pw-123456789"


def post(client: Client, body: Any, *, raw: str | None = None, content_type: str = "application/json") -> Any:
    data = raw if raw is not None else json.dumps(body)
    return client.post(URL, data=data, content_type=content_type)


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error_code", "error_message"}
    assert body["error_code"] == code
    assert isinstance(body["error_message"], str) and body["error_message"]
    return body


@pytest.fixture
def client() -> Client:
    # Errors must come back as responses (never a 500), so let them surface as status codes.
    return Client(raise_request_exception=False)


def test_it_returns_an_access_and_a_refresh_token(client: Client, workspace: Workspace) -> None:
    response = post(client, {"email": EMAIL, "password": PASSWORD})

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access", "refresh", "expires_in"}
    assert body["expires_in"] == 900
    assert body["access"] != body["refresh"]


def test_the_access_token_expires_in_about_fifteen_minutes(client: Client, workspace: Workspace) -> None:
    before = time.time()
    access = claims(post(client, {"email": EMAIL, "password": PASSWORD}).json()["access"])

    assert access["token_type"] == "access"
    assert before + 15 * 60 - 5 <= access["exp"] <= time.time() + 15 * 60 + 5
    assert access["exp"] - access["iat"] == 15 * 60


def test_the_refresh_token_expires_in_about_seven_days(client: Client, workspace: Workspace) -> None:
    before = time.time()
    refresh = claims(post(client, {"email": EMAIL, "password": PASSWORD}).json()["refresh"])

    assert refresh["token_type"] == "refresh"
    assert before + 7 * 86400 - 5 <= refresh["exp"] <= time.time() + 7 * 86400 + 5


def test_the_tokens_name_the_user_who_logged_in(client: Client, workspace: Workspace) -> None:
    user = workspace.users.get()
    body = post(client, {"email": EMAIL, "password": PASSWORD}).json()

    assert str(claims(body["access"])["user_id"]) == str(user.pk)
    assert str(claims(body["refresh"])["user_id"]) == str(user.pk)


def test_the_access_token_opens_the_developer_api(client: Client, workspace: Workspace) -> None:
    access = post(client, {"email": EMAIL, "password": PASSWORD}).json()["access"]

    response = client.get("/v1/dev/readiness", headers={"Authorization": f"Bearer {access}"})

    assert response.status_code == 200


def test_it_accepts_the_email_in_any_case(client: Client, workspace: Workspace) -> None:
    response = post(client, {"email": "Admin@ACME.example", "password": PASSWORD})

    assert response.status_code == 200


def test_it_rejects_a_wrong_password(client: Client, workspace: Workspace) -> None:
    response = post(client, {"email": EMAIL, "password": "not-the-password"})

    assert_error(response, 401, "invalid_credentials")


def test_it_rejects_an_unknown_email(client: Client, workspace: Workspace) -> None:
    response = post(client, {"email": "nobody@acme.example", "password": PASSWORD})

    assert_error(response, 401, "invalid_credentials")


def test_it_gives_the_same_answer_for_unknown_email_and_wrong_password(
    client: Client, workspace: Workspace
) -> None:
    wrong_password = post(client, {"email": EMAIL, "password": "nope-nope-nope"}).json()
    unknown_email = post(client, {"email": "ghost@acme.example", "password": PASSWORD}).json()

    assert wrong_password == unknown_email


def test_it_rejects_a_deactivated_user(client: Client, workspace: Workspace) -> None:
    workspace.users.update(is_active=False)

    response = post(client, {"email": EMAIL, "password": PASSWORD})

    assert_error(response, 401, "invalid_credentials")


def test_it_does_not_accept_another_users_password(client: Client, make_workspace: Any) -> None:
    make_workspace("acme")
    make_workspace("globex")

    response = post(client, {"email": "admin@acme.example", "password": "wrong-for-acme"})

    assert_error(response, 401, "invalid_credentials")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"password": PASSWORD}, "email"),
        ({"email": EMAIL}, "password"),
        ({}, "email"),
        ({"email": None, "password": PASSWORD}, "email"),
        ({"email": EMAIL, "password": None}, "password"),
        ({"email": EMAIL, "password": ["a", "list"]}, "password"),
        ({"email": "x" * 300 + "@acme.example", "password": PASSWORD}, "email"),
    ],
)
def test_it_rejects_a_missing_or_invalid_field_naming_it(
    client: Client, workspace: Workspace, body: dict[str, Any], field: str
) -> None:
    error = assert_error(post(client, body), 400, "invalid_request")

    assert field in error["error_message"]


@pytest.mark.parametrize("raw", ["not json", "{\"email\": ", "", "[]", "\"a string\"", "42"])
def test_it_rejects_a_body_that_is_not_a_json_object(client: Client, workspace: Workspace, raw: str) -> None:
    assert_error(post(client, None, raw=raw), 400, "invalid_request")


def test_it_never_answers_500_for_odd_input(client: Client, workspace: Workspace) -> None:
    odd_bodies = [
        {"email": {"nested": 1}, "password": PASSWORD},
        {"email": EMAIL, "password": "\x00"},
        {"email": "\ud800@acme.example", "password": PASSWORD},
        {"email": EMAIL, "password": "p" * 5000},
        {"email": 12345, "password": 67890},
    ]
    for body in odd_bodies:
        response = post(client, body)
        assert response.status_code in (400, 401), (body, response.content)
        assert set(response.json()) == {"error_code", "error_message"}


def test_it_refuses_get(client: Client, workspace: Workspace) -> None:
    response = client.get(URL)

    assert response.status_code == 405
    assert set(response.json()) == {"error_code", "error_message"}


@pytest.mark.parametrize("depth", [2000, 100_000])
def test_a_deeply_nested_body_is_a_bad_request_not_a_500(client: Client, db: None, depth: int) -> None:
    # Issue 17 defect 1: DRF's parser let RecursionError escape, unauthenticated.
    error = assert_error(post(client, None, raw="[" * depth + "]" * depth), 400, "invalid_request")

    assert "nested" in error["error_message"]


def test_a_body_nested_just_past_the_limit_is_refused_even_when_it_parses(client: Client, workspace: Workspace) -> None:
    from pam.jsonbody import MAX_JSON_DEPTH

    deep = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert_error(post(client, None, raw=f'{{"email": "{EMAIL}", "password": {deep}}}'), 400, "invalid_request")


def test_it_limits_attempts_per_client_address(client: Client, workspace: Workspace, settings: Any) -> None:
    # Issue 17 defect 8 / SPEC §3: 429 rate_limited with Retry-After; each attempt costs PBKDF2.
    settings.PAM_RATE_LIMIT_AUTH_TOKEN = "3/3600"  # an hour: no window ends mid-test
    for _ in range(3):
        assert_error(post(client, {"email": EMAIL, "password": "wrong"}), 401, "invalid_credentials")

    refused = post(client, {"email": EMAIL, "password": PASSWORD})

    assert_error(refused, 429, "rate_limited")
    assert 1 <= int(refused["Retry-After"]) <= 3600
    other = client.post(URL, {"email": EMAIL, "password": PASSWORD}, content_type="application/json", REMOTE_ADDR="198.51.100.9")
    assert other.status_code == 200


def test_malformed_attempts_count_against_the_limit_too(client: Client, workspace: Workspace, settings: Any) -> None:
    settings.PAM_RATE_LIMIT_AUTH_TOKEN = "2/3600"
    for raw in ("not json", "[" * 3000 + "]" * 3000):
        assert_error(post(client, None, raw=raw), 400, "invalid_request")

    assert_error(post(client, {"email": EMAIL, "password": PASSWORD}), 429, "rate_limited")
