"""Every dashboard page opens in a real browser for a new workspace admin, under the strict
Content-Security-Policy, with no console error."""

from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for

PAGES = ["setup", "access", "usage", "requests", "memory", "sources"]


@pytest.mark.parametrize("page", PAGES)
def test_each_page_opens_for_a_new_workspace_admin_without_a_csp_violation(browser: Any, dashboard_server: Any, page: str) -> None:
    sign_in(browser, dashboard_server)
    browser.get(f"{dashboard_server.url}/admin/dashboard/{page}/")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".pam-page-title"))
    assert browser.find_element(By.CSS_SELECTOR, "[data-testid=workspace-name]").text == "New Co"
    screenshot(browser, f"page-{page}")
    assert csp_violations(browser) == []
