"""The table page says why the table does not deal, what clears it and who can
(docs/round-lifecycle.md, "What a stopped table shows"), and the pit clears a broken record from
it: a run-on for investigation, chained as ``POST /api/audit/override`` chains it."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from ..browser import csp_violations
from ..storage.helpers import tamper
from .test_pages_browser import sign_in, site, text, wait_for

__all__ = ["site"]  # the fixture, used by name


def test_the_table_page_lists_a_broken_record_and_the_pit_runs_on_from_it(site, browser):
    base, api = site
    tamper(api.engine, "UPDATE events SET actor = 'dealer-eve' WHERE table_id = 't1' AND seq = 2")
    api.service.resume()  # the start's check finds the edit
    assert api.service.record_broken is not None
    sign_in(browser, base, api.tokens["pit"])
    wait_for(
        browser, lambda d: "the record check found" in text(d, "#not-dealing li[data-kind='record-broken']")
    )
    item = text(browser, "#not-dealing li[data-kind='record-broken']")
    assert "override" in item and "(a pit user)" in item
    form = browser.find_element(By.ID, "record-run-on")
    assert form.is_displayed()
    form.find_element(By.NAME, "reason").send_keys("investigating the edited actor")
    form.find_element(By.CSS_SELECTOR, "button").click()
    wait_for(browser, lambda d: not d.find_element(By.ID, "not-dealing-box").is_displayed())
    assert api.service.record_broken is None
    assert csp_violations(browser) == []


def test_a_dealer_reads_why_but_gets_no_run_on_form(site, browser):
    base, api = site
    api.post("/api/table/close")
    sign_in(browser, base, api.tokens["dealer"])
    wait_for(
        browser, lambda d: text(d, "#not-dealing li[data-kind='closed']").startswith("the table is closed")
    )
    assert "a pit user opens the table" in text(browser, "#not-dealing li[data-kind='closed']")
    assert browser.find_elements(By.ID, "record-run-on") == []  # removed: a dealer may not run on
