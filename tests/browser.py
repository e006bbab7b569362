"""The headless browser of the web-page tests, one per test process (a pytest plugin, listed in
tests/conftest.py): Debian's ``chromium-headless-shell`` driven by its ``chromedriver``.

The fixtures live in a plugin, not in a test module that others import them from: a fixture
imported into a second module is registered again there, so each module a worker ran started
a browser of its own. The headless shell is Chromium's page engine without the desktop
browser around it; it draws the same pages at about two thirds of the CPU (docs/development.md, "Speed
of the suite"). The browser is installed by ``scripts/setup-test-host.sh``; without it the
tests fail naming that script, never skip.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SETUP = "scripts/setup-test-host.sh"
# No --user-data-dir: the headless shell finds no page to drive in a profile given to it, and
# chromedriver's own temporary profile is removed when the browser quits.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
]


@pytest.fixture(scope="session")
def browser_installed() -> None:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"no headless browser ({', '.join(missing)} missing): install it with: bash {SETUP}",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def chromium(browser_installed) -> Iterator[webdriver.Chrome]:
    """One headless Chromium per test process: starting one costs about a second, and each test
    gets it clean (``browser``): every test serves the pages on a port of its own, so its
    origin, and with it the token kept in ``sessionStorage``, is new to the browser."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for CSP reports
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium) -> Iterator[webdriver.Chrome]:
    """The process's browser on a blank page, no cookies, its console read; after the test, the
    console must hold no Content-Security-Policy report."""
    chromium.get("about:blank")
    chromium.delete_all_cookies()
    chromium.get_log("browser")  # what an earlier test left in the console is not this test's
    try:
        yield chromium
        violations = csp_violations(chromium)
        if violations:
            pytest.fail(
                "the Content-Security-Policy blocked something:\n" + "\n".join(violations), pytrace=False
            )
    finally:
        with contextlib.suppress(Exception):
            chromium.switch_to.alert.dismiss()  # a dialog a failed test left open
        chromium.get("about:blank")  # the page stops polling a server that is about to stop


def csp_violations(driver) -> list[str]:
    """The console's CSP reports since the last call (reading the console empties it)."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]
