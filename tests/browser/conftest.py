"""A real browser (Debian's chromium + chromium-driver, installed by .ci/run) against a real
PAM: one uvicorn process on pam.asgi, as `make run` serves it (HTTP and websockets).

The server gets its own data directory and database (a fresh SQLite file in the embedded run,
a throwaway PostgreSQL database in the service run) and starts with one empty workspace and its
admin: the state a new user is in after create_workspace. In the service run it also gets a
Redis database of its own for its cache and channel layer, another for its Celery broker, and a
real Celery worker, so syncs run the production way and their progress crosses processes.
The tests skip, saying why, when no chromium or chromedriver is installed (and fail instead
when PAM_REQUIRE_BROWSER is set, as .ci/run sets it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.e2e.conftest import LiveServer, _free_port, own_database, stop, wait_for_port

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PAM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PAM_CHROMEDRIVER", "/usr/bin/chromedriver")
ADMIN_EMAIL = "admin@new.example"
ADMIN_PASSWORD = "a long admin password 42"
OTHER_EMAIL = "admin@other.example"
OTHER_PASSWORD = "another long password 42"
WAIT_S = 20
# Redis databases of the browser server in the service run, apart from the test suite's (its
# cache is flushed before every test, its broker feeds other tests' workers).
SERVER_REDIS_DB = 12
SERVER_BROKER_DB = 13


def _redis_database(url: str, number: int) -> str:
    """`url` pointed at Redis database `number`, emptied."""
    import redis

    moved = urlunsplit(urlsplit(url)._replace(path=f"/{number}"))
    redis.Redis.from_url(moved).flushdb()
    return moved


def _browser_missing() -> str | None:
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not (Path(binary).exists() or shutil.which(binary)):
            return f"{binary} is not installed (Debian packages chromium and chromium-driver; .ci/run installs them)"
    return None


@pytest.fixture(scope="session")
def dashboard_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if reason := _browser_missing():
        if os.environ.get("PAM_REQUIRE_BROWSER"):  # .ci/run installs the browser: never skip there
            pytest.fail(reason)
        pytest.skip(reason)
    data_dir = tmp_path_factory.mktemp("browser-data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env["PAM_DATA_DIR"] = str(data_dir)
    env["PAM_IMPORT_ROOTS"] = str(data_dir / "imports")
    (data_dir / "imports").mkdir()
    port = _free_port()
    env["PAM_PUBLIC_BASE_URL"] = f"http://127.0.0.1:{port}"
    env["ALLOWED_HOSTS"] = "127.0.0.1,localhost"
    if env.get("REDIS_URL"):
        env["REDIS_URL"] = _redis_database(env["REDIS_URL"], SERVER_REDIS_DB)
    if env.get("CELERY_BROKER_URL"):
        env["CELERY_BROKER_URL"] = _redis_database(env["CELERY_BROKER_URL"], SERVER_BROKER_DB)
    with own_database(env, "pam_browser"):
        server = LiveServer(url=f"http://127.0.0.1:{port}", env=env)
        server.manage("migrate", "--noinput", "-v", "0")
        server.manage("create_workspace", "new-co", "--name", "New Co", "--admin-email", ADMIN_EMAIL, "--admin-password", ADMIN_PASSWORD)
        server.manage("create_workspace", "other-co", "--name", "Other Co", "--admin-email", OTHER_EMAIL, "--admin-password", OTHER_PASSWORD)
        process = subprocess.Popen(
            [
                sys.executable, "-m", "uvicorn", "pam.asgi:application", "--host", "127.0.0.1", "--port", str(port),
                "--lifespan", "off", "--no-server-header", "--log-level", "warning",
            ],
            cwd=REPO,
            env=env,
        )
        processes = [process]
        if env.get("CELERY_BROKER_URL"):
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "pam", "worker", "--pool", "solo", "--concurrency", "1",
                 "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle", "--without-gossip"],
                cwd=REPO, env=env,
            ))  # fmt: skip
        try:
            wait_for_port(port, process)
            yield server
        finally:
            stop(processes)


@pytest.fixture
def browser(dashboard_server: LiveServer, tmp_path: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def sign_in(driver: Any, server: LiveServer, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
    """The admin's own sign-in page, as a person fills it in."""
    from selenium.webdriver.common.by import By

    driver.get(f"{server.url}/admin/login/")
    driver.find_element(By.NAME, "username").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()
    wait_for(driver, lambda d: "/admin/login/" not in d.current_url)


def wait_for(driver: Any, condition: Any, timeout: float = WAIT_S) -> Any:
    """`condition` once it holds; an element replaced meanwhile (a live refetch) is looked up
    again on the next try."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)


def csp_violations(driver: Any) -> list[str]:
    """Console messages of Content-Security-Policy refusals (an inline script or style)."""
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def screenshot(driver: Any, name: str) -> Path:
    """Saved under PAM_SCREENSHOT_DIR (or the data directory) for a person to look at."""
    folder = Path(os.environ.get("PAM_SCREENSHOT_DIR", REPO / "var" / "screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
