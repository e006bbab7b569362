"""Settlement of a round (000, 001, 002, 003, 004); every expected amount worked out by hand.

The banker of the standard tests holds 9h 9d Kc 7s 4h | Qd 5c: a pair of nines behind
(kickers K 7 4) and Q-5 in front. Player hands below beat, copy or lose to those.
"""

import json
from dataclasses import FrozenInstanceError
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.game.cards import Game, parse_cards
from table_controller.game.evaluator import rank_high
from table_controller.game.money import FlatFee, NoCommission, PercentCommission, RoundingMode
from table_controller.game.paytables import Bonus
from table_controller.game.setting import Setting, all_settings, is_legal
from table_controller.game.settlement import (
    COMPARISON_RULES,
    BankerHand,
    BankerHandError,
    BonusNotOfferedError,
    BonusRule,
    DealerQualification,
    DeckError,
    FoulKind,
    HandError,
    HandResult,
    HouseWaySettingError,
    Outcome,
    PositionError,
    PositionHand,
    SettlementError,
    SettlementMoneyError,
    WagerError,
    dealer_qualification,
    settle_round,
)
from table_controller.game.table_rules import FoulRule, TableRules

STANDARD = TableRules()
DOUBLE_JOKER = TableRules(game=Game.DOUBLE_JOKER)
W, L, C = HandResult.WIN, HandResult.LOSE, HandResult.COPY


def setting(high: str, low: str) -> Setting:
    return Setting(high=parse_cards(high), low=parse_cards(low))


def banker(high: str, low: str) -> BankerHand:
    return BankerHand(cards=parse_cards(f"{high} {low}"), setting=setting(high, low))


def hand(position: int, high: str, low: str, wager: int = 2500, **bonuses) -> PositionHand:
    return PositionHand(position, parse_cards(f"{high} {low}"), setting(high, low), wager, **bonuses)


BANKER = banker("9h 9d Kc 7s 4h", "Qd 5c")

# Player settings against BANKER, named by (high result, low result).
HIGH_WINS = "Th Td As 8c 3s"  # pair of tens beats pair of nines
HIGH_LOSES = "8h 8d As Jc 3s"  # pair of eights
HIGH_COPIES = "9s 9c Kh 7d 4c"  # nines with K 7 4: the same hand
LOWS_FOR_HIGH = {  # low hands sharing no card with the high hand: K-J / K-Q / A-2 beat Q-5,
    # J-6 / T-6 lose to it, Q-5 copies it
    HIGH_WINS: {W: "Kd Jc", L: "Jd 6d", C: "Qs 5d"},
    HIGH_LOSES: {W: "Kd Qs", L: "Td 6d", C: "Qs 5d"},
    HIGH_COPIES: {W: "As 2d", L: "Js 6d", C: "Qs 5d"},
}
HIGHS = {W: HIGH_WINS, L: HIGH_LOSES, C: HIGH_COPIES}


def settle_one(rules, player, banker_hand=BANKER, **kwargs):
    return settle_round(rules, banker_hand, [player], **kwargs).positions[0]


# --- 001: the win / push / lose table, every case -----------------------------------------

# (high, low, outcome, rule id, net on a $25 wager at 5% rounded up to 25 cents)
TABLE_001 = [
    (W, W, Outcome.WIN, "both-hands-won", 2375),  # $25 less $1.25
    (W, L, Outcome.PUSH, "one-hand-each", 0),
    (L, W, Outcome.PUSH, "one-hand-each", 0),
    (W, C, Outcome.PUSH, "won-one-copy-goes-to-banker", 0),
    (C, W, Outcome.PUSH, "won-one-copy-goes-to-banker", 0),
    (L, L, Outcome.LOSE, "both-hands-lost", -2500),
    (L, C, Outcome.LOSE, "lost-one-copy-goes-to-banker", -2500),
    (C, L, Outcome.LOSE, "lost-one-copy-goes-to-banker", -2500),
    (C, C, Outcome.LOSE, "both-hands-copied", -2500),
]


@pytest.mark.parametrize(("high", "low", "outcome", "rule", "net"), TABLE_001)
def test_win_push_lose_table_of_001_with_copies_to_the_banker(high, low, outcome, rule, net):
    high_cards = HIGHS[high]
    record = settle_one(STANDARD, hand(3, high_cards, LOWS_FOR_HIGH[high_cards][low]))
    assert (record.high, record.low) == (high, low)
    assert (record.outcome, record.rule, record.net) == (outcome, rule, net)
    assert record.cite.startswith("001_c9adb19db438d99f.txt")


def test_the_comparison_table_covers_all_nine_pairs():
    assert {(h, lo) for h, lo, *_ in TABLE_001} == set(COMPARISON_RULES)


@pytest.mark.parametrize(
    ("wager", "commission", "net"),
    [(2500, 125, 2375), (3000, 150, 2850), (3100, 175, 2925), (2000, 100, 1900), (2001, 125, 1876)],
)
def test_a_win_pays_even_money_less_commission_rounded_up_to_25_cents(wager, commission, net):
    record = settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc", wager))
    assert (record.win, record.commission, record.fee, record.net) == (wager, commission, 0, net)
    assert record.main_net == net


def test_commission_rounding_mode_comes_from_the_table():
    rules = TableRules(commission=PercentCommission(rounding=RoundingMode.HALF_UP))
    record = settle_one(rules, hand(2, HIGH_WINS, "Kd Jc", 3100))
    assert (record.commission, record.net) == (150, 2950)  # $1.55 -> $1.50


def test_five_dollar_lowest_chip_rounds_commission_to_a_dollar_twenty_five():
    rules = TableRules(commission={"kind": "percent", "lowest_chip": 500})
    record = settle_one(rules, hand(2, HIGH_WINS, "Kd Jc", 3000))
    assert (record.commission, record.net) == (250, 2750)  # $1.50 -> $2.50


def test_no_commission_pays_the_whole_win():
    record = settle_one(TableRules(commission=NoCommission()), hand(2, HIGH_WINS, "Kd Jc", 2500))
    assert (record.commission, record.net) == (0, 2500)


@pytest.mark.parametrize(
    ("low", "outcome", "net"),
    [(LOWS_FOR_HIGH[HIGH_WINS][W], Outcome.WIN, 2400), (LOWS_FOR_HIGH[HIGH_WINS][L], Outcome.PUSH, -100)],
)
def test_california_flat_fee_is_charged_per_hand_win_or_lose(low, outcome, net):
    record = settle_one(TableRules(commission=FlatFee(fee=100)), hand(2, HIGH_WINS, low, 2500))
    assert (record.outcome, record.commission, record.fee, record.net) == (outcome, 0, 100, net)


def test_flat_fee_on_a_lost_hand():
    record = settle_one(TableRules(commission=FlatFee(fee=5)), hand(2, HIGH_LOSES, "Td 6d", 2500))
    assert (record.outcome, record.fee, record.net) == (Outcome.LOSE, 5, -2505)


def test_a_win_smaller_than_the_commission_unit_is_refused():
    with pytest.raises(SettlementMoneyError, match="position 2: commission"):
        settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc", 10))


# --- round totals ---------------------------------------------------------------------


def three_positions(rules=STANDARD):
    return settle_round(
        rules,
        BANKER,
        [
            hand(7, "8h 8d Ad 6h 2h", "Ts 3h", 4000),  # loses both: -$40
            hand(2, HIGH_WINS, "Kd Jc", 2500),  # wins both: +$23.75
            hand(5, "Jh Js Ah 6c 2s", "Tc 4d", 1000),  # jacks win, T-4 loses: push
        ],
    )


def test_round_totals_add_up():
    result = three_positions()
    assert [p.position for p in result.positions] == [2, 5, 7]
    assert [p.outcome for p in result.positions] == [Outcome.WIN, Outcome.PUSH, Outcome.LOSE]
    assert [p.net for p in result.positions] == [2375, 0, -4000]
    assert result.totals() == {
        "main_wagered": 7500,
        "bonus_wagered": 0,
        "total_wagered": 7500,
        "main_paid": 2500,
        "main_collected": 4000,
        "commission": 125,
        "fees": 0,
        "bonuses_paid": 0,
        "bonuses_collected": 0,
        "house_result": 1625,  # 4000 - 2500 + 125
    }
    assert result.qualification is DealerQualification.NOT_APPLICABLE


def test_round_totals_with_a_flat_fee():
    result = three_positions(TableRules(commission=FlatFee(fee=100)))
    assert [p.net for p in result.positions] == [2400, -100, -4100]
    assert (result.fees, result.commission, result.house_result) == (300, 0, 1800)


def test_records_are_frozen_and_serialise():
    result = three_positions()
    with pytest.raises(FrozenInstanceError):
        result.positions[0].net = 0  # type: ignore[misc]
    data = json.loads(json.dumps(result.as_dict()))
    assert data["positions"][0]["setting"] == {"high": ["Th", "Td", "As", "8c", "3s"], "low": ["Kd", "Jc"]}
    assert data["positions"][0]["rule"] == "both-hands-won"
    assert data["totals"]["house_result"] == 1625
    assert result.position(5).outcome is Outcome.PUSH
    with pytest.raises(PositionError):
        result.position(4)


# --- fouls (001, 004) -----------------------------------------------------------------

FOULED = setting("As 8c 3s Kd Jc", "Th Td")  # a pair of tens in front of ace-high: a foul


def fouled_hand(position=2, wager=2500, chosen=FOULED, **bonuses):
    return PositionHand(position, parse_cards("Th Td As 8c 3s Kd Jc"), chosen, wager, **bonuses)


def test_foul_forfeits_the_wager_by_default():
    record = settle_one(STANDARD, fouled_hand())
    assert (record.outcome, record.rule, record.foul, record.net) == (
        Outcome.LOSE,
        "foul-forfeit",
        FoulKind.LOW_OUTRANKS_HIGH,
        -2500,
    )
    assert (record.high, record.low, record.house_way_reset) == (None, None, False)


@pytest.mark.parametrize(
    ("chosen", "kind"),
    [
        (Setting(parse_cards("Th Td As 8c 3s Kd"), parse_cards("Jc")), FoulKind.WRONG_CARD_COUNT),
        (Setting(parse_cards("Th Td As 8c"), parse_cards("3s Kd Jc")), FoulKind.WRONG_CARD_COUNT),
        (None, FoulKind.NOT_SET),
    ],
)
def test_wrong_card_count_or_no_setting_is_a_foul(chosen, kind):
    record = settle_one(STANDARD, fouled_hand(chosen=chosen))
    assert (record.outcome, record.rule, record.foul) == (Outcome.LOSE, "foul-forfeit", kind)
    assert record.net == -2500


def one_pair_house_way(cards):
    """Test stand-in for the house way: the pair behind, the two highest other cards in front."""
    ranks = [card.rank for card in cards]
    pair = [card for card in cards if ranks.count(card.rank) == 2]
    others = sorted((card for card in cards if card not in pair), key=lambda c: c.rank, reverse=True)
    return Setting(high=tuple(pair + others[2:]), low=tuple(others[:2]))


def test_house_way_foul_rule_resets_the_hand_then_compares():
    rules = TableRules(foul_rule=FoulRule.HOUSE_WAY)
    record = settle_one(rules, fouled_hand(), reset_by_house_way=one_pair_house_way)
    # Re-set: Th Td Jc 8c 3s behind (tens beat nines), As Kd in front (A-K beats Q-5).
    assert record.setting == setting("Th Td Jc 8c 3s", "As Kd")
    assert (record.house_way_reset, record.foul) == (True, FoulKind.LOW_OUTRANKS_HIGH)
    assert (record.high, record.low, record.outcome, record.rule) == (W, W, Outcome.WIN, "both-hands-won")
    assert record.net == 2375


def test_house_way_also_sets_a_hand_left_unset():
    rules = TableRules(foul_rule=FoulRule.HOUSE_WAY)
    record = settle_one(rules, fouled_hand(chosen=None), reset_by_house_way=one_pair_house_way)
    assert (record.foul, record.house_way_reset, record.outcome) == (FoulKind.NOT_SET, True, Outcome.WIN)


def test_house_way_is_not_called_for_a_legal_hand():
    def must_not_run(cards):
        raise AssertionError("house way called for a legal hand")

    rules = TableRules(foul_rule=FoulRule.HOUSE_WAY)
    record = settle_one(rules, hand(2, HIGH_WINS, "Kd Jc"), reset_by_house_way=must_not_run)
    assert record.house_way_reset is False and record.outcome is Outcome.WIN


def test_house_way_foul_rule_needs_a_house_way():
    with pytest.raises(HouseWaySettingError, match="give reset_by_house_way"):
        settle_one(TableRules(foul_rule=FoulRule.HOUSE_WAY), fouled_hand())


@pytest.mark.parametrize(
    ("house_way", "message"),
    [
        (lambda cards: FOULED, "is a foul"),
        (lambda cards: setting("Th Td As 8c 3s", "Kd Qs"), "setting is wrong"),
        (lambda cards: ("Th", "Td"), "not a Setting"),
    ],
)
def test_an_unusable_house_way_setting_is_refused(house_way, message):
    with pytest.raises(HouseWaySettingError, match=message):
        settle_one(TableRules(foul_rule=FoulRule.HOUSE_WAY), fouled_hand(), reset_by_house_way=house_way)


# --- Double Joker: qualification and the overqualifier (003) -------------------------------


@pytest.mark.parametrize(
    ("cards", "qualification"),
    [
        ("Kh Qd 9s 7c 5h 3d 2c", DealerQualification.NOT_QUALIFIED),  # king high
        ("JK Qd 9s 7c 5h 3d 2c", DealerQualification.NOT_QUALIFIED),  # joker is an Ace: ace high
        ("Ah Qd 9s 7c 5h 3d 2c", DealerQualification.NOT_QUALIFIED),  # ace high
        ("Kh Kd 9s 7c 5h 3d 2c", DealerQualification.QUALIFIED),  # a pair
        ("JK Ad 9s 7c Kh 4d 2c", DealerQualification.QUALIFIED),  # joker + Ace: pair of aces
        ("JK JK 9s 7c Kh 4d 2c", DealerQualification.QUALIFIED),  # two jokers: pair of aces
        ("9h 8d 7s 6c 5h Kd 2c", DealerQualification.QUALIFIED),  # a straight beats a pair
        ("9h 9d 9s Kc Kh 4d 2c", DealerQualification.QUALIFIED),  # full house: not four of a kind
        ("9h 9d 9s 9c Kh 4d 2c", DealerQualification.OVERQUALIFIED),  # four of a kind
        ("As Ah JK JK 9c 7d 2s", DealerQualification.OVERQUALIFIED),  # four aces with two jokers
        ("9h 8h 7h 6h 5h Kd 2c", DealerQualification.OVERQUALIFIED),  # straight flush
        ("9h 8h 7h JK 5h Kd 2c", DealerQualification.OVERQUALIFIED),  # straight flush with a joker
        ("As Ah Ad JK JK 7c 2d", DealerQualification.OVERQUALIFIED),  # five aces
    ],
)
def test_dealer_qualifies_with_a_pair_and_overqualifies_with_four_of_a_kind(cards, qualification):
    assert dealer_qualification(DOUBLE_JOKER, parse_cards(cards)) is qualification


def test_standard_game_has_no_qualification():
    qualification = dealer_qualification(STANDARD, parse_cards("Kh Qd 9s 7c 5h 3d 2c"))
    assert qualification is DealerQualification.NOT_APPLICABLE


def test_overqualifier_off_leaves_four_of_a_kind_qualified():
    rules = TableRules(game="double-joker", overqualifier=False)
    assert dealer_qualification(rules, parse_cards("9h 9d 9s 9c Kh 4d 2c")) is DealerQualification.QUALIFIED


NOT_QUALIFIED_DEALER = banker("Kh 9s 7c 5h 2c", "Qd 3d")  # king high
OVERQUALIFIED_DEALER = banker("9h 9d 9s 9c 2c", "Kh 4d")  # four nines


@pytest.mark.parametrize(
    "player",
    [
        hand(4, HIGH_LOSES, "Td 6d"),  # would have lost both
        hand(4, HIGH_WINS, "Kd Jc"),  # would have won both
    ],
)
def test_dealer_not_qualified_pushes_every_main_wager(player):
    record = settle_one(DOUBLE_JOKER, player, NOT_QUALIFIED_DEALER)
    assert (record.outcome, record.rule, record.net, record.win) == (
        Outcome.NOT_QUALIFIED,
        "dealer-not-qualified",
        0,
        0,
    )
    assert record.cite == "003_4dcc2fceebc6e4af.txt"
    assert (record.high, record.low) == (None, None)


def test_overqualified_dealer_pays_the_main_wager_triple_whatever_the_player_holds():
    player = PositionHand(6, parse_cards("8h 8d As Jc 3s Td 6d"), setting("8h 8d As Jc 3s", "Td 6d"), 2500)
    result = settle_round(DOUBLE_JOKER, OVERQUALIFIED_DEALER, [player])
    record = result.positions[0]
    assert result.qualification is DealerQualification.OVERQUALIFIED
    assert (record.outcome, record.rule, record.win, record.commission, record.net) == (
        Outcome.PREMIUM,
        "premium-overqualifier",
        7500,
        0,
        7500,
    )


def test_overqualifier_counts_whether_or_not_the_dealer_sets_four_of_a_kind_behind():
    split_quads = banker("9h 9d Kh 4d 2c", "9s 9c")  # two nines in front, two behind: legal
    record = settle_one(DOUBLE_JOKER, hand(2, HIGH_WINS, "Kd Jc"), split_quads)
    assert (record.outcome, record.net) == (Outcome.PREMIUM, 7500)


@pytest.mark.parametrize(("multiple", "net"), [(1, 2500), (2, 5000), (3, 7500), (4, 10000)])
def test_premium_multiple_is_the_casinos_choice(multiple, net):
    rules = TableRules(game="double-joker", premium_multiple=multiple)
    assert settle_one(rules, hand(2, HIGH_WINS, "Kd Jc"), OVERQUALIFIED_DEALER).net == net


def test_premium_with_a_commission_table_pays_commission_on_the_amount_won():
    rules = TableRules(game="double-joker", commission={"kind": "percent"})
    record = settle_one(rules, hand(2, HIGH_WINS, "Kd Jc"), OVERQUALIFIED_DEALER)
    assert (record.win, record.commission, record.net) == (7500, 375, 7125)  # 5% of $75 = $3.75


def test_overqualifier_off_compares_the_hands():
    rules = TableRules(game="double-joker", overqualifier=False)
    record = settle_one(rules, hand(2, HIGH_WINS, "Kd Jc"), OVERQUALIFIED_DEALER)
    # Tens lose to four nines; K-J beats K-4: one hand each.
    assert (record.high, record.low, record.outcome, record.net) == (L, W, Outcome.PUSH, 0)


@pytest.mark.parametrize(("high", "low", "outcome", "rule", "net"), TABLE_001)
def test_qualified_double_joker_dealer_is_compared_and_wins_pay_even_money(high, low, outcome, rule, net):
    high_cards = HIGHS[high]
    record = settle_one(DOUBLE_JOKER, hand(3, high_cards, LOWS_FOR_HIGH[high_cards][low]))
    assert (record.outcome, record.rule) == (outcome, rule)
    assert record.net == (2500 if outcome is Outcome.WIN else net)  # no commission by default


@pytest.mark.parametrize(
    ("dealer", "outcome", "net"),
    [
        (NOT_QUALIFIED_DEALER, Outcome.NOT_QUALIFIED, 0),
        (OVERQUALIFIED_DEALER, Outcome.PREMIUM, 7500),
        (BANKER, Outcome.LOSE, -2500),
    ],
)
def test_dealer_qualification_is_decided_before_a_foul(dealer, outcome, net):
    record = settle_one(DOUBLE_JOKER, fouled_hand(position=4), dealer)
    assert (record.foul, record.outcome, record.net) == (FoulKind.LOW_OUTRANKS_HIGH, outcome, net)


# --- Double Joker bonuses (003) -------------------------------------------------------


def test_big_hand_bonus_pays_on_the_seven_cards_beside_the_main_result():
    player = hand(2, "8h 8d 8s 8c 3s", "As Jc", 2500, big_hand_wager=500)
    record = settle_one(DOUBLE_JOKER, player)
    (bonus,) = record.bonuses
    assert (bonus.bonus, bonus.wager, bonus.line, bonus.odds, bonus.net, bonus.rule) == (
        Bonus.BIG_HAND,
        500,
        "four-of-a-kind",
        40,
        20000,
        BonusRule.PAY_TABLE,
    )
    assert (record.outcome, record.net) == (Outcome.WIN, 2500 + 20000)


def test_big_hand_bonus_loses_on_a_straight_or_worse():
    record = settle_one(DOUBLE_JOKER, hand(2, HIGH_WINS, "Kd Jc", 2500, big_hand_wager=500))
    (bonus,) = record.bonuses
    assert (bonus.line, bonus.odds) == ("straight-or-worse", None)
    assert (bonus.net, bonus.won, bonus.lost) == (-500, 0, 500)
    assert record.net == 2500 - 500


JOKER_DEALER_ONE = banker("9h 9d JK 7s 4h", "Kc 5c")  # one joker, a pair of nines
JOKER_DEALER_TWO = banker("9h 9d JK JK 4h", "Kc 5c")  # both jokers


@pytest.mark.parametrize(
    ("dealer", "player_high", "player_low", "line", "odds", "net"),
    [
        (BANKER, "JK JK Th Td 3s", "Kd Jc", "two-jokers-player", 15, 7500),
        (JOKER_DEALER_TWO, "Th Td As 8c 3s", "Kd Jc", "two-jokers-dealer", 10, 5000),
        (JOKER_DEALER_ONE, "JK Th Td 8c 3s", "Kd Jc", "one-joker-player-and-dealer", 3, 1500),
        (BANKER, "JK Th Td 8c 3s", "Kd Jc", "one-joker-player", 1, 500),
        (JOKER_DEALER_ONE, "Th Td As 8c 3s", "Kd Jc", "one-joker-dealer", None, -500),
        (BANKER, "Th Td As 8c 3s", "Kd Jc", "no-jokers", None, -500),
    ],
)
def test_joker_bonus_pays_by_where_the_jokers_are(dealer, player_high, player_low, line, odds, net):
    record = settle_one(DOUBLE_JOKER, hand(2, player_high, player_low, 2500, joker_bonus_wager=500), dealer)
    (bonus,) = record.bonuses
    assert (bonus.bonus, bonus.line, bonus.odds, bonus.net) == (Bonus.JOKER, line, odds, net)


def test_both_bonuses_and_the_round_totals():
    player = hand(2, "8h 8d 8s 8c 3s", "As Jc", 2500, big_hand_wager=500, joker_bonus_wager=200)
    result = settle_round(DOUBLE_JOKER, BANKER, [player])
    record = result.positions[0]
    assert [(b.bonus, b.net) for b in record.bonuses] == [(Bonus.BIG_HAND, 20000), (Bonus.JOKER, -200)]
    assert record.net == 2500 + 20000 - 200
    assert (result.total_wagered, result.bonus_wagered, result.bonuses_paid, result.bonuses_collected) == (
        3200,
        700,
        20000,
        200,
    )
    assert result.house_result == -22300


def test_bonuses_are_paid_when_the_dealer_does_not_qualify():
    record = settle_one(
        DOUBLE_JOKER, hand(2, "8h 8d 8s 8c 3s", "As Jc", 2500, big_hand_wager=100), NOT_QUALIFIED_DEALER
    )
    assert (record.outcome, record.bonuses[0].net, record.net) == (Outcome.NOT_QUALIFIED, 4000, 4000)


FLUSH_CARDS = "As Js 6s 5s 3s Kd 2c"  # a spade flush: Big Hand "flush", 4 to 1
FLUSH_FOULED = setting("6s 5s 3s Kd 2c", "As Js")  # A-J in front of king-high: a foul


@pytest.mark.parametrize(
    ("rules", "chosen", "bonus_rule", "bonus_net", "net"),
    [
        (DOUBLE_JOKER, FLUSH_FOULED, BonusRule.PAY_TABLE, 400, -2500 + 400),
        (
            TableRules(game="double-joker", foul_forfeits_bonuses=True),
            FLUSH_FOULED,
            BonusRule.FOUL_FORFEIT,
            -100,
            -2500 - 100,
        ),
        (DOUBLE_JOKER, None, BonusRule.HAND_NOT_SET, -100, -2500 - 100),  # 003: collect the bets
    ],
)
def test_a_fouled_hand_keeps_its_bonus_unless_the_table_forfeits_it(
    rules, chosen, bonus_rule, bonus_net, net
):
    player = PositionHand(2, parse_cards(FLUSH_CARDS), chosen, 2500, big_hand_wager=100)
    record = settle_one(rules, player)
    (bonus,) = record.bonuses
    assert (record.outcome, record.rule) == (Outcome.LOSE, "foul-forfeit")
    assert (bonus.line, bonus.odds, bonus.rule, bonus.net) == ("flush", 4, bonus_rule, bonus_net)
    assert record.net == net


# --- refused input ----------------------------------------------------------------------


@pytest.mark.parametrize("position", [0, 1, 8, -2, True, "3", 2.0])
def test_positions_are_two_to_seven(position):
    with pytest.raises(PositionError, match="not a player position"):
        settle_one(STANDARD, hand(position, HIGH_WINS, "Kd Jc"))


def test_a_position_given_twice_is_refused():
    with pytest.raises(PositionError, match="position 3 is given twice"):
        settle_round(STANDARD, BANKER, [hand(3, HIGH_WINS, "Kd Jc"), hand(3, "Jh Js Ah 6c 2s", "Tc 4d")])


def test_a_round_with_no_position_is_refused():
    with pytest.raises(PositionError, match="no position played"):
        settle_round(STANDARD, BANKER, [])


@pytest.mark.parametrize("wager", [0, -2500, 25.0, Decimal("25"), True, None])
def test_main_wager_must_be_positive_int_cents(wager):
    with pytest.raises(WagerError, match="position 2 main wager"):
        settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc", wager))


@pytest.mark.parametrize("bonus", ["big_hand_wager", "joker_bonus_wager"])
def test_bonus_wagers_are_refused_in_the_standard_game(bonus):
    with pytest.raises(BonusNotOfferedError, match="standard table offers no"):
        settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc", **{bonus: 500}))


def test_a_bonus_the_table_does_not_offer_is_refused():
    rules = TableRules(game="double-joker", joker_bonus=None)
    with pytest.raises(BonusNotOfferedError, match="joker-bonus"):
        settle_one(rules, hand(2, HIGH_WINS, "Kd Jc", joker_bonus_wager=500))


@pytest.mark.parametrize("wager", [0, -100, 1.5])
def test_bonus_wagers_must_be_positive_int_cents(wager):
    with pytest.raises(WagerError, match="big-hand wager"):
        settle_one(DOUBLE_JOKER, hand(2, HIGH_WINS, "Kd Jc", big_hand_wager=wager))


def test_a_card_in_two_hands_is_refused_naming_both():
    with pytest.raises(DeckError, match="card 9h dealt more than once: banker, position 4"):
        settle_one(STANDARD, hand(4, "9h 8d As Jc 3s", "Td 6d"))


def test_a_card_twice_in_one_hand_is_refused():
    with pytest.raises(DeckError, match="card As dealt more than once: position 4, position 4"):
        settle_one(STANDARD, hand(4, "As As 8d Jc 3s", "Td 6d"))


def test_two_jokers_are_refused_in_the_standard_game():
    joker_banker = banker("9h 9d JK 7s 4h", "Qd 5c")
    with pytest.raises(DeckError, match=r"2 jokers dealt .* standard deck holds 1"):
        settle_one(STANDARD, hand(2, "JK Th Td 8c 3s", "Kd Jc"), joker_banker)


def test_three_jokers_are_refused_in_double_joker():
    with pytest.raises(DeckError, match="3 jokers"):
        settle_one(DOUBLE_JOKER, hand(2, "JK Th Td 8c 3s", "Kd Jc"), JOKER_DEALER_TWO)


def test_a_hand_of_six_cards_is_refused():
    short = PositionHand(2, parse_cards("Th Td As 8c 3s Kd"), None, 2500)
    with pytest.raises(HandError, match="seven cards expected"):
        settle_one(STANDARD, short)


def test_a_setting_not_made_of_the_positions_cards_is_refused():
    player = PositionHand(2, parse_cards("Th Td As 8c 3s Kd Jc"), setting("Th Td As 8c 3s", "Kd Qs"), 2500)
    with pytest.raises(HandError, match="not made of the position's cards"):
        settle_one(STANDARD, player)


def test_a_fouled_banker_is_refused():
    with pytest.raises(BankerHandError, match="is a foul"):
        settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc"), banker("Kc 7s 4h Qd 5c", "9h 9d"))


def test_a_banker_setting_of_other_cards_is_refused():
    wrong = BankerHand(parse_cards("9h 9d Kc 7s 4h Qd 5c"), setting("9h 9d Kc 7s 4h", "Qd 6c"))
    with pytest.raises(BankerHandError, match="banker"):
        settle_one(STANDARD, hand(2, HIGH_WINS, "Kd Jc"), wrong)


def test_rules_must_be_table_rules():
    with pytest.raises(SettlementError):
        settle_one({"game": "standard"}, hand(2, HIGH_WINS, "Kd Jc"))


# --- properties over random deals -----------------------------------------------------


@st.composite
def deals(draw):
    game = draw(st.sampled_from(list(Game)))
    deck = list(game.deck())
    order = draw(st.permutations(range(len(deck))))
    cards = [deck[i] for i in order]
    count = draw(st.integers(1, 6))
    positions = draw(st.lists(st.integers(2, 7), min_size=count, max_size=count, unique=True))
    banker_cards = tuple(cards[:7])
    banker_setting = max(
        (s for s in all_settings(banker_cards) if is_legal(s)), key=lambda s: rank_high(s.high)
    )
    hands = []
    for n, position in enumerate(positions, start=1):
        seven = tuple(cards[7 * n : 7 * n + 7])
        choice = draw(st.integers(0, 21))
        chosen = None if choice == 21 else all_settings(seven)[choice]
        bonus = draw(st.none() | st.integers(1, 5000)) if game is Game.DOUBLE_JOKER else None
        hands.append(PositionHand(position, seven, chosen, draw(st.integers(25, 100_000)), bonus, bonus))
    return game, BankerHand(banker_cards, banker_setting), hands


@settings(max_examples=120, deadline=None)
@given(deal=deals(), fee=st.booleans())
def test_every_round_balances_and_follows_the_001_table(deal, fee):
    game, banker_hand, hands = deal
    commission = FlatFee(fee=100) if fee else PercentCommission() if game is Game.STANDARD else NoCommission()
    result = settle_round(TableRules(game=game, commission=commission), banker_hand, hands)
    assert result.house_result == (
        result.main_collected
        - result.main_paid
        + result.commission
        + result.fees
        + result.bonuses_collected
        - result.bonuses_paid
    )
    for record in result.positions:
        if record.high is not None:
            rule = COMPARISON_RULES[(record.high, record.low)]
            assert (record.rule, record.outcome) == (rule.id, rule.outcome)
        if record.outcome is Outcome.LOSE:
            assert record.main_net == -record.wager
        elif record.outcome in (Outcome.PUSH, Outcome.NOT_QUALIFIED):
            assert record.main_net == 0
        else:
            assert 0 <= record.main_net <= record.win  # a 25-cent win pays 25 cents commission
        if record.foul is not None and result.qualification in (
            DealerQualification.QUALIFIED,
            DealerQualification.NOT_APPLICABLE,
        ):
            assert record.rule == "foul-forfeit"
