"""Every setting in the table's state and a round's detail carries its hands as a dealer reads
them, with their names (api/hand_view.py over game/hand_words.py; docs/api.md, "What the
terminals read"). The settings are given out of order on purpose; the expected reading is
worked out by hand (002: the pair first, then the kickers high to low).
"""

from __future__ import annotations

from table_controller.api.hand_view import setting_words
from table_controller.game.evaluator import RankingRules, Wheel

from .conftest import HOUSE_WAY, WAGERS, deal_round

# Position 3's seven cards (tests/round/tables.py), set high and low in a shuffled order.
POSITION_3 = {"high": ["9c", "As", "2c", "Ah", "8c"], "low": ["Kh", "Kd"]}
POSITION_3_READ = {
    "high_sorted": ["As", "Ah", "9c", "8c", "2c"],
    "high_name": "pair of aces",
    "low_sorted": ["Kh", "Kd"],
    "low_name": "pair of kings",
}
POSITION_5 = {"high": ["3c", "Kc", "6s", "8d", "4h"], "low": ["Jd", "Qh"]}
POSITION_5_READ = {
    "high_sorted": ["Kc", "8d", "6s", "4h", "3c"],
    "high_name": "king high",
    "low_sorted": ["Qh", "Jd"],
    "low_name": "queen-jack",
}
BANKER_READ = {  # the house way's setting: A-9-5-3-2 behind, Q-7 in front (002, High Card)
    "high_sorted": ["Ac", "9h", "5c", "3d", "2h"],
    "high_name": "ace high",
    "low_sorted": ["Qd", "7s"],
    "low_name": "queen-seven",
}


RULE_RECORDED = (  # house-way-002's row high-card.second-and-fourth, four cells, the third empty
    "High Card | 1st highest [Joker|A]; 2nd highest [K|Q]; 3rd highest [8|9|10]; 4th highest [7|8] |  "
    "| The two cards will be 2nd & 4th highest"
)
RULE_SHOWN = (
    "High Card | 1st highest [Joker|A]; 2nd highest [K|Q]; 3rd highest [8|9|10]; 4th highest [7|8] "
    "| The two cards will be 2nd & 4th highest"
)


def words(setting: dict) -> dict:
    return {key: setting[key] for key in ("high_sorted", "high_name", "low_sorted", "low_name")}


def test_the_table_and_the_round_detail_read_every_setting(api):
    opened = api.post("/api/round", "dealer", json=WAGERS)
    assert opened.status_code == 201, opened.text
    round_id = opened.json()["round"]["round_id"]
    deal_round(api)
    for position, setting in ((3, POSITION_3), (5, POSITION_5)):
        answer = api.post(f"/api/round/players/{position}/setting", "dealer", json=setting)
        assert answer.status_code == 200, answer.text

    live = api.get("/api/table", "surveillance").json()["round"]
    made = {s["position"]: s for s in live["player_settings"]}
    assert (made[3]["high"], made[3]["low"]) == (POSITION_3["high"], POSITION_3["low"])  # as given
    assert (words(made[3]), words(made[5])) == (POSITION_3_READ, POSITION_5_READ)
    assert words(live["house_way"]["setting"]) == BANKER_READ

    assert api.post("/api/round/dealer/setting", "dealer", json=HOUSE_WAY).status_code == 200
    api.service.settle()
    settled = api.get("/api/table", "surveillance").json()["round"]
    assert words(settled["dealer_setting"]) == BANKER_READ
    # each position's result carries the setting it was settled with
    assert [words(p["setting"]) for p in settled["settlement"]["positions"]] == [
        POSITION_3_READ,
        POSITION_5_READ,
    ]

    detail = api.get(f"/api/rounds/{round_id}", "surveillance").json()
    rows = {p["position"]: p for p in detail["positions"]}
    assert (words(rows[1]), words(rows[3]), words(rows[5])) == (BANKER_READ, POSITION_3_READ, POSITION_5_READ)
    assert (rows[3]["high"], rows[3]["high_category"]) == (POSITION_3["high"], "one-pair")  # unchanged
    assert words(detail["house_way"]["setting"]) == BANKER_READ
    # the rule's row as recorded (its empty "More Hand Details" cell kept), and as people read it
    assert (detail["house_way"]["rule_words"], detail["house_way"]["rule_wording"]) == (
        RULE_RECORDED,
        RULE_SHOWN,
    )
    assert live["house_way"]["rule_wording"] == RULE_SHOWN

    replay = api.get(f"/api/rounds/{round_id}/replay", "surveillance").json()
    last = replay["steps"][-1]["state"]
    assert [words(s) for s in last["player_settings"]] == [POSITION_3_READ, POSITION_5_READ]


def test_a_setting_is_read_under_the_rounds_own_wheel_rule():
    """004: California's A-2-3-4-5 is the lowest straight, so the joker makes 2-3-4-5 a six."""
    cards = (["2c", "JK", "4h", "5s", "3d"], ["Kd", "9c"])
    nevada = setting_words(*cards, RankingRules())
    california = setting_words(*cards, RankingRules(wheel=Wheel.CALIFORNIA))
    assert (nevada["high_sorted"], nevada["high_name"]) == (
        ["5s", "4h", "3d", "2c", "JK"],
        "straight to the five",
    )
    assert (california["high_sorted"], california["high_name"]) == (
        ["JK", "5s", "4h", "3d", "2c"],
        "straight to the six",
    )
    assert (nevada["low_sorted"], nevada["low_name"]) == (["Kd", "9c"], "king-nine")


def test_a_split_that_is_not_five_and_two_is_not_named():
    words_ = setting_words(["As", "Ah", "9c", "8c"], ["Kd", "Kh", "2c"], RankingRules())
    assert words_ == {"high_sorted": None, "high_name": None, "low_sorted": None, "low_name": None}
