"""Shared by the Developer API tests: a client that returns 500s instead of raising, a JWT for
the workspace admin, and the one error shape of SPEC §3."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from memory.models import Workspace


@pytest.fixture
def client() -> Client:
    return Client(raise_request_exception=False)


def access_token(client: Client, email: str = "admin@acme.example") -> str:
    response = client.post(
        "/v1/auth/token", {"email": email, "password": "pw-123456789"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return str(response.json()["access"])


@pytest.fixture
def auth(client: Client, workspace: Workspace) -> dict[str, str]:
    return {"Authorization": f"Bearer {access_token(client)}"}


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error_code", "error_message"}
    assert body["error_code"] == code
    return dict(body)
