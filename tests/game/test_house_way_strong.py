"""The "strong house way" sheet of 004_60e2fc6346e3399b.txt as a second way (strong-004).

Expected settings are worked out by hand from the sheet's words (comment next to a case);
``004`` marks a hand that is the article's own example, with the setting the article gives.
Where the sheet leaves a choice between cards of one rank (which two 8s), the engine takes
the first in hand order (docs/house-way.md): those cases say so.
"""

import random
from collections import Counter

import pytest

from table_controller.game.cards import Game, parse_cards
from table_controller.game.house_way import available_house_ways, load_house_way, set_house_way
from table_controller.game.setting import is_legal

WAY = "strong-004"

# (rule id, seven cards, low, high, via)
CASES = [
    ("high-card", "Kd Jc 9h 7s 5d 3c 2h", "Jc 9h", "Kd 7s 5d 3c 2h", ()),
    ("pairs.one-pair", "Qs Qd Ah 9c 6d 4s 2h", "Ah 9c", "Qs Qd 6d 4s 2h", ()),
    ("pairs.two-pairs.aces", "As Ad 5c 5h Kd 9s 2c", "5c 5h", "As Ad Kd 9s 2c", ()),
    ("pairs.two-pairs.kings-with-sevens-or-better", "Ks Kh 8d 8c Ad Qh 3s", "8d 8c", "Ks Kh Ad Qh 3s", ()),
    # Queens and Jacks, A-9 on top: the exception splits them (else "any ace top" keeps them)
    (
        "pairs.two-pairs.four-face-cards-without-ace-king-top",
        "Qs Qh Jd Jc Ad 9h 3s",
        "Jd Jc",
        "Qs Qh Ad 9h 3s",
        (),
    ),
    ("pairs.two-pairs.ace-face-top", "9s 9h 4d 4c Ad Kh 2s", "Ad Kh", "9s 9h 4d 4c 2s", ()),
    ("pairs.two-pairs.kings-with-threes-ace-low-top", "Kc Kd 4h 4s Ac 8d 2h", "4h 4s", "Kc Kd Ac 8d 2h", ()),
    ("pairs.two-pairs.queens-with-fives-ace-low-top", "Qc Qd 6h 6s Ac 9d 2h", "6h 6s", "Qc Qd Ac 9d 2h", ()),
    (
        "pairs.two-pairs.jacks-or-tens-with-nines-or-eights-ace-low-top",
        "Tc Td 8h 8s Ac 5d 2h",
        "8h 8s",
        "Tc Td Ac 5d 2h",
        (),
    ),
    ("pairs.two-pairs.sixes-and-lower", "6c 6d 3h 3s Kc 9d 2h", "Kc 9d", "6c 6d 3h 3s 2h", ()),
    ("pairs.two-pairs.other-with-ace-top", "Jc Jd 4h 4s Ac 9d 2h", "Ac 9d", "Jc Jd 4h 4s 2h", ()),
    ("pairs.two-pairs.other", "Jc Jd 4h 4s Kc 9d 2h", "4h 4s", "Jc Jd Kc 9d 2h", ()),
    # 004: "with K-K-7-7-4-4-A he should play K-K and 7-7-4-4-A"
    ("pairs.three-pairs", "Ks Kh 7d 7c 4h 4s Ad", "Ks Kh", "7d 7c 4h 4s Ad", ()),
    ("three-of-a-kind.aces", "Ac Ad As Kh 9d 5c 2s", "Ac Kh", "Ad As 9d 5c 2s", ()),
    # 004: "with K-K-K-J-9-7-6 it is slightly better to play K-J and K-K-9-7-6"
    ("three-of-a-kind.kings-jack-or-lower-top", "Kc Kd Ks Jh 9d 7c 6s", "Kc Jh", "Kd Ks 9d 7c 6s", ()),
    ("three-of-a-kind.kings-ace-or-queen-top", "Kc Kd Ks Qh 9d 7c 3s", "Qh 9d", "Kc Kd Ks 7c 3s", ()),
    ("three-of-a-kind.queens-and-less", "9c 9d 9s Ah Kd 7c 3s", "Ah Kd", "9c 9d 9s 7c 3s", ()),
    # 004: "with Q-Q-Q-7-7-7-A he should play Q-Q and 7-7-7-A-Q"
    ("three-of-a-kind.two", "Qc Qd Qs 7h 7d 7c Ah", "Qc Qd", "Qs 7h 7d 7c Ah", ()),
    ("full-house.extra-pair", "8c 8d 8s 5h 5d 3c 3s", "5h 5d", "8c 8d 8s 3c 3s", ()),
    ("full-house.fives-with-ace-king", "Tc Td Ts 5h 5d Ac Kh", "Ac Kh", "Tc Td Ts 5h 5d", ()),
    # 004: "with 5-5-5-3-3-A-Q it might be better to play A-Q with the full house behind"
    ("full-house.fours-or-threes-with-ace-queen", "5c 5d 5s 3h 3d Ac Qh", "Ac Qh", "5c 5d 5s 3h 3d", ()),
    ("full-house.twos-with-ace-jack", "9c 9d 9s 2h 2d Ac Jh", "Ac Jh", "9c 9d 9s 2h 2d", ()),
    ("full-house.split", "Jc Jd Js 6h 6d Ac Kh", "6h 6d", "Jc Jd Js Ac Kh", ()),
    ("four-of-a-kind.three-of-a-kind.adjacent", "9c 9d 9s 9h 8c 8d 8s", "8c 8d", "9c 9d 9s 9h 8s", ()),
    ("four-of-a-kind.three-of-a-kind.higher-group", "9c 9d 9s 9h 4c 4d 4s", "9c 9d", "9s 9h 4c 4d 4s", ()),
    (
        "four-of-a-kind.pair.aces-or-kings-with-threes-or-twos",
        "Ac Ad Ah As 3c 3d 9s",
        "Ac Ad",
        "Ah As 3c 3d 9s",
        (),
    ),
    # 004: "with 9-9-9-9-7-7-K he should play 7-7 and 9-9-9-9-K"
    ("four-of-a-kind.pair.keep", "9c 9d 9h 9s 7c 7d Kh", "7c 7d", "9c 9d 9h 9s Kh", ()),
    ("four-of-a-kind.aces", "Ac Ad Ah As Kc 8d 3s", "Ac Kc", "Ad Ah As 8d 3s", ()),
    ("four-of-a-kind.kings-without-ace", "Kc Kd Kh Ks Qc 8d 3s", "Kc Kd", "Kh Ks Qc 8d 3s", ()),
    ("four-of-a-kind.kings-ace-jack-or-ace-queen", "Kc Kd Kh Ks Ac Jd 3s", "Ac Jd", "Kc Kd Kh Ks 3s", ()),
    ("four-of-a-kind.kings-ace-ten-or-lower", "Kc Kd Kh Ks Ac Td 3s", "Kc Ac", "Kd Kh Ks Td 3s", ()),
    ("four-of-a-kind.queens-ace-eight-or-better", "Qc Qd Qh Qs Ac 8d 3s", "Ac 8d", "Qc Qd Qh Qs 3s", ()),
    ("four-of-a-kind.queens-ace-seven-or-less", "Qc Qd Qh Qs Ac 7d 3s", "Qc Ac", "Qd Qh Qs 7d 3s", ()),
    ("four-of-a-kind.queens-without-ace", "Qc Qd Qh Qs Kc 7d 3s", "Qc Qd", "Qh Qs Kc 7d 3s", ()),
    ("four-of-a-kind.jacks-or-tens-with-ace", "Jc Jd Jh Js Ac 4d 8s", "Ac 8s", "Jc Jd Jh Js 4d", ()),
    # 004: "with 10-10-10-10-J-5-4 he should play 10-10 and 10-10-J-5-4"
    ("four-of-a-kind.jacks-or-tens", "Tc Td Th Ts Jc 5d 4s", "Tc Td", "Th Ts Jc 5d 4s", ()),
    ("four-of-a-kind.nines-or-eights-king-face-top", "9c 9d 9h 9s Kc Jd 3s", "Kc Jd", "9c 9d 9h 9s 3s", ()),
    ("four-of-a-kind.nines-or-eights", "8c 8d 8h 8s Kc Td 3s", "8c 8d", "8h 8s Kc Td 3s", ()),
    ("four-of-a-kind.sevens-or-sixes-queen-jack-top", "7c 7d 7h 7s Qc Jd 3s", "Qc Jd", "7c 7d 7h 7s 3s", ()),
    ("four-of-a-kind.sevens-or-sixes", "6c 6d 6h 6s Qc Td 3s", "6c 6d", "6h 6s Qc Td 3s", ()),
    # 004: "with 3-3-3-3-K-Q-7, K-Q and 3-3-3-3-7"
    ("four-of-a-kind.fives-or-less", "3c 3d 3h 3s Kc Qd 7s", "Kc Qd", "3c 3d 3h 3s 7s", ()),
    ("five-aces.back-pair-of-kings", "Ac Ad Ah As JK Kc Kd", "Kc Kd", "Ac Ad Ah As JK", ()),
    ("five-aces.pair-of-aces-up", "Ac Ad Ah As JK 9c 4d", "Ac Ad", "Ah As JK 9c 4d", ()),
    # Straights and flushes
    # three pairs (Ah+JK, K, 9) with a flush: "play as three pair hand": the highest pair up
    (
        "pairs.three-pairs",
        "Ah Kh 9h 5h JK Ks 9s",
        "Ah JK",
        "Kh Ks 9h 9s 5h",
        ("straight-or-flush.three-pairs",),
    ),
    # full house 7-7-7 and Ah+JK: the flush can only put 7-7 up, the split full house A-A
    ("straight-or-flush.full-house.split-for-aces-up", "7s 7h 7d Ah JK 9h 5h", "Ah JK", "7s 7h 7d 9h 5h", ()),
    # Ac Ad JK (three Aces) and 2-2 with A-2-3-4-JK: the straight puts A-2 up, no pair: split
    ("straight-or-flush.full-house.split", "Ac Ad JK 2s 2h 3c 4d", "2s 2h", "Ac Ad JK 3c 4d", ()),
    # 004: "Play 9888765 as 98765/88" (which two 8s: the first in hand order)
    ("straight-or-flush.three-of-a-kind", "9c 8h 8d 8s 7c 6d 5h", "8h 8d", "9c 8s 7c 6d 5h", ()),
    # 004: "AA*2459=A2*45/A9" (which Ace: the first in hand order)
    ("straight-or-flush.three-of-a-kind", "Ac Ad JK 2s 4h 5c 9d", "Ac 9d", "Ad JK 2s 4h 5c", ()),
    # Aces and Kings with A-K-Q-J-T: "two pairs Aces with 8's or better" -> the two-pairs rows
    (
        "pairs.two-pairs.aces",
        "Ac Kd Qh Js Tc Ad Ks",
        "Kd Ks",
        "Ac Ad Qh Js Tc",
        ("straight-or-flush.two-pairs.aces-with-eights-or-better",),
    ),
    # "(e.g., Q's and 5's)": the flush puts Q-5 up, no Ace: play as two pairs (split)
    (
        "pairs.two-pairs.other",
        "Qh Qc 5h 5c Jh 9h 3h",
        "5h 5c",
        "Qh Qc Jh 9h 3h",
        ("straight-or-flush.two-pairs.face-high-pairs",),
    ),
    # sevens and fours, the flush puts 7-4 up; an Ace among the side cards: two pairs, A-9 up
    (
        "pairs.two-pairs.other-with-ace-top",
        "7h 7c 4h 4c Ah 9h 2h",
        "Ah 9h",
        "7h 7c 4h 4c 2h",
        ("straight-or-flush.two-pairs.ace-high-top-with-two-pairs",),
    ),
    ("straight-or-flush.two-pairs.otherwise", "7h 7c 4h 4c Kh 9h 2h", "7c 4c", "7h 4h Kh 9h 2h", ()),
    # 004: "KQQJ*93, play Q's with *AK up": the straight 9-K would put Q-3 up
    (
        "straight-or-flush.one-pair.face-pair-ace-face-top",
        "Ks Qh Qd Jc JK 9s 3h",
        "JK Ks",
        "Qh Qd Jc 9s 3h",
        (),
    ),
    # Ah+JK with A-K-Q-J-JK: the straight puts 5-4 up; "play AAxxx with KQ up"
    (
        "straight-or-flush.one-pair.aces-with-king-queen-top",
        "Ah JK Kd Qc Js 5d 4c",
        "Kd Qc",
        "Ah JK Js 5d 4c",
        (),
    ),
    # a pair of 9s with 5-9: the straight with 9-2 up (which 9: the first in hand order)
    ("straight-or-flush.one-pair.otherwise", "5c 6d 7h 8s 9c 9d 2h", "9c 2h", "5c 6d 7h 8s 9d", ()),
    # 004: "with Ks-9s-8c-7s-6c-5s-4s playing the flush would put 8-6 in front, playing the
    # 9-high straight would put K-4 up front, but the correct play is K-9 and 8-7-6-5-4"
    ("straight-or-flush.best-top", "Ks 9s 8c 7s 6c 5s 4s", "Ks 9s", "8c 7s 6c 5s 4s", ()),
    # 004 "A-9 vs. A-6": the straight 2-6 puts A-9 up, the flush A-6: the flush
    ("straight-or-flush.best-top", "2h 3h 4h 5h 6c 9h Ac", "Ac 6c", "2h 3h 4h 5h 9h", ()),
    # 004 "6 or 7 card long straight: play the lower straight": 4-8 puts K-9 up (5-9: K-4)
    ("straight-or-flush.best-top", "4c 5d 6h 7s 8c 9d Kh", "9d Kh", "4c 5d 6h 7s 8c", ()),
]

# Reachable with two jokers only (Double Joker, 003): worked out the same way.
DOUBLE_JOKER_CASES = [
    # three Aces (Ah JK JK) and 6-6 with a flush that puts 6-6 up
    (
        "straight-or-flush.full-house.pair-up-with-straight-or-flush",
        "Ah JK JK 6c 6d 9h 3h",
        "6c 6d",
        "Ah JK JK 9h 3h",
        (),
    ),
    # pairs JK-JK (Aces) and 5-5, a flush Kh 9h 4h JK JK with 5-5 up; lowest pair below 8
    ("straight-or-flush.two-pairs.pair-top", "Kh 9h 4h JK JK 5c 5d", "5c 5d", "Kh 9h 4h JK JK", ()),
]


def _multiset(cards) -> Counter:
    return Counter(card.code for card in cards)


@pytest.fixture(scope="module")
def way():
    return load_house_way(WAY)


def test_strong_way_is_available_by_name():
    assert WAY in available_house_ways()
    result = set_house_way(parse_cards("Ks 9s 8c 7s 6c 5s 4s"), way=WAY)
    assert result.way == WAY


@pytest.mark.parametrize(
    ("rule_id", "hand", "low", "high", "via"), CASES + DOUBLE_JOKER_CASES, ids=lambda v: str(v)
)
def test_strong_rule(way, rule_id, hand, low, high, via):
    cards = parse_cards(hand)
    result = way.set(cards)
    assert result.rule_id == rule_id
    assert result.via == via
    assert _multiset(result.setting.low) == _multiset(parse_cards(low))
    assert _multiset(result.setting.high) == _multiset(parse_cards(high))
    assert is_legal(result.setting)


def test_every_strong_rule_has_a_case_or_is_marked_never_applying(way):
    covered = {case[0] for case in CASES + DOUBLE_JOKER_CASES} | {
        v for case in CASES + DOUBLE_JOKER_CASES for v in case[4]
    }
    never = {rule.id for rule in way.rules if not rule.reachable}
    assert never == {"straight-or-flush.two-pairs.ace-face-top"}
    assert {rule.id for rule in way.rules} - covered == never


def test_the_two_ways_differ_where_the_sheets_differ():
    """Two pairs, Jacks and 4s, with an Ace: 002 "Two pairs: the lowest pair" splits them;
    004 "All other two pairs keep together with any ace top" keeps them."""
    cards = parse_cards("Jc Jd 4h 4s Ac 9d 2h")
    assert _multiset(set_house_way(cards).setting.low) == _multiset(parse_cards("4h 4s"))
    assert _multiset(set_house_way(cards, way=WAY).setting.low) == _multiset(parse_cards("Ac 9d"))


def test_strong_way_sets_double_joker_hands_legally(way):
    deck = Game.DOUBLE_JOKER.deck()
    rng = random.Random(3)
    for _ in range(300):
        hand = tuple(rng.sample(deck, 7))
        result = way.set(hand)
        assert _multiset(result.setting.high) + _multiset(result.setting.low) == _multiset(hand)
        assert is_legal(result.setting)
