"""The official MCP Python SDK's OAuth client provider against a live PAM (SPEC §4), headless.

401 → protected-resource discovery → authorization-server discovery → dynamic registration
(confidential, `client_secret_post`, as Claude.ai registers) → authorize (this test is the
browser: it signs in and answers the consent form over HTTP) → token → tools/call → the SDK
refreshes the short-lived token on its own → the connection is revoked in the Developer API →
the next call is 401.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from memory.management.commands.setup_demo import DEMO_EMAIL
from tests.e2e.conftest import E2E_ACCESS_TOKEN_SECONDS

pytestmark = pytest.mark.e2e

REDIRECT_URI = "http://127.0.0.1:9/callback"  # loopback: never listened on, the test reads the Location
HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Browser:
    """Plays the user: follows the authorization URL, signs in, allows, captures the callback."""

    def __init__(self, email: str, password: str) -> None:
        self.email = email
        self.password = password
        self.authorizations = 0
        self.result: AuthorizationCodeResult | None = None
        self.consent_text = ""

    async def redirect_handler(self, authorization_url: str) -> None:
        self.authorizations += 1
        async with httpx2.AsyncClient(timeout=30) as web:
            response = await web.get(authorization_url)
            assert response.status_code == 302, response.text
            sign_in_url = urljoin(authorization_url, response.headers["location"])
            page = await web.get(sign_in_url)
            fields = dict(HIDDEN_INPUT.findall(page.text))
            response = await web.post(
                sign_in_url,
                data={**{k: html.unescape(v) for k, v in fields.items()}, "username": self.email, "password": self.password},
            )
            assert response.status_code == 302, response.text
            consent_url = urljoin(sign_in_url, response.headers["location"])
            page = await web.get(consent_url)
            assert page.status_code == 200, page.text
            self.consent_text = " ".join(re.sub(r"<[^>]+>", " ", page.text).split())
            fields = {k: html.unescape(v) for k, v in HIDDEN_INPUT.findall(page.text)}
            response = await web.post(consent_url, data={**fields, "allow": "Allow"})
            assert response.status_code == 302, response.text
            location = response.headers["location"]
        assert location.startswith(REDIRECT_URI + "?")
        answer = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        self.result = AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))

    async def callback_handler(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


async def _flow(base_url: str, password: str) -> dict[str, Any]:
    mcp_url = f"{base_url}/v1/mcp/memory"
    storage = MemoryStorage()
    browser = Browser(DEMO_EMAIL, password)
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="PAM e2e agent",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="client_secret_post",
        ),
        storage=storage,
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
    )
    seen: dict[str, Any] = {}
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
        async with streamable_http_client(mcp_url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                seen["tools"] = [tool.name for tool in (await session.list_tools()).tools]
                seen["first"] = await session.call_tool("retrieve_memory", {"prompt": "Who leads the Data team?"})
                assert storage.tokens is not None
                first_access = storage.tokens.access_token
                first_refresh = storage.tokens.refresh_token

                await anyio.sleep(E2E_ACCESS_TOKEN_SECONDS + 1)  # the access token expires
                seen["second"] = await session.call_tool("retrieve_memory", {"prompt": "What is a KSR?"})
                seen["refreshed"] = storage.tokens.access_token != first_access
                seen["rotated"] = storage.tokens.refresh_token != first_refresh
                seen["authorizations"] = browser.authorizations
                seen["consent_text"] = browser.consent_text
                seen["client_info"] = storage.client_info

    # Revoke the connection through the Developer API, as the dashboard's Access page does.
    async with httpx2.AsyncClient(base_url=base_url, timeout=30) as api:
        jwt = (await api.post("/v1/auth/token", json={"email": DEMO_EMAIL, "password": password})).json()["access"]
        headers = {"Authorization": f"Bearer {jwt}"}
        connections = (await api.get("/v1/dev/oauth-connections", headers=headers)).json()["items"]
        seen["connections"] = connections
        seen["revoke"] = (await api.post(f"/v1/dev/oauth-connections/{connections[0]['id']}/revoke", headers=headers)).json()
        assert storage.tokens is not None
        seen["after_revoke"] = await api.post(
            "/v1/mcp/memory",
            json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
            headers={"Authorization": f"Bearer {storage.tokens.access_token}"},
        )
        seen["refresh_after_revoke"] = await api.post(
            "/v1/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": storage.tokens.refresh_token,
                "client_id": storage.client_info.client_id if storage.client_info else "",
                "client_secret": storage.client_info.client_secret if storage.client_info else "",
            },
        )
    return seen


def test_the_sdk_connects_through_oauth_refreshes_and_is_cut_off_by_a_revoke(live_server_process: Any) -> None:
    password = Path(live_server_process.env["PAM_DATA_DIR"], "demo_admin_password").read_text().strip()
    seen = anyio.run(_flow, live_server_process.url, password)

    assert seen["authorizations"] == 1  # one sign-in and consent, then only refreshes
    assert "will be able to read your company memory in workspace" in seen["consent_text"]
    client_info = seen["client_info"]
    assert client_info.token_endpoint_auth_method == "client_secret_post" and client_info.client_secret
    assert seen["tools"] == ["retrieve_memory", "recall", "recall_context", "search_memory"]  # memory:read
    for name in ("first", "second"):
        assert seen[name].is_error is False, seen[name]
    assert "Delphine Achterberg" in seen["first"].content[0].text
    assert seen["refreshed"] and seen["rotated"]

    [connection] = seen["connections"]
    assert connection["client_name"] == "PAM e2e agent"
    assert connection["status"] == "active" and connection["last_used_at"]
    assert seen["revoke"] == {"revoked": True, "id": connection["id"]}
    assert seen["after_revoke"].status_code == 401
    assert seen["after_revoke"].json()["error"] == "invalid_token"
    assert seen["refresh_after_revoke"].json()["error"] == "invalid_grant"

    credentials = live_server_process.manage(
        "shell", "-c",
        "from developer_api.models import RequestLog; "
        "print(list(RequestLog.objects.order_by('id').values_list('credential', flat=True)))",
    )
    logged = credentials.strip().splitlines()[-1]
    assert logged.count(f"'oauth:{connection['id']}'") == 2  # both calls, across the refresh
