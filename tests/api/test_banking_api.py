"""Player banking through the API (docs/api.md; docs/settlement.md, 8): a round opened with its
banker, refusals typed (409 bank-refused, 409 bank-not-covered with the shortfall), the live
table showing who banks, the exposure and the share, the round detail and the history by banker.

Seat 3 banks; positions 2, 5, 7 are seats 4, 7, 2 and the dealer's seat is position 6. Hands
and money as in tests/test_banking_service.py: the house's $5 hand loses, the bank nets +$19.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from table_controller.api.views import banking_view
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.settings import TableSettings
from table_controller.table.service import TableService

from ..round.tables import deal
from .conftest import make_api

HANDS = {
    1: "9h 9d Kc 7s 4h Qd 5c",
    2: "Th Td As 8c 3s Kd Jc",
    5: "Jh Js Ah 6c 2s Tc 4d",
    7: "8h 8d Ad 6h 2h Ts 3h",
    6: "3d 3c 9s 8s 6d 4c 2d",
}
WAGERS = {"2": {"main": 2500}, "5": {"main": 1000}, "7": {"main": 4000}}


@pytest.fixture
def api(engine):
    settings = TableSettings(table_id="t1", banking={"policy": "rotation", "house_wager": "table-minimum"})
    yield from make_api(engine, settings)


def offer_to_seat_3(api):
    api.service._bank_history = api.service._bank_history.after(2, {})  # seat 2 had it last


def test_the_table_says_how_it_banks(api, engine):
    banking = api.get("/api/table", "dealer").json()["banking"]
    assert banking == {
        "policy": "rotation",
        "house_wager": "table-minimum",
        "co_bank_share_bp": 5000,
        "allowed": True,
        "last_offer": None,
        "dice_direction": "counter-clockwise",
    }
    # a Double Joker table allows no player bank unless its setting says so (003)
    settings = TableSettings(table_id="t2", game="double-joker", banking={"policy": "rotation"})
    assert banking_view(TableService(settings, engine)).allowed is False


def test_a_seat_not_offered_the_bank_is_refused_409(api):
    answer = api.post("/api/round", "dealer", json={"wagers": WAGERS, "bank": {"seat": 3, "amount": 100_000}})
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"] == "bank-refused"
    assert "offered to seat 2" in answer.json()["detail"]


def test_a_bank_short_of_the_action_is_refused_409_naming_the_shortfall(api):
    offer_to_seat_3(api)
    # a whole number written 3.0 is the seat 3 (JSON has one number type)
    answer = api.post("/api/round", "dealer", json={"wagers": WAGERS, "bank": {"seat": 3.0, "amount": 7000}})
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"] == "bank-not-covered"
    assert "short by $10.00" in answer.json()["detail"]  # $80 of action (the house's $5 included)
    assert api.get("/api/table", "dealer").json()["round"] is None


@pytest.mark.parametrize("bank", [{"seat": 1, "amount": 100}, {"seat": 3, "amount": -1}, {"seat": "3"}])
def test_malformed_banks_are_422(api, bank):
    assert api.post("/api/round", "dealer", json={"wagers": WAGERS, "bank": bank}).status_code == 422


def test_a_player_banked_round_through_the_api(api):
    offer_to_seat_3(api)
    body = {"wagers": WAGERS, "bank": {"seat": 3, "amount": 8000, "co_bank": False}}
    opened = api.post("/api/round", "dealer", json=body)
    assert opened.status_code == 201, opened.text
    live = opened.json()["round"]
    assert live["banker"] == "player" and live["bank_offer"] == 3
    assert live["bank"] == {
        "seat": 3,
        "amount": 8000,
        "house_wager": 500,
        "house_position": 6,
        "co_banked": False,
        "house_share_bp": None,
        "exposure": 8000,  # $25 + $10 + $40 + the house's $5
    }
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker"))
    piles, unused = deal(HANDS, start=3)
    api.service.record_deal(PilesDealt(piles=piles, unused=unused))
    for position, high, low in (
        (2, "Th Td As 8c 3s", "Kd Jc"),
        (5, "Jh Js Ah 6c 2s", "Tc 4d"),
        (7, "8h 8d Ad 6h 2h", "Ts 3h"),
    ):
        answer = api.post(
            f"/api/round/players/{position}/setting",
            "dealer",
            json={"high": high.split(), "low": low.split()},
        )
        assert answer.status_code == 200, answer.text
    # the player-banker sets freely: off the house way (K-Q in front), and accepted
    answer = api.post(
        "/api/round/dealer/setting",
        "dealer",
        json={"high": ["9h", "9d", "Kc", "7s", "4h"], "low": ["Qd", "5c"]},
    )
    assert answer.status_code == 200, answer.text
    round_id = answer.json()["round"]["round_id"]
    api.service.settle()
    detail = api.get(f"/api/rounds/{round_id}", "surveillance").json()
    assert (detail["banker_seat"], detail["bank_cents"], detail["banker_result_cents"]) == (3, 8000, 1900)
    assert (detail["bank_commission_cents"], detail["house_result_cents"]) == (100, -275)
    house = next(p for p in detail["positions"] if p["house_hand"])
    assert (house["position"], house["net_cents"]) == (6, -500)
    # and how the house way set the house's seven cards (002, one pair: 3-3 behind, 9-8 in front)
    assert (house["high"], house["low"]) == (["3d", "3c", "6d", "4c", "2d"], ["9s", "8s"])
    players = api.get("/api/rounds?banker=player", "surveillance").json()["rounds"]
    assert [r["round_id"] for r in players] == [round_id]
    assert api.get("/api/rounds?banker=house", "surveillance").json()["rounds"] == []
    today = datetime.now(UTC).date().isoformat()
    report = api.get(f"/api/reports/day?date={today}&tz=UTC", "surveillance").json()
    # the house's result apart from the player-banker's; commission by payer: $1.25 from
    # position 2, $1.00 from the bank; the house's hand lost $5 against the bank
    assert report["per_banker"] == [
        {
            "banker": "player",
            "rounds": 1,
            "settled": 1,
            "house_result_cents": -275,
            "commission_cents": 125,
            "bank_commission_cents": 100,
            "banker_result_cents": 1900,
            "house_hand_result_cents": -500,
        }
    ]
    assert [line["position"] for line in report["per_position"]] == [2, 5, 7]  # not the house's hand
