"""`GET /v1/dev/mcp-config` (SPEC §3): everything a client needs to connect, in one poll.

URLs come from `PAM_PUBLIC_BASE_URL`, never from the request's Host. `api_key` is always null:
PAM keeps only a hash, and `POST /v1/dev/rotate-key` shows a new key once; the Claude Code
example carries a placeholder where the key goes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from developer_api.keys import api_key_active
from developer_api.quotas import quota_get
from memory.models import Workspace
from memory.readiness import readiness_get

CLIENT_CONFIG_NAME = "pam_memory"
KEY_PLACEHOLDER = "pam_mkey_<key>"
SYSTEM_PROMPT_SNIPPET = (
    "You have access to PAM Memory through the retrieve_memory MCP tool. Use it when a request may "
    "depend on company-specific context: people, projects, decisions, processes, priorities, history, "
    "customers, documents, meetings, or internal terminology. Prefer retrieving memory before making "
    "assumptions. If retrieved context is partial or uncertain, say so and ask a focused follow-up."
)
HELLO_WORLD_PROMPT = (
    "Summarize what you know about our company's current priorities and recent key projects based on "
    "retrieved memory."
)
BROWSER_MCP_SETUP_INSTRUCTIONS = (
    "In Claude.ai or ChatGPT, add a custom connector with the MCP URL above; no key is needed. The "
    "client registers itself (dynamic client registration), then sends you to PAM to sign in and "
    "approve access. Revoke a browser connection under oauth-connections."
)
DEVELOPER_API_NOTICE = (
    "You also have access to developer APIs under /v1/dev (readiness, mcp-config, mcp-requests, "
    "mcp-usage-stats, rotate-key, revoke-key, oauth-connections)."
)


def _url(name: str) -> str:
    """The public URL of a route of the URL conf (DOT's names, kept by oauth.urls)."""
    return f"{settings.PAM_PUBLIC_BASE_URL}{reverse(name)}"


def mcp_config_get(*, workspace: Workspace) -> dict[str, Any]:
    key = api_key_active(workspace=workspace)
    mcp_url = settings.PAM_MCP_URL
    return {
        "mcp_url": mcp_url,
        "mcp_server_name": settings.PAM_MCP_SERVER_NAME,
        "api_key": None,
        "key_prefix": key.key_prefix if key else None,
        "mcp_verified": bool(key and key.mcp_verified),
        "system_prompt_snippet": SYSTEM_PROMPT_SNIPPET,
        "hello_world_prompt": HELLO_WORLD_PROMPT,
        "claude_code_config_example": {
            "mcpServers": {
                CLIENT_CONFIG_NAME: {"type": "http", "url": mcp_url, "headers": {"Authorization": KEY_PLACEHOLDER}}
            }
        },
        "oauth_client_id": None,
        "oauth_registration_url": _url("oauth2_provider:dcr-register"),
        "oauth_authorization_url": _url("oauth2_provider:authorize"),
        "oauth_token_url": _url("oauth2_provider:token"),
        "oauth_revocation_url": _url("oauth2_provider:revoke-token"),
        "oauth_protected_resource_metadata_url": _url("oauth2_provider:oauth-resource-metadata-path"),
        "oauth_authorization_server_metadata_url": _url("oauth2_provider:oauth-server-metadata"),
        "browser_mcp_setup_instructions": BROWSER_MCP_SETUP_INSTRUCTIONS,
        "readiness": readiness_get(workspace=workspace).as_dict(),
        "quota": quota_get(workspace=workspace),
        "developer_api_notice": DEVELOPER_API_NOTICE,
    }
