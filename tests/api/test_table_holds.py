"""The table's holds through the API: a fouled banker hand is a 409 in words on every path, a
held round is shown and only a void moves it, misdeals in a row hold the table until a clean
deck check and the pit's clear, and the store going away is a 503 that names it."""

from __future__ import annotations

from sqlalchemy.exc import OperationalError

from table_controller.table.state import DeckCheck

from .conftest import deal_round

FOUL = {"high": ["9h", "7s", "5c", "3d", "2h"], "low": ["Ac", "Qd"]}  # 9 high behind, A-Q in front


def _to_dealer_setting(api) -> None:
    assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201
    deal_round(api)
    setting = {"high": ["As", "Ah", "9c", "8c", "2c"], "low": ["Kd", "Kh"]}
    assert api.post("/api/round/players/3/setting", "dealer", json=setting).status_code == 200


def test_a_fouled_banker_hand_is_refused_with_the_reason_for_the_dealer_and_the_pit(api):
    _to_dealer_setting(api)
    for path, role, body in (
        ("/api/round/dealer/setting", "dealer", FOUL),
        ("/api/round/dealer/override", "pit", {**FOUL, "reason": "pit approved"}),
    ):
        answer = api.post(path, role, json=body)
        assert answer.status_code == 409, answer.text
        assert (
            "the banker's hand may never be a foul: low Ac Qd outranks high 9h 7s 5c 3d 2h"
            in answer.json()["detail"]
        )
    state = api.get("/api/table").json()
    assert state["round"]["phase"] == "dealer-setting" and state["round_held"] is None


def test_a_held_round_is_shown_and_only_a_void_moves_it(api):
    _to_dealer_setting(api)
    api.service.hold_round("the conductor failed in dealer-setting: RuntimeError: boom")
    state = api.get("/api/table").json()
    assert "RuntimeError: boom" in state["round_held"]
    answer = api.post(
        "/api/round/dealer/setting",
        "dealer",
        json={"high": ["Ac", "9h", "5c", "3d", "2h"], "low": ["Qd", "7s"]},
    )
    assert answer.status_code == 409 and "only a pit void moves it on" in answer.json()["detail"]
    assert api.post("/api/round/void", "pit", json={"reason": "held by the controller"}).status_code == 200
    assert api.get("/api/table").json()["round_held"] is None


def _misdeal(api) -> None:
    from table_controller.round.events import DiceRolled, PilesDealt

    from ..round.tables import BANKER, POSITION_3, deal

    assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201
    api.service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    unused[0] = piles[2][0]
    api.service.record_deal(PilesDealt(piles=piles, unused=unused))


def test_misdeals_in_a_row_hold_the_table_until_a_clean_deck_check_and_the_pit(api):
    assert api.post("/api/table/hold/clear", "pit").status_code == 409  # not held
    _misdeal(api)
    _misdeal(api)
    state = api.get("/api/table", "dealer").json()
    assert state["hold"]["reason"].startswith("2 misdeals in a row") and state["hold"]["deck_check_pending"]
    refused = api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}})
    assert refused.status_code == 409 and "the table is held" in refused.json()["detail"]
    api.service.record_deck_check(DeckCheck(complete=False, scanned=53, unreadable=1, missing=("2c",)))
    state = api.get("/api/table").json()
    assert state["hold"]["deck_check"]["words"] == "deck not clean: missing 2c; 1 unreadable; 53 scanned"
    assert api.post("/api/table/hold/clear", "dealer").status_code == 403
    refused = api.post("/api/table/hold/clear", "pit")
    assert refused.status_code == 409 and "missing 2c" in refused.json()["detail"]
    assert api.post("/api/table/deck-check", "pit").json()["hold"]["deck_check_pending"] is True
    api.service.record_deck_check(DeckCheck(complete=True, scanned=53))
    assert api.post("/api/table/hold/clear", "pit").json()["hold"] is None
    assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201


def test_a_command_during_a_store_outage_is_a_503_naming_it(api, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception("server closed the connection unexpectedly"))

    with monkeypatch.context() as outage:
        outage.setattr(api.service.recorder, "notes", refuse)
        api.service.device_fault("shuffler", "jam")  # kept, not raised
        answer = api.post("/api/table/close", "pit")
        assert answer.status_code == 503 and "the store is unavailable" in answer.json()["detail"]
    assert api.service.retry_store()
    assert api.get("/api/table").json()["table_open"] is True
