"""A round the console changed while the daemon had it open (docs/round-lifecycle.md, "When
things go wrong"): the console's ``round void`` runs its own table service on the same store;
the daemon's service takes the round as the store has it, whether it notices on its look every
second (``sync_round``) or when its next step finds the stored round moved. Either way the
round ends void, as a void through the API leaves it: no held round, no alert of its own, the
pit's void refused as any void of a void round is (never "round is held"), and the next round
opens."""

from __future__ import annotations

import json

import pytest

from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.round.machine import TransitionRefused
from table_controller.round.phases import Phase
from table_controller.settings import TableSettings
from table_controller.storage import list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import RoundChanged, RoundHeld, TableService
from table_controller.table.stops import why_not_dealing

from .round.tables import BANKER, POSITION_3, deal

WAGERS = {3: Wager(main=2500)}


def _settings() -> TableSettings:
    return TableSettings(table_id="t1")


def _events(engine) -> list[tuple[str, dict]]:
    with read_snapshot(engine) as session:
        return [(e.kind, json.loads(e.payload)) for e in list_events(session, table_id="t1")]


def _alerts(engine) -> list[str]:
    return [p["alert"] for k, p in _events(engine) if k == "alert.raised"]


def _console_void(engine, reason: str = "voided from the console") -> None:
    """What ``table-controller round void`` does: its own service, resumed from the store."""
    console = TableService(_settings(), engine)
    assert console.resume() is not None
    console.void("pit-bob", reason)


def _chain_whole(engine) -> bool:
    with read_snapshot(engine) as session:
        return verify_chain(session).ok


def test_the_daemon_notices_a_console_void_on_its_look_and_the_round_ends_void(engine):
    daemon = TableService(_settings(), engine)
    daemon.resume()
    daemon.open_round(WAGERS, actor="dealer-ann")
    daemon.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    assert daemon.sync_round() is False  # nobody else changed it
    _console_void(engine)
    assert daemon.sync_round() is True
    state = daemon.round
    assert state.phase is Phase.VOID and state.void_reason == "voided from the console"
    assert daemon.held is None and not daemon.in_progress and why_not_dealing(daemon) == ()
    with pytest.raises(TransitionRefused, match="not allowed in this phase") as refused:  # never "held"
        daemon.void("pit-cy", "the pit's void through the API")
    assert refused.value.phase is Phase.VOID and daemon.held is None
    assert _alerts(engine) == ["void"]  # the console's own, and nothing from the daemon
    assert daemon.open_round(WAGERS, actor="dealer-ann").round_id == "t1-2"
    assert _chain_whole(engine)


def test_a_step_after_a_console_void_takes_the_void_instead_of_holding_the_round(engine):
    daemon = TableService(_settings(), engine)
    daemon.resume()
    daemon.open_round(WAGERS, actor="dealer-ann")
    daemon.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    _console_void(engine)
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    with pytest.raises(RoundChanged, match=r"changed by another process .*: it is now void"):
        daemon.record_deal(PilesDealt(piles=piles, unused=unused))  # was held: RoundClosedError
    assert daemon.round.phase is Phase.VOID and daemon.held is None
    kinds = [k for k, _ in _events(engine)]
    assert "piles.dealt" not in kinds  # nothing of the refused step was written
    assert _alerts(engine) == ["void"]
    assert daemon.open_round(WAGERS, actor="dealer-ann").round_id == "t1-2"
    assert _chain_whole(engine)


def test_a_held_round_the_console_voids_is_no_longer_held(engine):
    daemon = TableService(_settings(), engine)
    daemon.resume()
    daemon.open_round(WAGERS, actor="dealer-ann")
    daemon.hold_round("the conductor failed in open: RuntimeError: boom")
    with pytest.raises(RoundHeld):
        daemon.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    _console_void(engine, "held round, voided from the console")
    assert daemon.sync_round() is True
    assert daemon.held is None and daemon.round.phase is Phase.VOID
    assert why_not_dealing(daemon) == ()
    assert _alerts(engine) == ["round.held", "void"]
    assert daemon.open_round(WAGERS, actor="dealer-ann").round_id == "t1-2"


def test_a_step_recorded_elsewhere_without_closing_the_round_is_taken_too(engine):
    """Another process recorded the dice (a second daemon by mistake, a console confirm): the
    stored round moved on; the daemon's own dice are refused, not chained twice."""
    daemon = TableService(_settings(), engine)
    daemon.resume()
    daemon.open_round(WAGERS, actor="dealer-ann")
    other = TableService(_settings(), engine)
    other.resume()
    other.record_dice(DiceRolled(faces=(2, 2, 2), source="rng"))
    with pytest.raises(RoundChanged, match="it is now dealing"):
        daemon.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    assert daemon.round.phase is Phase.DEALING and daemon.round.dice.faces == (2, 2, 2)
    assert [k for k, _ in _events(engine)].count("dice.rolled") == 1
    assert _chain_whole(engine)
