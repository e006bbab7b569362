"""The live table page with a player's bank (docs/api.md, Pages; docs/settlement.md, 8), in a real
headless browser: the dealer opens a player-banked round from the form, the page says who banks,
the bank's exposure and the co-banking share, and shows the house's own hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.settings import TableSettings
from table_controller.storage import make_engine, sqlite_url, upgrade_to_head
from table_controller.table.service import TableService

from ..round.tables import deal
from .conftest import add_people
from .test_pages_browser import (
    form_error,
    sign_in,
    submit,
    text,
    wait_for,
)


@pytest.fixture
def banked_site(tmp_path) -> Iterator[tuple[str, TableService, dict[str, str]]]:
    engine = make_engine(sqlite_url(tmp_path))
    try:
        upgrade_to_head(engine)
        # a house option departing from 002 ("rounded up"), named on the table page; the money
        # below is the same either way (5% of $5.00 is a whole quarter)
        settings = TableSettings(
            table_id="t1",
            banking={"policy": "rotation", "house_wager": "table-minimum"},
            rules={"commission": {"kind": "percent", "rounding": "down"}},
        )
        service = TableService(settings, engine)
        tokens = add_people(engine)
        with serving(create_app(settings, service, engine, poll_interval=0.05)) as base:
            yield base, service, tokens
    finally:
        engine.dispose()


def test_the_dealer_opens_a_co_banked_round_and_the_page_shows_the_bank(banked_site, browser):
    base, service, tokens = banked_site
    sign_in(browser, base, tokens["dealer"])
    wait_for(browser, lambda d: d.find_element("id", "open-round").is_displayed())
    wait_for(browser, lambda d: text(d, "#rules-commission") != "")
    assert text(browser, "#rules-departure-rules-commission-rounding") == (
        "the commission is rounded down, not up: rules.commission.rounding = down, where "
        '002_08ea07f9e4b504bc.txt says "Commission is rounded up to a quarter of the lowest chip '
        'denomination in the game"'
    )
    assert (
        text(browser, "#bank-last-offer")
        == "rotation; last offered: the house; co-banking share of the house 50%"
    )
    # seat 5 asks to bank against position 5 (seat 2): the rotation offers the bank to seat 2 first
    submit(browser, "open-round", **{"main-5": "25", "banker": "5", "bank": "100"})
    wait_for(browser, lambda d: "offered to seat 2" in form_error(d, "open-round"))
    browser.find_element("css selector", '#open-round input[name="co_bank"]').click()
    submit(browser, "open-round", **{"main-5": "", "main-2": "25", "banker": "2", "bank": "12"})
    # seat 2 banks against position 2 (seat 3): $25 + the house's $5 = $30, the player's half
    # $15: $12 is $3 short
    wait_for(browser, lambda d: "short by $3.00" in form_error(d, "open-round"))
    submit(browser, "open-round", **{"main-2": "25", "banker": "2", "bank": "15"})
    wait_for(browser, lambda d: text(d, "#phase") == "wagers in, waiting for the dice")
    bank = service.round.opened.bank
    assert (bank.seat, bank.amount, bank.house_share_bp) == (2, 1500, 5000)
    assert text(browser, "#banker") == (
        "Seat 2 (position 1): bank $15.00, exposure $30.00; the house's hand at position 7 wagers $5.00; "
        "co-banked: the house 50%, the player 50%"
    )
    assert text(browser, 'tr[data-position="1"] td') == "1 (banker: seat 2)"
    assert text(browser, 'tr[data-position="7"] td') == "7 (the house)"

    # the round played to the end: the co-banked banker sets by the house way
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker"))
    piles, unused = deal(
        {1: "9h 9d Kc 7s 4h Qd 5c", 2: "Th Td As 8c 3s Kd Jc", 7: "3d 3c 9s 8s 6d 4c 2d"}, start=3
    )
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(2, ["Th", "Td", "As", "8c", "3s"], ["Kd", "Jc"], actor="ann")
    service.set_dealer(["9h", "9d", "7s", "5c", "4h"], ["Kc", "Qd"], actor="ann")
    service.settle()
    # position 2 pushes (tens win, K-J loses to K-Q); the house's threes lose both: the bank wins
    # $5, pays 5% = $0.25, nets $4.75, half of it $2.375 -> $2.37 to the banker (the odd cent to
    # the house)
    sign_in(browser, base, tokens["pit"])  # the round's detail is for the pit and surveillance
    browser.get(f"{base}/ui/round.html?id=t1-1")
    wait_for(browser, lambda d: text(d, "#banker").startswith("banked by seat 2"))
    assert text(browser, "#banker") == (
        "banked by seat 2 (position 1): bank $15.00, the house's hand $5.00, "
        "co-banked (the house's share 50%); the bank won $5.00 gross, paid $0.25 commission, "
        "the banker's result $2.37"
    )
    # the header counts the bank's commission: no position paid any, the bank $0.25
    assert "commission $0.25 (the bank's $0.25)" in text(browser, "#facts")
    # the house's hand shows how the house way set it (3-3 behind, 9-8 in front)
    house = browser.find_elements("css selector", 'tr.position-row[data-position="7"] td')
    high = [c.get_attribute("data-code") for c in house[2].find_elements("css selector", ".card")]
    low = [c.get_attribute("data-code") for c in house[3].find_elements("css selector", ".card")]
    assert (high, low) == (["3d", "3c", "6d", "4c", "2d"], ["9s", "8s"])
