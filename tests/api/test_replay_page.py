"""The round page for surveillance, drawn as cards and steps, and the table page's words (docs/api.md,
Pages), in a real headless browser: the replay of a round the pit overrode shows its piles as
cards, each position's hand, the house way's setting and its rule id, and every step in words
(no raw JSON); the same pages given ``?table=`` read the floor's paths; the table page shows its
rules beside the forms, the phase in words, and a refused setting as a sentence naming the field.

Hands from tests/round/tables.py (dice 1+1+1: pile 1 to position 3, 000); money in cents worked
from 001/002: position 3 beats the banker both ways, wins $25.00 less 5% commission ($1.25,
rounded up to a quarter of the $1 chip: exactly $1.25), net +$23.75; position 5 wins the high
hand and loses the low: a push.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from table_controller.api.history import history_page, round_detail, round_replay
from table_controller.storage.history import HistoryFilter
from table_controller.storage.session import read_snapshot

from ..round.tables import POSITION_3
from .conftest import HOUSE_WAY, MIS_SET, WAGERS, Api, deal_round, play_round, served_api
from .test_pages_browser import (  # noqa: F401 - site is a fixture
    codes,
    form_error,
    screenshot,
    sign_in,
    site,
    submit,
    text,
    wait_for,
)

RULE = "high-card.second-and-fourth"  # 002: High Card, the two cards 2nd and 4th highest
KINDS = [
    "round.opened",
    "dice.rolled",
    "piles.dealt",
    "player.set",
    "player.set",
    "round.refused",
    "alert.raised",
    "dealer.override",
    "alert.raised",
    "round.settled",
]


def steps(driver) -> list[tuple[str, str]]:
    return [
        (li.get_attribute("data-kind"), li.text)
        for li in driver.find_elements(By.CSS_SELECTOR, "#steps .step")
    ]


def test_the_replay_draws_the_cards_and_the_steps_with_the_rule_of_each_house_way_decision(site, browser):  # noqa: F811
    base, api = site
    sign_in(browser, base, api.tokens["surveillance"])
    browser.get(f"{base}/ui/history.html")
    wait_for(browser, lambda d: text(d, '.round-row[data-round="t1-2"] .round-phase') == "settled")
    browser.find_element(By.LINK_TEXT, "t1-2").click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps .step")) == len(KINDS))

    assert text(browser, "#table-id") == "t1" and text(browser, "#phase") == "settled"
    piles = browser.find_elements(By.CSS_SELECTOR, "#piles .pile")
    assert len(piles) == 7
    assert [c.get_attribute("data-code") for c in piles[0].find_elements(By.CSS_SELECTOR, ".card")] == (
        POSITION_3.split()
    )
    assert piles[0].find_element(By.TAG_NAME, "h3").text == "Pile 1 → position 3"
    assert piles[5].find_element(By.TAG_NAME, "h3").text == "Pile 6 → position 1 (the banker)"
    assert piles[1].find_element(By.TAG_NAME, "h3").text == "Pile 2 → position 4 (no wager: set aside)"
    hearts = piles[0].find_element(By.CSS_SELECTOR, '.card[data-code="Ah"]')
    assert "red" in hearts.get_attribute("class") and hearts.text == "A\u2665"
    assert codes(browser, "#unused") == ["Qc", "Ks", "Ad", "JK"]
    joker = browser.find_element(By.CSS_SELECTOR, '#unused .card[data-code="JK"]')
    assert "joker" in joker.get_attribute("class")

    # the banker's hand: what the house way requires, by which rule, and what the dealer set
    assert text(browser, "#rule-id") == RULE
    # the row's words without its empty cell (game/house_way/wording.py)
    assert text(browser, "#rule-words") == (
        ": High Card | 1st highest [Joker|A]; 2nd highest [K|Q]; 3rd highest [8|9|10]; 4th highest [7|8]"
        " | The two cards will be 2nd & 4th highest"
    )
    assert codes(browser, "#required") == HOUSE_WAY["high"] + HOUSE_WAY["low"]
    assert codes(browser, "#banker-setting") == MIS_SET["high"] + MIS_SET["low"]
    assert text(browser, "#banker-setting").endswith("a deviation the pit let stand (override)")
    rows = {
        r.get_attribute("data-position"): r.find_elements(By.TAG_NAME, "td")
        for r in browser.find_elements(By.CSS_SELECTOR, ".position-row")
    }
    assert set(rows) == {"1", "3", "5"}
    assert [rows["3"][i].text for i in (4, 5, 6, 8)] == ["win", "$25.00", "$1.25", "+$23.75"]
    assert [rows["5"][i].text for i in (4, 5, 8)] == ["push", "$10.00", "$0.00"]
    # each hand in the order a dealer reads it, named (002), not the category's word
    assert (rows["3"][2].text.endswith(" pair of aces"), rows["3"][3].text.endswith(" pair of kings")) == (
        True,
        True,
    )
    assert (rows["5"][2].text.endswith(" king high"), rows["5"][3].text.endswith(" queen-jack")) == (
        True,
        True,
    )
    assert "one pair" not in rows["3"][2].text
    named = [
        n.text
        for n in browser.find_elements(By.CSS_SELECTOR, "#required .hand-name, #banker-setting .hand-name")
    ]
    assert named == ["ace high", "queen-seven", "ace high", "queen-nine"]  # A-9-5-3-2 | Q-7; A-7-5-3-2 | Q-9

    # every step in order, in words, the rule id with each house-way decision
    found = steps(browser)
    assert [kind for kind, _ in found] == KINDS
    said = dict(zip(range(len(found)), (words for _, words in found), strict=True))
    assert "opened the round: position 3 $25.00, position 5 $10.00" in said[0] and said[0].startswith(
        browser.find_element(By.CSS_SELECTOR, "#steps .step .step-time").text
    )
    assert "ann opened the round" in said[0]
    assert "= 3, the first pile to position 3" in said[1]
    dealt = browser.find_element(By.CSS_SELECTOR, '#steps .step[data-kind="piles.dealt"]')
    assert codes(dealt, ".setting") == HOUSE_WAY["high"] + HOUSE_WAY["low"] and f"(rule {RULE})" in said[2]
    assert said[2].endswith("→ players' hands to set")
    assert "deviation refused: the dealer set" in said[5] and f"(rule {RULE})" in said[5]
    assert "bob override: let the dealer's setting stand" in said[7] and "“approved misread”" in said[7]
    assert f"(rule {RULE})" in said[7] and said[7].endswith("→ every hand set, waiting for settlement")
    assert "settled: position 3 win +$23.75, position 5 push $0.00" in said[9] and said[9].endswith(
        "→ settled"
    )
    rule_ids = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#steps .rule-id")]
    assert rule_ids == [RULE, RULE, RULE]  # the deal's required setting, the refusal, the override

    body = browser.find_element(By.TAG_NAME, "body").text
    assert '{"' not in body and "round.opened" not in body  # no raw record on the page itself
    assert not browser.find_element(By.ID, "raw").is_displayed()
    browser.find_element(By.CSS_SELECTOR, "#record summary").click()  # unless asked for
    assert '"round_id": "t1-2"' in text(browser, "#raw")

    screenshot(browser, "round.png")
    # on paper: no buttons or links to follow, the cards drawn in outline
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert not browser.find_element(By.ID, "print").is_displayed()
        assert not browser.find_element(By.ID, "sign-out").is_displayed()
        assert not browser.find_element(By.ID, "record").is_displayed()
        look = browser.execute_script("""
            const style = getComputedStyle(document.querySelector('#piles .card'));
            return [style.backgroundColor, style.borderTopStyle, style.boxShadow];""")
        assert look == ["rgba(0, 0, 0, 0)", "solid", "none"]
        screenshot(browser, "round-print.png")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


@pytest.fixture
def floor_paths(tmp_path) -> Iterator[tuple[str, Api, list[str]]]:
    asked: list[str] = []
    with served_api(tmp_path, poll_interval=0.05) as (app, base, api):
        assert play_round(api) == "t1-1"
        assert play_round(api, how="override") == "t1-2"

        def rounds(table_id: str) -> dict:
            asked.append(f"/api/floor/tables/{table_id}/rounds")
            with read_snapshot(api.engine) as session:
                page, cursor = history_page(session, table_id, HistoryFilter())
            return {"rounds": [r.model_dump(mode="json") for r in page], "next_cursor": cursor}

        def one(table_id: str, round_id: str) -> dict:
            asked.append(f"/api/floor/tables/{table_id}/rounds/{round_id}")
            with read_snapshot(api.engine) as session:
                return round_detail(session, table_id, round_id).model_dump(mode="json")

        def replay(table_id: str, round_id: str) -> dict:
            asked.append(f"/api/floor/tables/{table_id}/rounds/{round_id}/replay")
            with read_snapshot(api.engine) as session:
                return round_replay(session, table_id, round_id).model_dump(mode="json")

        # added before the pages' mount is reached: the router tries routes in order, so these
        # go in front of it
        for path, handler in (
            ("/api/floor/tables/{table_id}/rounds", rounds),
            ("/api/floor/tables/{table_id}/rounds/{round_id}", one),
            ("/api/floor/tables/{table_id}/rounds/{round_id}/replay", replay),
        ):
            app.router.add_api_route(path, handler, methods=["GET"])
            app.router.routes.insert(0, app.router.routes.pop())
        yield base, api, asked


def test_the_pages_given_a_table_read_the_floors_paths_and_keep_the_table_in_their_links(
    floor_paths,
    browser,
):
    base, api, asked = floor_paths
    sign_in(browser, base, api.tokens["surveillance"])
    browser.get(f"{base}/ui/history.html?table=t1")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".round-row")) == 2)
    link = browser.find_element(By.LINK_TEXT, "t1-2")
    assert link.get_attribute("href").endswith("/ui/round.html?id=t1-2&table=t1")
    link.click()
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps .step")) == len(KINDS))
    assert text(browser, "#rule-id") == RULE and text(browser, "#table-id") == "t1"
    assert browser.find_element(By.ID, "back").get_attribute("href").endswith("/ui/history.html?table=t1")
    assert asked == [
        "/api/floor/tables/t1/rounds",
        "/api/floor/tables/t1/rounds/t1-2",
        "/api/floor/tables/t1/rounds/t1-2/replay",
    ]
    table_paths = browser.execute_script("""
        return performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
            .filter((path) => path.startsWith("/api/rounds") || path.startsWith("/api/stream"));""")
    assert table_paths == []  # the round page asked the table's own paths for nothing


# The 422 problems of the forms and filters (loc, msg as the API gives them) and the sentence
# the pages show for each: the field in people's words, an amount in dollars and cents.
PROBLEMS_AND_SENTENCES = [
    (["body", "low", 0], "'1x' is not a card code", "Low hand, card 1: '1x' is not a card code."),
    (
        ["body", "wagers", "4", "big_hand"],
        "Input should be less than or equal to 2500",
        "Position 4, Big Hand wager: must be at most $25.00.",
    ),
    (
        ["body", "bank", "amount"],
        "Input should be greater than 0",
        "The bank, amount: must be more than $0.00.",
    ),
    (["body", "reason"], "Field required", "Reason: is missing."),
    (["query", "opened_from"], "Input should be a valid datetime", "From: Input should be a valid datetime."),
    (
        ["body", "wagers"],
        "Dictionary should have at least 1 item",
        "Wagers: Dictionary should have at least 1 item.",
    ),
    (["body"], "JSON decode error", "The request: JSON decode error."),
]
PROBLEMS = [(loc, msg) for loc, msg, _ in PROBLEMS_AND_SENTENCES]
SENTENCES = [sentence for _, _, sentence in PROBLEMS_AND_SENTENCES]


def test_the_table_page_shows_its_rules_the_phase_in_words_and_a_bad_setting_as_a_sentence(site, browser):  # noqa: F811
    base, api = site
    assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
    deal_round(api)
    sign_in(browser, base, api.tokens["dealer"])
    wait_for(browser, lambda d: text(d, "#phase") == "players' hands to set")
    assert browser.find_element(By.ID, "phase").get_attribute("data-phase") == "players-setting"
    # the rules beside the forms (TableSettings defaults; 001, 002)
    wait_for(browser, lambda d: text(d, "#rules-commission") != "")
    assert text(browser, "#rules-limits") == "main wager $5.00 to $1,000.00 per position"
    assert text(browser, "#rules-commission") == "5% of each win, rounded up to a multiple of $0.25 (002)"
    assert text(browser, "#rules-foul") == "a fouled hand loses its main wager (001)"
    assert text(browser, "#rules-house-way").startswith("The House Way (002)")
    assert browser.find_elements(By.CSS_SELECTOR, ".departure") == []  # none by default

    submit(browser, "player-setting", position="3", high="As Ah 9c 8c Xx", low="Kd Kh")
    wait_for(browser, lambda d: form_error(d, "player-setting") != "")
    said = form_error(browser, "player-setting")
    assert said.startswith("High hand, card 5: 'Xx' is not a card code: rank then suit"), said
    assert "e.g. As, Td, 10h." in said and "body." not in said
    sentences = browser.execute_async_script(
        """
        const [cases, done] = arguments;
        import("./app.js").then((app) => done(cases.map((problem) => app.problemSentence(problem))));""",
        [{"loc": loc, "msg": msg} for loc, msg in PROBLEMS],
    )
    assert sentences == SENTENCES
    submit(browser, "player-setting", position="3", high="As Ah 9c 8c 2c", low="Kd Kh")
    wait_for(
        browser,
        lambda d: codes(d, 'tr[data-position="3"]')[-7:] == ["As", "Ah", "9c", "8c", "2c", "Kd", "Kh"],
    )
    assert form_error(browser, "player-setting") == ""
    screenshot(browser, "table-rules.png")


def test_a_round_whose_stored_cards_were_forged_is_flagged_above_everything(site, browser):  # noqa: F811
    """docs/api.md, "A forged stored value": the round page says where the stored round disagrees
    with its chain (a card code no deck has), and says nothing on a clean round."""
    from sqlalchemy import text as sql

    base, api = site
    sign_in(browser, base, api.tokens["surveillance"])
    browser.get(f"{base}/ui/round.html?id=t1-1")
    wait_for(browser, lambda d: text(d, "#phase") == "settled")
    assert text(browser, "#record-findings") == ""
    with api.engine.begin() as connection:
        chained = connection.execute(
            sql("SELECT cards FROM round_positions WHERE round_id = 't1-1' AND position = 3")
        ).scalar_one()
        connection.execute(
            sql("UPDATE round_positions SET cards = :c WHERE round_id = 't1-1' AND position = 3"),
            {"c": "Zz " + chained.split(" ", 1)[1]},
        )
    browser.get(f"{base}/ui/round.html?id=t1-1")
    wait_for(browser, lambda d: "disagrees with its chained record" in text(d, "#record-findings"))
    said = text(browser, "#record-findings")
    assert f"round t1-1 position 3: cards: chained '{chained}', stored 'Zz " in said


def test_the_replay_folds_a_devices_run_of_lines_into_one(tmp_path, browser):
    with served_api(tmp_path) as (_, base, api):
        assert api.post("/api/round", "dealer", json=WAGERS).status_code == 201
        for pile in range(1, 8):  # the shuffler reports each pile it dealt (conductor/journal.py)
            api.service.journal("shuffler", "pile-dealt", {"pile": pile, "cards": []})
        deal_round(api)
        sign_in(browser, base, api.tokens["surveillance"])
        browser.get(f"{base}/ui/round.html?id=t1-1")
        wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps .step")) >= 4)
        found = steps(browser)
        device = [(kind, words) for kind, words in found if kind.startswith("device.")]
        assert len(device) == 1, found
        assert device[0][0] == "device.shuffler.pile-dealt" and device[0][1].endswith("7 piles dealt")
        assert [kind for kind, _ in found] == [
            "round.opened",
            "device.shuffler.pile-dealt",
            "dice.rolled",
            "piles.dealt",
        ]
        # the record below still lists each of the seven
        assert len(browser.find_elements(By.CSS_SELECTOR, "#events .event-row")) == 10
