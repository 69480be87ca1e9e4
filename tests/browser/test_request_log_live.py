"""The Request Log live and the Usage page with data, in a real browser (SPEC §6; issue 15):
an agent's MCP call appears at the top of the open Request Log without a reload, its detail
shows the prompt and the rendered answer, and Usage draws the calls; all under the strict CSP."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for
from tests.conftest import FIXTURE_CORPUS

PROTOCOL = "2025-11-25"
PROMPT = "Who leads the Platform Engineering team?"


def mcp(url: str, key: str, message: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(
        f"{url}/v1/mcp/memory", json=message, timeout=120,
        headers={"Authorization": key, "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL},
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


def retrieve(url: str, key: str, prompt: str) -> dict[str, Any]:
    call = {"name": "retrieve_memory", "arguments": {"prompt": prompt}}
    return dict(mcp(url, key, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})["result"])


def test_an_agents_call_appears_live_and_opens_in_detail(browser: Any, dashboard_server: Any, tmp_path: Path) -> None:
    slug = f"live-{uuid.uuid4().hex[:6]}"
    email, password = f"admin@{slug}.example", "a long admin password 42"
    dashboard_server.manage("create_workspace", slug, "--name", "Live Co", "--admin-email", email, "--admin-password", password)
    corpus = tmp_path / "corpus"
    for rel, text in FIXTURE_CORPUS.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text)
    dashboard_server.manage("import_source", "--workspace", slug, str(corpus))
    key = dashboard_server.manage("rotate_key", "--workspace", slug).strip()

    sign_in(browser, dashboard_server, email, password)
    browser.get(f"{dashboard_server.url}/admin/dashboard/requests/")
    wait_for(browser, lambda d: d.execute_script("return document.documentElement.getAttribute('data-live')") == "open")
    assert "No calls yet" in browser.find_element(By.CSS_SELECTOR, "[data-empty]").text

    init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "browser-test", "version": "1"}}
    mcp(dashboard_server.url, key, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    result = retrieve(dashboard_server.url, key, PROMPT)
    assert result["isError"] is False, result
    request_id = result["structuredContent"]["diagnostics"]["request_id"]

    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-live-rows] tr:first-child").get_attribute("data-request-id") == request_id)
    first = browser.find_element(By.CSS_SELECTOR, "[data-live-rows] tr:first-child")
    assert PROMPT in first.text and "success" in first.text
    assert not browser.find_element(By.CSS_SELECTOR, "[data-empty]").is_displayed()
    screenshot(browser, "request-log-live")
    browser.set_window_size(390, 1000)
    screenshot(browser, "request-log-live-390")
    browser.set_window_size(1280, 1000)

    first.find_element(By.CSS_SELECTOR, "a").click()
    wait_for(browser, lambda d: f"/requests/{request_id}/" in d.current_url)
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=prompt]").text == PROMPT
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=answer] h1").text  # the markdown, rendered
    assert request_id in browser.find_element(By.CSS_SELECTOR, "[data-testid=diagnostics]").text
    screenshot(browser, "request-detail")

    for prompt in ("What is the refund policy?", "Which client is Tier-1?"):
        retrieve(dashboard_server.url, key, prompt)
    retrieve(dashboard_server.url, key, "")  # invalid arguments: a tool error
    browser.get(f"{dashboard_server.url}/admin/dashboard/usage/")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=total-calls]").text == "4")
    assert len(browser.find_elements(By.CSS_SELECTOR, "meter.pam-meter")) == 3
    assert browser.find_elements(By.CSS_SELECTOR, "rect.pam-outcome-success")
    browser.set_window_size(1280, 1900)
    screenshot(browser, "usage-with-data")
    browser.set_window_size(390, 2600)
    screenshot(browser, "usage-with-data-390")
    assert csp_violations(browser) == []
