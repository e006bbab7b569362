"""The table service (docs/round-lifecycle.md): limits, the closed table, faults stop play, alerts
in the chain."""

from __future__ import annotations

import json

import pytest

from table_controller.game.cards import Game
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.round.machine import HouseWayDeviation, TransitionRefused
from table_controller.settings import TableSettings
from table_controller.storage import list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.device_health import LinkState
from table_controller.table.service import TableRefused, TableService

from .round.tables import BANKER, POSITION_3, deal


@pytest.fixture
def service(engine):
    return TableService(TableSettings(table_id="t1"), engine)


def alerts(engine):
    with read_snapshot(engine) as session:
        return [
            json.loads(e.payload) for e in list_events(session, table_id="t1") if e.kind == "alert.raised"
        ]


@pytest.mark.parametrize(
    ("wagers", "reason"),
    [
        ({3: Wager(main=499)}, "position 3: main wager 499 cents is outside the table limits 500..100000"),
        ({4: Wager(main=100_001)}, "outside the table limits"),
        ({5: Wager(main=1000, big_hand=500)}, "the standard game offers no big hand bonus"),
        ({}, "no position has a wager"),
    ],
)
def test_wagers_outside_the_limits_are_refused_and_nothing_is_stored(service, engine, wagers, reason):
    with pytest.raises(TableRefused, match=reason):
        service.open_round(wagers, actor="dealer-ann")
    with read_snapshot(engine) as session:
        assert list_events(session, table_id="t1") == []


def test_no_round_starts_while_a_device_fault_is_open(service, engine):
    service.device_fault("shuffler", "door-open")
    with pytest.raises(TableRefused, match="a device fault is open: shuffler door-open"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.fault_cleared("shuffler", "door-open")
    state = service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    assert state.round_id == "t1-1"
    assert [a["alert"] for a in alerts(engine)] == ["device-fault"]


def test_a_closed_table_and_a_running_round_refuse_a_new_round(service):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    with pytest.raises(TableRefused, match="round t1-1 is still in progress"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.void("pit-bob", "testing the table")
    service.set_table_open(False, actor="pit-bob")
    with pytest.raises(TableRefused, match="the table is closed"):
        service.open_round({3: Wager(main=2500)}, actor="dealer-ann")


def test_a_dealer_mis_set_and_the_override_raise_alerts_and_the_chain_stays_whole(service, engine):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    with pytest.raises(HouseWayDeviation):
        service.set_dealer(["Ac", "7s", "5c", "3d", "2h"], ["Qd", "9h"], actor="dealer-ann")
    service.override_dealer(
        ["Ac", "7s", "5c", "3d", "2h"], ["Qd", "9h"], actor="pit-bob", reason="approved misread"
    )
    state = service.settle()
    assert state.phase.value == "closed"
    raised = alerts(engine)
    assert [a["alert"] for a in raised] == ["house-way-deviation", "override"]
    assert raised[0]["rule"] == "high-card.second-and-fourth"
    assert raised[0]["required"] == {"high": ["Ac", "9h", "5c", "3d", "2h"], "low": ["Qd", "7s"]}
    with read_snapshot(engine) as session:
        assert verify_chain(session).ok


def test_a_refused_transition_is_noted_in_the_chain(service, engine):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    with pytest.raises(TransitionRefused):
        service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    with read_snapshot(engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="t1")]
    assert kinds == ["round.opened", "round.refused"]


def test_resume_restores_the_round_and_its_rules(service, engine):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(2, 2, 2), source="shaker"))
    again = TableService(TableSettings(table_id="t1", game=Game.STANDARD), engine)
    restored = again.resume()
    assert restored == service.round and restored.start == 6


def test_a_misdeal_raises_an_alert_naming_the_discrepancy(service, engine):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    unused[0] = piles[2][0]  # a card seen twice, and one never seen
    state = service.record_deal(PilesDealt(piles=piles, unused=unused))
    assert state.phase.value == "void"
    [alert] = alerts(engine)
    assert alert["alert"] == "misdeal" and alert["discrepancies"] == ["duplicate-card", "missing-card"]
    assert service.open_round({3: Wager(main=2500)}, actor="dealer-ann").round_id == "t1-2"


def test_each_table_has_its_own_device_health_and_nothing_reported_means_never(engine, service):
    other = TableService(TableSettings(table_id="t2"), engine)
    assert other.device_health is not service.device_health  # no registry shared between tables
    assert service.device_health.devices() == []
    assert service.device_health.snapshot("shuffler").link is LinkState.NEVER
