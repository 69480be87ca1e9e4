"""The Memory and Sources pages in a real browser (SPEC §6; issue 15): a workspace admin opens
the context tree of an imported folder, reads a section's markdown, searches for a fact as an
agent would, and sees the source with its run — all under the strict Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import csp_violations, screenshot, sign_in, wait_for

SLUG = "memory-browse"
EMAIL = "admin@memory-browse.example"
PASSWORD = "a long memory password 42"
NARROW = (390, 900)
WIDE = (1280, 1000)
DOCUMENTS = {
    "projects/atlas.md": "---\ntitle: Project Atlas\ndate: 2026-02-10\n---\n# Project Atlas\n\n"
    "Project Atlas is owned by the Data team.\nPriya Raman leads Project Atlas.\n\n## Milestones\n"
    "- The Atlas beta ships on 30 April.\n- The Atlas budget is $40,000.\n",
    "processes/expenses.md": "---\ntitle: Expense Policy\ndate: 2025-12-01\n---\n# Expense Policy\n\n"
    "Expenses above $1,000 need approval from a director.\nReceipts are due within 14 days.\n",
}


def test_an_admin_reads_a_section_searches_a_fact_and_sees_the_source(browser: Any, dashboard_server: Any, tmp_path: Path) -> None:
    dashboard_server.manage("create_workspace", SLUG, "--name", "Memory Browse", "--admin-email", EMAIL, "--admin-password", PASSWORD)
    folder = tmp_path / "handbook"
    for rel, text in DOCUMENTS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    dashboard_server.manage("import_source", "--workspace", SLUG, str(folder))
    sign_in(browser, dashboard_server, EMAIL, PASSWORD)

    browser.get(f"{dashboard_server.url}/admin/dashboard/memory/")
    tree = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=memory-tree]"))
    screenshot(browser, "memory-tree")
    tree.find_element(By.LINK_TEXT, "Expense Policy").click()
    markdown = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=section-markdown]"))
    assert "Expenses above $1,000 need approval from a director." in markdown.text
    screenshot(browser, "memory-section")
    browser.set_window_size(*NARROW)
    screenshot(browser, "memory-section-390")
    browser.set_window_size(*WIDE)

    browser.get(f"{dashboard_server.url}/admin/dashboard/memory/")
    box = wait_for(browser, lambda d: d.find_element(By.ID, "memory-q"))
    box.send_keys("Who leads Project Atlas?")
    box.submit()
    results = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=search-results]"))
    assert "Priya Raman leads Project Atlas." in results.text
    screenshot(browser, "memory-search")
    for tab, name in (("Facts", "memory-facts"), ("Entities", "memory-entities")):
        browser.find_element(By.LINK_TEXT, tab).click()
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".pam-tab.is-active").text == tab)
        screenshot(browser, name)

    browser.get(f"{dashboard_server.url}/admin/dashboard/sources/")
    card = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=sources] .pam-source"))
    assert "handbook" in card.text and "completed" in card.text
    wait_for(browser, lambda d: d.execute_script("return document.documentElement.getAttribute('data-live')") == "open")
    screenshot(browser, "sources")
    assert csp_violations(browser) == []
