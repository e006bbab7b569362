"""The progressive meters on the pages (docs/progressive.md, "The meter page"), in a real headless
browser: the meter page and the table page follow the pool's stream, the meter moves when the
wagers lock, a hit shows as WIN with its table, seat, amount and the new amount and as PENDING
until the pit pays it, and the table page then shows the award paid by an attendant (PRG-11,
PRG-13, PRG-25, PRG-26, PRG-49). Figures as in test_progressive_displays.py: 45 cents on the
jackpot ($10,000.45), five aces at position 3 win $1,000.04, the meter resets to $10,000.00."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table_controller.round.events import DiceRolled, PilesDealt

from ..browser import csp_violations
from ..round.tables import deal
from ..test_progressive_pool import HANDS
from .conftest import Api, served_api
from .test_pages_browser import sign_in, text, wait_for
from .test_progressive_displays import SETTINGS, WAGERS


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Api]]:
    with served_api(tmp_path, poll_interval=0.05, settings=SETTINGS) as (_, base, api):
        api.service.resume()
        yield base, api


def finish(api: Api) -> None:
    """Deal the hands and settle by the house way (tests/test_side_wagers_round.play, after its dice)."""
    service = api.service
    piles, unused = deal(HANDS, start=3)
    state = service.record_deal(PilesDealt(piles=piles, unused=unused))
    rules = service.round_rules
    for position in sorted(state.wagers):
        setting = rules.house_way_setting(state.hands[position])
        high, low = [c.code for c in setting.high], [c.code for c in setting.low]
        service.set_player(position, high, low, actor="ann")
    required = service.round.required.setting
    service.set_dealer([c.code for c in required.high], [c.code for c in required.low], actor="ann")
    service.settle()


def test_the_meter_page_follows_the_pool_from_the_wagers_to_the_payment(site, browser):
    base, api = site
    sign_in(browser, base, api.tokens["dealer"])
    wait_for(browser, lambda d: "$10,000.00" in text(d, '#progressive-levels tr[data-level="jackpot"]'))
    browser.get(f"{base}/ui/meter.html")  # the table's own pool, found from /api/table
    wait_for(browser, lambda d: text(d, '.meter-level[data-level="jackpot"] .meter-amount') == "$10,000.00")
    assert "limit $500,000.00" in text(browser, '.meter-level[data-level="jackpot"] .meter-limit')
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))  # the lock: three contributions
    wait_for(browser, lambda d: text(d, '.meter-level[data-level="jackpot"] .meter-amount') == "$10,000.45")
    finish(api)
    wait_for(browser, lambda d: "WIN" in text(d, "#win"))
    win = text(browser, "#win")
    assert "table t1 seat 3: $1,000.04 (jackpot, five aces)" in win and "new jackpot: $10,000.00" in win
    assert text(browser, "#pending") == "PENDING table t1 seat 3: $1,000.04 (jackpot)"
    assert text(browser, '.meter-level[data-level="jackpot"] .meter-amount') == "$10,000.00"
    row = text(browser, '#hits tr[data-hit="1"]')
    assert "t1 3 jackpot five aces $1,000.04 $10,000.00 PENDING" in row
    assert api.post("/api/progressive/t1/hits/1/pay", "pit", json={"verified_by": "cy"}).status_code == 200
    wait_for(browser, lambda d: text(d, '#hits tr[data-hit="1"]').endswith("paid"))
    assert browser.find_element("id", "pending").get_attribute("hidden") is not None
    browser.get(f"{base}/ui/table.html")
    wait_for(browser, lambda d: "$1,000.04" in text(d, '#progressive-levels tr[data-level="jackpot"]'))
    # level, jackpot, limit, paid in all, by the system, by an attendant, pending
    assert text(browser, '#progressive-levels tr[data-level="jackpot"]') == (
        "jackpot $10,000.00 $500,000.00 $1,000.04 $0.00 $1,000.04 $0.00"
    )
    assert csp_violations(browser) == []


def test_the_reports_page_links_the_pools_day_and_its_printable_page_reconciles(site, browser):
    base, api = site
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    finish(api)
    sign_in(browser, base, api.tokens["pit"])
    browser.get(f"{base}/ui/reports.html")
    wait_for(browser, lambda d: "printable page" in text(d, "#progressive-links"))
    browser.find_element("link text", "printable page").click()
    wait_for(browser, lambda d: text(d, "#verdict") != "")
    assert text(browser, "#verdict") == "Reconciled: every meter adds up to the cent."
    page = browser.page_source
    assert "$1,000.04" in page and "PENDING" in page  # the hit, held and not paid yet
    assert csp_violations(browser) == []
