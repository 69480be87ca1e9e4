"""Every dashboard page opens in a real browser for a new workspace admin, under the strict
Content-Security-Policy (no refused inline script or style), with the live feeds connected."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for

PAGES = ["setup", "access", "usage", "requests", "memory", "sources"]


def test_every_page_opens_for_a_new_workspace_admin_without_a_csp_violation(browser: Any, dashboard_server: Any) -> None:
    sign_in(browser, dashboard_server)
    for page in PAGES:
        browser.get(f"{dashboard_server.url}/admin/dashboard/{page}/")
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".pam-page-title"))
        assert browser.find_element(By.CSS_SELECTOR, "[data-testid=workspace-name]").text == "New Co", page
        screenshot(browser, f"page-{page}")
        assert csp_violations(browser) == [], page


def test_a_workspace_admin_sees_the_sign_in_page_in_the_products_colours_and_no_model_admin(browser: Any, dashboard_server: Any) -> None:
    browser.get(f"{dashboard_server.url}/admin/login/")
    screenshot(browser, "sign-in")
    assert "PAM" in browser.find_element(By.ID, "site-name").text

    sign_in(browser, dashboard_server)
    assert browser.current_url.endswith("/admin/dashboard/setup/")
    browser.get(f"{dashboard_server.url}/admin/memory/workspace/")
    assert "403" in browser.title or "Forbidden" in browser.page_source
