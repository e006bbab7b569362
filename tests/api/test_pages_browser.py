"""The terminal pages in a real headless browser (issue 5): Debian's chromium and its driver,
driven by selenium, against a real uvicorn server on a loopback port.

The browser is installed by ``scripts/install-browser.sh`` when /usr/bin/chromium or
/usr/bin/chromedriver is missing; if it still cannot be had the tests fail (never skip).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.service import TableService
from table_controller.settings import TableSettings
from table_controller.storage import make_engine, sqlite_url, upgrade_to_head

from ..round.tables import BANKER, POSITION_3, POSITION_5, deal
from .conftest import WAGERS, Api, add_people, play_round

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL = Path(__file__).resolve().parents[2] / "scripts" / "install-browser.sh"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]


@pytest.fixture(scope="session")
def browser_installed() -> None:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        done = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=900, check=False)
        if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
            pytest.fail(f"no headless browser: {INSTALL.name} exited {done.returncode}: {done.stderr[-2000:]}",
                        pytrace=False)


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Api]]:
    engine = make_engine(sqlite_url(tmp_path))
    upgrade_to_head(engine)
    settings = TableSettings(table_id="t1")
    service = TableService(settings, engine)
    tokens = add_people(engine)
    app = create_app(settings, service, engine, poll_interval=0.05)
    with serving(app, host="127.0.0.1") as base, httpx.Client(base_url=base) as client:
        api = Api(client, service, engine, tokens)  # type: ignore[arg-type]
        assert play_round(api) == "t1-1"
        assert play_round(api, how="override") == "t1-2"
        yield base, api
    engine.dispose()


@pytest.fixture
def browser(browser_installed, tmp_path) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, condition, timeout: float = 10):
    """Wait until ``condition`` holds; a page re-rendering under the check is checked again."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(
        lambda d: condition(d))


def text(driver, css: str) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return found[0].text if found else ""


def sign_in(driver, base: str, token: str) -> None:
    driver.get(f"{base}/ui/")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "go").click()
    wait_for(driver, lambda d: d.current_url.endswith("/ui/table.html"))


def test_the_live_table_view_draws_the_cards_and_follows_the_stream(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#phase") == "closed" and text(d, "#round-id") == "t1-2")
    piles = browser.find_elements(By.CSS_SELECTOR, "#piles .pile")
    assert len(piles) == 7
    first = [c.get_attribute("data-code") for c in piles[0].find_elements(By.CSS_SELECTOR, ".card")]
    assert first == POSITION_3.split()  # pile 1 went to position 3 (dice 1+1+1, 000)
    assert "position 3" in piles[0].text
    hearts = piles[0].find_element(By.CSS_SELECTOR, '.card[data-code="Ah"]')
    assert "red" in hearts.get_attribute("class") and hearts.text == "A\u2665"

    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201  # another terminal opens a round
    wait_for(browser, lambda d: text(d, "#phase") == "open" and text(d, "#round-id") == "t1-3")
    assert "round.opened by ann" in text(browser, "#last-event")
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles_, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles_, unused=unused, actor="device:shuffler"))
    wait_for(browser, lambda d: text(d, "#phase") == "players-setting")
    wait_for(browser, lambda d: text(d, "#rule-id") == "high-card.second-and-fourth")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#unused .card")) == 4
    assert "1 + 1 + 1" in text(browser, "#dice")


def test_history_round_detail_and_replay(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["surveillance"])
    browser.get(f"{base}/ui/history.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".round-row")) == 2)
    Select(browser.find_element(By.CSS_SELECTOR, 'select[name="override"]')).select_by_visible_text("true")
    browser.find_element(By.ID, "search").click()
    wait_for(browser, lambda d: [r.get_attribute("data-round") for r in d.find_elements(By.CSS_SELECTOR, ".round-row")]
             == ["t1-2"])
    browser.find_element(By.LINK_TEXT, "t1-2").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".event-row")) > 0)
    kinds = [r.find_elements(By.TAG_NAME, "td")[2].text for r in browser.find_elements(By.CSS_SELECTOR, ".event-row")]
    assert kinds[:3] == ["round.opened", "dice.rolled", "piles.dealt"] and "dealer.override" in kinds
    assert len(browser.find_elements(By.CSS_SELECTOR, ".position-row")) == 3
    wait_for(browser, lambda d: text(d, "#step").startswith("step 1 of 7"))
    assert text(browser, "#replay-phase") == "open"
    for _ in range(6):
        browser.find_element(By.ID, "next").click()
    wait_for(browser, lambda d: text(d, "#replay-phase") == "closed" and text(d, "#step").startswith("step 7 of 7"))


def test_the_pit_acknowledges_an_alert_from_the_page(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    browser.get(f"{base}/ui/alerts.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 2)
    first = browser.find_elements(By.CSS_SELECTOR, ".alert-row")[0]
    seq = int(first.get_attribute("data-seq"))
    assert "house-way-deviation" in first.text
    first.find_element(By.CSS_SELECTOR, "input.note").send_keys("dealer retrained")
    first.find_element(By.CSS_SELECTOR, "button.ack").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 1)
    [acked] = [a for a in api.get("/api/alerts").json() if a["seq"] == seq]
    assert (acked["acknowledged_by"], acked["note"]) == ("bob", "dealer retrained")


def test_a_bad_token_stays_on_the_sign_in_page(site, browser):
    base, _ = site
    browser.get(f"{base}/ui/table.html")
    wait_for(browser, lambda d: d.current_url.endswith("/ui/index.html"))
    browser.find_element(By.ID, "token").send_keys("pgt_wrong")
    browser.find_element(By.ID, "go").click()
    wait_for(browser, lambda d: d.current_url.endswith("/ui/index.html") and d.find_element(By.ID, "token"))
