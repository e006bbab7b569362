"""The floor page in a real headless browser (docs/floor.md, "Pages"), against the floor served
by a real uvicorn on a loopback port, on a SQLite store the tables' services write to: the pit's
tables shown, a new alert arriving highlighted (and beeping), acknowledged from the page. The
console must hold no Content-Security-Policy report (the ``browser`` fixture checks it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from table_controller.api.read_lag import READ_BEHIND, READ_FROM, READ_LAG_SECONDS
from table_controller.api.server import serving
from table_controller.floor.app import create_floor_app
from table_controller.floor.settings import FloorSettings
from table_controller.storage import make_engine, read_snapshot, sqlite_url, upgrade_to_head
from table_controller.storage.alerts import list_alerts

from ..api.test_pages_browser import sign_in, text, wait_for
from .conftest import Floor, add_people, play, put_tables, services

LAGGING: set[str] = set()  # not empty: the floor's answers say they were read off a replica behind


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Floor]]:
    engine = make_engine(sqlite_url(tmp_path))
    try:
        upgrade_to_head(engine)
        tokens = add_people(engine)
        put_tables(engine)
        floor = Floor(None, engine, tokens, services(engine))  # type: ignore[arg-type]
        app = create_floor_app(FloorSettings(db_url="sqlite://", poll_interval=0.05), engine)

        @app.middleware("http")
        async def replica_behind(request, call_next):  # as api/read_lag.py marks a lagging replica's answers
            answer = await call_next(request)
            if LAGGING:
                answer.headers.update({READ_FROM: "replica", READ_BEHIND: "true", READ_LAG_SECONDS: "12.5"})
            return answer

        with serving(app) as base:
            yield base, floor
    finally:
        engine.dispose()


def test_the_pits_tables_and_a_new_alert_highlighted_then_acknowledged(site, browser):
    base, floor = site
    play(floor.services["t1"])
    play(floor.services["t1"], how="void")  # an open alert before the page loads: not "new"
    sign_in(browser, base, floor.tokens["paul"], page="floor.html")

    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".table-card")) == 2)
    cards = [c.get_attribute("data-table") for c in browser.find_elements(By.CSS_SELECTOR, ".table-card")]
    assert cards == ["t1", "t2"]  # pit-a's tables; t3 is pit-b's
    assert text(browser, '[data-table="t1"] .phase-words') == "void, wagers returned"
    assert text(browser, '[data-table="t2"] .phase-words') == "no round yet"
    assert "answering" in text(browser, '[data-table="t1"] h3')
    history = browser.find_element(By.CSS_SELECTOR, '[data-table="t1"] .history-link').get_attribute("href")
    assert history == f"{base}/ui/history.html?table=t1"
    replay = browser.find_element(By.CSS_SELECTOR, '[data-table="t1"] .round-link').get_attribute("href")
    assert replay == f"{base}/ui/round.html?table=t1&id=t1-2"
    live = browser.find_element(By.CSS_SELECTOR, '[data-table="t1"] .live-link').get_attribute("href")
    assert live == "http://t1.pit.example:8080/ui/table.html"
    wait_for(browser, lambda d: text(d, '[data-key="t1:10"] .alert-kind') == "void")
    assert browser.find_elements(By.CSS_SELECTOR, "tr.new-alert") == []

    floor.services["t2"].device_fault("shuffler", "jam", "card jam")  # arrives while the page is open
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, 'tr.new-alert[data-key^="t2:"]'))
    row = browser.find_element(By.CSS_SELECTOR, 'tr.new-alert[data-key^="t2:"]')
    assert row.find_element(By.CSS_SELECTOR, ".alert-kind").text == "device-fault"
    assert row.find_element(By.CSS_SELECTOR, ".severity").text == "critical"
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-beeps") == "1"
    assert text(browser, "#alerts-new") == "1 new"
    wait_for(browser, lambda d: "1 critical" in text(d, '[data-table="t2"] .open-alerts'))

    row.find_element(By.CSS_SELECTOR, "input.note").send_keys("shuffler cleared")
    row.find_element(By.CSS_SELECTOR, "button.ack").click()
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, 'tr[data-key^="t2:"]'))  # open only
    with read_snapshot(floor.engine) as session:
        [fault] = list_alerts(session, table_id="t2")
    assert fault.acknowledged is not None
    assert (fault.acknowledged.actor, fault.acknowledged.note) == ("paul", "shuffler cleared")
    assert browser.find_element(By.ID, "alerts-new").get_attribute("hidden") is not None

    # read off a replica that is behind (docs/floor-replica.md): the page says so, and stops
    # saying so once the answers are current again
    LAGGING.add("yes")
    try:
        browser.refresh()
        wait_for(browser, lambda d: d.find_elements(By.ID, "read-lag-banner"))
        wait_for(browser, lambda d: "behind (by 12.5 s)" in text(d, "#read-lag-banner"))
    finally:
        LAGGING.clear()
    browser.refresh()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".table-card")) == 2)
    assert browser.find_elements(By.ID, "read-lag-banner") == []


def test_every_floor_page_links_the_reports_and_a_tables_history_leads_back_to_the_floor(site, browser):
    base, floor = site
    play(floor.services["t1"])
    sign_in(browser, base, floor.tokens["paul"], page="floor.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".table-card")) == 2)
    report = f"{base}/api/floor/reports/day.html"
    assert browser.find_element(By.CSS_SELECTOR, "nav .report-link").get_attribute("href") == report
    card_report = browser.find_element(By.CSS_SELECTOR, '[data-table="t1"] .report-link').get_attribute(
        "href"
    )
    assert card_report == f"{report}?table=t1"

    # the history of t1 as the floor serves it: every link of its nav works from here
    browser.get(f"{base}/ui/history.html?table=t1")
    wait_for(
        browser,
        lambda d: (
            not d.find_element(By.CSS_SELECTOR, 'nav a[data-table-page="table.html"]').get_attribute("hidden")
        ),
    )

    def links(css: str) -> dict[str, str]:
        return {a.text: a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, css)}

    assert links("nav a") == {
        "Floor": f"{base}/ui/floor.html",  # back to the floor
        "Table": "http://t1.pit.example:8080/ui/table.html",  # the table's own live page, where it serves it
        "History": f"{base}/ui/history.html?table=t1",
        "Alerts": f"{base}/ui/floor.html#alerts-section",  # the floor's list, where a pit acknowledges
        "Analysis": "http://t1.pit.example:8080/ui/analysis.html",
        "Report": f"{report}?table=t1",
    }
    # the replay of its round keeps the same nav
    browser.get(f"{base}/ui/round.html?table=t1&id=t1-1")
    wait_for(browser, lambda d: "Floor" in links("nav a"))
    assert links("nav a")["Report"] == f"{report}?table=t1"


def test_signed_in_once_at_the_floor_a_report_opens_from_its_link_and_sign_out_ends_it(site, browser):
    base, floor = site
    play(floor.services["t1"])
    sign_in(browser, base, floor.tokens["paul"], page="floor.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".table-card")) == 2)
    # the page keeps no token: the browser's HttpOnly session cookie is what lets it in
    assert browser.execute_script("return sessionStorage.length") == 0
    cookies = {cookie["name"]: cookie for cookie in browser.get_cookies()}
    assert cookies["tc-session"]["httpOnly"] and cookies["tc-session"]["sameSite"] == "Strict"
    # a report opened from a plain link (no script adds a header to a navigation)
    report = browser.find_element(By.CSS_SELECTOR, '[data-table="t1"] .report-link').get_attribute("href")
    browser.get(report)
    wait_for(browser, lambda d: "Day report" in text(d, "h1"))
    assert "table t1" in text(browser, "h1")
    # signing out at the floor ends the session: the same link is refused
    browser.get(f"{base}/ui/floor.html")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#sign-out, .sign-out"))
    browser.find_element(By.CSS_SELECTOR, "#sign-out, .sign-out").click()
    wait_for(browser, lambda d: d.current_url.endswith("/ui/index.html"))
    browser.get(report)
    wait_for(browser, lambda d: "unauthorized" in d.page_source)  # the API's 401 answer
    assert "Day report" not in browser.page_source
