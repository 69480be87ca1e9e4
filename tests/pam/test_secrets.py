"""No secret is ever stored or shown in clear (issue 17 "Secrets"): after a full flow — login,
a failed login, refresh, key rotation, MCP calls that succeed and fail, Developer API errors —
the agent key, the password, every JWT and the SECRET_KEY appear in no captured log record,
no column of any table (the request log included) and no admin page."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from memory.models import Workspace
from tests.pam.test_security_headers import admin_pages

PASSWORD = "pw-123456789"  # tests/conftest.py's make_workspace


def mcp(client: Client, key: str, method: str, params: dict[str, Any] | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params else {})}
    return client.post("/v1/mcp/memory", json.dumps(body), content_type="application/json", headers={"Authorization": key})


def full_flow(client: Client) -> dict[str, str]:
    """Every credential the flow handled, by name."""
    secrets: dict[str, str] = {"password": PASSWORD, "SECRET_KEY": settings.SECRET_KEY}
    assert client.post("/v1/auth/token", {"email": "admin@acme.example", "password": "wrong-" + PASSWORD}, content_type="application/json").status_code == 401
    pair = client.post("/v1/auth/token", {"email": "admin@acme.example", "password": PASSWORD}, content_type="application/json").json()
    secrets.update(access=pair["access"], refresh=pair["refresh"])
    again = client.post("/v1/auth/refresh", {"refresh": pair["refresh"]}, content_type="application/json").json()
    secrets.update(access_2=again["access"], refresh_2=again["refresh"])
    assert client.post("/v1/auth/refresh", {"refresh": pair["refresh"]}, content_type="application/json").status_code == 401
    bearer = {"Authorization": f"Bearer {again['access']}"}
    key = client.post("/v1/dev/rotate-key", headers=bearer).json()["api_key"]
    secrets["agent_key"] = key
    secrets["agent_key_secret"] = key.removeprefix("pam_mkey_")
    assert mcp(client, key, "initialize", {"protocolVersion": "2025-11-25"}).status_code == 200
    assert mcp(client, key, "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": "Who owns the Meridian rollout?"}}).status_code == 200
    assert mcp(client, key, "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": 42}}).status_code == 200
    assert mcp(client, key, "tools/call", {"name": "no_such_tool", "arguments": {}}).status_code == 200
    assert mcp(client, key + "x", "ping").status_code == 401
    assert mcp(client, f"Bearer {again['access']}", "ping").status_code == 401  # a JWT is no MCP credential
    assert client.get("/v1/dev/readiness", headers={"Authorization": f"Bearer {again['access']}x"}).status_code == 401
    assert client.get("/v1/dev/readiness", headers={"Authorization": key}).status_code == 401
    old = client.post("/v1/dev/rotate-key", headers=bearer).json()
    assert mcp(client, key, "ping").status_code == 401  # the rotated-out key
    secrets["agent_key_2"] = old["api_key"]
    for name in list(secrets):
        if name.startswith(("access", "refresh")):
            secrets[f"{name}_signature"] = secrets[name].rsplit(".", 1)[1]
    return secrets


def database_dump() -> str:
    """Every row of every table, every column, as text."""
    parts = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            parts.extend(f"{table}: {row!r}" for row in cursor.fetchall())
    return "\n".join(parts)


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [name for name, value in secrets.items() if value in text]


@pytest.fixture
def flow(imported_workspace: Workspace, caplog: pytest.LogCaptureFixture) -> tuple[Client, dict[str, str]]:
    caplog.set_level(logging.DEBUG)
    client = Client(raise_request_exception=False)
    return client, full_flow(client)


def test_no_secret_is_in_any_log_record(flow: tuple[Client, dict[str, str]], caplog: pytest.LogCaptureFixture) -> None:
    _, secrets = flow
    captured = caplog.get_records("setup") + caplog.get_records("call")  # the flow runs in the fixture
    records = "\n".join(
        f"{r.name} {r.getMessage()} {r.exc_text or ''} {r.args!r} {getattr(r, 'request', '')!r}" for r in captured
    )

    print(f"\n{len(captured)} log records, {len(secrets)} secrets looked for")
    assert captured
    assert leaks(records, secrets) == []


def test_no_secret_is_in_any_database_column(flow: tuple[Client, dict[str, str]]) -> None:
    _, secrets = flow
    dump = database_dump()

    assert "requestlog" in dump  # the request log has rows to search
    assert "outstandingtoken" in dump  # so has the refresh-token list
    assert leaks(dump, secrets) == []


def test_issued_refresh_tokens_are_stored_only_as_hashes(flow: tuple[Client, dict[str, str]]) -> None:
    from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

    from developer_api.authentication import stored_token

    _, secrets = flow
    stored = set(OutstandingToken.objects.values_list("token", flat=True))

    assert {stored_token(secrets["refresh"]), stored_token(secrets["refresh_2"])} <= stored
    assert all(value.startswith("sha256:") and len(value) == 71 for value in stored)


def test_no_secret_is_on_any_admin_page(flow: tuple[Client, dict[str, str]], imported_workspace: Workspace) -> None:
    client, secrets = flow
    user = imported_workspace.users.get()
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    pages = admin_pages()
    text = "\n".join(client.get(page).content.decode() for page in pages)

    assert leaks(text, secrets) == []


def test_the_migration_hashes_refresh_tokens_stored_in_clear_before_it(flow: tuple[Client, dict[str, str]]) -> None:
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

    from developer_api.authentication import stored_token

    _, secrets = flow
    OutstandingToken.objects.filter(token=stored_token(secrets["refresh_2"])).update(token=secrets["refresh_2"])
    migration = importlib.import_module("developer_api.migrations.0004_hash_stored_refresh_tokens")

    migration.hash_existing(apps, SimpleNamespace(connection=connection))

    assert OutstandingToken.objects.filter(token=stored_token(secrets["refresh_2"])).count() == 1
    assert leaks(database_dump(), secrets) == []
