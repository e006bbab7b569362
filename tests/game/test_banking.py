"""Player banking and co-banking (000, 001, 003, 004; docs/settlement.md, 8).

Every amount below is worked out by hand from the rules. Seat 3 banks: position 1 is seat 3,
and the dealer's seat 1 is position (1 - 3) mod 7 + 1 = 6.

A player banking alone sets freely (004): ``BANKER`` holds the hand of
tests/game/test_settlement.py set 9h 9d Kc 7s 4h | Qd 5c. Against it (docs/settlement.md, 7):
position 2 (Th Td As 8c 3s | Kd Jc) wins both hands, position 5 (Jh Js Ah 6c 2s | Tc 4d) wins
high and loses low (push), position 7 (8h 8d Ad 6h 2h | Ts 3h) loses both.

The dealer's own seven cards play for the house, set by the house way (the house's hand is
never set otherwise): 7h 7d Qs 6d 5s Jd 2d, one pair (002): 7h 7d 6d 5s 2d | Qs Jd. Against
the free banker the sevens lose to the nines and Q-J beats Q-5: a push.

A co-banker sets by the house way (004 "must also be set in the house way"): ``CO_BANKER`` is
the same seven cards as the house way sets them, 9h 9d 7s 5c 4h | Kc Qd. Against it position 2
set by the house way too (Th Td Jc 8c 3s | As Kd) wins both (tens over nines, A-K over K-Q),
position 5 pushes (jacks win, T-4 loses), position 7 and the house's hand (Q-J under K-Q) lose
both. Each of these settings is checked against the house way as the code computes it below.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.game.banking import (
    DEFAULT_CO_BANK_SHARE_BP,
    Bank,
    BankHistory,
    BankingNotAllowed,
    BankingPolicy,
    BankingTerms,
    BankNotCovered,
    BankTermsError,
    HouseWagerPolicy,
    check_bank_covers,
    check_banking_allowed,
    house_wager_for,
    next_bank_offer,
    plan_bank,
    position_of_seat,
    required_bank,
    seat_of_position,
    split_bank,
)
from table_controller.game.cards import Game, parse_cards
from table_controller.game.evaluator import rank_high
from table_controller.game.house_way import load_house_way
from table_controller.game.money import FlatFee, NoCommission, PercentCommission
from table_controller.game.setting import Setting, all_settings, is_legal
from table_controller.game.settlement import (
    BankerHand,
    BankerHandError,
    BankError,
    FoulKind,
    HouseWaySettingError,
    Outcome,
    PositionHand,
    settle_round,
)
from table_controller.game.table_rules import FoulRule, TableRules

STANDARD = TableRules()
DOUBLE_JOKER = TableRules(game=Game.DOUBLE_JOKER)

WAY = load_house_way("house-way-002")


def by_house_way(cards):
    return WAY.set(cards, STANDARD.ranking).setting


def setting(high: str, low: str) -> Setting:
    return Setting(high=parse_cards(high), low=parse_cards(low))


def hand(position: int, high: str, low: str, wager: int, **bonuses) -> PositionHand:
    return PositionHand(position, parse_cards(f"{high} {low}"), setting(high, low), wager, **bonuses)


BANKER = BankerHand(cards=parse_cards("9h 9d Kc 7s 4h Qd 5c"), setting=setting("9h 9d Kc 7s 4h", "Qd 5c"))


def positions(p2=2500, p5=1000, p7=4000):
    return [
        hand(2, "Th Td As 8c 3s", "Kd Jc", p2),  # wins both
        hand(5, "Jh Js Ah 6c 2s", "Tc 4d", p5),  # one each: push
        hand(7, "8h 8d Ad 6h 2h", "Ts 3h", p7),  # loses both
    ]


def house_hand(wager=2000, position=6):
    return hand(position, "7h 7d 6d 5s 2d", "Qs Jd", wager)  # the house way's setting


CO_BANKER = BankerHand(cards=BANKER.cards, setting=setting("9h 9d 7s 4h 5c", "Kc Qd"))


def co_positions(p2=2500):
    """Against the co-banker: position 2 sets by the house way (A-K in front) and wins both."""
    return [hand(2, "Th Td Jc 8c 3s", "As Kd", p2), *positions()[1:]]


# --- seats and positions (004) --------------------------------------------------------------


def test_positions_count_counter_clockwise_from_the_banker_seat():
    # seat 3 banks: seat 3 is position 1, seat 4 is 2 ... seat 2 is 7; the dealer's seat 1 is 6
    assert [position_of_seat(seat, 3) for seat in range(1, 8)] == [6, 7, 1, 2, 3, 4, 5]
    assert [seat_of_position(position, 3) for position in range(1, 8)] == [3, 4, 5, 6, 7, 1, 2]
    # the house banks from the dealer's seat: positions are seats, as always
    assert [position_of_seat(seat, 1) for seat in range(1, 8)] == list(range(1, 8))
    assert Bank(seat=3, amount=0).house_position == 6
    assert Bank(seat=7, amount=0).house_position == 2


@pytest.mark.parametrize(
    "terms",
    [
        {"seat": 1, "amount": 100},  # the dealer's seat is the house's
        {"seat": 8, "amount": 100},
        {"seat": 3, "amount": -1},
        {"seat": 3, "amount": 10.0},
        {"seat": 3, "amount": 100, "house_share_bp": 0},
        {"seat": 3, "amount": 100, "house_share_bp": 10_000},
        {"seat": 3, "amount": 100, "house_wager": -500},
    ],
)
def test_impossible_bank_terms_are_refused(terms):
    with pytest.raises(BankTermsError):
        Bank(**terms)


# --- who may bank ---------------------------------------------------------------------------


def test_policy_never_refuses_a_player_bank():
    with pytest.raises(BankingNotAllowed, match="never"):
        check_banking_allowed(Game.STANDARD, BankingPolicy.NEVER, allow_in_double_joker=True)


def test_double_joker_refuses_a_player_bank_unless_the_table_allows_it():
    with pytest.raises(BankingNotAllowed, match="position #1"):
        check_banking_allowed(Game.DOUBLE_JOKER, BankingPolicy.ROTATION, allow_in_double_joker=False)
    check_banking_allowed(Game.DOUBLE_JOKER, BankingPolicy.ROTATION, allow_in_double_joker=True)
    check_banking_allowed(Game.STANDARD, BankingPolicy.ALTERNATE, allow_in_double_joker=False)


def test_rotation_offers_each_occupied_seat_once_then_the_house():
    seats = {2, 4, 7}
    offers, last = [], None
    for _ in range(8):
        last = next_bank_offer(BankingPolicy.ROTATION, seats, last_offer=last, last_player_offer=None)
        offers.append(last)
    assert offers == [2, 4, 7, None, 2, 4, 7, None]


def test_alternate_gives_every_other_round_to_the_house_and_moves_the_offer_on():
    seats = {3, 6}
    offers, last, last_player = [], None, None
    for _ in range(6):
        last = next_bank_offer(BankingPolicy.ALTERNATE, seats, last_offer=last, last_player_offer=last_player)
        last_player = last if last is not None else last_player
        offers.append(last)
    assert offers == [3, None, 6, None, 3, None]


def test_never_and_an_empty_table_offer_nothing():
    assert next_bank_offer(BankingPolicy.NEVER, {2, 3}, last_offer=None, last_player_offer=None) is None
    assert next_bank_offer(BankingPolicy.ROTATION, set(), last_offer=None, last_player_offer=None) is None


@pytest.mark.parametrize(
    ("policy", "last", "expected"),
    [
        (HouseWagerPolicy.NONE, 5000, 0),
        (HouseWagerPolicy.BANKER_LAST_WAGER, 5000, 5000),
        (HouseWagerPolicy.BANKER_LAST_WAGER, None, 500),  # never wagered here: the table minimum
        (HouseWagerPolicy.TABLE_MINIMUM, 5000, 500),
    ],
)
def test_house_wager_by_policy(policy, last, expected):
    assert house_wager_for(policy, banker_last_wager=last, table_minimum=500) == expected


# --- covering the action --------------------------------------------------------------------


def test_a_bank_must_cover_every_wager_against_it_and_the_shortfall_is_named():
    wagers = {2: 2500, 5: 1000, 7: 4000}
    bank = Bank(seat=3, amount=9000, house_wager=2000)
    # a full loss pays $25 + $10 + $40 + the house's $20 = $95: $90 is $5 short
    with pytest.raises(BankNotCovered, match=r"short by \$5\.00") as refused:
        check_bank_covers(STANDARD, wagers, bank)
    assert (refused.value.required, refused.value.shortfall) == (9500, 500)
    assert check_bank_covers(STANDARD, wagers, Bank(seat=3, amount=9500, house_wager=2000)) == 9500


def test_a_co_banked_bank_covers_its_own_share_rounded_up():
    # $95 of action, the player's half is $47.50; at 1/3 for the player ($31.666...) -> $31.67
    assert required_bank(STANDARD, {2: 9500}, Bank(seat=3, amount=0, house_share_bp=5000)) == 4750
    assert required_bank(STANDARD, {2: 9500}, Bank(seat=3, amount=0, house_share_bp=6667)) == 3167


def test_double_joker_exposure_counts_the_premium_multiple():
    rules = TableRules(game=Game.DOUBLE_JOKER)  # overqualifier on, premium 3x (003)
    assert required_bank(rules, {2: 2500}, Bank(seat=3, amount=0)) == 7500


# --- settlement against a player-banker -----------------------------------------------------


def test_player_banker_net_win_pays_commission_on_the_net():
    bank = Bank(seat=3, amount=10_000, house_wager=2000)
    result = settle_round(STANDARD, BANKER, positions(), bank=bank, house_hand=house_hand())
    # positions settle as against the house: +$25 - $1.25, push, -$40
    assert [p.net for p in result.positions] == [2375, 0, -4000]
    assert [p.commission for p in result.positions] == [125, 0, 0]
    banked = result.bank
    # the house's sevens lose to the nines, its Q-J beats Q-5: a push
    assert banked.house_hand.outcome is Outcome.PUSH and banked.house_hand.net == 0
    assert banked.house_hand.commission == 0 and banked.house_hand.fee == 0
    # the bank won $40 and paid $25: +$15; 5% of $15 = $0.75 (a multiple of 25 cents)
    assert (banked.gross, banked.commission, banked.net) == (1500, 75, 1425)
    assert (banked.banker_net, banked.house_share) == (1425, 0)
    # the house: $1.25 + $0.75 commission, nothing on its pushed hand = +$2.00
    assert result.house_result == 200
    assert result.totals()["banker_result"] == 1425
    assert sum(p.net for p in result.positions) + result.banker_result + result.house_result == 0


def test_player_banker_net_loss_pays_no_commission():
    bank = Bank(seat=3, amount=20_000)  # the house's hand does not play (house wager 0)
    result = settle_round(STANDARD, BANKER, positions(p2=10_000), bank=bank)
    # the bank pays $100 and takes $40: -$60, no commission; position 2 pays $5 on its $100
    assert (result.bank.gross, result.bank.commission, result.bank.banker_net) == (-6000, 0, -6000)
    assert result.position(2).net == 9500
    assert result.bank.house_hand is None
    assert result.house_result == 500


def test_the_example_hands_are_set_as_the_house_way_sets_them():
    assert by_house_way(CO_BANKER.cards) == CO_BANKER.setting
    house = house_hand()
    assert by_house_way(house.cards) == house.setting
    assert by_house_way(co_positions()[0].cards) == co_positions()[0].setting
    assert by_house_way(BANKER.cards) != BANKER.setting  # the free banker's own choice (004)


def test_co_banking_splits_the_result_commission_included_odd_cent_to_the_house():
    bank = Bank(seat=3, amount=10_000, house_wager=2000, house_share_bp=DEFAULT_CO_BANK_SHARE_BP)
    result = settle_round(STANDARD, CO_BANKER, co_positions(), bank=bank, house_hand=house_hand())
    assert [p.outcome for p in result.positions] == [Outcome.WIN, Outcome.PUSH, Outcome.LOSE]
    assert result.bank.house_hand.outcome is Outcome.LOSE
    # the bank takes $40 + $20 and pays $25: +$35, 5% = $1.75, net $33.25; halved $16.625:
    # the player gets $16.62, the house $16.63
    assert (result.bank.gross, result.bank.commission) == (3500, 175)
    assert (result.bank.net, result.bank.banker_net, result.bank.house_share) == (3325, 1662, 1663)
    # the house: $1.25 + $1.75 commission - $20 on its hand + $16.63 = -$0.37
    assert result.house_result == -37


def test_co_banked_loss_splits_too():
    bank = Bank(seat=3, amount=20_000, house_share_bp=5000)
    result = settle_round(STANDARD, CO_BANKER, co_positions(p2=10_100), bank=bank)
    # the bank pays $101, takes $40: -$61, halves to -$30.50 each
    assert (result.bank.banker_net, result.bank.house_share) == (-3050, -3050)


def test_split_rounding_is_named_the_odd_cent_to_the_house():
    assert split_bank(101, 5000) == (50, 51)
    assert split_bank(-101, 5000) == (-51, -50)
    assert split_bank(101, None) == (101, 0)


def test_flat_fee_tables_charge_the_banker_per_hand():
    rules = TableRules(commission=FlatFee(fee=100))
    bank = Bank(seat=3, amount=10_000, house_wager=2000)
    result = settle_round(rules, BANKER, positions(), bank=bank, house_hand=house_hand())
    assert [p.net for p in result.positions] == [2400, -100, -4100]
    # the bank: +$40 - $25 = +$15, no commission, $1 fee: +$14; the house's hand pushes and
    # pays no fee to the house: the house has $3 of the positions' fees + $1 of the bank's = +$4
    assert (result.bank.commission, result.bank.fee, result.bank.banker_net) == (0, 100, 1400)
    assert result.house_result == 400


def test_no_commission_tables_take_none_from_the_bank():
    rules = TableRules(commission=NoCommission())
    result = settle_round(rules, BANKER, positions(), bank=Bank(seat=3, amount=10_000))
    # $40 - $25 = +$15 for the bank, no commission
    assert result.bank.net == 1500 and result.house_result == 0


def test_copies_go_to_the_player_banker():
    bank = Bank(seat=3, amount=10_000)
    copy = hand(2, "9s 9c Kh 7d 4c", "Qs 5d", 2500)  # the banker's hand exactly
    result = settle_round(STANDARD, BANKER, [copy], bank=bank)
    assert result.position(2).outcome is Outcome.LOSE and result.bank.gross == 2500


def test_a_house_banked_record_is_what_it_always_was():
    record = settle_round(STANDARD, BANKER, positions()).as_dict()
    assert "bank" not in record and "banker_result" not in record["totals"]
    assert record["totals"]["house_result"] == 1625  # docs/settlement.md, 7, example 4


def test_a_player_banked_record_is_complete_and_deterministic():
    bank = Bank(seat=3, amount=10_000, house_wager=2000, house_share_bp=5000)
    first = settle_round(STANDARD, CO_BANKER, co_positions(), bank=bank, house_hand=house_hand()).as_dict()
    again = settle_round(STANDARD, CO_BANKER, co_positions(), bank=bank, house_hand=house_hand()).as_dict()
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert first["bank"]["seat"] == 3 and first["bank"]["house_position"] == 6
    assert first["bank"]["house_hand"]["setting"] == {
        "high": ["7h", "7d", "6d", "5s", "2d"],
        "low": ["Qs", "Jd"],
    }
    assert first["totals"]["bank_commission"] == 175 and first["totals"]["house_hand_result"] == -2000


def test_the_house_hand_must_sit_where_the_dealer_sits_and_wager_the_house_wager():
    bank = Bank(seat=3, amount=10_000, house_wager=2000)
    with pytest.raises(BankError, match="position 6"):
        settle_round(STANDARD, BANKER, positions(), bank=bank, house_hand=house_hand(position=4))
    with pytest.raises(BankError, match="exactly when"):
        settle_round(STANDARD, BANKER, positions(), bank=bank)
    with pytest.raises(BankError, match="holds the house's hand"):
        settle_round(
            STANDARD, BANKER, [hand(6, "Th Td As 8c 3s", "Kd Jc", 2500)], bank=Bank(seat=3, amount=1)
        )
    with pytest.raises(BankError, match="player's bank"):
        settle_round(STANDARD, BANKER, positions(), house_hand=house_hand())
    fouled = hand(6, "Jd 2d 7h 6d 5s", "7d Qs", 2000)
    with pytest.raises(HouseWaySettingError):
        settle_round(STANDARD, BANKER, positions(), bank=bank, house_hand=fouled)


# --- Double Joker bonuses stay with the house; "dealer" lines follow the banker (003) -------


DJ_BANKER = BankerHand(
    cards=parse_cards("JK JK Kc 7s 4h Qd 5c"), setting=setting("JK JK Kc 7s 4h", "Qd 5c")
)  # two jokers: a pair of Aces behind, Q-5 in front; qualified, not overqualified


def test_joker_bonus_dealer_lines_follow_the_player_bankers_hand():
    bank = Bank(seat=3, amount=10_000)
    position = hand(2, "Th Td As 8c 3s", "Kd Jc", 2500, joker_bonus_wager=500)
    result = settle_round(DOUBLE_JOKER, DJ_BANKER, [position], bank=bank)
    record = result.position(2)
    # tens lose to Aces, K-J beats Q-5: push; "2 Jokers, Dealer" 10 to 1 on $5: +$50 from the house
    assert record.outcome is Outcome.PUSH
    assert record.bonuses[0].line == "two-jokers-dealer" and record.net == 5000
    assert result.bank.gross == 0 and result.house_result == -5000


def test_jokers_in_the_house_hand_are_not_the_dealers_line_when_a_player_banks():
    bank = Bank(seat=3, amount=10_000, house_wager=2000)
    position = hand(2, "Th Td As 8c 3s", "Kd Jc", 2500, joker_bonus_wager=500)
    # both jokers with the house's hand, set by the house way: JK JK Jd 6d 2d is a diamond
    # flush (the jokers fill it, 003), Q-5 in front
    house = hand(6, "JK JK Jd 6d 2d", "Qs 5s", 2000)
    assert WAY.set(house.cards, DOUBLE_JOKER.ranking).setting == house.setting
    result = settle_round(DOUBLE_JOKER, BANKER, [position], bank=bank, house_hand=house)
    # the banker (nines, Q-5) holds no joker, nor the position: "No Jokers" loses the $5
    assert result.position(2).bonuses[0].line == "no-jokers" and result.position(2).bonuses[0].net == -500
    # the house's flush beats the nines, its Q-5 copies the banker's Q-5 (a copy goes to the
    # banker): push; position 2 wins both: the bank pays $25 (no commission in Double Joker)
    # and the house collects the $5 bonus
    assert result.bank.house_hand.outcome is Outcome.PUSH
    assert result.bank.gross == -2500 and result.house_result == 500


# --- opening a round: who banks, by the table's terms ---------------------------------------

ROTATION = BankingTerms(policy=BankingPolicy.ROTATION)


def plan(terms=ROTATION, history=None, wagers=None, **request):
    return plan_bank(
        STANDARD,
        terms,
        history or BankHistory(),
        {2: 2500, 5: 1000, 7: 4000} if wagers is None else wagers,
        table_minimum=500,
        **request,
    )


def test_the_offered_seat_banks_with_the_house_wager_of_its_last_wager():
    # seat 3 wagered $20 as a player last round; with seat 3 banking, positions 2, 5, 7 are
    # seats 4, 7, 2, so the occupied seats are 2, 3, 4, 7 and the rotation begins at seat 2
    history = BankHistory(last_offer=2, last_player_offer=2, last_wagers={3: 2000})
    banked = plan(history=history, banker_seat=3, amount=9500)
    assert banked.offer == 3 and banked.seats == {2: 4, 5: 7, 7: 2}
    assert banked.bank == Bank(seat=3, amount=9500, house_wager=2000)
    co = plan(history=history, banker_seat=3, amount=4750, co_bank=True)
    assert co.bank.house_share_bp == 5000


def test_a_player_may_decline_the_offer_and_the_house_banks():
    declined = plan(history=BankHistory(last_offer=2), banker_seat=None)
    assert declined.bank is None and declined.offer == 5  # seats 2, 5, 7: after 2 comes 5
    assert BankHistory(last_offer=2).after(declined.offer, {5: 1000}).last_offer == 5


def test_a_seat_not_offered_the_bank_is_refused_naming_the_seat_offered():
    # seat 6 asking: positions 2, 5, 7 are seats 7, 3, 5; after seat 3 the bank goes to seat 5
    with pytest.raises(BankingNotAllowed, match="offered to seat 5"):
        plan(history=BankHistory(last_offer=3), banker_seat=6, amount=10_000)
    with pytest.raises(BankingNotAllowed, match="house's turn"):
        plan(history=BankHistory(last_offer=7), banker_seat=3, amount=10_000)


def test_opening_refuses_a_bank_short_of_the_action_and_a_wager_at_the_dealers_seat():
    history = BankHistory(last_offer=2, last_wagers={3: 2000})
    with pytest.raises(BankNotCovered, match=r"short by \$5\.00"):
        plan(history=history, banker_seat=3, amount=9000)
    with pytest.raises(BankTermsError, match="position 6 is the dealer's seat"):
        plan(history=history, wagers={6: 2500}, banker_seat=3, amount=9000)


def test_the_table_policy_and_double_joker_refuse_at_opening():
    with pytest.raises(BankingNotAllowed, match="never"):
        plan(terms=BankingTerms(), banker_seat=2, amount=10_000)
    with pytest.raises(BankingNotAllowed, match="position #1"):
        plan_bank(
            DOUBLE_JOKER, ROTATION, BankHistory(), {3: 500}, banker_seat=2, amount=10_000, table_minimum=500
        )


def test_a_net_win_below_the_commission_unit_is_all_commission():
    # $25.01 taken from position 7, $25.00 paid to position 2: +1 cent; 5% rounded up to 25
    # cents would exceed it: the bank pays its 1 cent and keeps nothing
    hands = [hand(2, "Th Td As 8c 3s", "Kd Jc", 2500), hand(7, "8h 8d Ad 6h 2h", "Ts 3h", 2501)]
    result = settle_round(STANDARD, BANKER, hands, bank=Bank(seat=3, amount=10_000))
    assert (result.bank.gross, result.bank.commission, result.bank.banker_net) == (1, 1, 0)


@st.composite
def banked_deals(draw):
    game = draw(st.sampled_from(list(Game)))
    deck = list(game.deck())
    cards = [deck[i] for i in draw(st.permutations(range(len(deck))))]
    seat = draw(st.integers(2, 7))
    share = draw(st.none() | st.integers(1, 9_999))
    house_wager = draw(st.sampled_from([0, 500, 2501]))
    bank = Bank(seat=seat, amount=0, house_wager=house_wager, house_share_bp=share)
    free = [p for p in range(2, 8) if p != bank.house_position]
    positions = draw(st.lists(st.sampled_from(free), min_size=1, max_size=5, unique=True))
    banker_cards = tuple(cards[:7])
    ranking = TableRules(game=game).ranking
    # a co-banker sets by the house way (004); a player banking alone, as it likes
    banker = BankerHand(
        banker_cards,
        WAY.set(banker_cards, ranking).setting
        if share is not None
        else max((s for s in all_settings(banker_cards) if is_legal(s)), key=lambda s: rank_high(s.high)),
    )
    hands = []
    for n, position in enumerate(positions, start=1):
        seven = tuple(cards[7 * n : 7 * n + 7])
        choice = draw(st.integers(0, 21))
        bonus = draw(st.none() | st.integers(1, 5000)) if game is Game.DOUBLE_JOKER else None
        chosen = None if choice == 21 else all_settings(seven)[choice]
        hands.append(PositionHand(position, seven, chosen, draw(st.integers(25, 100_000)), bonus, bonus))
    house = None
    if house_wager:
        seven = tuple(cards[42:49])
        house = PositionHand(bank.house_position, seven, WAY.set(seven, ranking).setting, house_wager)
    return game, bank, banker, hands, house


@settings(max_examples=150, deadline=None)
@given(deal=banked_deals(), fee=st.booleans())
def test_every_player_banked_round_balances_and_settles_positions_as_against_the_house(deal, fee):
    game, bank, banker, hands, house = deal
    commission = FlatFee(fee=100) if fee else PercentCommission() if game is Game.STANDARD else NoCommission()
    rules = TableRules(game=game, commission=commission)
    result = settle_round(rules, banker, hands, bank=bank, house_hand=house)
    # positions settle exactly as they would against the house (their commission included)
    assert result.positions == settle_round(rules, banker, hands).positions
    banked = result.bank
    everyone = [*result.positions, *([banked.house_hand] if banked.house_hand else [])]
    paid = sum(p.win for p in everyone)
    taken = sum(p.wager for p in everyone if p.outcome is Outcome.LOSE)
    assert banked.gross == taken - paid
    assert banked.commission == 0 or banked.gross > 0
    assert banked.net == banked.gross - banked.commission - banked.fee
    assert banked.banker_net + banked.house_share == banked.net
    player_bp = 10_000 - (bank.house_share_bp or 0)
    assert banked.banker_net * 10_000 <= banked.net * player_bp < (banked.banker_net + 1) * 10_000
    # money only moves between the players, the player-banker and the house
    assert sum(p.net for p in result.positions) + result.banker_result + result.house_result == 0


# --- a player-banker's foul (001, 004; docs/settlement.md, 8) ------------------------------
#
# 001: "If anybody does present a 2-card hand higher than their 5-card hand, it is a foul";
# 004: "either re-arrangement of the hand according to house rules or forfeiture of the hand".
# The banker (seat 3) sets 9h 9d in front of Kc Qd 7s 5c 4h: nines outrank King high, a foul.

FOULED_BANKER = BankerHand(cards=BANKER.cards, setting=setting("Kc Qd 7s 5c 4h", "9h 9d"))


def fouled_round(rules, hands=None, bank=None):
    bank = bank or Bank(seat=3, amount=10_000, house_wager=2000)
    house = house_hand()
    return settle_round(rules, FOULED_BANKER, hands or positions(), by_house_way, bank=bank, house_hand=house)


def test_a_player_bankers_foul_is_re_set_by_the_house_way_then_settled():
    rules = TableRules(banker_foul_rule=FoulRule.HOUSE_WAY)
    result = fouled_round(rules)
    # re-set 9h 9d 7s 5c 4h | Kc Qd: position 2 (tens win, K-J under K-Q) and 5 (jacks win,
    # T-4 loses) push; position 7 (eights, T-3) and the house (sevens, Q-J) lose both
    assert [p.outcome for p in result.positions] == [Outcome.PUSH, Outcome.PUSH, Outcome.LOSE]
    assert [p.net for p in result.positions] == [0, 0, -4000]
    bank = result.bank
    assert (bank.foul, bank.house_way_reset) == (FoulKind.LOW_OUTRANKS_HIGH, True)
    assert bank.setting == setting("9h 9d 7s 4h 5c", "Kc Qd")
    assert bank.house_hand.net == -2000
    # the bank takes $40 + $20 = +$60, 5% = $3.00, nets +$57.00; the house: $3.00 - $20 = -$17.00
    assert (bank.gross, bank.commission, bank.banker_net) == (6000, 300, 5700)
    assert result.house_result == -1700
    record = result.as_dict()["bank"]
    assert record["foul"] == "low-outranks-high" and record["house_way_reset"] is True
    assert record["setting"] == {"high": ["9h", "9d", "7s", "4h", "5c"], "low": ["Kc", "Qd"]}


def test_a_player_bankers_foul_forfeits_every_wager_against_the_bank():
    result = fouled_round(STANDARD)  # the default: banker_foul_rule follows foul_rule, forfeit (001)
    assert STANDARD.banker_fouls is FoulRule.FORFEIT
    # every position is paid even money less its commission: $25 - $1.25, $10 - $0.50, $40 - $2.00
    assert [p.rule for p in result.positions] == ["banker-foul-forfeit"] * 3
    assert [p.net for p in result.positions] == [2375, 950, 3800]
    assert [p.commission for p in result.positions] == [125, 50, 200]
    bank = result.bank
    assert bank.house_hand.outcome is Outcome.WIN and bank.house_hand.net == 2000
    # the bank pays $25 + $10 + $40 + the house's $20 = $95, a net loss: no commission
    assert (bank.gross, bank.commission, bank.banker_net) == (-9500, 0, -9500)
    assert (bank.foul, bank.house_way_reset) == (FoulKind.LOW_OUTRANKS_HIGH, False)
    assert bank.setting == FOULED_BANKER.setting
    # the house: $3.75 of commission + $20 on its own hand = +$23.75
    assert result.house_result == 2375
    assert sum(p.net for p in result.positions) + result.banker_result + result.house_result == 0


def test_a_position_that_fouls_against_a_forfeiting_banker_pushes():
    hands = [*positions()[:2], hand(7, "Ad Ts 6h 3h 2h", "8h 8d", 4000)]  # eights in front: a foul
    result = fouled_round(STANDARD, hands)
    assert result.position(7).rule == "both-fouled" and result.position(7).net == 0
    # the bank pays $25 + $10 + $20 = -$55; the house: $1.25 + $0.50 + $20 = +$21.75
    assert result.bank.gross == -5500 and result.house_result == 2175


def test_a_co_bankers_foul_and_the_dealers_are_refused():
    co = Bank(seat=3, amount=10_000, house_wager=2000, house_share_bp=5000)
    with pytest.raises(BankerHandError, match="co-banker"):
        fouled_round(STANDARD, bank=co)
    with pytest.raises(BankerHandError, match="dealer"):
        settle_round(STANDARD, FOULED_BANKER, positions())


def test_a_bank_without_a_foul_keeps_its_record_as_it_was():
    result = settle_round(STANDARD, BANKER, positions(), bank=Bank(seat=3, amount=10_000))
    assert result.bank.foul is None and result.bank.setting == BANKER.setting
    assert not {"setting", "foul", "house_way_reset"} & set(result.as_dict()["bank"])
