"""Game protection: the banker's seven cards stay face down on a dealer's terminal while the
players set (000: "when all are ready, the dealer's seven cards are exposed"; 001: "The players
put their 2 hands face down and then the dealer exposes his 2 hands"). Only pit and
surveillance (permission ``see-face-down``) see them then; Double Joker exposes the dealer's
hand first (003), so nothing is face down there."""

from __future__ import annotations

import contextlib

from table_controller.api.roles import Permission, roles_for
from table_controller.game.cards import Game
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.settings import TableSettings

from ..round.tables import BANKER, POSITION_3, deal
from .conftest import deal_round, make_api

BANKER_CARDS = BANKER.split()
SET_3 = {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
SET_5 = {"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]}


def _banker_seen(table: dict) -> tuple[list[str] | None, list[str], object]:
    round_ = table["round"]
    hand = next((h["cards"] for h in round_["hands"] if h["position"] == 1), None)
    pile = next(p["cards"] for p in round_["piles"] if p["position"] == 1)
    return hand, pile, round_["house_way"]


def test_only_pit_and_surveillance_see_face_down_cards():
    assert roles_for(Permission.SEE_FACE_DOWN) == ["pit", "surveillance"]


def test_the_dealer_does_not_see_the_bankers_cards_until_the_players_have_set(api):
    opened = api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}})
    assert opened.status_code == 201
    deal_round(api)
    dealer = api.get("/api/table", "dealer").json()
    assert dealer["round"]["phase"] == "players-setting"
    assert _banker_seen(dealer) == (None, [], None)
    assert dealer["round"]["face_down"] == [1]
    # every other card the dealer needs is there: the player's seven, the unused cards
    assert [h["position"] for h in dealer["round"]["hands"]] == [3]
    assert len(dealer["round"]["unused"]) == 4
    for role in ("pit", "surveillance"):
        seen = api.get("/api/table", role).json()
        hand, pile, way = _banker_seen(seen)
        assert sorted(hand) == sorted(BANKER_CARDS) and sorted(pile) == sorted(BANKER_CARDS)
        assert way is not None and seen["round"]["face_down"] == []
    # the answer to the dealer's own command is the table as the dealer may see it
    answer = api.post(
        "/api/round/players/3/setting",
        "dealer",
        json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]},
    )
    assert answer.status_code == 200
    # the players have set: the banker's hand is exposed for the dealer to set it
    shown = answer.json()
    assert shown["round"]["phase"] == "dealer-setting" and shown["round"]["face_down"] == []
    hand, pile, way = _banker_seen(shown)
    assert sorted(hand) == sorted(BANKER_CARDS) and way is not None


def test_the_dealers_own_command_answer_keeps_the_cards_face_down(api):
    assert (
        api.post(
            "/api/round", "dealer", json={"wagers": {"3": {"main": 2500}, "5": {"main": 1000}}}
        ).status_code
        == 201
    )
    deal_round(api)
    answer = api.post(
        "/api/round/players/3/setting",
        "dealer",
        json={"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]},
    )
    assert answer.json()["round"]["phase"] == "players-setting"
    assert _banker_seen(answer.json()) == (None, [], None)
    pit = api.post(
        "/api/round/players/5/setting",
        "pit",
        json={"high": ["Kc", "8d", "6s", "4h", "3c"], "low": ["Qh", "Jd"]},
    )
    assert pit.status_code == 200 and pit.json()["round"]["face_down"] == []


def test_double_joker_exposes_the_dealers_hand_first(engine):
    settings = TableSettings(table_id="t2", game="double-joker")
    with contextlib.closing(make_api(engine, settings)) as apis:
        api = next(apis)
        assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201
        api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker"))
        piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3, game=Game.DOUBLE_JOKER)
        api.service.record_deal(PilesDealt(piles=piles, unused=unused))
        # 003: the dealer sets first, exposed; then the players set with the dealer's hand in view
        dealer = api.get("/api/table", "dealer").json()
        assert dealer["round"]["phase"] == "dealer-setting" and dealer["round"]["face_down"] == []
        way = dealer["round"]["house_way"]["setting"]
        proposed = {"high": way["high"], "low": way["low"]}  # a command takes the cards, not their reading
        assert api.post("/api/round/dealer/setting", "dealer", json=proposed).status_code == 200
        dealer = api.get("/api/table", "dealer").json()
        assert dealer["round"]["phase"] == "players-setting" and dealer["round"]["face_down"] == []
        hand, _, _ = _banker_seen(dealer)
        assert sorted(hand) == sorted(BANKER_CARDS)
