"""GET /v1/dev/mcp-requests/{request_id} (SPEC §3): the list item's fields, full prompt and
response; another workspace's id or a malformed one is a 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from memory.models import Workspace
from tests.developer_api.conftest import access_token, assert_error
from tests.developer_api.test_mcp_requests import ITEM, log

URL = "/v1/dev/mcp-requests/"


def test_it_answers_the_list_items_fields(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    [request_id] = log(workspace, 1, prompt="Who owns the Meridian rollout? " + "x" * 5000)
    response = client.get(URL + request_id, headers=auth)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == ITEM
    assert body["request_id"] == request_id and body["prompt"].endswith("x" * 5000)
    listed = client.get("/v1/dev/mcp-requests", headers=auth).json()["items"][0]
    assert listed == body


@pytest.mark.parametrize("request_id", ["00000000-0000-0000-0000-000000000000", "not-a-uuid", "1", "%C2%B2"])
def test_an_unknown_or_malformed_id_is_not_found(client: Client, auth: dict[str, str], request_id: str) -> None:
    assert_error(client.get(URL + request_id, headers=auth), 404, "not_found")


def test_another_workspaces_request_is_not_found(
    client: Client, auth: dict[str, str], workspace: Workspace, make_workspace: Any
) -> None:
    [theirs] = log(make_workspace("other"), 1)
    assert_error(client.get(URL + theirs, headers=auth), 404, "not_found")
    other = {"Authorization": f"Bearer {access_token(client, 'admin@other.example')}"}
    assert client.get(URL + theirs, headers=other).status_code == 200


def test_it_needs_a_token(client: Client, workspace: Workspace) -> None:
    [request_id] = log(workspace, 1)
    assert_error(client.get(URL + request_id), 401, "invalid_token")
