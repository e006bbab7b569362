"""Durable rounds (docs/round-lifecycle.md): every step in one transaction, projections, resume by replay,
refused events leave nothing behind. Runs on SQLite and on PostgreSQL (tests/db_fixtures.py)."""

from __future__ import annotations

import pytest

from table_controller.game.cards import Game
from table_controller.record.pinned_rules import rules_from_snapshot
from table_controller.record.recorder import RoundRecorder
from table_controller.round.events import DealerSet, DiceRolled, PilesDealt, PlayerSet, RoundSettled, Wager
from table_controller.round.machine import HouseWayDeviation
from table_controller.round.phases import Phase
from table_controller.storage import get_positions, get_round, list_events, verify_chain
from table_controller.storage.session import read_snapshot

from .round.tables import BANKER, POSITION_3, POSITION_5, deal, game_rules

RULES = game_rules()


@pytest.fixture
def recorder(engine):
    return RoundRecorder(engine, "t1", lambda opened: rules_from_snapshot(opened.rules))


def play_to_dealer(recorder):
    state, rules = recorder.open(
        game=Game.STANDARD,
        rules=RULES.snapshot(),
        wagers={3: Wager(main=2500), 5: Wager(main=1000)},
        actor="dealer-ann",
    )
    state = recorder.record(state, DiceRolled(faces=(1, 1, 1), source="shaker", roll_id="r1"), rules)
    piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
    state = recorder.record(state, PilesDealt(piles=piles, unused=unused), rules)
    state = recorder.record(
        state, PlayerSet(position=3, high=["As", "Ah", "9c", "8c", "2c"], low=["Kd", "Kh"]), rules
    )
    state = recorder.record(
        state, PlayerSet(position=5, high=["Kc", "8d", "6s", "4h", "3c"], low=["Qh", "Jd"]), rules
    )
    return state, rules


def test_a_round_is_stored_step_by_step_and_projected(recorder, engine):
    state, rules = play_to_dealer(recorder)
    state = recorder.record(state, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), rules)
    state = recorder.record(state, RoundSettled(), rules)
    with read_snapshot(engine) as session:
        row = get_round(session, round_id=state.round_id)
        positions = {p.position: p for p in get_positions(session, round_id=state.round_id)}
        events = list_events(session, table_id="t1", round_id=state.round_id)
        report = verify_chain(session)
    assert state.round_id == "t1-1"
    assert (row.phase, row.die_1, row.die_2, row.die_3, row.dice_source, row.start_position) == (
        "closed",
        1,
        1,
        1,
        "shaker",
        3,
    )
    assert (row.wagered_cents, row.commission_cents, row.house_result_cents) == (3500, 125, -2375)
    assert row.house_way_rule_id == "high-card.second-and-fourth" and row.closed_at is not None
    assert (positions[3].outcome, positions[3].net_cents, positions[3].commission_cents) == ("win", 2375, 125)
    assert (positions[5].outcome, positions[5].net_cents) == ("push", 0)
    assert positions[1].low == "Qd 7s" and positions[1].cards == BANKER
    assert positions[3].high_category == "one-pair" and positions[3].low_category == "pair"
    assert [e.kind for e in events] == [
        "round.opened",
        "dice.rolled",
        "piles.dealt",
        "player.set",
        "player.set",
        "dealer.set",
        "round.settled",
    ]
    assert report.ok and report.events_checked == 7


def test_resume_rebuilds_the_open_round_exactly_where_it_was(recorder):
    live, _ = play_to_dealer(recorder)
    found = recorder.resume()
    resumed, rules = found.state, found.rules
    assert found.failure is None and found.held is None
    assert resumed == live and resumed.phase is Phase.DEALER_SETTING
    # and it carries on from there
    resumed = recorder.record(
        resumed, DealerSet(high=["Ac", "9h", "5c", "3d", "2h"], low=["Qd", "7s"]), rules
    )
    assert resumed.phase is Phase.SETTLING


def test_a_refused_dealer_setting_writes_nothing_but_the_note(recorder, engine):
    state, rules = play_to_dealer(recorder)
    with read_snapshot(engine) as session:
        before = len(list_events(session, table_id="t1"))
    with pytest.raises(HouseWayDeviation) as refused:
        recorder.record(state, DealerSet(high=["Ac", "7s", "5c", "3d", "2h"], low=["Qd", "9h"]), rules)
    recorder.note(
        kind="dealer.setting.refused",
        actor="dealer-ann",
        round_id=state.round_id,
        payload={"required_rule": refused.value.required.rule_id},
    )
    with read_snapshot(engine) as session:
        events = list_events(session, table_id="t1")
        row = get_round(session, round_id=state.round_id)
    assert len(events) == before + 1 and events[-1].kind == "dealer.setting.refused"
    assert row.phase == "dealer-setting"
    assert recorder.resume().state == state  # the note is not a round event


def test_a_round_with_nothing_open_resumes_to_none(recorder):
    assert recorder.resume() is None


def test_a_misdeal_is_stored_void_with_the_discrepancy(recorder, engine):
    state, rules = recorder.open(
        game=Game.STANDARD, rules=RULES.snapshot(), wagers={3: Wager(main=2500)}, actor="dealer-ann"
    )
    state = recorder.record(state, DiceRolled(faces=(1, 1, 1), source="rng"), rules)
    piles, unused = deal({1: BANKER, 3: POSITION_3}, start=3)
    piles[6] = piles[6][:6]  # a short pile
    state = recorder.record(state, PilesDealt(piles=piles, unused=unused), rules)
    with read_snapshot(engine) as session:
        row = get_round(session, round_id=state.round_id)
    assert (row.phase, row.voided, row.misdeal) == ("void", True, True)
    assert row.void_reason.startswith("misdeal: pile 7 has 6 cards, expected 7")
    assert recorder.resume() is None  # a void round is final


def test_a_failure_inside_the_step_leaves_nothing_half_written(recorder, engine, monkeypatch):
    state, rules = recorder.open(
        game=Game.STANDARD, rules=RULES.snapshot(), wagers={3: Wager(main=2500)}, actor="dealer-ann"
    )
    import table_controller.record.recorder as module

    def broken_projection(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(module, "_project", broken_projection)
    with pytest.raises(RuntimeError):
        recorder.record(state, DiceRolled(faces=(1, 1, 1), source="shaker"), rules)
    with read_snapshot(engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="t1")]
        row = get_round(session, round_id=state.round_id)
    assert kinds == ["round.opened"] and row.phase == "open" and row.die_1 is None
