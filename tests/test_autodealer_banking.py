"""The auto-dealer plays player-banked rounds when the table and the setting say so
(table_controller/table/autodealer.py; docs/settlement.md, 8): what ``run --simulate`` exercises."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from table_controller.game.banking import position_of_seat
from table_controller.game.cards import Game, codes
from table_controller.record.check import check_rounds
from table_controller.round.events import DiceRolled, PilesDealt
from table_controller.round.phases import Phase
from table_controller.settings import AutoDealerSettings, Limits, TableSettings
from table_controller.storage import get_round, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.autodealer import AutoDealer
from table_controller.table.service import TableService

LIMITS = Limits()


def _dealer(**settings) -> AutoDealer:
    return AutoDealer(AutoDealerSettings(enabled=True, seed=5, **settings), Game.STANDARD, LIMITS)


def test_without_the_setting_the_auto_dealer_never_banks():
    dealer = _dealer()
    for number in range(1, 30):
        opening = dealer.opening(number, lambda seats: min(seats))
        assert opening.banker_seat is None and opening.wagers == dealer.wagers(number)


def test_the_offered_seat_banks_and_the_others_are_numbered_from_it():
    dealer = _dealer(player_banks=True)
    banked = 0
    for number in range(1, 60):
        by_seat = dealer.wagers(number)
        opening = dealer.opening(number, lambda seats: max(seats))
        if len(by_seat) < 2:
            assert opening.banker_seat is None  # nobody to play against the bank
            continue
        banked += 1
        seat = max(by_seat)
        assert opening.banker_seat == seat
        assert opening.wagers == {position_of_seat(s, seat): w for s, w in by_seat.items() if s != seat}
        assert position_of_seat(1, seat) not in opening.wagers  # the dealer's seat holds no wager
        assert opening.bank_amount == 4 * (sum(w.main for w in opening.wagers.values()) + LIMITS.max_main)
    assert banked > 40


def _play(service: TableService, dealer: AutoDealer, number: int) -> None:
    opening = dealer.opening(number, service.bank_offer)
    state = service.open_round(
        opening.wagers,
        actor=dealer.actor,
        banker_seat=opening.banker_seat,
        bank_amount=opening.bank_amount,
        co_bank=opening.co_bank,
    )
    rng = random.Random(number)
    state = service.record_dice(DiceRolled(faces=tuple(rng.randint(1, 6) for _ in range(3)), source="rng"))
    deck = codes(Game.STANDARD.deck())
    rng.shuffle(deck)
    state = service.record_deal(
        PilesDealt(piles=[deck[k * 7 : k * 7 + 7] for k in range(7)], unused=deck[49:])
    )
    rules = service.round_rules
    while (position := dealer.next_position(state)) is not None:
        decision = dealer.player_setting(state, position, rules)
        state = service.set_player(position, decision.high, decision.low, actor=dealer.actor)
    high, low = dealer.dealer_setting(state)
    service.set_dealer(high, low, actor=dealer.actor)
    service.settle()


@pytest.mark.parametrize("policy", ["rotation", "alternate"])
def test_a_simulated_table_plays_player_banked_and_co_banked_rounds(engine, policy):
    settings = TableSettings(
        table_id="t1",
        banking={"policy": policy},
        auto_dealer={"enabled": True, "seed": 11, "player_banks": True, "co_bank_rate": 0.5},
    )
    service = TableService(settings, engine)
    dealer = AutoDealer(settings.auto_dealer, settings.game, settings.limits)
    bankers = []
    for number in range(1, 13):
        _play(service, dealer, number)
        state = service.round
        assert state.phase is Phase.CLOSED
        result = state.result
        # money only moves between the players, the player-banker and the house
        assert sum(p.net for p in result.positions) + result.banker_result + result.house_result == 0
        with read_snapshot(engine) as session:
            row = get_round(session, round_id=state.round_id)
        assert row.banker_seat == (state.opened.bank.seat if state.opened.bank else None)
        assert row.house_result_cents == result.house_result
        bankers.append(state.opened.bank)
    player_banked = [bank for bank in bankers if bank is not None]
    assert player_banked and len(player_banked) < len(bankers)
    assert {bank.co_banked for bank in player_banked} == {True, False}  # seed 11: both kinds
    if policy == "alternate":  # never two player-banked rounds in a row
        assert not any(a is not None and b is not None for a, b in pairwise(bankers))
    with read_snapshot(engine) as session:
        assert verify_chain(session, table_id="t1").ok
        # every round re-derived from its events and compared with its projections
        checked, unchained, findings, _ = check_rounds(session, table_id="t1")
    assert (checked, unchained, findings) == (12, 0, [])
