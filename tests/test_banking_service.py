"""Player-banked rounds through the table service and the store (docs/settlement.md, 8):
refusals with reasons, the rotation, the stored round saying who banked, the projection.

The hands are those of tests/round/test_banking_rounds.py (seat 3 banks; the dealer's seat 1
is position 6): the bank wins +$35 gross, pays $1.75 commission and nets +$33.25.
"""

from __future__ import annotations

import json

import pytest

from table_controller.game.banking import BankingPolicy
from table_controller.game.deal import DiceDirection
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.round.machine import HouseWayDeviation, TransitionRefused
from table_controller.settings import TableSettings
from table_controller.storage import get_positions, get_round, list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import BankRefused, TableService

from .round.tables import deal

HANDS = {
    1: "9h 9d Kc 7s 4h Qd 5c",
    2: "Th Td As 8c 3s Kd Jc",
    5: "Jh Js Ah 6c 2s Tc 4d",
    7: "8h 8d Ad 6h 2h Ts 3h",
    6: "3d 3c 9s 8s 6d 4c 2d",
}
# with seat 3 banking, positions 2, 5, 7 are seats 4, 7, 2
WAGERS = {2: Wager(main=2500), 5: Wager(main=1000), 7: Wager(main=4000)}


def service_with(engine, **banking):
    settings = TableSettings(
        table_id="t1", banking={"policy": "rotation", "house_wager": "table-minimum", **banking}
    )
    return TableService(settings, engine)


def play_to_settled(service, dealer_setting=("9h 9d Kc 7s 4h", "Qd 5c")):
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal(HANDS, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    for position, high, low in (
        (2, "Th Td As 8c 3s", "Kd Jc"),
        (5, "Jh Js Ah 6c 2s", "Tc 4d"),
        (7, "8h 8d Ad 6h 2h", "Ts 3h"),
    ):
        service.set_player(position, high.split(), low.split(), actor="dealer-ann")
    service.set_dealer(dealer_setting[0].split(), dealer_setting[1].split(), actor="seat-3")
    return service.settle()


def test_a_bank_short_of_the_action_is_refused_naming_the_shortfall_and_nothing_is_stored(engine):
    service = service_with(engine)
    service._bank_history = service._bank_history.after(2, {})  # seat 2 had the bank last
    # $25 + $10 + $40 + the house's $5 (table minimum) = $80 of action; $70 is $10 short
    with pytest.raises(BankRefused, match=r"short by \$10\.00") as refused:
        service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=7000)
    assert refused.value.shortfall == 1000
    with read_snapshot(engine) as session:
        assert list_events(session, table_id="t1") == []


def test_the_policy_never_refuses_a_player_bank(engine):
    service = TableService(TableSettings(table_id="t1"), engine)
    assert service.settings.banking.policy is BankingPolicy.NEVER
    with pytest.raises(BankRefused, match="never"):
        service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=100_000)


def test_a_player_banked_round_is_stored_with_its_banker_and_settles_with_its_bank(engine):
    service = service_with(engine)
    service._bank_history = service._bank_history.after(2, {})
    state = service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=8000)
    assert state.opened.bank.seat == 3 and state.opened.bank.house_wager == 500
    assert state.opened.bank_offer == 3
    assert state.opened.dice_direction is DiceDirection.COUNTER_CLOCKWISE
    state = play_to_settled(service)
    # the house's $5 hand loses both: the bank +$40 +$5 -$25 = +$20, 5% = $1.00, +$19.00
    bank = state.result.bank
    assert (bank.gross, bank.commission, bank.banker_net) == (2000, 100, 1900)
    # the house: $1.25 + $1.00 commission, -$5 on its hand
    assert state.result.house_result == -275
    with read_snapshot(engine) as session:
        row = get_round(session, round_id=state.round_id)
        positions = {p.position: p for p in get_positions(session, round_id=state.round_id)}
        events = list_events(session, table_id="t1")
        assert verify_chain(session, table_id="t1").ok
    assert (row.banker_seat, row.bank_cents, row.house_wager_cents, row.house_share_bp) == (
        3,
        8000,
        500,
        None,
    )
    assert (row.bank_gross_cents, row.bank_commission_cents, row.banker_result_cents) == (2000, 100, 1900)
    assert (row.house_hand_result_cents, row.house_result_cents, row.dice_direction) == (
        -500,
        -275,
        "counter-clockwise",
    )
    assert positions[6].house_hand and positions[6].net_cents == -500 and positions[6].high is None
    assert not positions[2].house_hand and positions[2].net_cents == 2375
    opened = json.loads(next(e.payload for e in events if e.kind == "round.opened"))
    assert opened["bank"] == {"seat": 3, "amount": 8000, "house_wager": 500, "house_share_bp": None}


def test_a_co_banked_deviation_is_refused_with_an_alert(engine):
    service = service_with(engine, co_bank_share_bp=5000)
    service._bank_history = service._bank_history.after(2, {})
    service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=4000, co_bank=True)
    with pytest.raises(HouseWayDeviation, match="deviates from the house way"):
        play_to_settled(service)
    with read_snapshot(engine) as session:
        kinds = [json.loads(e.payload).get("alert") for e in list_events(session, table_id="t1")]
    assert "house-way-deviation" in kinds
    state = service.set_dealer(["9h", "9d", "7s", "5c", "4h"], ["Kc", "Qd"], actor="seat-3")
    state = service.settle()
    # K-Q in front: positions 2 and 5 push, 7 and the house lose: +$40 +$5 = +$45, 5% = $2.25,
    # +$42.75 split 50/50: $21.37 to the banker, $21.38 to the house (the odd cent to the house)
    assert (state.result.bank.banker_net, state.result.bank.house_share) == (2137, 2138)


def test_the_offer_moves_on_when_the_house_banks_instead(engine):
    service = service_with(engine)
    state = service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-ann")
    assert state.opened.bank is None and state.opened.bank_offer == 3  # seat 3 declined
    service.void("pit-bob", "testing the rotation")
    with pytest.raises(BankRefused, match="offered to seat 5"):
        service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-ann", banker_seat=3)


def test_a_player_set_at_the_house_hands_position_is_refused(engine):
    service = service_with(engine)
    service._bank_history = service._bank_history.after(2, {})
    service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=8000)
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    piles, unused = deal(HANDS, start=3)
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    with pytest.raises(TransitionRefused, match="position 6 has no wager"):
        service.set_player(6, ["3d", "3c", "6d", "4c", "2d"], ["9s", "8s"], actor="dealer-ann")


def test_the_rotation_carries_on_after_a_restart(engine):
    service = service_with(engine)
    state = service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-ann")
    assert state.opened.bank_offer == 3  # declined: the house banks
    service.void("pit-bob", "testing the rotation")
    restarted = service_with(engine)
    restarted.resume()
    with pytest.raises(BankRefused, match="offered to seat 5"):
        restarted.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-ann", banker_seat=3)
    # seat 5 banks: position 6 is seat 3 ((5 - 1 + 6 - 1) mod 7 + 1), the dealer's seat 1 is
    # position 4; the house wagers the table minimum ($5): $25 + $5 = $30 covers the action
    state = restarted.open_round({6: Wager(main=2500)}, actor="dealer-ann", banker_seat=5, bank_amount=3000)
    assert state.opened.bank.seat == 5 and state.opened.bank.house_position == 4


def test_after_a_restart_each_seat_keeps_its_own_last_wager_from_the_store(engine):
    """banker-last-wager: a seat that sat out the last round keeps its own last main wager."""
    service = service_with(engine, house_wager="banker-last-wager")
    # round 1, the house banks: seats 3 ($20) and 4 ($15)
    service.open_round({3: Wager(main=2000), 4: Wager(main=1500)}, actor="dealer-ann")
    service.void("pit-bob", "a round of wagers")
    # round 2, the house banks: seats 2 ($10) and 5 ($30)
    service.open_round({2: Wager(main=1000), 5: Wager(main=3000)}, actor="dealer-ann")
    service.void("pit-bob", "a round of wagers")
    # round 3, seat 3 banks: positions 2, 5, 7 are seats 4, 7, 2; its house wager is seat 3's $20
    service._bank_history = service._bank_history.after(2, {})
    state = service.open_round(WAGERS, actor="dealer-ann", banker_seat=3, bank_amount=10_000)
    assert state.opened.bank.house_wager == 2000
    service.void("pit-bob", "a round of wagers")
    before = dict(service.bank_history.last_wagers)
    again = TableService(service.settings, engine)
    assert again.resume() is None
    # seat 3 from round 1, seat 5 from round 2, seats 4, 7 and 2 from round 3
    assert again.bank_history.last_wagers == {3: 2000, 5: 3000, 4: 2500, 7: 1000, 2: 4000} == before
