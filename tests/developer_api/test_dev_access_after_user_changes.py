"""Every /v1/dev/* route (SPEC §3) refuses an access JWT issued before its user was deactivated
(401 invalid_token) or removed from the workspace (403 workspace_disabled)."""

from __future__ import annotations

import pytest
from django.test import Client

from memory.models import Workspace
from tests.developer_api.conftest import access_token, assert_error

GET_ROUTES = [
    "/v1/dev/readiness", "/v1/dev/mcp-config", "/v1/dev/mcp-usage-stats", "/v1/dev/mcp-requests",
    "/v1/dev/mcp-requests/00000000-0000-0000-0000-000000000000", "/v1/dev/sources", "/v1/dev/sources/1",
    "/v1/dev/pipeline-runs", "/v1/dev/oauth-connections",
]
POST_ROUTES = ["/v1/dev/rotate-key", "/v1/dev/revoke-key", "/v1/dev/oauth-connections/1/revoke", "/v1/dev/sources/1/sync"]


def _call(client: Client, method: str, route: str, token: str):  # type: ignore[no-untyped-def]
    headers = {"Authorization": f"Bearer {token}"}
    if method == "GET":
        return client.get(route, headers=headers)
    return client.post(route, "{}", content_type="application/json", headers=headers)


ROUTES = [("GET", r) for r in GET_ROUTES] + [("POST", r) for r in POST_ROUTES]


@pytest.mark.parametrize("method, route", ROUTES)
def test_a_token_of_a_deactivated_user_is_invalid(client: Client, workspace: Workspace, method: str, route: str) -> None:
    token = access_token(client)
    workspace.users.update(is_active=False)
    assert_error(_call(client, method, route, token), 401, "invalid_token")


@pytest.mark.parametrize("method, route", ROUTES)
def test_a_token_of_a_user_removed_from_the_workspace_is_workspace_disabled(
    client: Client, workspace: Workspace, method: str, route: str
) -> None:
    token = access_token(client)
    workspace.users.update(workspace=None)
    assert_error(_call(client, method, route, token), 403, "workspace_disabled")
