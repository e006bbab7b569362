"""The terminal pages in a real headless browser (docs/api.md): Debian's headless Chromium and
its driver (the ``browser`` fixture, tests/browser.py), driven by selenium, against a real
uvicorn server on a loopback port.

Every test also reads the browser's console at the end and fails on any Content-Security-Policy
violation: the pages keep all their script and style in files, so the CSP (security_headers.py)
blocks nothing they need. The command forms are driven end to end in a few scenario tests
(each browser test costs seconds).

The browser is installed by ``scripts/setup-test-host.sh`` (run by ``.ci/run`` and the README's
test command); the tests change nothing on the host: without it they fail naming that script,
never skip.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from drivers.messages import Hello
from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.settings import TableSettings
from table_controller.storage import add_user, unit_of_work

from ..browser import csp_violations
from ..round.tables import BANKER, POSITION_3, POSITION_5, deal
from .conftest import HOUSE_WAY, MIS_SET, WAGERS, Api, play_round, served_api, set_player_hands

T = TypeVar("T")


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Api]]:
    with served_api(tmp_path, poll_interval=0.05) as (_, base, api):
        assert play_round(api) == "t1-1"
        assert play_round(api, how="override") == "t1-2"
        yield base, api


def wait_for(driver, condition, timeout: float = 10):
    """Wait until ``condition`` holds; a page re-rendering under the check is checked again."""
    return WebDriverWait(
        driver,
        timeout,
        poll_frequency=0.05,
        ignored_exceptions=(StaleElementReferenceException, NoSuchElementException),
    ).until(lambda d: condition(d))


def fresh(read: Callable[[], T]) -> T:
    """``read()`` again when the page redrew an element between finding it and reading it (the
    pages redraw on every stream event and poll): a read is of one drawing, never of two."""
    for _ in range(50):
        try:
            return read()
        except StaleElementReferenceException:
            time.sleep(0.02)
    return read()


def text(driver, css: str) -> str:
    def read() -> str:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        return found[0].text if found else ""

    return fresh(read)


def sign_in(driver, base: str, token: str, page: str = "table.html") -> None:
    driver.get(f"{base}/ui/")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "go").click()
    wait_for(driver, lambda d: d.current_url.endswith(f"/ui/{page}"))


def test_the_live_table_view_draws_the_cards_and_follows_the_stream(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#phase") == "settled" and text(d, "#round-id") == "t1-2")
    piles = browser.find_elements(By.CSS_SELECTOR, "#piles .pile")
    assert len(piles) == 7
    first = [c.get_attribute("data-code") for c in piles[0].find_elements(By.CSS_SELECTOR, ".card")]
    assert first == POSITION_3.split()  # pile 1 went to position 3 (dice 1+1+1, 000)
    assert "position 3" in piles[0].text
    hearts = piles[0].find_element(By.CSS_SELECTOR, '.card[data-code="Ah"]')
    assert "red" in hearts.get_attribute("class") and hearts.text == "A\u2665"
    # no conductor in this fixture: the devices have never been up, and the page says so
    assert text(browser, '#devices li[data-device="shuffler"]') == "shuffler: ok · link never up"

    api.service.device_health.link_up("shuffler", Hello(1, 0, 500, 7, "SIM-SHUFFLER", "SIM0001", "1.0.0"))
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201  # another terminal opens a round
    wait_for(
        browser,
        lambda d: text(d, "#phase") == "wagers in, waiting for the dice" and text(d, "#round-id") == "t1-3",
    )
    shuffler = text(browser, '#devices li[data-device="shuffler"]')
    assert shuffler.startswith("shuffler: ok · link up since ")  # no link attached here: no frame seen
    assert shuffler.endswith(" · SIM-SHUFFLER SIM0001 firmware 1.0.0") and "last frame" not in shuffler
    assert "round.opened by ann" in text(browser, "#last-event")
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles_, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles_, unused=unused, actor="device:shuffler"))
    wait_for(browser, lambda d: text(d, "#phase") == "players' hands to set")
    wait_for(browser, lambda d: text(d, "#rule-id") == "high-card.second-and-fourth")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#unused .card")) == 4
    assert "1 + 1 + 1" in text(browser, "#dice")


def test_the_pit_acknowledges_an_alert_from_the_page(site, browser):
    base, api = site
    with unit_of_work(api.engine) as session:  # bob overrode t1-2: another pit user reviews it (two people)
        pia = add_user(session, name="pia", role="pit")
    sign_in(browser, base, pia)
    browser.get(f"{base}/ui/alerts.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 2)
    first = browser.find_elements(By.CSS_SELECTOR, ".alert-row")[0]
    seq = int(first.get_attribute("data-seq"))
    assert "house-way-deviation" in first.text
    first.find_element(By.CSS_SELECTOR, "input.note").send_keys("dealer retr")
    api.service.alert("device-fault", "shuffler door open")  # a new alert redraws the table meanwhile
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 3)
    first = browser.find_element(By.CSS_SELECTOR, f'.alert-row[data-seq="{seq}"]')
    note = first.find_element(By.CSS_SELECTOR, "input.note")
    assert note.get_attribute("value") == "dealer retr"  # what was typed survives the redraw
    note.send_keys("ained")  # and the typing goes on where it was
    first.find_element(By.CSS_SELECTOR, "button.ack").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 2)
    [acked] = [a for a in api.get("/api/alerts").json() if a["seq"] == seq]
    assert (acked["acknowledged_by"], acked["note"]) == ("pia", "dealer retrained")


REFUSED = "Sign-in refused: this token is not known, or its person is disabled. Ask the admin for a new key."


def test_a_bad_token_is_refused_on_the_sign_in_page_and_a_good_one_then_signs_in(site, browser):
    base, api = site
    browser.get(f"{base}/ui/table.html")
    wait_for(browser, lambda d: d.current_url.endswith("/ui/index.html"))
    browser.find_element(By.ID, "token").send_keys("pgt_wrong")
    browser.find_element(By.ID, "go").click()
    # the refusal is said on the page (a reload would wipe it), and the wrong token is not kept
    wait_for(browser, lambda d: text(d, "#error") == REFUSED)
    assert browser.current_url.endswith("/ui/index.html")
    assert browser.execute_script("return sessionStorage.length") == 0
    token = browser.find_element(By.ID, "token")
    token.clear()
    token.send_keys(api.tokens["pit"])  # a second try asks again (no remembered refusal)
    browser.find_element(By.ID, "go").click()
    wait_for(browser, lambda d: d.current_url.endswith("/ui/table.html") and text(d, "#who") == "bob (pit)")


# -- the command forms ------------------------------------------------------------------------


def codes(driver, css: str) -> list[str]:
    return fresh(
        lambda: [c.get_attribute("data-code") for c in driver.find_elements(By.CSS_SELECTOR, f"{css} .card")]
    )


def command_forms(driver) -> dict[str, bool]:
    """The command forms on the table page: id -> shown."""
    return fresh(
        lambda: {
            f.get_attribute("id"): f.is_displayed()
            for f in driver.find_elements(By.CSS_SELECTOR, "#commands form")
        }
    )


def shown(driver) -> set[str]:
    return {name for name, visible in command_forms(driver).items() if visible}


def submit(driver, form_id: str, **values: str) -> None:
    """Fill a form's fields by name and press its button; all of it again when the page redrew
    the form meanwhile (a stale element is refused before it is typed into or clicked)."""

    def once() -> None:
        form = driver.find_element(By.ID, form_id)
        for name, value in values.items():
            field = form.find_element(By.NAME, name)
            if field.tag_name == "select":
                Select(field).select_by_value(value)
            else:
                field.clear()
                field.send_keys(value)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    fresh(once)


def form_error(driver, form_id: str) -> str:
    return fresh(lambda: driver.find_element(By.CSS_SELECTOR, f"#{form_id} .form-error").text)


def nav_links(driver) -> list[str]:
    return fresh(lambda: [a.text for a in driver.find_elements(By.CSS_SELECTOR, "nav a")])


def events(api: Api, round_id: str) -> list[dict]:
    return api.get(f"/api/rounds/{round_id}").json()["events"]


def test_a_dealer_plays_a_round_from_the_forms_and_the_pit_overrides_the_deviation(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["dealer"])
    wait_for(browser, lambda d: shown(d) == {"open-round"})
    assert set(command_forms(browser)) == {
        "open-round",
        "player-setting",
        "dealer-setting",
    }  # no void, override, open/close
    assert nav_links(browser) == ["Table"] and text(browser, "#who") == "ann (dealer)"

    submit(browser, "open-round", **{"main-3": "25.555"})  # refused on the page: nothing is sent
    wait_for(
        browser,
        lambda d: (
            form_error(d, "open-round")
            == 'position 3: "25.555" is not an amount in dollars and cents (like 25 or 25.50)'
        ),
    )
    submit(browser, "open-round", **{"main-3": "4.99"})  # below the table's minimum: the API's reason
    wait_for(
        browser,
        lambda d: form_error(d, "open-round") == "Position 3, main wager: must be at least $5.00.",
    )
    assert api.service.round.round_id == "t1-2"

    submit(browser, "open-round", **{"main-3": "25", "main-5": "10.10"})
    wait_for(
        browser,
        lambda d: text(d, "#phase") == "wagers in, waiting for the dice" and text(d, "#round-id") == "t1-3",
    )
    assert {p: w.main for p, w in api.service.round.wagers.items()} == {3: 2500, 5: 1010}
    assert shown(browser) == set()

    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    wait_for(browser, lambda d: shown(d) == {"player-setting"})  # the dealer's page looks every 2 s
    submit(browser, "player-setting", position="3", high="As Ah 9c 8c 3c", low="Kd Kh")
    wait_for(
        browser,
        lambda d: (
            form_error(d, "player-setting")
            == "A player's setting refused (players' hands to set): setting is not position 3's seven cards"
        ),
    )
    submit(browser, "player-setting", position="3", high="As Ah 9c 8c 2c", low="Kd Kh")
    wait_for(
        browser,
        lambda d: codes(d, 'tr[data-position="3"]')[-7:] == ["As", "Ah", "9c", "8c", "2c", "Kd", "Kh"],
    )
    options = fresh(
        lambda: [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#player-setting option")]
    )
    assert options == ["5"]
    submit(browser, "player-setting", position="5", high="Kc 8d 6s 4h 3c", low="Qh Jd")
    wait_for(browser, lambda d: shown(d) == {"dealer-setting"})

    submit(browser, "dealer-setting", high=" ".join(MIS_SET["high"]), low=" ".join(MIS_SET["low"]))
    wait_for(browser, lambda d: d.find_element(By.ID, "deviation").is_displayed())
    assert (
        codes(browser, "#deviation-high") == HOUSE_WAY["high"]
        and codes(browser, "#deviation-low") == HOUSE_WAY["low"]
    )
    assert text(browser, "#deviation-rule") == "high-card.second-and-fourth"
    assert form_error(browser, "dealer-setting").startswith(
        "The dealer's setting refused (dealer's hand to set): setting deviates"
    )
    assert api.service.round.phase == "dealer-setting" and shown(browser) == {"dealer-setting"}

    browser.find_element(By.ID, "sign-out").click()  # the pit comes to the table
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: shown(d) == {"dealer-setting", "override", "void", "open-close"})
    assert text(browser, "#deviation-rule") == "high-card.second-and-fourth"
    assert codes(browser, "#deviation-proposed") == MIS_SET["high"] + MIS_SET["low"]
    override = browser.find_element(By.ID, "override")
    assert [override.find_element(By.NAME, n).get_attribute("value") for n in ("high", "low")] == [
        " ".join(MIS_SET["high"]),
        " ".join(MIS_SET["low"]),
    ]  # offered: the setting the dealer made
    submit(browser, "override", reason="ok")
    wait_for(
        browser,
        lambda d: form_error(d, "override") == "Reason: String should have at least 3 characters.",
    )
    submit(browser, "override", reason="approved misread")
    wait_for(browser, lambda d: text(d, "#phase") == "every hand set, waiting for settlement")
    wait_for(browser, lambda d: "override by bob" in text(d, 'tr[data-position="1"]'))
    wait_for(
        browser,
        lambda d: "override: bob let the dealer's setting stand: approved misread" in text(d, "#alerts"),
    )
    assert not browser.find_element(By.ID, "deviation").is_displayed()
    [overridden] = [e for e in events(api, "t1-3") if e["kind"] == "dealer.override"]
    assert (overridden["actor"], overridden["payload"]["reason"]) == ("bob", "approved misread")
    api.service.settle()
    wait_for(browser, lambda d: text(d, "#phase") == "settled" and shown(d) == {"open-round", "open-close"})


def test_the_pit_opens_and_voids_a_round_and_closes_and_reopens_the_table(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: shown(d) == {"open-round", "open-close"})
    assert set(command_forms(browser)) == {
        "open-round",
        "player-setting",
        "dealer-setting",
        "override",
        "void",
        "open-close",
    }
    # a double submit sends one request: the form's controls are disabled while it is in flight
    browser.execute_script("""
        window.posts = 0;
        const fetchOnce = window.fetch;
        window.fetch = (url, init) => {
            if (init && init.method === "POST") window.posts += 1;
            return fetchOnce(url, init);
        };""")
    for name, value in {"main-2": "5", "main-7": "1000.00"}.items():
        browser.find_element(By.NAME, name).send_keys(value)
    disabled = browser.execute_script("""
        const button = document.querySelector("#open-round button[type=submit]");
        button.click(); button.click();
        return document.querySelector("#open-round fieldset").disabled;""")
    assert disabled is True
    wait_for(
        browser,
        lambda d: text(d, "#phase") == "wagers in, waiting for the dice" and text(d, "#round-id") == "t1-3",
    )
    assert browser.execute_script("return window.posts") == 1
    assert {p: w.main for p, w in api.service.round.wagers.items()} == {2: 500, 7: 100000}
    wait_for(browser, lambda d: shown(d) == {"void", "open-close"})

    submit(browser, "void", reason="wagers placed late")
    wait_for(browser, lambda d: text(d, "#phase") == "void, wagers returned")
    wait_for(browser, lambda d: "void: bob voided the round: wagers placed late" in text(d, "#alerts"))
    [voided] = [e for e in events(api, "t1-3") if e["kind"] == "round.voided"]
    assert (voided["actor"], voided["payload"]["reason"]) == ("bob", "wagers placed late")

    wait_for(browser, lambda d: d.find_element(By.ID, "open-close-button").text == "Close table")
    browser.find_element(By.ID, "open-close-button").click()
    wait_for(browser, lambda d: text(d, "#table-open") == "TABLE CLOSED" and shown(d) == {"open-close"})
    assert browser.find_element(By.ID, "open-close-button").text == "Open table"
    refused = api.post("/api/round", "dealer", json=WAGERS)
    assert (refused.status_code, refused.json()["detail"]) == (409, "round.open refused: the table is closed")
    browser.find_element(By.ID, "open-close-button").click()
    wait_for(
        browser, lambda d: text(d, "#table-open") == "table open" and shown(d) == {"open-round", "open-close"}
    )
    stored = api.get("/api/stream", params={"after": 0, "follow": "false"}).text
    kinds = [
        (e["kind"], e["actor"])
        for e in map(json.loads, re.findall(r"^data: (.*)$", stored, re.M))
        if e["kind"] in ("table.closed", "table.opened")
    ]  # (each also chains a system table.state)
    assert kinds == [("table.closed", "bob"), ("table.opened", "bob")]


CENTS = {
    "25": 2500,
    "25.5": 2550,
    "0.1": 10,
    "0.10": 10,
    "1.1": 110,
    "4.35": 435,
    "0.29": 29,
    " 7.25 ": 725,
    "00012": 1200,
    "9999999999.99": 999999999999,
    "1.005": None,
    "-1": None,
    "": None,
    "25.": None,
    ".5": None,
    "1e3": None,
    "1,000": None,
    "$5": None,
    "0x10": None,
    "NaN": None,
    "12345678901": None,
}
"""Typed wager -> integer cents (None: refused). 1.1, 4.35 and 0.29 are where float arithmetic
(x * 100) is off by a hair (110.00000000000001, 434.99999999999994, 28.999999999999996)."""


def test_surveillance_gets_no_forms_and_the_pages_hold_the_csp(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["surveillance"])
    wait_for(browser, lambda d: text(d, "#round-id") == "t1-2")
    assert command_forms(browser) == {} and browser.find_elements(By.TAG_NAME, "form") == []
    assert nav_links(browser) == [
        "Table",
        "History",
        "Alerts",
        "Analysis",
        "Accounting",
        "Ratings",
        "Reports",
    ]
    browser.get(f"{base}/ui/alerts.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 2)
    assert browser.find_elements(By.TAG_NAME, "form") == []  # no acknowledge either
    browser.get(f"{base}/ui/round.html?id=t1-2")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps .step")) == 10)
    steps = [step.text for step in browser.find_elements(By.CSS_SELECTOR, "#steps .step")]
    # each step that sets hands names them as the dealer reads them (api/hand_view.py)
    position_3 = next(step for step in steps if "set position 3" in step)
    assert "pair of aces" in position_3 and "pair of kings" in position_3
    refused = next(step for step in steps if "deviation refused" in step)
    assert refused.count("ace high") == 2 and "queen-nine" in refused and "queen-seven" in refused
    browser.get(f"{base}/ui/history.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".round-row")) == 2)

    parsed = browser.execute_async_script(
        """
        const [cases, done] = arguments;
        import("./app.js").then((app) => done(cases.map((typed) => app.parseCents(typed))));""",
        list(CENTS),
    )
    assert dict(zip(CENTS, parsed, strict=False)) == CENTS

    assert csp_violations(browser) == []  # so far nothing was blocked; the policy is in force:
    browser.execute_script("""
        const script = document.createElement("script");
        script.textContent = "window.inlineRan = true;";
        document.body.append(script);
        document.body.setAttribute("style", "background: red");""")
    assert browser.execute_script("return window.inlineRan === undefined") is True
    reports: list[str] = []
    wait_for(browser, lambda d: reports.extend(csp_violations(d)) or len(reports) >= 2)
    assert any("inline script" in r and "script-src 'self'" in r for r in reports), reports
    assert any("inline style" in r and "style-src 'self'" in r for r in reports), reports
    assert browser.execute_script("return document.body.style.background") == ""


def test_the_admin_adds_a_person_and_sees_the_token_once(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["admin"], page="admin.html")
    wait_for(
        browser,
        lambda d: (
            [r.get_attribute("data-name") for r in d.find_elements(By.CSS_SELECTOR, ".user-row")]
            == ["ann", "bob", "cy", "dee"]
        ),
    )
    assert nav_links(browser) == ["Users"]
    submit(browser, "add-user", name="Eve")
    wait_for(
        browser,
        lambda d: form_error(d, "add-user").startswith("Name: 'Eve' is not a person's name: lowercase"),
    )
    submit(browser, "add-user", name="eve", role="pit")
    wait_for(browser, lambda d: d.find_element(By.ID, "new-token").is_displayed())
    token = text(browser, "#new-token-value")
    assert token.startswith("pgt_") and text(browser, "#new-token-name") == "eve (pit)"
    me = api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json() == {
        "name": "eve",
        "role": "pit",
        "permissions": [
            "read-table",
            "play",
            "void",
            "override",
            "acknowledge",
            "open-close",
            "audit",
            "confirm",
            "account",
            "sign",
            "see-face-down",
            "rate",
            "limits",
        ],
        "confirmed": False,  # keyed by the admin: waits for a second admin (docs/api.md, "Two people")
    }
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".user-row")) == 5)
    submit(browser, "add-user", name="eve", role="dealer")
    wait_for(browser, lambda d: form_error(d, "add-user") == "user 'eve' already exists")

    browser.refresh()  # shown once: it is kept nowhere
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".user-row")) == 5)
    assert token not in browser.page_source and not browser.find_element(By.ID, "new-token").is_displayed()

    eve = 'tr[data-name="eve"]'
    browser.find_element(By.CSS_SELECTOR, f"{eve} form.disable button").click()
    wait_for(browser, lambda d: text(d, f"{eve} .status") == "disabled")
    assert api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    browser.find_element(By.CSS_SELECTOR, f"{eve} form.new-key button").click()
    wait_for(
        browser,
        lambda d: text(d, "#new-token-value").startswith("pgt_") and text(d, f"{eve} .status") == "active",
    )
    new_token = text(browser, "#new-token-value")
    assert new_token != token
    assert api.client.get("/api/me", headers={"Authorization": f"Bearer {new_token}"}).json()["name"] == "eve"
    assert api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    browser.find_element(By.ID, "new-token-done").click()
    assert new_token not in browser.page_source

    browser.get(f"{base}/ui/table.html")  # the admin has no table page
    wait_for(browser, lambda d: d.current_url.endswith("/ui/admin.html"))


# -- when things go wrong -----------------------------------------------------------------------

BANNER = "#controller-banner"
DOWN_DEVICE = re.compile(r"^shuffler: unknown — no answer from the controller since \d\d:\d\d:\d\d$")


class Controller:
    """A second server of the same table (same service, same store) that the browser talks to,
    stopped and started again on the same port as a daemon is; the test sets the table up
    through the fixture's own server meanwhile."""

    def __init__(self, api: Api, secret_file: Path) -> None:
        self.api = api
        # as a daemon configured with http.session_secret_file: a restart keeps browsers signed in
        settings = api.service.settings
        self.settings = settings.model_copy(
            update={"http": settings.http.model_copy(update={"session_secret_file": secret_file})}
        )
        self.port = 0
        self.base = ""
        self._running: ExitStack | None = None

    def start(self) -> str:
        app = create_app(self.settings, self.api.service, self.api.engine, poll_interval=0.05)
        self._running = ExitStack()
        self.base = self._running.enter_context(serving(app, port=self.port))
        self.port = int(self.base.rsplit(":", 1)[1])
        return self.base

    def stop(self) -> None:
        assert self._running is not None
        self._running.close()
        self._running = None


@pytest.fixture
def controller(site, tmp_path) -> Iterator[Controller]:
    running = Controller(site[1], tmp_path / "session.key")
    running.start()
    try:
        yield running
    finally:
        if running._running is not None:
            running.stop()


def screenshot(driver, name: str) -> None:
    """Keep a picture of the page to look at, when TABLE_TEST_SCREENSHOTS names a folder."""
    folder = os.environ.get("TABLE_TEST_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / name))


def banner_shown(driver) -> bool:
    found = driver.find_elements(By.CSS_SELECTOR, BANNER)
    return bool(found) and found[0].is_displayed()


def test_the_pages_say_when_the_controller_stops_answering_and_refresh_when_it_is_back(controller, browser):
    api = controller.api
    sign_in(browser, controller.base, api.tokens["pit"])
    wait_for(
        browser, lambda d: text(d, "#round-id") == "t1-2" and text(d, "#devices").startswith("shuffler: ok")
    )
    assert not banner_shown(browser)

    controller.stop()
    wait_for(browser, lambda d: banner_shown(d))
    banner = text(browser, BANNER)
    assert re.fullmatch(
        r"The table controller is not answering \(nothing since \d\d:\d\d:\d\d\)\. What this page "
        r"shows may be out of date; it will refresh when the controller answers again\.",
        banner,
    ), banner
    # device health no longer claims "ok, last frame ... ago": nobody is saying so any more
    wait_for(browser, lambda d: DOWN_DEVICE.match(text(d, '#devices li[data-device="shuffler"]')))
    assert text(browser, "#error") == ""  # no small "Failed to fetch" beside the banner
    screenshot(browser, "table-controller-down.png")
    browser.execute_script("document.getElementById('devices').scrollIntoView()")
    screenshot(browser, "table-devices-down.png")

    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201  # the table goes on meanwhile
    controller.start()
    wait_for(
        browser,
        lambda d: (
            not banner_shown(d)
            and text(d, "#round-id") == "t1-3"
            and text(d, "#phase") == "wagers in, waiting for the dice"
        ),
    )
    assert text(browser, '#devices li[data-device="shuffler"]') == "shuffler: ok · link never up"
    voided = api.post("/api/round/void", "pit", json={"reason": "testing the stream"})
    assert voided.status_code == 200, voided.text
    wait_for(browser, lambda d: text(d, "#phase") == "void, wagers returned")  # the stream is followed again

    # a page that neither polls nor follows the stream notices too (it asks when all is quiet)
    browser.get(f"{controller.base}/ui/round.html?id=t1-1")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps .step")) > 0)
    controller.stop()
    wait_for(browser, lambda d: banner_shown(d), timeout=15)
    controller.start()
    wait_for(browser, lambda d: not banner_shown(d), timeout=15)
    assert text(browser, "#error") == ""


def test_the_alerts_page_tells_a_dealer_once_and_asks_nothing_it_would_be_refused(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["dealer"])
    browser.get(f"{base}/ui/alerts.html")
    wait_for(
        browser,
        lambda d: (
            text(d, "#error") == "Alerts are for the pit and surveillance: the dealer role cannot see them."
        ),
    )
    browser.execute_script("window.setTimeout(() => { window.waited = true; }, 2500)")
    wait_for(browser, lambda d: d.execute_script("return window.waited === true"))
    asked = browser.execute_script("""
        return performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
            .filter((path) => path.startsWith("/api/"));""")
    assert asked == ["/api/me"]  # who am I, once: no /api/alerts, no /api/stream (403 every second before)
    assert browser.find_elements(By.CSS_SELECTOR, ".alert-row") == []


def test_the_history_rows_follow_a_round_being_played_until_it_closes(site, browser):
    base, api = site
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    sign_in(browser, base, api.tokens["surveillance"])
    browser.get(f"{base}/ui/history.html")

    def phases(driver) -> dict[str, str]:
        return {
            r.get_attribute("data-round"): r.find_element(By.CSS_SELECTOR, ".round-phase").text
            for r in driver.find_elements(By.CSS_SELECTOR, ".round-row")
        }

    wait_for(
        browser,
        lambda d: phases(d) == {"t1-3": "players' hands to set", "t1-2": "settled", "t1-1": "settled"},
    )
    set_player_hands(api)
    assert api.post("/api/round/dealer/setting", "dealer", json=HOUSE_WAY).status_code == 200
    api.service.settle()
    wait_for(browser, lambda d: phases(d)["t1-3"] == "settled")  # not the phase it had when the page was read
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    wait_for(
        browser,
        lambda d: (
            [r.get_attribute("data-round") for r in d.find_elements(By.CSS_SELECTOR, ".round-row")]
            == ["t1-4", "t1-3", "t1-2", "t1-1"]
        ),
    )
    assert phases(browser)["t1-4"] == "wagers in, waiting for the dice"


def test_the_table_page_marks_a_fouled_hand(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#round-id") == "t1-2")
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    # position 3 puts its aces in front of its kings: the low hand outranks the high hand (001)
    api.post(
        "/api/round/players/3/setting",
        "dealer",
        json={"high": ["Kd", "Kh", "9c", "8c", "2c"], "low": ["As", "Ah"]},
    )
    api.post(
        "/api/round/players/5/setting",
        "dealer",
        json={"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]},
    )
    wait_for(
        browser,
        lambda d: (
            text(d, "#phase") == "dealer's hand to set" and len(codes(d, 'tr[data-position="5"]')) == 14
        ),
    )
    fouled = browser.find_element(By.CSS_SELECTOR, 'tr[data-position="3"]')
    assert "fouled" in fouled.get_attribute("class").split()
    assert fouled.find_element(By.CSS_SELECTOR, ".foul-mark").text == "FOUL"
    legal = browser.find_element(By.CSS_SELECTOR, 'tr[data-position="5"]')
    assert "fouled" not in (legal.get_attribute("class") or "").split()
    assert legal.find_elements(By.CSS_SELECTOR, ".foul-mark") == []
    screenshot(browser, "table-foul.png")


def test_the_table_page_shows_each_setting_sorted_as_a_dealer_reads_it_and_named(site, browser):
    """Position 3 hands its cards in out of order; the page reads them as a dealer would: the pair
    first, then the kickers high to low, each hand named (002), never the category's word."""
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#round-id") == "t1-2")
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
    shuffled = {"high": ["9c", "As", "2c", "Ah", "8c"], "low": ["Kh", "Kd"]}
    assert api.post("/api/round/players/3/setting", "dealer", json=shuffled).status_code == 200
    row = 'tr[data-position="3"] td:nth-child(4)'
    wait_for(browser, lambda d: len(codes(d, row)) == 7)
    assert codes(browser, row) == ["As", "Ah", "9c", "8c", "2c", "Kh", "Kd"]
    names = [n.text for n in browser.find_elements(By.CSS_SELECTOR, f"{row} .hand-name")]
    assert names == ["pair of aces", "pair of kings"]
    # the house way's setting of the banker's hand, named too (A-9-5-3-2 | Q-7: 002, High Card)
    assert [n.text for n in browser.find_elements(By.CSS_SELECTOR, "#house-way-setting .hand-name")] == [
        "ace high",
        "queen-seven",
    ]
    # the rule's words without the row's empty cell (game/house_way/wording.py)
    assert "| |" not in text(browser, "#house-way")
    assert text(browser, "#house-way").startswith("Rule high-card.second-and-fourth: High Card | 1st highest")


def test_the_table_page_shows_a_hold_and_the_pit_clears_it_after_a_clean_deck_check(site, browser):
    """Two misdeals in a row hold the table: the page says why and what the deck check found; the
    clear is offered to the pit only once the last check was clean (docs/round-lifecycle.md)."""
    from table_controller.table.state import DeckCheck

    base, api = site
    for _ in range(2):
        assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201
        api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
        piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
        unused[0] = piles[2][0]  # the same card twice: a misdeal
        api.service.record_deal(PilesDealt(piles=piles, unused=unused))
    api.service.record_deck_check(DeckCheck(complete=False, scanned=53, missing=("2c",)))
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: "2 misdeals in a row" in text(d, "#table-hold-reason"))
    assert text(browser, "#deck-check") == "deck not clean: missing 2c; 53 scanned"
    clear = browser.find_element(By.ID, "clear-hold")
    assert clear.is_displayed() and not clear.is_enabled()  # not while the last check was not clean
    browser.find_element(By.ID, "ask-deck-check").click()
    wait_for(browser, lambda d: text(d, "#deck-check") == "running…")
    api.service.record_deck_check(DeckCheck(complete=True, scanned=53))
    wait_for(browser, lambda d: d.find_element(By.ID, "clear-hold").is_enabled())
    browser.find_element(By.ID, "clear-hold").click()
    wait_for(browser, lambda d: not d.find_element(By.ID, "holds").is_displayed())
    assert api.service.hold is None


@pytest.fixture
def large_rounds_site(tmp_path) -> Iterator[tuple[str, Api]]:
    """A table where every void or override waits for a second pit user (second_pit_above 0)."""
    settings = TableSettings(table_id="t1", second_pit_above=0)
    with served_api(tmp_path, poll_interval=0.05, settings=settings) as (_, base, api):
        with unit_of_work(api.engine) as session:
            api.tokens["second-pit"] = add_user(session, name="pia", role="pit")
        yield base, api


def test_a_void_that_waits_for_a_second_pit_user_is_confirmed_from_the_page(large_rounds_site, browser):
    base, api = large_rounds_site
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: "void" in shown(d))
    submit(browser, "void", reason="wagers placed late")
    wait_for(browser, lambda d: "a second pit user confirms it" in text(d, "#approval-note"))
    wait_for(
        browser,
        lambda d: "void of t1-1" in text(d, ".approval-row") and "asked by bob" in text(d, ".approval-row"),
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, ".approval-row")) == 1
    assert browser.find_elements(By.CSS_SELECTOR, ".approval-row .confirm") == []  # bob asked: not bob's
    assert api.service.round.phase.value == "open"

    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    sign_in(browser, base, api.tokens["second-pit"])
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".approval-row .confirm button")) == 1)
    browser.find_element(By.CSS_SELECTOR, ".approval-row .confirm button").click()
    wait_for(browser, lambda d: text(d, "#phase") == "void, wagers returned")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".approval-row") == [])
    [void] = [a for a in api.get("/api/alerts").json() if a["alert"] == "void"]
    assert (void["actor"], void["data"]["confirmed_by"]) == ("bob", "pia")


def test_the_admin_page_shows_a_key_waiting_and_a_second_admin_confirms_it(site, browser):
    base, api = site
    created = api.post("/api/users", "admin", json={"name": "gus", "role": "pit"})
    assert created.status_code == 201
    with unit_of_work(api.engine) as session:
        eli = add_user(session, name="eli", role="admin")
    sign_in(browser, base, eli, page="admin.html")
    row = '.user-row[data-name="gus"]'
    wait_for(browser, lambda d: "keyed by dee: waits for a second admin" in text(d, f"{row} .key"))
    browser.find_element(By.CSS_SELECTOR, f"{row} .confirm button").click()
    wait_for(browser, lambda d: text(d, f"{row} .key") == "confirmed by eli")
    assert browser.find_elements(By.CSS_SELECTOR, f"{row} .confirm") == []


def test_signed_in_once_a_report_and_the_table_open_from_plain_links(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    cookies = {c["name"]: c for c in browser.get_cookies()}
    assert cookies["tc-session"]["httpOnly"] and cookies["tc-session"]["sameSite"] == "Strict"
    assert browser.execute_script("return sessionStorage.length") == 0  # no token kept by the page
    assert browser.execute_script("return document.cookie") == ""  # and none a script can read
    today = time.strftime("%Y-%m-%d", time.gmtime())
    browser.get(f"{base}/api/reports/day?date={today}")  # a plain link: no token pasted
    report = json.loads(browser.find_element(By.TAG_NAME, "pre").text)
    assert report["kind"] == "day" and report["total"]["rounds"] == 2
    browser.get(f"{base}/ui/table.html")
    wait_for(browser, lambda d: text(d, "#round-id") == "t1-2")
    browser.find_element(By.ID, "sign-out").click()
    wait_for(browser, lambda d: d.current_url.endswith("/ui/index.html"))
    browser.get(f"{base}/api/reports/day?date={today}")
    assert json.loads(browser.find_element(By.TAG_NAME, "pre").text)["error"] == "unauthorized"
    assert not csp_violations(browser)


def test_the_reports_page_lists_days_and_shifts_with_links_that_open_with_the_session(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["pit"])
    browser.get(f"{base}/ui/reports.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#days .report-row")) == 7)
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#shifts .report-row")) == 3)
    today = time.strftime("%Y-%m-%d", time.gmtime())  # the table's time zone: UTC by default
    day = browser.find_element(By.CSS_SELECTOR, f'#days .report-row[data-key="{today}"]')
    assert "2 rounds" in day.text  # t1-1 settled, t1-2 settled by override
    # the gaming day's accounting: nothing counted at this table yet (docs/accounting.md)
    assert "not counted yet: t1: opener, t1: closer" in day.find_element(By.CSS_SELECTOR, ".accounting").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#shifts .report-row")
    shifts = [fresh(lambda r=r: r.text) for r in rows]
    assert sum(int(re.search(r"(\d+) rounds?", s).group(1)) for s in shifts) == 2, shifts
    links = day.find_elements(By.CSS_SELECTOR, "a.report-link")
    assert [a.text for a in links] == ["report", "CSV"]
    assert links[1].get_attribute("href").startswith(f"{base}/api/reports/day.csv?date={today}")
    links[0].click()  # a plain link: the session cookie, no token
    report = json.loads(wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "pre")).text)
    assert report["kind"] == "day" and report["total"]["rounds"] == 2
    assert not csp_violations(browser)


def test_a_pit_user_is_not_offered_the_acknowledgement_of_their_own_act(site, browser):
    base, api = site
    # bob overrode t1-2: its override alert and its house-way deviation are another pit user's
    by_bob = {a["alert"]: a["may_acknowledge"] for a in api.get("/api/alerts", "pit").json()}
    assert by_bob == {"house-way-deviation": False, "override": False}
    assert {a["may_acknowledge"] for a in api.get("/api/alerts", "surveillance").json()} == {False}
    with unit_of_work(api.engine) as session:
        pia = add_user(session, name="pia", role="pit")
    answer = api.client.get("/api/alerts", headers={"Authorization": f"Bearer {pia}"}).json()
    assert {a["may_acknowledge"] for a in answer} == {True}
    sign_in(browser, base, api.tokens["pit"])
    browser.get(f"{base}/ui/alerts.html")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row")) == 2)
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".alert-row .own-act")) == 2)
    assert browser.find_elements(By.CSS_SELECTOR, ".alert-row input.note") == []
    assert browser.find_elements(By.CSS_SELECTOR, ".alert-row button.ack") == []
    assert "a second pit user acknowledges it" in text(browser, ".alert-row .own-act")
    assert not csp_violations(browser)


def test_the_today_line_counts_every_round_and_those_without_a_theoretical_win(site, browser):
    base, api = site
    today = api.get("/api/analysis/today").json()
    # t1-1 and t1-2 were opened and settled today; no analysis worker runs here, so neither
    # carries a theoretical win: the band covers no round, the count says all of them
    assert (today["rounds_opened"], today["rounds_settled"], today["rounds"]) == (2, 2, 0)
    assert today["rounds_without_theoretical"] == 2
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201  # a third, in progress
    sign_in(browser, base, api.tokens["pit"])
    wait_for(browser, lambda d: text(d, "#today-band").startswith("3 rounds today"))
    assert text(browser, "#today-band") == (
        "3 rounds today, 2 settled; 2 settled without a theoretical win yet."
        " No round with a theoretical win yet."
    )
    assert not csp_violations(browser)
