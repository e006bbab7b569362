"""A table no command can break: a fouled banker hand is refused in every path, a round that
fails inside is held (never the daemon), misdeals in a row hold the table for a deck check,
the table's state survives a restart, and a store outage keeps every alert until it is back.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy.exc import OperationalError

import table_controller.round.machine as machine
from table_controller.game.cards import Game
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.round.machine import HouseWayDeviation, TransitionRefused
from table_controller.round.phases import Phase
from table_controller.settings import TableSettings
from table_controller.storage import list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import RoundHeld, StoreOutage, TableRefused, TableService
from table_controller.table.state import DeckCheck

from .round.tables import POSITION_3, deal

# The repro of the pit-override crash: no pair behind (A high), queens in front: a foul.
FOUL_BANKER = "Ad Qh Qs Qc Th 8h 5c"
FOUL_HIGH, FOUL_LOW = ["5c", "Ad", "Th", "Qc", "8h"], ["Qh", "Qs"]


def settings(game: Game = Game.STANDARD, **more) -> TableSettings:
    return TableSettings(table_id="t1", game=game, **more)


def events(engine) -> list:
    with read_snapshot(engine) as session:
        return list_events(session, table_id="t1")


def alerts(engine) -> list[dict]:
    return [json.loads(e.payload) for e in events(engine) if e.kind == "alert.raised"]


def chain_whole(engine) -> bool:
    with read_snapshot(engine) as session:
        return verify_chain(session).ok


def dealt(service: TableService, banker: str = FOUL_BANKER, game: Game = Game.STANDARD):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: banker, 3: POSITION_3}, start=3, game=game)
    return service.record_deal(PilesDealt(piles=piles, unused=unused))


def misdeal(service: TableService) -> None:
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({3: POSITION_3}, start=3)
    unused[0] = piles[2][0]  # the same card twice
    assert service.record_deal(PilesDealt(piles=piles, unused=unused)).misdeal


# -- the banker's hand is never a foul -------------------------------------------------------------


@pytest.mark.parametrize("game", [Game.STANDARD, Game.DOUBLE_JOKER])
@pytest.mark.parametrize("path", ["dealer", "override"])
def test_a_fouled_banker_hand_is_refused_in_every_path(engine, game, path):
    service = TableService(settings(game), engine)
    state = dealt(service, game=game)
    if game is Game.STANDARD:
        service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    before = service.round
    assert before.phase is Phase.DEALER_SETTING
    with pytest.raises(TransitionRefused, match="the banker's hand may never be a foul") as refused:
        if path == "dealer":
            service.set_dealer(FOUL_HIGH, FOUL_LOW, actor="dealer-ann")
        else:
            service.override_dealer(FOUL_HIGH, FOUL_LOW, actor="pit-bob", reason="approved by the pit")
    assert not isinstance(refused.value, HouseWayDeviation)  # no override can let it stand
    assert service.round is before and state.round_id == before.round_id
    assert [e.kind for e in events(engine)][-1] == "round.refused"
    assert chain_whole(engine)


def test_the_reported_click_path_now_settles(engine):
    """Deviation refused, the foul override refused, a legal override settles the round."""
    service = TableService(settings(), engine)
    dealt(service)
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    with pytest.raises(TransitionRefused):
        service.set_dealer(FOUL_HIGH, FOUL_LOW, actor="dealer-ann")
    with pytest.raises(TransitionRefused, match="never be a foul"):
        service.override_dealer(FOUL_HIGH, FOUL_LOW, actor="pit-bob", reason="one click")
    # Qh Qs Qc behind is trips; Ad Th in front: legal, though not the house way's
    service.override_dealer(
        ["Qh", "Qs", "Qc", "8h", "5c"], ["Ad", "Th"], actor="pit-bob", reason="let it stand"
    )
    assert service.settle().phase is Phase.CLOSED


# -- a failure inside a round holds the round, not the daemon ---------------------------------------


def test_a_failure_inside_settlement_holds_the_round_and_the_pit_can_void_it(engine, monkeypatch):
    service = TableService(settings(), engine)
    dealt(service, banker="Ac Qd 9h 7s 5c 3d 2h")
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")

    def broken(self, state):
        raise RuntimeError("the settlement table is corrupt")

    monkeypatch.setattr(type(service.round_rules), "settle", broken)
    with pytest.raises(RoundHeld, match="held"):
        service.settle()
    assert service.held and "the settlement table is corrupt" in service.held
    [held] = [a for a in alerts(engine) if a["alert"] == "round.held"]
    assert "the settlement table is corrupt" in held["detail"] and "RuntimeError" not in held["detail"]
    with pytest.raises(RoundHeld, match="only a pit void"):
        service.settle()
    state = service.void("pit-bob", "settlement failed: held round")
    assert state.phase is Phase.VOID and service.held is None
    assert service.open_round({3: Wager(main=2500)}, actor="dealer-ann").round_id == "t1-2"
    assert chain_whole(engine)


def test_a_stored_round_the_machine_now_refuses_is_held_at_start_not_fatal(engine, monkeypatch):
    """A record written before the foul check (an override of a fouled hand) replays to a hold."""
    service = TableService(settings(), engine)
    dealt(service)
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    with monkeypatch.context() as old_code:
        old_code.setattr(machine, "high_beats_low", lambda high, low: True)  # no foul check
        service.override_dealer(FOUL_HIGH, FOUL_LOW, actor="pit-bob", reason="old code let it through")
    again = TableService(settings(), engine)
    state = again.resume()  # used to replay into settling and exit 1 at every start
    assert state.phase is Phase.DEALER_SETTING and again.held
    assert "cannot be replayed" in again.held and "never be a foul" in again.held
    with pytest.raises(RoundHeld):
        again.settle()
    assert again.void("pit-bob", "fouled banker hand in the record").phase is Phase.VOID
    third = TableService(settings(), engine)
    assert third.resume() is None and third.held is None
    assert chain_whole(engine)


def test_a_held_round_stays_held_after_a_restart(engine):
    service = TableService(settings(), engine)
    dealt(service, banker="Ac Qd 9h 7s 5c 3d 2h")
    service.hold_round("the conductor failed in players-setting: RuntimeError: boom")
    again = TableService(settings(), engine)
    again.resume()
    assert again.held and "boom" in again.held
    with pytest.raises(RoundHeld):
        again.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")


# -- misdeals in a row hold the table ---------------------------------------------------------------


def test_two_misdeals_in_a_row_hold_the_table_until_a_clean_deck_check_and_the_pit(engine):
    service = TableService(settings(misdeal_hold_after=2), engine)
    misdeal(service)
    assert service.hold is None and service.misdeals == 1
    misdeal(service)
    assert service.hold is not None and service.hold.deck_check_wanted
    assert [a["alert"] for a in alerts(engine)].count("table-held") == 1
    with pytest.raises(TableRefused, match="the table is held: 2 misdeals in a row"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    with pytest.raises(TableRefused, match="no deck check since the hold"):
        service.clear_hold("pit-bob")
    dirty = DeckCheck(complete=False, scanned=53, missing=("3d",), duplicated=(("As", 2),))
    service.record_deck_check(dirty)
    with pytest.raises(TableRefused, match=r"not clean \(deck not clean: missing 3d; duplicated As x2"):
        service.clear_hold("pit-bob")
    service.request_deck_check("pit-bob")
    assert service.hold.deck_check_wanted
    service.record_deck_check(DeckCheck(complete=True, scanned=53))
    service.clear_hold("pit-bob")
    assert service.hold is None and service.misdeals == 0
    assert service.open_round({3: Wager(main=2500)}, actor="dealer-ann").round_id == "t1-3"
    assert chain_whole(engine)


def test_a_good_deal_ends_the_run_of_misdeals(engine):
    service = TableService(settings(misdeal_hold_after=2), engine)
    misdeal(service)
    dealt(service, banker="Ac Qd 9h 7s 5c 3d 2h")
    service.void("pit-bob", "testing the table")
    misdeal(service)
    assert service.hold is None and service.misdeals == 1


# -- the table's state survives a restart -----------------------------------------------------------


def test_a_closed_table_stays_closed_after_a_restart(engine):
    service = TableService(settings(), engine)
    service.set_table_open(False, actor="pit-bob")
    again = TableService(settings(), engine)
    again.resume()
    assert again.table_open is False
    with pytest.raises(TableRefused, match="the table is closed"):
        again.open_round({3: Wager(main=2500)}, actor="dealer-ann")


def test_a_hold_and_its_deck_check_and_the_misdeal_count_survive_a_restart(engine):
    service = TableService(settings(misdeal_hold_after=3), engine)
    misdeal(service)
    misdeal(service)
    again = TableService(settings(misdeal_hold_after=3), engine)
    again.resume()
    assert again.misdeals == 2 and again.hold is None
    misdeal(again)
    again.record_deck_check(DeckCheck(complete=False, scanned=52, missing=("3d",)))
    third = TableService(settings(misdeal_hold_after=3), engine)
    third.resume()
    assert third.hold is not None and third.hold.deck_check == again.hold.deck_check
    with pytest.raises(TableRefused, match="missing 3d"):
        third.clear_hold("pit-bob")


def test_open_faults_survive_a_restart_until_the_device_says_otherwise(engine):
    service = TableService(settings(), engine)
    service.device_fault("shuffler", "door-open", "the door is open")
    service.device_fault("dice-shaker", "cover_open")
    service.device_fault("shuffler", "jam")
    service.fault_cleared("shuffler", "jam")
    again = TableService(settings(), engine)
    again.resume()
    assert set(again.faults) == {("shuffler", "door-open"), ("dice-shaker", "cover_open")}
    with pytest.raises(TableRefused, match="a device fault is open"):
        again.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    again.device_fault("dice-shaker", "cover_open")  # re-reported: still open, no second alert
    again.reconcile_faults("shuffler", reported=set())  # the shuffler's status at start: no fault
    again.reconcile_faults("dice-shaker", reported=set())
    assert set(again.faults) == {("dice-shaker", "cover_open")}
    cleared = [json.loads(e.payload) for e in events(engine) if e.kind == "device.fault.cleared"]
    assert cleared[-1] == {
        "device": "shuffler",
        "fault": "door-open",
        "why": "not reported by the device at start",
    }
    assert [a["alert"] for a in alerts(engine)].count("device-fault") == 3


# -- a store outage: play stops, nothing lost, play resumes -----------------------------------------


def _down(monkeypatch, service):
    def refuse(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception("connection refused"))

    monkeypatch.setattr(service.recorder, "notes", refuse)
    monkeypatch.setattr(service.recorder, "record", refuse)
    monkeypatch.setattr(service.recorder, "open", refuse)


def test_a_store_outage_keeps_the_alerts_and_writes_them_when_it_is_back(engine, monkeypatch):
    service = TableService(settings(), engine)
    with monkeypatch.context() as outage:
        _down(outage, service)
        service.device_fault("shuffler", "link-lost", "the device stopped answering")  # never raises
        assert service.outage is not None and ("shuffler", "link-lost") in service.faults
        with pytest.raises(StoreOutage, match="the store is unavailable"):
            service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
        with pytest.raises(StoreOutage):
            service.set_table_open(False, actor="pit-bob")
        assert service.table_open is True  # refused: nothing half-done
        assert service.retry_store() is False
    assert events(engine) == []
    assert service.retry_store() is True and service.outage is None
    kinds = [(e.kind, json.loads(e.payload).get("alert")) for e in events(engine)]
    assert kinds == [
        ("alert.raised", "link-loss"),
        ("table.state", None),
        ("alert.raised", "store-unavailable"),
    ]
    assert all("kept_from" in json.loads(e.payload) for e in events(engine)[:2])
    service.fault_cleared("shuffler", "link-lost")
    assert service.open_round({3: Wager(main=2500)}, actor="dealer-ann").round_id == "t1-1"
    assert chain_whole(engine)


def test_a_round_write_lost_in_an_outage_is_re_read_from_the_store(engine, monkeypatch):
    service = TableService(settings(), engine)
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    with monkeypatch.context() as outage:
        _down(outage, service)
        with pytest.raises(StoreOutage):
            service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    assert service.round.phase is Phase.OPEN
    assert service.retry_store()
    assert service.round.phase is Phase.OPEN  # the store never had the dice: still to be rolled
    assert service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng")).phase is Phase.DEALING


def test_sqlite_locked_by_another_process_is_an_outage_not_a_crash(tmp_path):
    import sqlite3

    from table_controller.storage import make_engine, upgrade_to_head

    url = f"sqlite:///{tmp_path / 'table.sqlite3'}"
    upgrade_to_head(url)
    engine = make_engine(url, busy_timeout_ms=50)
    try:
        service = TableService(settings(), engine)
        other = sqlite3.connect(tmp_path / "table.sqlite3", isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        service.device_fault("shuffler", "jam", "the reader jammed")
        assert service.outage is not None and "locked" in service.outage.error
        assert service.retry_store() is False
        other.execute("COMMIT")
        other.close()
        assert service.retry_store() is True
        assert [json.loads(e.payload)["alert"] for e in events(engine) if e.kind == "alert.raised"] == [
            "device-fault",
            "store-unavailable",
        ]
    finally:
        engine.dispose()


def test_a_player_setting_of_the_wrong_split_is_a_foul_settled_not_a_held_round(engine):
    """Four behind and three in front (004: a foul) used to be refused by the store: the round held."""
    service = TableService(settings(), engine)
    dealt(service, banker="Ac Qd 9h 7s 5c 3d 2h")
    service.set_player(3, ["As", "Ah", "9c", "8c"], ["Kd", "Kh", "2c"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    state = service.settle()
    assert service.held is None and state.phase is Phase.CLOSED
    [position] = [p for p in state.result.as_dict()["positions"] if p["position"] == 3]
    assert position["foul"] is not None and position["net"] == -2500  # the table's foul rule: forfeit
