"""A hand as a dealer reads it (game/hand_words.py): the cards in reading order and the name.

Every expected order and name is worked out by hand from the rules: 001_c9adb19db438d99f.txt
(the joker completes a straight or flush, otherwise it is an Ace; A-2-3-4-5 a straight),
002_08ea07f9e4b504bc.txt (the hand ranks), 003_4dcc2fceebc6e4af.txt (the joker in a flush is
the highest rank the suit lacks; two jokers), 004_60e2fc6346e3399b.txt (California's wheel is
the lowest straight; a joker fully wild in front).
"""

import pytest

from table_controller.game.cards import HandSizeError, TooManyJokersError, codes, parse_cards
from table_controller.game.evaluator import RankingRules, Wheel
from table_controller.game.hand_words import rank_plural, read_high, read_low

CALIFORNIA = RankingRules(wheel=Wheel.CALIFORNIA)
WILD_LOW = RankingRules(joker_wild_in_low=True)

# (the five cards as dealt, as the dealer reads them, the name)
HIGH_HANDS = [
    # natural hands, one per category
    ("Kc 8d 2s Jh As", "As Kc Jh 8d 2s", "ace high"),
    ("7c 9d Qh 3s 2d", "Qh 9d 7c 3s 2d", "queen high"),
    ("Kd 9s Kh 5c 2d", "Kd Kh 9s 5c 2d", "pair of kings"),
    ("5c As 5d Ah 9h", "As Ah 5c 5d 9h", "two pair, aces and fives"),
    ("3c 6s Th 3h 6d", "6s 6d 3c 3h Th", "two pair, sixes and threes"),
    ("7s 2c 7d Jh 7c", "7s 7d 7c Jh 2c", "three sevens"),
    ("8c Td 6s 9h 7d", "Td 9h 8c 7d 6s", "straight to the ten"),
    ("4d As 3c 5h 2s", "5h 4d 3c 2s As", "straight to the five"),  # the wheel reads 5 down to the Ace
    ("Tc Ad Qh Ks Jd", "Ad Ks Qh Jd Tc", "straight to the ace"),
    ("2h 9h Ah Jh 5h", "Ah Jh 9h 5h 2h", "flush, ace high"),
    ("4c Qs 4h Qd Qh", "Qs Qd Qh 4c 4h", "full house, queens over fours"),
    ("Jc 3d Jd Jh Js", "Jc Jd Jh Js 3d", "four jacks"),
    ("5s 9s 7s 6s 8s", "9s 8s 7s 6s 5s", "straight flush to the nine"),
    ("3d 4d Ad 2d 5d", "5d 4d 3d 2d Ad", "straight flush to the five"),
    ("Qd Ad Td Kd Jd", "Ad Kd Qd Jd Td", "royal flush"),
    # the joker as an Ace (001): a kicker, a pair, trips, a full house, five aces
    ("JK Kd 9s 5c 2h", "JK Kd 9s 5c 2h", "ace high"),
    ("Kd JK Kh 9s 5c", "Kd Kh JK 9s 5c", "pair of kings"),
    ("JK Ac 8d 4s 3h", "Ac JK 8d 4s 3h", "pair of aces"),
    ("2s 7c JK 7d 7h", "7c 7d 7h JK 2s", "three sevens"),
    ("4s JK Ac 4h Ad", "Ac Ad JK 4s 4h", "full house, aces over fours"),
    ("JK As Ad Ah Ac", "As Ad Ah Ac JK", "five aces"),
    # the joker completing a straight, a flush, a straight flush, a royal flush (001, 003)
    ("JK 9c Th Jd Qs", "JK Qs Jd Th 9c", "straight to the king"),  # on top: K-high beats 8-high
    ("Kh 9c JK Qs Jd", "Kh Qs Jd JK 9c", "straight to the king"),  # in the middle: the ten
    ("JK 2c 3d 4h 5s", "5s 4h 3d 2c JK", "straight to the five"),  # Nevada: the wheel beats 6-high
    ("5h JK Qh 9h Kh", "JK Kh Qh 9h 5h", "flush, ace high"),  # the highest rank the suit lacks: A
    ("9h 5h JK Ah Qh", "Ah JK Qh 9h 5h", "flush, ace high"),  # with the Ace there: the king
    ("8d 9d JK Td Jd", "JK Jd Td 9d 8d", "straight flush to the queen"),
    ("JK 3h 4h 5h 6h", "JK 6h 5h 4h 3h", "straight flush to the seven"),
    ("Td Jd Qd Kd JK", "JK Kd Qd Jd Td", "royal flush"),
    # Double Joker's two jokers (003)
    ("JK 9s Ks JK Qs", "Ks Qs JK JK 9s", "straight flush to the king"),
    ("JK As Ad JK Ah", "As Ad Ah JK JK", "five aces"),
    ("7c JK 2s 7d JK", "JK JK 7c 7d 2s", "two pair, aces and sevens"),
    ("4c JK 8d JK Qh", "JK JK Qh 8d 4c", "pair of aces"),
    ("3c JK 6h 4d JK", "JK 6h JK 4d 3c", "straight to the seven"),
    ("9h JK Kh JK Ah", "Ah Kh JK JK 9h", "flush, ace high"),
]


@pytest.mark.parametrize(("dealt", "read", "name"), HIGH_HANDS)
def test_a_high_hand_reads_made_part_first_then_kickers_high_to_low(dealt: str, read: str, name: str) -> None:
    reading = read_high(parse_cards(dealt))
    assert codes(reading.cards) == read.split()
    assert reading.name == name


@pytest.mark.parametrize(
    ("dealt", "nevada", "california"),
    [
        # 004: California's A-2-3-4-5 is the lowest straight, so the joker makes the six
        (
            "JK 2c 3d 4h 5s",
            ("5s 4h 3d 2c JK", "straight to the five"),
            ("JK 5s 4h 3d 2c", "straight to the six"),
        ),
        (
            "2d 5d JK 4d 3d",
            ("5d 4d 3d 2d JK", "straight flush to the five"),
            ("JK 5d 4d 3d 2d", "straight flush to the six"),
        ),
        # a natural wheel is the wheel under both rules
        (
            "4d As 3c 5h 2s",
            ("5h 4d 3c 2s As", "straight to the five"),
            ("5h 4d 3c 2s As", "straight to the five"),
        ),
    ],
)
def test_the_wheel_rule_decides_where_the_joker_plays(
    dealt: str, nevada: tuple[str, str], california: tuple[str, str]
) -> None:
    for rules, (read, name) in ((RankingRules(), nevada), (CALIFORNIA, california)):
        reading = read_high(parse_cards(dealt), rules)
        assert (" ".join(codes(reading.cards)), reading.name) == (read, name)


LOW_HANDS = [
    ("9c 9d", RankingRules(), "9c 9d", "pair of nines"),
    ("Jd Kh", RankingRules(), "Kh Jd", "king-jack"),
    ("2c 3d", RankingRules(), "3d 2c", "three-two"),
    ("6h Tc", RankingRules(), "Tc 6h", "ten-six"),
    ("9c JK", RankingRules(), "JK 9c", "ace-nine"),  # 001: the joker is an Ace in front
    ("JK As", RankingRules(), "As JK", "pair of aces"),
    ("9c JK", WILD_LOW, "9c JK", "pair of nines"),  # 004: fully wild, it pairs the nine
    ("JK 2d", WILD_LOW, "2d JK", "pair of twos"),
    ("JK JK", RankingRules(), "JK JK", "pair of aces"),  # Double Joker (003)
    ("JK JK", WILD_LOW, "JK JK", "pair of aces"),
]


@pytest.mark.parametrize(("dealt", "rules", "read", "name"), LOW_HANDS)
def test_a_low_hand_reads_higher_card_first(dealt: str, rules: RankingRules, read: str, name: str) -> None:
    reading = read_low(parse_cards(dealt), rules)
    assert codes(reading.cards) == read.split()
    assert reading.name == name


def test_plurals_are_english() -> None:
    assert [rank_plural(rank) for rank in (2, 6, 10, 14)] == ["twos", "sixes", "tens", "aces"]


def test_a_hand_of_the_wrong_size_or_deck_is_refused_with_the_evaluators_error() -> None:
    with pytest.raises(HandSizeError):
        read_high(parse_cards("As Kd Qh Jc"))
    with pytest.raises(HandSizeError):
        read_low(parse_cards("As Kd Qh"))
    with pytest.raises(TooManyJokersError):
        read_high(parse_cards("JK JK JK As Kd"))
