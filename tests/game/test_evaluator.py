"""Hand ranking, one rule per test, exact values worked out from the rules text.

001_c9adb19db438d99f.txt (deck, joker, five aces, A-2-3-4-5, two-card order),
002_08ea07f9e4b504bc.txt (hand ranks), 003_4dcc2fceebc6e4af.txt (joker in a flush, two
jokers, Big Hand Bonus), 004_60e2fc6346e3399b.txt (California wheel, wild joker in front).

Expected scores are written with ``high(category, kickers...)`` and ``low(...)``, the layouts
documented in evaluator.py (setting.high_beats_low reads them too).
"""

import pytest

from table_controller.game import ranking_tables
from table_controller.game.cards import (
    JOKER,
    Card,
    CardError,
    DuplicateCardError,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    parse_cards,
)
from table_controller.game.evaluator import (
    DEFAULT_RULES,
    CardIntError,
    HighCategory,
    LowCategory,
    RankingRules,
    SevenCardCategory,
    Wheel,
    card_int,
    card_ints,
    compare,
    high_category,
    low_category,
    rank_high,
    rank_high_ints,
    rank_low,
    seven_card_category,
)
from table_controller.game.setting import high_beats_low

NEVADA = RankingRules(wheel=Wheel.NEVADA)
CALIFORNIA = RankingRules(wheel=Wheel.CALIFORNIA)
WILD_LOW = RankingRules(joker_wild_in_low=True)

A, K, Q, J, T = 14, 13, 12, 11, 10


def high(category: HighCategory, *kickers: int) -> int:
    """The documented high-hand layout: category << 20 | five 4-bit kickers."""
    score = int(category)
    for i in range(5):
        score = score << 4 | (kickers[i] if i < len(kickers) else 0)
    return score


def low(category: LowCategory, higher: int, lower: int) -> int:
    return int(category) << 8 | higher << 4 | lower


def score(codes: str, rules: RankingRules = DEFAULT_RULES) -> int:
    cards = parse_cards(codes)
    result = rank_high(cards, rules)
    assert rank_high_ints(card_ints(cards), rules) == result  # the fast path agrees
    return result


# --- five-card categories (002 "Hand Ranks") -------------------------------------------------

CATEGORY_EXAMPLES = [
    ("As Ad Ah Ac JK", high(HighCategory.FIVE_ACES, A)),
    ("As Ks Qs Js Ts", high(HighCategory.ROYAL_FLUSH, 15)),
    ("9h 8h 7h 6h 5h", high(HighCategory.STRAIGHT_FLUSH, 9)),
    ("7c 7d 7h 7s Kd", high(HighCategory.FOUR_OF_A_KIND, 7, K)),
    ("Qc Qd Qh 4s 4d", high(HighCategory.FULL_HOUSE, Q, 4)),
    ("Kd Td 8d 4d 2d", high(HighCategory.FLUSH, K, T, 8, 4, 2)),
    ("Tc 9d 8h 7s 6d", high(HighCategory.STRAIGHT, T)),
    ("5c 5d 5h Ks 2d", high(HighCategory.THREE_OF_A_KIND, 5, K, 2)),
    ("Jc Jd 3h 3s Ad", high(HighCategory.TWO_PAIR, J, 3, A)),
    ("9c 9d Ah 7s 2d", high(HighCategory.ONE_PAIR, 9, A, 7, 2)),
    ("Ac Jd 8h 6s 3d", high(HighCategory.HIGH_CARD, A, J, 8, 6, 3)),
]


@pytest.mark.parametrize(("codes", "expected"), CATEGORY_EXAMPLES, ids=[c for c, _ in CATEGORY_EXAMPLES])
def test_each_category_scores_its_category_and_kickers(codes, expected):
    assert score(codes) == expected
    assert high_category(score(codes)) is high_category(expected)


def test_categories_rank_five_aces_over_royal_over_straight_flush_down_to_high_card():
    scores = [score(codes) for codes, _ in CATEGORY_EXAMPLES]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    assert [high_category(s) for s in scores] == sorted(HighCategory, reverse=True)


# --- kickers (001: "consistent with that of standard Poker") ---------------------------------


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("9c 9d Ah 7s 2d", "9h 9s Kh Qs Jd"),  # one pair: first kicker
        ("9c 9d Ah 7s 3d", "9h 9s Ad 7c 2h"),  # one pair: last kicker
        ("Tc Td 2h 3s 4d", "9h 9s Ah Kc Qd"),  # the pair before any kicker
        ("Jc Jd 4h 4s 2d", "Jh Js 3c 3d Ad"),  # two pair: second pair before kicker
        ("Jc Jd 3h 3s Ad", "Jh Js 3c 3d Kd"),  # two pair: kicker
        ("3c 3d 3h 2s 2d", "2c 2h 2s Ac Ad"),  # full house: the three decide
        ("7c 7d 7h 7s Kd", "7c 7d 7h 7s Qd"),  # four of a kind: kicker (naturals of one rank)
        ("8c 8d 8h Ks 2d", "8c 8d 8h Qs Jd"),  # three of a kind: kicker
        ("Ad Jd 8d 6d 4d", "As Js 8s 6s 3s"),  # flush: fifth card
        ("Ac Jd 8h 6s 4d", "Ad Jc 8s 6h 3c"),  # high card: fifth card
    ],
)
def test_kickers_decide_within_a_category(better, worse):
    assert score(better) > score(worse)
    assert compare(score(better), score(worse)) == 1 and compare(score(worse), score(better)) == -1


def test_same_values_in_other_suits_are_a_copy():
    assert score("Ac Jd 8h 6s 3d") == score("Ad Jc 8s 6h 3c")
    assert compare(score("Tc 9d 8h 7s 6d"), score("Th 9c 8s 7d 6h")) == 0


def test_card_order_in_the_hand_does_not_matter():
    assert score("JK 2d 9c Kh 9s") == score("9s Kh 9c 2d JK") == high(HighCategory.ONE_PAIR, 9, A, K, 2)


# --- the joker (001, 002, 003) ------------------------------------------------------------------


def test_joker_completes_a_straight():
    # 7-8-9-T: the joker may be a 6 or a J; the J makes the higher straight.
    assert score("Tc 9d 8h 7s JK") == high(HighCategory.STRAIGHT, J)


def test_joker_fills_the_gap_inside_a_straight():
    assert score("9c 8d 6h 5s JK") == high(HighCategory.STRAIGHT, 9)


def test_joker_completes_a_flush_as_the_highest_rank_missing_from_the_suit():
    # 003: "counting as the highest unused card in the suit when filling a flush".
    assert score("Kh 9h 7h 5h JK") == high(HighCategory.FLUSH, A, K, 9, 7, 5)  # joker = Ah
    assert score("Ah 9h 7h 5h JK") == high(HighCategory.FLUSH, A, K, 9, 7, 5)  # Ah held: Kh
    assert score("Ah Kh 9h 5h JK") == high(HighCategory.FLUSH, A, K, Q, 9, 5)  # Ah Kh held: Qh


def test_joker_flush_beats_the_pair_of_aces_it_would_make_as_an_ace():
    # As an Ace: A-A-K-9-5, one pair. Filling the flush (Qh) is better, so it fills.
    assert high_category(score("Ah Kh 9h 5h JK")) is HighCategory.FLUSH


def test_joker_completes_a_straight_flush():
    assert score("9h 8h 7h 5h JK") == high(HighCategory.STRAIGHT_FLUSH, 9)


def test_joker_completes_the_highest_straight_flush_it_can():
    # 6-7-8-9 of hearts: 5h makes 9-high, Th makes 10-high.
    assert score("9h 8h 7h 6h JK") == high(HighCategory.STRAIGHT_FLUSH, T)


def test_joker_completes_a_royal_flush():
    assert score("As Ks Qs Ts JK") == high(HighCategory.ROYAL_FLUSH, 15)  # joker = Js
    assert score("Ks Qs Js Ts JK") == high(HighCategory.ROYAL_FLUSH, 15)  # As, not the 9s


def test_joker_is_an_ace_when_it_completes_nothing():
    assert score("Qc 9d 7h 4s JK") == high(HighCategory.HIGH_CARD, A, Q, 9, 7, 4)
    assert score("Ac 9d 7h 4s JK") == high(HighCategory.ONE_PAIR, A, 9, 7, 4)
    assert score("Kc Kd 7h 4s JK") == high(HighCategory.ONE_PAIR, K, A, 7, 4)  # never a third King
    assert score("9c 9d 9h 9s JK") == high(HighCategory.FOUR_OF_A_KIND, 9, A)


def test_ace_and_joker_make_a_straight_rather_than_a_pair_of_aces():
    assert score("Ac Kd Qh Js JK") == high(HighCategory.STRAIGHT, 15)


def test_four_aces_and_a_joker_are_five_aces():
    assert score("As Ad Ah Ac JK") == high(HighCategory.FIVE_ACES, A)
    assert score("As Ad Ah Ac JK") > score("As Ks Qs Js Ts")  # above a royal flush (002)


def test_three_aces_and_a_joker_are_four_aces():
    assert score("Ac Ad Ah 4s JK") == high(HighCategory.FOUR_OF_A_KIND, A, 4)


def test_two_jokers_both_fill_a_straight():
    assert score("9c 8d 7h JK JK") == high(HighCategory.STRAIGHT, J)  # T and J


def test_two_jokers_both_fill_a_flush_with_the_highest_missing_ranks():
    assert score("Kh 8h 3h JK JK") == high(HighCategory.FLUSH, A, K, Q, 8, 3)  # Ah Qh
    assert score("Ah 8h 3h JK JK") == high(HighCategory.FLUSH, A, K, Q, 8, 3)  # Kh Qh


def test_two_jokers_both_fill_a_royal_flush():
    assert score("Ks Qs Js JK JK") == high(HighCategory.ROYAL_FLUSH, 15)


def test_two_jokers_are_two_aces_when_they_complete_nothing():
    assert score("Kc Kd 7h JK JK") == high(HighCategory.TWO_PAIR, A, K, 7)
    assert score("As Kd 7h JK JK") == high(HighCategory.THREE_OF_A_KIND, A, K, 7)
    assert score("7c 7d 7h JK JK") == high(HighCategory.FULL_HOUSE, 7, A)
    assert score("As Ad Ah JK JK") == high(HighCategory.FIVE_ACES, A)


# --- A-2-3-4-5: Nevada (001, 002, 003) and California (004) -------------------------------------


def test_nevada_wheel_is_the_second_highest_straight():
    wheel = score("Ac 2d 3h 4s 5d", NEVADA)
    assert wheel == high(HighCategory.STRAIGHT, 14)
    assert score("Kc Qd Jh Ts 9d", NEVADA) < wheel < score("Ac Kd Qh Js Td", NEVADA)


def test_nevada_wheel_is_the_second_highest_straight_flush():
    wheel = score("As 2s 3s 4s 5s", NEVADA)
    assert wheel == high(HighCategory.STRAIGHT_FLUSH, 14)
    assert score("Ks Qs Js Ts 9s", NEVADA) < wheel < score("As Ks Qs Js Ts", NEVADA)


def test_nevada_is_the_default():
    assert DEFAULT_RULES.wheel is Wheel.NEVADA
    assert score("Ac 2d 3h 4s 5d") == score("Ac 2d 3h 4s 5d", NEVADA)


def test_california_wheel_is_the_lowest_straight():
    wheel = score("Ac 2d 3h 4s 5d", CALIFORNIA)
    assert wheel == high(HighCategory.STRAIGHT, 5)
    assert score("3c 4d 5h 6s 2d", CALIFORNIA) > wheel > score("Ac Kd Qh Js 9d", CALIFORNIA)


def test_california_wheel_is_the_lowest_straight_flush():
    wheel = score("As 2s 3s 4s 5s", CALIFORNIA)
    assert wheel == high(HighCategory.STRAIGHT_FLUSH, 5)
    assert score("6s 2s 3s 4s 5s", CALIFORNIA) > wheel > score("Ks Qs Js Ts 8s", CALIFORNIA)


def test_joker_with_two_three_four_five_makes_the_wheel_in_nevada_and_six_high_in_california():
    assert score("2c 3d 4h 5s JK", NEVADA) == high(HighCategory.STRAIGHT, 14)
    assert score("2c 3d 4h 5s JK", CALIFORNIA) == high(HighCategory.STRAIGHT, 6)
    assert score("2d 3d 4d 5d JK", NEVADA) == high(HighCategory.STRAIGHT_FLUSH, 14)
    assert score("2d 3d 4d 5d JK", CALIFORNIA) == high(HighCategory.STRAIGHT_FLUSH, 6)


def test_two_jokers_make_the_best_straight_flush_of_the_wheel_rule():
    # 2-4-5 of diamonds: A+3 (wheel) or 3+6 (6-high).
    assert score("5d 4d 2d JK JK", NEVADA) == high(HighCategory.STRAIGHT_FLUSH, 14)
    assert score("5d 4d 2d JK JK", CALIFORNIA) == high(HighCategory.STRAIGHT_FLUSH, 6)


def test_wheel_rule_changes_nothing_else():
    for codes, expected in CATEGORY_EXAMPLES:
        assert score(codes, CALIFORNIA) == expected


# --- two-card low hands (001, 004) ----------------------------------------------------------------


def low_score(codes: str, rules: RankingRules = DEFAULT_RULES) -> int:
    return rank_low(parse_cards(codes), rules)


def test_any_pair_beats_any_two_unmatched_cards():
    assert low_score("2c 2d") == low(LowCategory.PAIR, 2, 2)
    assert low_score("Ac Kd") == low(LowCategory.HIGH_CARD, A, K)
    assert low_score("2c 2d") > low_score("Ac Kd")
    assert low_category(low_score("2c 2d")) is LowCategory.PAIR


def test_unmatched_low_hands_compare_the_higher_card_then_the_lower():
    assert low_score("Ac 2d") > low_score("Kc Qd")
    assert low_score("Ac 3d") > low_score("Ah 2s")
    assert low_score("Kd Ac") == low_score("As Kh")  # a copy


def test_highest_low_hand_is_aces_and_lowest_is_three_two():
    assert low_score("Ac Ad") == low(LowCategory.PAIR, A, A)
    assert low_score("3c 2d") == low(LowCategory.HIGH_CARD, 3, 2)


def test_joker_is_an_ace_in_the_low_hand():
    assert low_score("JK Kd") == low(LowCategory.HIGH_CARD, A, K)
    assert low_score("JK Ad") == low(LowCategory.PAIR, A, A)
    assert low_score("JK JK") == low(LowCategory.PAIR, A, A)


def test_wild_joker_in_the_low_hand_pairs_the_other_card():
    assert low_score("JK 7d", WILD_LOW) == low(LowCategory.PAIR, 7, 7)
    assert low_score("JK Ad", WILD_LOW) == low(LowCategory.PAIR, A, A)
    assert low_score("JK JK", WILD_LOW) == low(LowCategory.PAIR, A, A)
    assert low_score("Kc 7d", WILD_LOW) == low(LowCategory.HIGH_CARD, K, 7)  # no joker, no change


# --- seven cards: Big Hand Bonus (003) ----------------------------------------------------------


def category7(codes: str, rules: RankingRules = DEFAULT_RULES) -> SevenCardCategory:
    return seven_card_category(parse_cards(codes), rules)


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ("8h 9h Th Jh Qh Kh Ah", SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH),
        ("Ah 2h 3h 4h 5h 6h 7h", SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH),  # Ace low
        ("As Ad Ah Ac JK JK 2c", SevenCardCategory.SIX_ACES),
        ("Ah 2h 3h 4h JK 6h 7h", SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH),  # joker = 5h
        ("8c 9c Tc Qc Kc JK JK", SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH),  # jokers = Jc + (7c or Ac)
        ("As Ad Ah Ac JK 2c 3d", SevenCardCategory.FIVE_ACES),
        ("As Ad Ah JK JK 2c 3d", SevenCardCategory.FIVE_ACES),
        ("As Ks Qs Js Ts 2c 3d", SevenCardCategory.ROYAL_FLUSH),
        ("As Ks Qs JK Ts 2c 3d", SevenCardCategory.ROYAL_FLUSH),  # joker = Js
        ("9h 8h 7h 6h 5h 2c 3d", SevenCardCategory.STRAIGHT_FLUSH),
        ("9h 8h 7h 6h 5h 4h 2c", SevenCardCategory.STRAIGHT_FLUSH),  # six in a row: not seven
        ("7c 7d 7h 7s Kd 2c 3d", SevenCardCategory.FOUR_OF_A_KIND),
        ("Ac Ad Ah 4s JK 2c 3d", SevenCardCategory.FOUR_OF_A_KIND),  # three Aces and the joker
        ("Qc Qd Qh 4s 4d 2c 3d", SevenCardCategory.FULL_HOUSE),
        ("Kd Td 8d 4d 2d 9c 3h", SevenCardCategory.FLUSH),
        ("Kd Td 8d 4d 2d 9d 3d", SevenCardCategory.FLUSH),  # seven of a suit, not in a row
        ("Tc 9d 8h 7s 6d 2c 2d", SevenCardCategory.NOTHING),  # a straight is "straight or worse"
        ("Tc 9d 8h 7s 6d 5c 4d", SevenCardCategory.NOTHING),  # even a seven-card straight
        ("Ac Kd 9h 7s 5d 3c 2h", SevenCardCategory.NOTHING),
    ],
)
def test_big_hand_bonus_category_of_seven_cards(codes, expected):
    assert category7(codes) is expected
    assert category7(codes, CALIFORNIA) is expected  # the wheel rule changes no category


def test_big_hand_bonus_flush_beats_a_straight_only_hand():
    assert category7("Kd Td 8d 4d 2d 9c 3h") > category7("Tc 9d 8h 7s 6d 2c 2d") == SevenCardCategory.NOTHING


def test_big_hand_bonus_categories_are_ordered_as_the_pay_table():
    assert list(SevenCardCategory) == sorted(SevenCardCategory)
    assert (
        SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
        > SevenCardCategory.SIX_ACES
        > SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH
        > SevenCardCategory.FIVE_ACES
        > SevenCardCategory.ROYAL_FLUSH
        > SevenCardCategory.STRAIGHT_FLUSH
        > SevenCardCategory.FOUR_OF_A_KIND
        > SevenCardCategory.FULL_HOUSE
        > SevenCardCategory.FLUSH
        > SevenCardCategory.NOTHING
    )


# --- bad input: typed, clear errors ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "codes", "message"),
    [
        (rank_high, "As Kd Qh Jc", "4 cards, expected 5"),
        (rank_high, "As Kd Qh Jc Td 9s", "6 cards, expected 5"),
        (rank_low, "As Kd Qh", "3 cards, expected 2"),
        (rank_low, "As", "1 cards, expected 2"),
        (seven_card_category, "As Kd Qh Jc Td 9s", "6 cards, expected 7"),
        (seven_card_category, "As Kd Qh Jc Td 9s 8s 7s", "8 cards, expected 7"),
    ],
)
def test_wrong_hand_size_is_a_hand_size_error(function, codes, message):
    with pytest.raises(HandSizeError, match=message):
        function(parse_cards(codes))


def test_wrong_size_on_the_int_path_is_a_hand_size_error():
    with pytest.raises(HandSizeError, match="4 cards, expected 5"):
        rank_high_ints(card_ints(parse_cards("As Kd Qh Jc")))


def test_a_natural_card_twice_is_a_duplicate_card_error():
    with pytest.raises(DuplicateCardError, match="As"):
        rank_high(parse_cards("As As Kd Qc 2h"))
    with pytest.raises(DuplicateCardError, match="Kd"):
        rank_low(parse_cards("Kd Kd"))
    with pytest.raises(DuplicateCardError, match="2h"):
        seven_card_category(parse_cards("As Kd Qc 2h 2h 5c 7d"))


def test_more_than_two_jokers_is_a_too_many_jokers_error():
    with pytest.raises(TooManyJokersError, match="3 jokers"):
        rank_high(parse_cards("JK JK JK As Kd"))
    with pytest.raises(TooManyJokersError, match="3 jokers"):
        seven_card_category(parse_cards("JK JK JK As Kd 2c 3c"))


@pytest.mark.parametrize(
    "bad", [Card(15, "s"), Card(1, "h"), Card(-1, "s"), Card(7, "x"), Card(0, "s"), "As", None, 52]
)
def test_something_that_is_not_a_card_is_an_unknown_card_error(bad):
    hand = [bad, *parse_cards("Kd Qh Jc 9s")]
    with pytest.raises(UnknownCardError):
        rank_high(hand)
    with pytest.raises(UnknownCardError):
        card_int(bad)


def test_ints_that_form_no_hand_are_a_card_int_error():
    # The int path trusts its ints (documented); what it cannot read it refuses.
    with pytest.raises(CardIntError):
        rank_high_ints([0, 0, 0, 0, 0])
    with pytest.raises(CardIntError):
        rank_high_ints([card_int(JOKER)] * 3 + list(card_ints(parse_cards("As Kd"))))
    with pytest.raises(CardIntError):
        rank_high_ints(["As", "Kd", "Qh", "Jc", "Td"])
    assert issubclass(CardIntError, CardError) and issubclass(HandSizeError, ValueError)


# --- the card integers and the score layout -------------------------------------------------------


def test_the_fast_path_literals_are_the_encoding_constants():
    # evaluator.rank_high_ints writes these as literals for speed.
    assert ranking_tables.SUIT_MASK == 0xF00 and ranking_tables.RANK_SHIFT == 15
    assert ranking_tables.PRIME_MASK == 255


def test_every_card_int_is_a_one_digit_python_int_and_distinct():
    ints = [card_int(card) for card in parse_cards("JK")] + [
        card_int(Card(rank, suit)) for rank in range(2, 15) for suit in "shdc"
    ]
    assert len(set(ints)) == 53 and all(0 < value < 2**30 for value in ints)
    assert card_int(JOKER) == ranking_tables.JOKER_INT


def test_high_beats_low_reads_the_score_layout():
    # setting.high_beats_low decodes the category and the top two kickers (house-way-readings §1).
    ace_jack = score("Ac Jd 8h 6s 3d")
    assert high_beats_low(ace_jack, low_score("Kc Qd"))
    assert not high_beats_low(ace_jack, low_score("Ac Kd"))  # A-K in front of A-J-8-6-3: a foul
    assert high_beats_low(score("9c 9d Ah 7s 2d"), low_score("9h 9s"))
    assert not high_beats_low(score("9c 9d Ah 7s 2d"), low_score("Th Ts"))
