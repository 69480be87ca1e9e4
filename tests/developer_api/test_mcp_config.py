"""GET /v1/dev/mcp-config (SPEC §3): the seed's fields, URLs from PAM_PUBLIC_BASE_URL, no key."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from developer_api.keys import api_key_rotate
from memory.models import Workspace
from tests.conftest import SHARED
from tests.developer_api.conftest import access_token, assert_error

URL = "/v1/dev/mcp-config"
SEED_FIELDS = {
    "mcp_url", "mcp_server_name", "api_key", "key_prefix", "mcp_verified", "system_prompt_snippet",
    "hello_world_prompt", "claude_code_config_example", "oauth_client_id", "oauth_registration_url",
    "oauth_authorization_url", "oauth_token_url", "oauth_revocation_url",
    "oauth_protected_resource_metadata_url", "oauth_authorization_server_metadata_url",
    "browser_mcp_setup_instructions", "readiness", "quota", "developer_api_notice",
}


def config(client: Client, auth: dict[str, str]) -> dict[str, Any]:
    response = client.get(URL, headers=auth)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_it_answers_every_field_of_spec_3(client: Client, auth: dict[str, str]) -> None:
    assert set(config(client, auth)) == SEED_FIELDS


def test_the_seeds_example_fields_are_all_present_with_the_same_types(client: Client, auth: dict[str, str]) -> None:
    seed = SHARED / "seeds" / "pam-developer-api.uk.md"
    if not seed.exists():
        pytest.skip("../shared/seeds is not beside the repository")
    text = seed.read_text()
    fence = text.index("```json", text.index("### Приклад відповіді (скорочено)"))
    example = json.JSONDecoder().raw_decode(text, text.index("\n", fence) + 1)[0]
    body = config(client, auth)
    for key, value in example.items():
        assert key in body
        if value is not None and body[key] is not None:
            assert type(body[key]) is type(value), key
    assert set(example["quota"]) <= set(body["quota"])
    assert set(example["readiness"]) == set(body["readiness"])


def test_urls_come_from_the_public_base_url_not_the_host(client: Client, auth: dict[str, str], settings: Any) -> None:
    body = config(client, auth)
    base = settings.PAM_PUBLIC_BASE_URL
    assert body["mcp_url"] == f"{base}/v1/mcp/memory"
    assert body["oauth_registration_url"] == f"{base}/v1/oauth/register"
    assert body["oauth_authorization_url"] == f"{base}/v1/oauth/authorize"
    assert body["oauth_token_url"] == f"{base}/v1/oauth/token"
    assert body["oauth_revocation_url"] == f"{base}/v1/oauth/revoke"
    assert body["oauth_protected_resource_metadata_url"] == f"{base}/.well-known/oauth-protected-resource/v1/mcp/memory"
    assert body["oauth_authorization_server_metadata_url"] == f"{base}/.well-known/oauth-authorization-server"
    assert body["oauth_client_id"] is None


def test_the_oauth_urls_answer(client: Client, auth: dict[str, str], settings: Any) -> None:
    body = config(client, auth)
    base = settings.PAM_PUBLIC_BASE_URL
    for field in ("oauth_protected_resource_metadata_url", "oauth_authorization_server_metadata_url"):
        assert client.get(body[field].removeprefix(base)).status_code == 200


def test_the_key_is_never_shown_and_the_example_has_a_placeholder(
    client: Client, auth: dict[str, str], workspace: Workspace
) -> None:
    issued = api_key_rotate(workspace=workspace)
    body = config(client, auth)
    assert body["api_key"] is None
    assert body["key_prefix"] == issued.key.key_prefix and body["key_prefix"].startswith("pam_mkey_")
    server = body["claude_code_config_example"]["mcpServers"]["pam_memory"]
    assert server == {"type": "http", "url": body["mcp_url"], "headers": {"Authorization": "pam_mkey_<key>"}}
    assert issued.api_key not in json.dumps(body)


def test_without_an_active_key_the_prefix_is_null_and_not_verified(client: Client, auth: dict[str, str]) -> None:
    body = config(client, auth)
    assert (body["key_prefix"], body["mcp_verified"]) == (None, False)


def test_mcp_verified_turns_true_after_a_successful_retrieve_memory(
    client: Client, auth: dict[str, str], imported_workspace: Workspace, mcp: Any
) -> None:
    assert config(client, auth)["mcp_verified"] is False
    assert not mcp.call({"prompt": "Who owns the Meridian rollout?"})["isError"]
    assert config(client, auth)["mcp_verified"] is True


def test_it_carries_readiness_and_quota(client: Client, auth: dict[str, str]) -> None:
    body = config(client, auth)
    assert body["readiness"]["state"] == "waiting_for_sources"
    assert body["quota"]["plan"] == "unlimited" and body["quota"]["status"] == "unlimited"
    assert body["mcp_server_name"] == "pam_memory_mcp"


def test_it_needs_a_token(client: Client, workspace: Workspace) -> None:
    assert_error(client.get(URL), 401, "invalid_token")


def test_each_workspace_sees_its_own_key_prefix(client: Client, workspace: Workspace, make_workspace: Any) -> None:
    other = make_workspace("other")
    mine, theirs = api_key_rotate(workspace=workspace), api_key_rotate(workspace=other)
    body = config(client, {"Authorization": f"Bearer {access_token(client, 'admin@other.example')}"})
    assert body["key_prefix"] == theirs.key.key_prefix != mine.key.key_prefix
