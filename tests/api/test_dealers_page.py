"""The dealer on the box and the limits on the live table page (docs/dealers.md), in a real
headless browser: a dealer signs in from the page and sees their line; the pit changes the
limits from its form and the page shows them; a refusal is shown in the form."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from ..browser import csp_violations
from .conftest import Api, served_api
from .test_pages_browser import form_error, sign_in, submit, text, wait_for


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Api]]:
    with served_api(tmp_path, poll_interval=0.05) as (_, base, api):
        yield base, api


def test_a_dealer_signs_in_from_the_table_page(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["dealer"])
    wait_for(browser, lambda d: text(d, "#dealer-now").startswith("Nobody is signed in"))
    assert not browser.find_element(By.ID, "dealer-name").is_displayed()  # a dealer signs in themselves
    assert browser.find_elements(By.ID, "change-limits") == []  # the limits are the pit's
    submit(browser, "dealer-sign-in")
    wait_for(browser, lambda d: text(d, "#dealer-now").startswith("ann since "))
    assert "no time on the box yet" in text(browser, "#dealer-now") or "hands an hour" in text(
        browser, "#dealer-now"
    )
    submit(browser, "dealer-sign-in")
    wait_for(browser, lambda d: "ann is on this table's box" in form_error(d, "dealer-sign-in"))
    assert csp_violations(browser) == []


def test_the_pit_changes_the_limits_from_the_table_page(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#limits-now").startswith("main wager $5.00 to $1,000.00"))
    submit(browser, "change-limits", min_main="10", max_main="500", max_bonus="0")
    wait_for(browser, lambda d: text(d, "#limits-now").startswith("main wager $10.00 to $500.00"))
    assert "(approved: main wager $5.00 to $1,000.00" in text(browser, "#limits-now")
    assert api.service.limits.main.min_main == 1_000
    submit(browser, "change-limits", min_main="10", max_main="2000", max_bonus="0")
    wait_for(browser, lambda d: form_error(d, "change-limits").startswith("Max main cents: "))
    assert "100000" in form_error(browser, "change-limits")  # the approved most, from the schema
    assert api.service.limits.main.max_main == 50_000
    assert csp_violations(browser) == []
