"""Player-banked and co-banked rounds through the round machine (004; docs/settlement.md, 8).

Seat 3 banks: it is position 1, and the dealer's seat 1 is position 6, where the dealer's own
seven cards play for the house. The hands are those of tests/game/test_banking.py:
- banker (position 1): 9h 9d Kc 7s 4h Qd 5c; the house way (002, one pair) sets it
  9h 9d 7s 5c 4h | Kc Qd; the banker, free, sets it 9h 9d Kc 7s 4h | Qd 5c;
- position 2 ($25): Th Td As 8c 3s | Kd Jc; position 5 ($10): Jh Js Ah 6c 2s | Tc 4d;
  position 7 ($40): 8h 8d Ad 6h 2h | Ts 3h;
- the house's hand (position 6, $20): 3d 3c 9s 8s 6d 4c 2d, set by the house way 3d 3c 6d 4c 2d | 9s 8s.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from table_controller.game.cards import Game
from table_controller.game.deal import DiceDirection
from table_controller.round.events import (
    DealerOverride,
    DealerSet,
    DiceRolled,
    PilesDealt,
    PlayerSet,
    RoundBank,
    RoundSettled,
    Wager,
    event_from_payload,
)
from table_controller.round.machine import HouseWayDeviation, TransitionRefused, apply, open_round, replay
from table_controller.round.phases import Phase

from .tables import deal, game_rules, opened

RULES = game_rules()
DICE_START_3 = DiceRolled(faces=(1, 1, 1), source="shaker", roll_id="r1")  # counter-clockwise: 3
HANDS = {
    1: "9h 9d Kc 7s 4h Qd 5c",
    2: "Th Td As 8c 3s Kd Jc",
    5: "Jh Js Ah 6c 2s Tc 4d",
    7: "8h 8d Ad 6h 2h Ts 3h",
    6: "3d 3c 9s 8s 6d 4c 2d",
}
WAGERS = {2: 2500, 5: 1000, 7: 4000}
PLAYERS = [
    PlayerSet(position=2, high=["Th", "Td", "As", "8c", "3s"], low=["Kd", "Jc"]),
    PlayerSet(position=5, high=["Jh", "Js", "Ah", "6c", "2s"], low=["Tc", "4d"]),
    PlayerSet(position=7, high=["8h", "8d", "Ad", "6h", "2h"], low=["Ts", "3h"]),
]
FREE = DealerSet(high=["9h", "9d", "Kc", "7s", "4h"], low=["Qd", "5c"], actor="player-seat-3")
HOUSE_WAY = DealerSet(high=["9h", "9d", "7s", "5c", "4h"], low=["Kc", "Qd"], actor="player-seat-3")


def banked_round(bank: RoundBank):
    state = open_round(opened(WAGERS, bank=bank))
    state = apply(state, DICE_START_3, RULES)
    piles, unused = deal(HANDS, start=3)
    state = apply(state, PilesDealt(piles=piles, unused=unused), RULES)
    for event in PLAYERS:
        state = apply(state, event, RULES)
    return state


def test_a_player_banker_sets_freely_and_wins_net_paying_commission_on_the_net():
    state = banked_round(RoundBank(seat=3, amount=10_000, house_wager=2000))
    assert sorted(state.hands) == [1, 2, 5, 6, 7]  # the house's hand is kept at position 6
    assert state.house_position == 6 and state.discarded_positions == (3, 4)
    state = apply(state, FREE, RULES)  # off the house way, and accepted: a player banks freely (004)
    assert state.phase is Phase.SETTLING and state.override is None
    state = apply(state, RoundSettled(), RULES)
    result = state.result
    assert [p.net for p in result.positions] == [2375, 0, -4000]
    house = result.bank.house_hand
    assert house.position == 6 and house.net == -2000
    assert [c.code for c in house.setting.low] == ["9s", "8s"]  # set by the house way
    # the bank: +$40 +$20 -$25 = +$35, 5% = $1.75, +$33.25; the house: $3.00 commission - $20
    assert (result.bank.gross, result.bank.commission, result.banker_result) == (3500, 175, 3325)
    assert result.house_result == -1700


def test_a_player_banker_who_loses_net_pays_no_commission():
    state = open_round(opened({2: 10_000, 7: 4000}, bank=RoundBank(seat=3, amount=20_000)))
    state = apply(state, DICE_START_3, RULES)
    piles, unused = deal({p: HANDS[p] for p in (1, 2, 7)}, start=3)
    state = apply(state, PilesDealt(piles=piles, unused=unused), RULES)
    assert state.house_position is None and 6 not in state.hands  # the house wagers nothing
    for event in (PLAYERS[0], PLAYERS[2], FREE, RoundSettled()):
        state = apply(state, event, RULES)
    # the bank pays $100 to position 2 and takes $40 from position 7: -$60, no commission;
    # position 2 pays $5 (5% of $100) to the house
    assert (state.result.bank.commission, state.result.banker_result) == (0, -6000)
    assert state.result.house_result == 500


def test_a_co_banked_banker_off_the_house_way_is_refused_and_no_override_lets_it_stand():
    # 004: when co-banking "the player's hand must also be set in the house way"
    state = banked_round(RoundBank(seat=3, amount=5_000, house_wager=2000, house_share_bp=5000))
    with pytest.raises(HouseWayDeviation) as refused:
        apply(state, FREE, RULES)
    assert "low Kc Qd" in str(refused.value)
    assert state.phase is Phase.DEALER_SETTING
    override = DealerOverride(high=FREE.high, low=FREE.low, actor="pit-bob", reason="banker misread")
    with pytest.raises(TransitionRefused, match=r"co-banker's hand must be set in the house way") as refused:
        apply(state, override, RULES)
    assert not isinstance(refused.value, HouseWayDeviation)  # not a deviation a pit may let stand
    assert "low Kc Qd" in str(refused.value)
    # the house way's own setting, asked as an override, is simply the house way
    same = DealerOverride(high=HOUSE_WAY.high, low=HOUSE_WAY.low, actor="pit-bob", reason="as the way")
    assert apply(state, same, RULES).phase is Phase.SETTLING


def test_the_pit_still_overrides_the_house_dealers_deviation_and_a_free_player_bankers_setting():
    house = banked_round(None)
    override = DealerOverride(high=FREE.high, low=FREE.low, actor="pit-bob", reason="dealer misread")
    assert apply(house, override, RULES).override == override
    free = banked_round(RoundBank(seat=3, amount=10_000, house_wager=2000))
    assert apply(free, override, RULES).phase is Phase.SETTLING


def test_a_co_banked_banker_set_by_the_house_way():
    state = banked_round(RoundBank(seat=3, amount=5_000, house_wager=2000, house_share_bp=5000))
    state = apply(apply(state, HOUSE_WAY, RULES), RoundSettled(), RULES)
    # K-Q in front: positions 2 and 5 win high, lose low (push); 7 and the house lose both.
    # The bank: +$40 +$20 = +$60, 5% = $3.00, +$57.00, split $28.50 each.
    assert [p.outcome.value for p in state.result.positions] == ["push", "push", "lose"]
    assert (state.result.bank.commission, state.result.banker_result) == (300, 2850)
    assert state.result.house_result == 1150  # $3.00 - $20 + $28.50


def test_no_player_wagers_at_the_dealers_seat():
    with pytest.raises(ValidationError, match="dealer's seat"):
        opened({6: 2500}, bank=RoundBank(seat=3, amount=10_000))


def test_the_dice_count_clockwise_when_the_round_says_so():
    state = open_round(opened({3: 2500}, dice_direction=DiceDirection.CLOCKWISE))
    # 004: 1, 7, 6 for a total of 3
    assert apply(state, DICE_START_3, RULES).start == 6


def test_a_round_stored_before_banking_replays_as_house_banked_counter_clockwise():
    payload = opened({3: 2500}).model_dump(mode="json")
    for name in ("bank", "bank_offer", "dice_direction"):
        del payload[name]
    old = event_from_payload(payload)
    assert old.bank is None and old.dice_direction is DiceDirection.COUNTER_CLOCKWISE
    assert old.banker_seat == 1
    assert apply(open_round(old), DICE_START_3, RULES).start == 3


def test_a_player_banked_round_replays_with_its_stored_settlement():
    bank = RoundBank(seat=3, amount=10_000, house_wager=2000, house_share_bp=5000)
    first = opened(WAGERS, bank=bank)
    piles, unused = deal(HANDS, start=3)
    events = [first, DICE_START_3, PilesDealt(piles=piles, unused=unused), *PLAYERS, HOUSE_WAY]
    live = replay(events, lambda _: RULES)
    settled = apply(live, RoundSettled(), RULES)
    stored = [
        event_from_payload(e.model_dump(mode="json"))
        for e in [*events, RoundSettled(result=settled.result.as_dict())]
    ]
    again = replay(stored, lambda _: RULES)
    assert again.phase is Phase.CLOSED and again.result == settled.result


def test_a_double_joker_player_bank_sets_first_and_the_joker_bonus_follows_the_bankers_hand():
    # allowed by the table's setting (003: "The Dealer is always considered position #1" by
    # default); the player-banker's seven cards take the dealer's part: set first, exposed
    rules = game_rules(Game.DOUBLE_JOKER)
    bank = RoundBank(seat=3, amount=20_000)
    state = open_round(opened({2: Wager(main=2500, joker_bonus=500)}, Game.DOUBLE_JOKER, rules, bank=bank))
    state = apply(state, DICE_START_3, rules)
    hands = {1: "JK JK Kc 7s 4h Qd 5c", 2: "Th Td As 8c 3s Kd Jc"}
    piles, unused = deal(hands, start=3, game=Game.DOUBLE_JOKER)
    state = apply(state, PilesDealt(piles=piles, unused=unused), rules)
    assert state.phase is Phase.DEALER_SETTING
    state = apply(state, DealerSet(high=["JK", "JK", "Kc", "7s", "4h"], low=["Qd", "5c"]), rules)
    state = apply(state, PlayerSet(position=2, high=["Th", "Td", "As", "8c", "3s"], low=["Kd", "Jc"]), rules)
    state = apply(state, RoundSettled(), rules)
    record = state.result.position(2)
    # two jokers (Aces) beat the tens, K-J beats Q-5: a push; "2 Jokers, Dealer" pays 10 to 1
    # on $5 from the house: +$50; the bank neither wins nor pays
    assert record.outcome.value == "push" and record.bonuses[0].line == "two-jokers-dealer"
    assert (record.net, state.result.bank.gross, state.result.house_result) == (5000, 0, -5000)


# --- a player-banker's foul is settled by the table's rule (001, 004) -----------------------
FOUL = DealerSet(high=["Kc", "Qd", "7s", "5c", "4h"], low=["9h", "9d"], actor="player-seat-3")


def test_a_player_bankers_foul_is_recorded_and_forfeits_by_default():
    state = banked_round(RoundBank(seat=3, amount=10_000, house_wager=2000))
    state = apply(state, FOUL, RULES)  # nines in front of King high: a foul, recorded, not refused
    assert state.phase is Phase.SETTLING
    state = apply(state, RoundSettled(), RULES)
    # forfeit: $25 - $1.25, $10 - $0.50, $40 - $2.00 to the positions; the house's hand
    # (3d 3c ... set by the house way) is paid its $20; the bank pays $95
    assert [p.net for p in state.result.positions] == [2375, 950, 3800]
    assert (state.result.bank.gross, state.result.banker_result) == (-9500, -9500)
    assert state.result.house_result == 2375  # $3.75 of commission + $20


def test_a_player_bankers_foul_re_set_by_the_house_way_when_the_table_says_so():
    rules = game_rules(banker_foul_rule="house-way")
    bank = RoundBank(seat=3, amount=10_000, house_wager=2000)
    piles, unused = deal(HANDS, start=3)
    events = [opened(WAGERS, rules=rules, bank=bank), DICE_START_3, PilesDealt(piles=piles, unused=unused)]
    state = replay([*events, *PLAYERS, FOUL, RoundSettled()], lambda _: rules)
    # re-set 9h 9d 7s 5c 4h | Kc Qd: positions 2 and 5 push, 7 loses both; the house's
    # 3-3 | 9-8 loses both: the bank takes $40 + $20 = $60, 5% = $3.00, +$57.00
    assert [p.outcome.value for p in state.result.positions] == ["push", "push", "lose"]
    assert state.result.bank.house_way_reset and state.result.banker_result == 5700
    assert state.result.house_result == -1700  # $3.00 - $20
    # stored and replayed, the round gives the same record (the foul rule is in round.opened)
    settled = RoundSettled(result=state.result.as_dict())
    stored = [event_from_payload(e.model_dump(mode="json")) for e in [*events, *PLAYERS, FOUL, settled]]
    assert stored[0].rules["table"]["banker_foul_rule"] == "house-way"
    assert replay(stored, lambda _: rules).result == state.result


def test_a_co_bankers_foul_is_refused():
    state = banked_round(RoundBank(seat=3, amount=5_000, house_wager=2000, house_share_bp=5000))
    with pytest.raises(TransitionRefused, match="never be a foul"):
        apply(state, FOUL, RULES)


def test_the_round_summary_line_says_who_banked():
    from table_controller.conductor.conductor import summary

    state = apply(banked_round(RoundBank(seat=3, amount=10_000, house_wager=2000)), FOUL, RULES)
    line = summary(apply(state, RoundSettled(), RULES))
    assert (line["banker"], line["banker_seat"], line["co_banked"], line["banker_fouled"]) == (
        "seat 3",
        3,
        False,
        True,
    )
    # the forfeited bank paid $95: no commission, the banker's result -$95
    assert (line["bank_commission_cents"], line["banker_result_cents"]) == (0, -9500)
    house = summary(apply(apply(banked_round(None), HOUSE_WAY, RULES), RoundSettled(), RULES))
    assert (house["banker"], house["banker_seat"]) == ("house", None)
