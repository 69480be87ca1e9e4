"""The done-when path of issue 15 in a real browser: a new admin of an empty workspace
uploads a file on Setup, sees memory become ready, generates a key, and the "MCP verified"
badge turns green without a reload when an MCP client's first call with that key succeeds.
Then the Access page shows the key and revokes it (a confirmed POST)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for

SLUG = "setup-flow"
EMAIL = "admin@setup-flow.example"
PASSWORD = "a long setup password 42"
PROTOCOL = "2025-06-18"
NOTE = "# Meridian\n\nPlatform Engineering owns the Meridian platform rollout through Q3.\nDana Ortiz leads Platform Engineering.\n"


def _mcp_call(url: str, key: str) -> dict[str, Any]:
    """initialize, then retrieve_memory, as an MCP client over streamable HTTP."""
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=60) as client:
        hello = client.post(url, headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "setup-flow-test", "version": "1"}},
        })
        assert hello.status_code == 200, hello.text
        headers["MCP-Protocol-Version"] = hello.json()["result"]["protocolVersion"]
        if session := hello.headers.get("Mcp-Session-Id"):
            headers["Mcp-Session-Id"] = session
        client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = client.post(url, headers=headers, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "retrieve_memory", "arguments": {"prompt": "Who owns the Meridian rollout?"}},
        })
        assert call.status_code == 200, call.text
        return dict(call.json()["result"])


def _screenshots(browser: Any, name: str) -> None:
    """The whole page at 1280 and at 390 px wide, for a person to look at."""
    for width in (1280, 390):
        height = browser.execute_script("return document.documentElement.scrollHeight;")
        browser.set_window_size(width, max(height + 120, 1000))
        height = browser.execute_script("return document.documentElement.scrollHeight;")
        browser.set_window_size(width, max(height + 120, 1000))
        screenshot(browser, f"{name}-{width}")
    browser.set_window_size(1280, 1000)


def _mark_page(browser: Any) -> None:
    """A flag that only survives as long as the page is not reloaded."""
    browser.execute_script("window.pamNoReload = true;")


def _not_reloaded(browser: Any) -> bool:
    return bool(browser.execute_script("return window.pamNoReload === true;"))


def test_a_new_admin_goes_from_an_empty_workspace_to_a_verified_mcp_connection(
    browser: Any, dashboard_server: Any, tmp_path: Path
) -> None:
    dashboard_server.manage("create_workspace", SLUG, "--name", "Setup Flow Co", "--admin-email", EMAIL, "--admin-password", PASSWORD)
    sign_in(browser, dashboard_server, EMAIL, PASSWORD)
    browser.get(f"{dashboard_server.url}/admin/dashboard/setup/")
    status = lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=readiness-state]").get_attribute("data-state")  # noqa: E731
    assert status(browser) == "waiting_for_sources"
    assert "No sources yet: connect one" in browser.page_source
    screenshot(browser, "setup-empty")

    note = tmp_path / "meridian.md"
    note.write_text(NOTE)
    browser.find_element(By.CSS_SELECTOR, "[data-testid=upload-form] input[type=file]").send_keys(str(note))
    wait_for(browser, lambda d: "meridian.md" in d.find_element(By.CSS_SELECTOR, "[data-dropzone-name]").text)
    browser.find_element(By.CSS_SELECTOR, "[data-testid=upload-submit]").click()
    wait_for(browser, lambda d: "Added “meridian.md”" in d.page_source)
    _mark_page(browser)
    wait_for(browser, lambda d: status(d) in ("ready_minimal", "ready_rich"), timeout=90)
    assert _not_reloaded(browser)

    browser.find_element(By.CSS_SELECTOR, "[data-testid=generate-key]").click()
    key = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=new-key]")).text
    assert key.startswith("pam_mkey_")
    badge = browser.find_element(By.CSS_SELECTOR, "[data-testid=mcp-verified]")
    assert badge.get_attribute("data-verified") == "false"
    _mark_page(browser)
    wait_for(browser, lambda d: d.execute_script("return document.documentElement.getAttribute('data-live');") == "open")
    screenshot(browser, "setup-key-shown")

    mcp_url = browser.find_element(By.CSS_SELECTOR, "[data-testid=mcp-url]").text
    result = _mcp_call(mcp_url, key)
    assert result["isError"] is False, result

    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=mcp-verified]").get_attribute("data-verified") == "true")
    badge = browser.find_element(By.CSS_SELECTOR, "[data-testid=mcp-verified]")
    assert badge.text == "MCP verified" and "pam-badge-ok" in badge.get_attribute("class")
    assert _not_reloaded(browser)
    _screenshots(browser, "setup-verified")

    prompt = browser.find_element(By.CSS_SELECTOR, "textarea[name=prompt]")
    prompt.clear()
    prompt.send_keys("Who owns the Meridian rollout?")
    browser.find_element(By.CSS_SELECTOR, "[data-testid=try-submit]").click()
    answer = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=try-answer]"))
    assert "Platform Engineering" in answer.text
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=mcp-verified]").get_attribute("data-verified") == "true"
    _screenshots(browser, "setup-try-answer")

    browser.get(f"{dashboard_server.url}/admin/dashboard/access/")
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=key-prefix]").text.startswith(key[:17])
    _screenshots(browser, "access")
    browser.find_element(By.CSS_SELECTOR, "[data-testid=revoke-key]").click()
    browser.switch_to.alert.accept()
    wait_for(browser, lambda d: "The agent key was revoked" in d.page_source)
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=key-status]").text == "No active key"
    assert _mcp_call_refused(mcp_url, key)
    assert csp_violations(browser) == []


def _mcp_call_refused(url: str, key: str) -> bool:
    response = httpx.post(
        url,
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        timeout=30,
    )
    return response.status_code == 401
