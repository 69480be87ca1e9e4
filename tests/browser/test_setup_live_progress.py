"""Setup's readiness checklist follows a sync live (SPEC §6, §7): a source imported by another
process (`manage.py import_source`, as a Celery worker would sync it) fills the checklist of
an open page through the `workspace_<id>_pipeline` feed, without a reload or polling (the page
had no run when it opened, so it polls nothing).

Only with REDIS_URL: the embedded channel layer lives in one process's memory, so events of
another process reach the page only through Redis (the service run of .ci/run)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for

SLUG = "live-progress"
EMAIL = "admin@live-progress.example"
PASSWORD = "a long progress password 42"
NOTE = "# Harbour\n\nThe harbour office opens at 8:00 on weekdays.\nLena Park runs the harbour office.\n"


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="events of another process reach the page only through Redis (REDIS_URL)")
def test_a_sync_in_another_process_fills_the_open_setup_page_live(browser: Any, dashboard_server: Any, tmp_path: Path) -> None:
    dashboard_server.manage("create_workspace", SLUG, "--name", "Live Progress", "--admin-email", EMAIL, "--admin-password", PASSWORD)
    sign_in(browser, dashboard_server, EMAIL, PASSWORD)
    browser.get(f"{dashboard_server.url}/admin/dashboard/setup/")
    state = browser.find_element(By.CSS_SELECTOR, "[data-testid=readiness-state]")
    assert state.get_attribute("data-state") == "waiting_for_sources"
    wait_for(browser, lambda d: d.execute_script("return document.documentElement.getAttribute('data-live')") == "open")
    browser.execute_script("window.pamNoReload = true;")

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "harbour.md").write_text(NOTE)
    dashboard_server.manage("import_source", "--workspace", SLUG, str(folder))

    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=readiness-state]").get_attribute("data-state").startswith("ready"))
    assert browser.execute_script("return window.pamNoReload === true;")
    assert "notes" in browser.find_element(By.ID, "pam-setup-status").text  # the folder's run
    screenshot(browser, "setup-live-progress")
    assert csp_violations(browser) == []
