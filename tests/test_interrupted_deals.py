"""Only a deal that completed with a wrong card set counts toward ``misdeal_hold_after``
(docs/round-lifecycle.md, "When things go wrong"): a deal the shuffler stopped or lost (it
restarted with the daemon, the link dropped) is voided and alerted as before, but is no
evidence against the deck, so it neither counts nor ends a run of misdeals, in the running
table and in the count a restart reads back from the store."""

from __future__ import annotations

import json

from table_controller.game.cards import Game
from table_controller.game.deal import INTERRUPTED, check_deal, counts_toward_hold
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import list_events
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

from .round.tables import BANKER, POSITION_3, deal

RESTARTED = (
    "deal interrupted: the shuffler restarted during the deal (a new device session) after piles [1, 2, 3]"
)


def _piles() -> tuple[list[list[str]], list[str]]:
    return deal({1: BANKER, 3: POSITION_3}, start=3)


def _wrong_set() -> tuple[list[list[str]], list[str]]:
    piles, unused = _piles()
    unused[0] = piles[2][0]  # the same card twice, one missing: a complete deal of a wrong deck
    return piles, unused


def test_only_a_completed_deal_of_a_wrong_card_set_counts():
    piles, unused = _wrong_set()
    wrong = check_deal(Game.STANDARD, piles, unused, start=3)
    assert wrong.is_misdeal and counts_toward_hold(wrong.discrepancies)
    good_piles, good_unused = _piles()
    cut = check_deal(Game.STANDARD, good_piles[:3], [], start=3, interrupted=RESTARTED)
    assert [d.kind for d in cut.discrepancies] == [INTERRUPTED]
    assert cut.is_misdeal and not counts_toward_hold(cut.discrepancies)
    # interrupted, with the cards dealt showing a duplicate too: still an interrupted deal
    dup = check_deal(Game.STANDARD, [piles[2], [piles[2][0]]], [], start=3, interrupted=RESTARTED)
    assert "duplicate-card" in [d.kind for d in dup.discrepancies]
    assert not counts_toward_hold(dup.discrepancies)
    assert not counts_toward_hold(check_deal(Game.STANDARD, good_piles, good_unused, start=3).discrepancies)


def _round(service: TableService, piles, unused, interrupted: str | None = None):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    return service.record_deal(PilesDealt(piles=piles, unused=unused, interrupted=interrupted))


def _interrupted(service: TableService):
    piles, _ = _piles()
    state = _round(service, piles[:3], [], RESTARTED)
    assert state.phase.value == "void" and state.misdeal
    return state


def _misdeal(service: TableService):
    state = _round(service, *_wrong_set())
    assert state.phase.value == "void" and state.misdeal
    return state


def test_interrupted_deals_neither_count_nor_end_the_run(engine):
    settings = TableSettings(table_id="t1", misdeal_hold_after=2)
    service = TableService(settings, engine)
    service.resume()
    for _ in range(3):  # more than the threshold: the table plays on
        _interrupted(service)
    assert service.misdeals == 0 and service.hold is None
    _misdeal(service)
    _interrupted(service)  # does not end the run either
    assert service.misdeals == 1 and service.hold is None
    again = TableService(settings, engine)  # a restart counts from the store the same way
    again.resume()
    assert again.misdeals == 1 and again.hold is None
    _misdeal(again)
    assert again.misdeals == 2 and again.hold is not None
    with read_snapshot(engine) as session:
        misdeals = [
            json.loads(e.payload)
            for e in list_events(session, table_id="t1")
            if e.kind == "alert.raised" and json.loads(e.payload)["alert"] == "misdeal"
        ]
    assert [m["counts_toward_hold"] for m in misdeals] == [False, False, False, True, False, True]


def test_a_restart_after_interrupted_deals_alone_finds_no_run(engine):
    settings = TableSettings(table_id="t1", misdeal_hold_after=2)
    service = TableService(settings, engine)
    service.resume()
    _misdeal(service)
    for _ in range(3):
        _interrupted(service)
    again = TableService(settings, engine)
    again.resume()
    assert again.misdeals == 1  # the run of one real misdeal, the interrupted ones skipped
    _interrupted(again)
    assert again.hold is None
