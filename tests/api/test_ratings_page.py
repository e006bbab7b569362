"""The ratings on the pages (docs/accounting.md, "Ratings"), in a real headless browser: the live
table shows who is rated at each seat, the ratings page lists the day's ratings with their
figures, one player's history and the push's outbox, and the pit seats a player from its form."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from ..browser import csp_violations
from .conftest import Api, play_round, served_api
from .test_pages_browser import sign_in, text, wait_for


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Api]]:
    with served_api(tmp_path, poll_interval=0.05) as (_, base, api):
        yield base, api


def test_the_table_and_ratings_pages_show_the_rated_players(site, browser):
    base, api = site
    sat = api.post("/api/ratings/seats/3", "dealer", json={"player": "P-300"})
    assert sat.status_code == 201, sat.text
    play_round(api)
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: "P-300" in text(d, '#rated tr[data-seat="3"]'))
    assert text(browser, '#rated tr[data-seat="3"]').endswith("1 $25.00 rated")
    browser.get(f"{base}/ui/ratings.html")
    wait_for(browser, lambda d: "P-300" in text(d, "#ratings"))
    row = text(browser, "#ratings tr:nth-child(2)")
    assert "open" in row and "-$23.75" in row  # the house's actual win: the player won $25 less $1.25
    form = browser.find_element(By.XPATH, "//form[.//legend[text()='Seat a rated player']]")
    form.find_element(By.NAME, "seat").send_keys("5")
    form.find_element(By.NAME, "player").send_keys("P-500")
    form.find_element(By.CSS_SELECTOR, "button").click()
    wait_for(browser, lambda d: "P-500" in text(d, "#ratings"))
    assert [r["player"] for r in api.get("/api/ratings/seated", "pit").json()] == ["P-300", "P-500"]
    assert csp_violations(browser) == []
