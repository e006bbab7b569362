"""At least one hand for every rule id of house-way-002 (002_08ea07f9e4b504bc.txt, read per
house-way-readings.md); the rows that never apply (readings section 4) are tested for that.

Each expected setting is worked out by hand from the row's words (the reasoning is in the
comment next to the case). Rows that only set cards when another row follows their steps
("Follow the steps described for ...") are reached through that row: ``via`` names it.
Cards are compared as multisets.
"""

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.game.cards import JOKER, NATURAL_CARDS, Card, parse_cards
from table_controller.game.evaluator import RankingRules
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import is_legal

WAY = "house-way-002"

# (rule id, seven cards, low, high, via)
CASES = [
    # Five of a kind
    ("five-of-a-kind.two-kings", "Ac Ad Ah As JK Kc Kh", "Kc Kh", "Ac Ad Ah As JK", ()),
    # two Aces of five; every choice leaves three Aces and 9-2 behind; the joker stays behind (G5)
    ("five-of-a-kind.otherwise", "JK As Ah Ad Ac 9c 2d", "As Ah", "JK Ad Ac 9c 2d", ()),
    # Royal Flush
    # trips Q; Qs Qd in front keeps the royal (the other choices leave a straight)
    ("royal-flush.three-of-a-kind", "Qh Jh Th Kh Ah Qs Qd", "Qs Qd", "Ah Kh Qh Jh Th", ()),
    # Ad+JK pair; Kd Qd Jd Td 9d is still a flush
    (
        "royal-flush.pair.joker-pair-flush-after-removing-joker-and-ace",
        "Ad Kd Qd Jd Td 9d JK",
        "JK Ad",
        "Kd Qd Jd Td 9d",
        (),
    ),
    # natural pair of 9s plus the joker; Kc Qc Jc Tc JK is still a flush
    (
        "royal-flush.pair.pair-and-joker-flush-after-removing-pair",
        "Kc Qc Jc Tc 9c JK 9d",
        "9c 9d",
        "Kc Qc Jc Tc JK",
        (),
    ),
    # F5: Ad with Kh leaves JK Qd Jd Td 9d, a straight flush; JK with Kh leaves only a flush
    ("royal-flush.pair.ace-joker-pair-ace-in-flush", "Ad Qd Jd Td 9d JK Kh", "Ad Kh", "JK Qd Jd Td 9d", ()),
    # F3: pair of Queens, joker unpaired, no flush after removing the pair; 3s is the only
    # singleton off the suit
    ("royal-flush.pair.any-other-pair-and-joker", "Kd Qd Jd Td JK Qc 3s", "JK 3s", "Kd Qd Qc Jd Td", ()),
    # F4: Ac+JK with the Ace off-suit: royal steps, 5-card royal (4 hearts + JK): the non-flush
    (
        "royal-flush.5-card",
        "Kh Qh Jh Th JK Ac 7d",
        "Ac 7d",
        "Kh Qh Jh Th JK",
        ("royal-flush.pair.any-other-pair",),
    ),
    # pairs 2 (first) and A (Ac+JK, second): royal steps, 5-card royal: the two non-flush
    (
        "royal-flush.5-card",
        "Ac Kc Qc Jc JK 2h 2d",
        "2h 2d",
        "Ac Kc Qc Jc JK",
        ("royal-flush.pair.two-pairs-first-2-or-king-second-ace",),
    ),
    # pairs T and Q: the lowest pair
    ("royal-flush.pair.two-pairs-all-other", "As Ks Qs Js Ts Qh Th", "Ts Th", "As Ks Qs Js Qh", ()),
    # pairs A (Ah+JK), K, Q: the joker and the Ace
    ("royal-flush.pair.three-pairs", "Ah Kh Qh Jh JK Kd Qs", "JK Ah", "Kh Kd Qh Qs Jh", ()),
    # no pair: the size rows directly
    ("royal-flush.5-card", "Ac Kc Qc Jc Tc 8d 3h", "8d 3h", "Ac Kc Qc Jc Tc", ()),
    ("royal-flush.6-card-with-joker", "Kc Qc Jc Tc 2c JK 8d", "JK 8d", "Kc Qc Jc Tc 2c", ()),
    ("royal-flush.6-card-without-joker", "Ad Kd Qd Jd Td 5d 9s", "Ad 9s", "Kd Qd Jd Td 5d", ()),
    ("royal-flush.7-card-with-joker", "Kh Qh Jh Th 8h 4h JK", "JK Kh", "Qh Jh Th 8h 4h", ()),
    ("royal-flush.7-card-without-joker", "As Ks Qs Js Ts 7s 3s", "As Ks", "Qs Js Ts 7s 3s", ()),
    # Straight Flush
    # Ad 2d 3d 4d JK; three Aces (Ad Ah JK) and a pair of 4s: the pair
    ("straight-flush.full-house.three-aces", "Ad 2d 3d 4d JK Ah 4s", "4d 4s", "Ad Ah JK 2d 3d", ()),
    # Ac 2c 3c 4c JK; three 3s and a pair of Aces (Ac+JK): the joker and the Ace
    ("straight-flush.full-house.any-other", "Ac 2c 3c 4c JK 3d 3h", "JK Ac", "2c 3c 4c 3d 3h", ()),
    # three 6s; 6s 6d in front keeps the straight flush
    ("straight-flush.three-of-a-kind", "6h 7h 8h 9h Th 6s 6d", "6s 6d", "6h 7h 8h 9h Th", ()),
    # A-JK-3-4-5-6-7 of clubs; the pair Ac+JK in front leaves 3-7 suited
    ("straight-flush.pair.joker-pair", "Ac JK 3c 4c 5c 6c 7c", "JK Ac", "3c 4c 5c 6c 7c", ()),
    # pair of Queens; 8d 9d Td Jd 3d behind is a flush
    ("straight-flush.pair.one-pair", "8d 9d Td Jd Qd Qs 3d", "Qd Qs", "8d 9d Td Jd 3d", ()),
    ("straight-flush.alone.5-card", "4h 5h 6h 7h 8h Kc 2d", "Kc 2d", "4h 5h 6h 7h 8h", ()),
    ("straight-flush.alone.6-card-starting-with-ace", "As 2s 3s 4s 5s 6s Kd", "As Kd", "2s 3s 4s 5s 6s", ()),
    # the joker at the bottom (G7): JK 5 6 7 8 9
    (
        "straight-flush.alone.6-card-joker-first-or-last",
        "5d 6d 7d 8d 9d JK Qc",
        "JK Qc",
        "5d 6d 7d 8d 9d",
        (),
    ),
    ("straight-flush.alone.6-card-any-other", "3c 4c 5c 6c 7c 8c Jd", "8c Jd", "3c 4c 5c 6c 7c", ()),
    (
        "straight-flush.alone.7-card-ace-first-any-other",
        "Ah 2h 3h 4h 5h 6h 7h",
        "Ah 7h",
        "2h 3h 4h 5h 6h",
        (),
    ),
    # the joker at the bottom, as the 2
    ("straight-flush.alone.7-card-joker-first", "3s 4s 5s 6s 7s 8s JK", "JK 8s", "3s 4s 5s 6s 7s", ()),
    ("straight-flush.alone.7-card-joker-second", "2d JK 4d 5d 6d 7d 8d", "JK 2d", "4d 5d 6d 7d 8d", ()),
    ("straight-flush.alone.7-card-joker-sixth", "2h 3h 4h 5h 6h JK 8h", "JK 8h", "2h 3h 4h 5h 6h", ()),
    ("straight-flush.alone.7-card-any-other", "5c 6c 7c 8c 9c Tc Jc", "Tc Jc", "5c 6c 7c 8c 9c", ()),
    # Four of a Kind
    ("four-of-a-kind.three-of-a-kind.adjacent", "8s 8h 8d 8c 9s 9h 9d", "9s 9h", "8s 8h 8d 8c 9d", ()),
    ("four-of-a-kind.three-of-a-kind.any-other", "Js Jh Jd Jc 4s 4h 4d", "Js Jh", "Jd Jc 4s 4h 4d", ()),
    ("four-of-a-kind.pair.four-higher", "Ts Th Td Tc 3s 3h Ks", "Ts Th", "Td Tc 3s 3h Ks", ()),
    ("four-of-a-kind.pair.any-other", "4s 4h 4d 4c Qs Qh 9d", "Qs Qh", "4s 4h 4d 4c 9d", ()),
    ("four-of-a-kind.two-singletons", "Ks Kh Kd Kc Qd 8h 3c", "Qd 8h", "Ks Kh Kd Kc 3c", ()),
    # Full House
    ("full-house.pair.aces-twos-threes", "Ac Ad Ah 2c 2d 3c 3d", "Ac Ad", "Ah 2c 2d 3c 3d", ()),
    ("full-house.pair.any-other", "7s 7h 7d 5s 5h 2c 2d", "5s 5h", "7s 7h 7d 2c 2d", ()),
    ("full-house.two-singletons.pair-higher", "Qs Qh Qd 4s 4h Ad Kc", "4s 4h", "Qs Qh Qd Ad Kc", ()),
    # Flush
    # Ad 9d 6d 3d JK; three Aces (Ad Ac JK) and 9s: the pair
    ("flush.full-house.three-aces", "Ad Ac JK 9d 6d 3d 9s", "9d 9s", "Ad Ac JK 6d 3d", ()),
    # three Jacks and Ah+JK: Js Jc in front keeps Jh Ah JK 7h 2h, a flush
    ("flush.full-house.three-tens-or-better", "Jh Js Jc Ah JK 7h 2h", "Js Jc", "Jh Ah JK 7h 2h", ()),
    ("flush.full-house.any-other", "4c 4d 4h Ac JK Tc 8c", "JK Ac", "4c 4d 4h Tc 8c", ()),
    ("flush.three-of-a-kind.5-card", "8s 8h 8d Kh Qh 5h 2h", "8s 8d", "8h Kh Qh 5h 2h", ()),
    # three Aces (Ac Ad JK), clubs Ac Kc 9c 6c 2c + JK: a 6-card flush with joker
    ("flush.three-of-a-kind.6-card-with-joker", "Ac Ad JK Kc 9c 6c 2c", "JK Ad", "Ac Kc 9c 6c 2c", ()),
    (
        "flush.three-of-a-kind.6-card-without-joker",
        "Kd Jd 9d 6d 4d 2d 8s",
        "Kd 8s",
        "Jd 9d 6d 4d 2d",
        ("flush.otherwise",),
    ),
    (
        "flush.three-of-a-kind.7-card-with-joker",
        "Qs Ts 8s 6s 4s 3s JK",
        "JK Qs",
        "Ts 8s 6s 4s 3s",
        ("flush.otherwise",),
    ),
    (
        "flush.three-of-a-kind.7-card-without-joker",
        "Kh Jh 9h 7h 5h 4h 2h",
        "Kh Jh",
        "9h 7h 5h 4h 2h",
        ("flush.otherwise",),
    ),
    (
        "flush.pair.joker-pair-flush-after-removing-joker-and-ace",
        "Ac Jc 9c 7c 4c 2c JK",
        "JK Ac",
        "Jc 9c 7c 4c 2c",
        (),
    ),
    # pair of 6s; Js 8s 4s 2s JK is still a flush
    (
        "flush.pair.pair-and-joker-flush-after-removing-pair",
        "Js 8s 6s 4s 2s 6d JK",
        "6s 6d",
        "Js 8s 4s 2s JK",
        (),
    ),
    # F5: A (Ad or JK) and the Jack; both leave an A-T-8-6-3 flush: the joker stays behind
    ("flush.pair.ace-joker-pair-ace-in-flush", "Ad Td 8d 6d 3d JK Jc", "Ad Jc", "JK Td 8d 6d 3d", ()),
    # F3: pair of 6s (6c 6h); 8s is the singleton off the suit
    ("flush.pair.any-other-pair-and-joker", "Qc 9c 6c 3c JK 6h 8s", "JK 8s", "Qc 9c 6c 3c 6h", ()),
    # F4: As+JK, the Ace off-suit: flush steps, 5-card flush
    (
        "flush.three-of-a-kind.5-card",
        "Jh 9h 5h 2h JK As 7c",
        "As 7c",
        "Jh 9h 5h 2h JK",
        ("flush.pair.any-other-pair",),
    ),
    # pairs 2 (first) and A (second): flush steps, 5-card flush
    (
        "flush.three-of-a-kind.5-card",
        "2h 2c Ah Ac Qh 8h 5h",
        "2c Ac",
        "2h Ah Qh 8h 5h",
        ("flush.pair.two-pairs-first-2-or-king-second-ace",),
    ),
    ("flush.pair.two-pairs-all-other", "Qs Qd 7s 7c As 9s 4s", "7s 7c", "Qs Qd As 9s 4s", ()),
    ("flush.pair.three-pairs", "Ad Td 6d 2d JK Ts 6c", "JK Ad", "Td Ts 6d 6c 2d", ()),
    # Straight
    ("straight.full-house.three-aces-and-pair", "Ac Ad JK 2s 2h 3c 4d", "2s 2h", "Ac Ad JK 3c 4d", ()),
    # three Queens and Ac+JK: two Queens in front leave A-K-Q-J-JK, a straight; the choices
    # differ only in suits: the first in hand order
    (
        "straight.full-house.three-higher-than-ten-and-pair",
        "Qs Qh Qd Ac JK Kd Jc",
        "Qs Qh",
        "Qd Ac JK Kd Jc",
        (),
    ),
    # A 2 3 5 + JK; three 3s and Ac+JK: the joker and the Ace
    ("straight.full-house.any-other", "3s 3h 3d Ac JK 2c 5d", "JK Ac", "3s 3h 3d 2c 5d", ()),
    # three 4s with 4-8: the run takes the last 4 (4d); the other two are the non-straights
    ("straight.three-of-a-kind.5-card", "4s 4h 4d 5c 6d 7h 8s", "4s 4h", "4d 5c 6d 7h 8s", ()),
    (
        "straight.three-of-a-kind.6-card-starting-with-ace",
        "Ah 2c 3d 4h 5s 6c Qd",
        "Ah Qd",
        "2c 3d 4h 5s 6c",
        ("straight.no-pair",),
    ),
    # 9-K and the joker: at the bottom (8), G7
    (
        "straight.three-of-a-kind.6-card-joker-first-or-last",
        "9s Th Jd Qc Kh JK 3d",
        "JK 3d",
        "9s Th Jd Qc Kh",
        ("straight.no-pair",),
    ),
    (
        "straight.three-of-a-kind.6-card-any-other",
        "7c 8d 9h Ts Jc Qd 2h",
        "Qd 2h",
        "7c 8d 9h Ts Jc",
        ("straight.no-pair",),
    ),
    # Ad+JK: T2 does not apply (JK 3-7 without the Ace is a 6-card straight): the steps
    (
        "straight.three-of-a-kind.7-card-ace-first-joker-second-or-last",
        "Ad JK 3c 4h 5s 6d 7c",
        "Ad JK",
        "3c 4h 5s 6d 7c",
        ("straight.pair.any-other-pair",),
    ),
    (
        "straight.three-of-a-kind.7-card-ace-first-any-other",
        "As 2h 3c 4d 5s 6h 7d",
        "As 7d",
        "2h 3c 4d 5s 6h",
        ("straight.no-pair",),
    ),
    (
        "straight.three-of-a-kind.7-card-joker-first",
        "4c 5d 6h 7s 8c 9d JK",
        "JK 9d",
        "4c 5d 6h 7s 8c",
        ("straight.no-pair",),
    ),
    (
        "straight.three-of-a-kind.7-card-joker-second",
        "3h JK 5c 6d 7s 8h 9c",
        "JK 3h",
        "5c 6d 7s 8h 9c",
        ("straight.no-pair",),
    ),
    (
        "straight.three-of-a-kind.7-card-joker-sixth",
        "5h 6c 7d 8s 9h JK Jc",
        "JK Jc",
        "5h 6c 7d 8s 9h",
        ("straight.no-pair",),
    ),
    (
        "straight.three-of-a-kind.7-card-any-other",
        "8c 9d Th Js Qc Kd Ah",
        "Kd Ah",
        "8c 9d Th Js Qc",
        ("straight.no-pair",),
    ),
    # T2: without As, 6 7 8 T JK 2 make only 6-T: the 2 is the card left out
    (
        "straight.pair.ace-joker-pair-straight-without-ace",
        "6d 7c 8h Ts JK As 2c",
        "As 2c",
        "6d 7c 8h Ts JK",
        (),
    ),
    # T3: pair of 8s; 4 5 6 7 JK is still a straight
    (
        "straight.pair.pair-and-joker-straight-after-removing-pair",
        "4c 5d 6h 7s 8d 8h JK",
        "8d 8h",
        "4c 5d 6h 7s JK",
        (),
    ),
    ("straight.pair.pair-of-kings-broadway", "Ah Kd Kc Qs Jh Td 3c", "Ah Qs", "Kd Kc Jh Td 3c", ()),
    # T4: the joker is the Ace of A-K-Q-J-T
    (
        "straight.pair.pair-of-queens-jacks-or-tens-broadway",
        "JK Kc Qd Js Jh Tc 5d",
        "JK Kc",
        "Qd Js Jh Tc 5d",
        (),
    ),
    # a pair of 4s outside 9-K: the steps, 5-card straight
    (
        "straight.three-of-a-kind.5-card",
        "9c Tc Jd Qh Ks 4d 4h",
        "4d 4h",
        "9c Tc Jd Qh Ks",
        ("straight.pair.any-other-pair",),
    ),
    # first pair 9s (lower than Ad+JK): removing it leaves A 2 3 JK 5, a straight
    (
        "straight.pair.two-pairs-straight-after-removing-first-pair",
        "Ad JK 9c 9h 2s 3c 5h",
        "9c 9h",
        "Ad JK 2s 3c 5h",
        (),
    ),
    # pairs 2 and 4, no Ace or joker: the steps; the run takes 2d and 4h
    (
        "straight.three-of-a-kind.5-card",
        "2s 2d 4c 4h 3d 5s 6c",
        "2s 4c",
        "2d 3d 4h 5s 6c",
        ("straight.pair.two-pairs-first-2-second-below-5-no-aces",),
    ),
    ("straight.pair.two-pairs-all-other", "5s 5d 8c 8h 6d 7s 9c", "5s 5d", "8c 8h 6d 7s 9c", ()),
    ("straight.pair.three-pairs", "Ac JK 4s 4d 5h 5c 3d", "Ac JK", "4s 4d 5h 5c 3d", ()),
    # Three of a kind
    ("three-of-a-kind.one.aces", "Ad Ac As 9h 7d 4c 2s", "Ad 9h", "Ac As 7d 4c 2s", ()),
    (
        "three-of-a-kind.one.kings-two-others-ten-or-higher",
        "Kc Kd Kh Qs Td 6c 2h",
        "Qs Td",
        "Kc Kd Kh 6c 2h",
        (),
    ),
    ("three-of-a-kind.one.kings", "Ks Kd Kc Js 8h 6d 2c", "Ks Js", "Kd Kc 8h 6d 2c", ()),
    ("three-of-a-kind.one.any-other", "9s 9h 9c Ad Jc 5h 3s", "Ad Jc", "9s 9h 9c 5h 3s", ()),
    ("three-of-a-kind.two", "Ts Th Td 6s 6h 6c Kd", "Ts Th", "Td 6s 6h 6c Kd", ()),
    # Pairs
    ("pairs.one", "Jd Jc Ah 9s 6c 4h 2d", "Ah 9s", "Jd Jc 6c 4h 2d", ()),
    ("pairs.two", "Kd Kh 6s 6c Qd 9h 3c", "6s 6c", "Kd Kh Qd 9h 3c", ()),
    ("pairs.three", "Qs Qh 8d 8c 3h 3s Ad", "Qs Qh", "8d 8c 3h 3s Ad", ()),
    # High Card: JK (an Ace), K, 8, 7: all four hold
    ("high-card.second-and-fourth", "JK Kd 8h 7c 5s 3d 2h", "Kd 7c", "JK 8h 5s 3d 2h", ()),
    ("high-card.otherwise", "Kh Jd 9c 7s 5h 3c 2d", "Jd 9c", "Kh 7s 5h 3c 2d", ()),
]

# Rows no hand reaches under the readings (section 4), and why (the data says the same).
NEVER_APPLY = {
    "royal-flush.pair.pair-and-joker-flush-after-removing-joker",
    "royal-flush.pair.two-pairs-joker-pair-flush-after-removing-joker-and-ace",
    "royal-flush.pair.two-pairs-joker-flush-after-removing-second-pair",
    "straight-flush.alone.7-card-ace-first-joker-second-or-last",
    "straight-flush.alone.7-card-joker-last",
    "full-house.two-singletons.pair-lower",
    "flush.pair.pair-and-joker-flush-after-removing-joker",
    "flush.pair.two-pairs-joker-pair-flush-after-removing-joker-and-ace",
    "flush.pair.two-pairs-joker-flush-after-removing-second-pair",
    "straight.three-of-a-kind.7-card-joker-last",
    "straight.pair.two-pairs-joker-straight-after-removing-ace-and-joker",
    "straight.pair.two-pairs-straight-after-removing-second-pair",
}
# Rows that only follow the steps of another combination: covered as ``via`` above.
FOLLOW_ONLY = {
    "royal-flush.pair.any-other-pair",
    "royal-flush.pair.two-pairs-first-2-or-king-second-ace",
    "flush.pair.any-other-pair",
    "flush.pair.two-pairs-first-2-or-king-second-ace",
    "flush.otherwise",
    "straight.pair.any-other-pair",
    "straight.pair.two-pairs-first-2-second-below-5-no-aces",
    "straight.no-pair",
}


def _multiset(cards) -> Counter:
    return Counter(card.code for card in cards)


@pytest.fixture(scope="module")
def way():
    return load_house_way(WAY)


@pytest.mark.parametrize(
    ("rule_id", "hand", "low", "high", "via"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES]
)
def test_rule(way, rule_id, hand, low, high, via):
    result = way.set(parse_cards(hand))
    assert result.rule_id == rule_id
    assert result.via == via
    assert _multiset(result.setting.low) == _multiset(parse_cards(low))
    assert _multiset(result.setting.high) == _multiset(parse_cards(high))
    assert is_legal(result.setting)


def test_every_rule_id_has_a_case_or_is_marked_never_applying(way):
    ids = {rule.id for rule in way.rules}
    covered = {rule_id for rule_id, *_ in CASES} | {rule_id for *_, via in CASES for rule_id in via}
    assert ids - covered == NEVER_APPLY
    assert covered >= FOLLOW_ONLY
    assert len(way.rules) == 100


def test_the_data_marks_exactly_the_never_applying_rows(way):
    marked = {rule.id for rule in way.rules if not rule.reachable}
    assert marked == NEVER_APPLY
    assert all(rule.reason for rule in way.rules if not rule.reachable)


def test_rule_ids_are_stable_and_well_formed(way):
    """Ids are the surveillance record's keys: a few pinned here so that a rename fails."""
    ids = [rule.id for rule in way.rules]
    assert len(ids) == len(set(ids))
    assert ids[0] == "five-of-a-kind.two-kings"
    assert ids[-1] == "high-card.otherwise"
    assert "flush.pair.joker-pair-flush-after-removing-joker-and-ace" in ids
    assert ids.index("full-house.pair.aces-twos-threes") < ids.index(
        "flush.full-house.three-aces"
    )  # table order


def test_only_readings_t1_row_is_added(way):
    added = [(rule.id, rule.added_by) for rule in way.rules if rule.added_by]
    assert added == [("straight.no-pair", "house-way-readings.md T1")]


RULES_DIR = Path(__file__).resolve().parents[3] / "shared" / "rules"


def test_row_words_are_the_tables_own(way):
    """Every row's More Hand Details and Split cells appear in 002 as written (typos kept).

    The rules documents sit beside the repository (``../shared/rules``), in CI too: without them
    this fails rather than skips, since it is the check that the way is the table's own words."""
    document = RULES_DIR / "002_08ea07f9e4b504bc.txt"
    assert document.is_file(), f"the rules documents are not at {RULES_DIR} (they sit beside the repository)"
    text = document.read_text(encoding="utf-8")
    for rule in way.rules:
        if rule.added_by:
            continue
        assert rule.split in text, rule.id
        assert rule.more_hand_details in text, rule.id
        assert rule.hand_combinations.split(";")[0] in text, rule.id
        assert rule.hand_ranks in text, rule.id
    assert "One Pair raking King" in way.rule("straight.pair.pair-of-kings-broadway").words


# -- rows that never apply ---------------------------------------------------------------------


def test_flush_after_removing_the_joker_holds_only_where_removing_the_pair_comes_first(way):
    """F2: when a flush remains without the joker, it remains without the pair, a row above."""
    for hand, first in (
        ("Kh Jh 8h 6h 3h 3c JK", "flush.pair.pair-and-joker-flush-after-removing-pair"),
        ("Ks Qs Js Ts 9s JK 9h", "royal-flush.pair.pair-and-joker-flush-after-removing-pair"),
    ):
        cards = parse_cards(hand)
        matching = way.matching_rules(cards)
        shadowed = first.replace("after-removing-pair", "after-removing-joker")
        assert matching.index(first) < matching.index(shadowed)
        assert way.set(cards).rule_id == first


def test_seven_card_straight_flush_ace_and_joker_row_is_taken_by_the_joker_pair_row(way):
    cards = parse_cards("Ac JK 3c 4c 5c 6c 7c")
    matching = way.matching_rules(cards)
    assert "straight-flush.alone.7-card-ace-first-joker-second-or-last" in matching
    result = way.set(cards)
    assert result.rule_id == "straight-flush.pair.joker-pair"
    assert _multiset(result.setting.low) == _multiset(parse_cards("Ac JK"))  # the same split


def test_a_joker_above_ace_to_six_ends_the_straight_but_the_ace_rows_come_first(way):
    """G7 puts a joker at the bottom when it can; above A-2-3-4-5-6 it cannot, so "ending with
    a Joker" holds there, but "starting with an Ace and with a Joker in the ... last position"
    (and, in a straight flush, the Ace + joker pair) decides first, with the same two cards."""
    flush = parse_cards("2s 3s 4s 5s 6s JK As")
    assert "straight-flush.alone.7-card-joker-last" in way.matching_rules(flush)
    result = way.set(flush)
    assert result.rule_id == "straight-flush.pair.joker-pair"
    assert _multiset(result.setting.low) == _multiset(parse_cards("JK As"))
    straight = parse_cards("2c 3d 4h 5s 6c JK Ad")
    assert way.set(straight).rule_id == "straight.three-of-a-kind.7-card-ace-first-joker-second-or-last"
    assert _multiset(way.set(straight).setting.low) == _multiset(parse_cards("JK Ad"))


def test_pair_lower_than_two_singletons_needs_a_wild_joker_in_front(way):
    """H1: a pair beats two unmatched cards; only where the joker is wild in the low hand
    (004) can JK-K (a pair of Kings there) beat a pair of 2s."""
    cards = parse_cards("5s 5h 5d 2s 2h JK Kc")
    assert way.set(cards).rule_id == "full-house.two-singletons.pair-higher"
    wild = way.set(cards, RankingRules(joker_wild_in_low=True))
    assert wild.rule_id == "full-house.two-singletons.pair-lower"
    assert _multiset(wild.setting.low) == _multiset(parse_cards("JK Kc"))
    assert is_legal(wild.setting, RankingRules(joker_wild_in_low=True))


SUITS = "shdc"


def _targeted_hand(seed: int, suited: bool) -> tuple[Card, ...]:
    """Seven cards built to reach the rows above: a joker, four or five cards of one suit (or
    a straight with a gap), and the rest drawn among their ranks and Aces to make pairs."""
    rng = random.Random(seed)
    suit = rng.choice(SUITS)
    if suited:
        core = [Card(rank, suit) for rank in rng.sample(range(2, 15), rng.choice((4, 5)))]
    else:
        low = rng.randint(1, 10)
        ranks = [14 if rank == 1 else rank for rank in range(low, low + 5)]
        gap = rng.choice(ranks)
        core = [Card(rank, rng.choice(SUITS)) for rank in ranks if rank != gap]
    cards = [*core, JOKER]
    while len(cards) < 7:
        rank = rng.choice([card.rank for card in core] + [14, rng.randint(2, 14)])
        card = Card(rank, rng.choice(SUITS))
        if card not in cards:
            cards.append(card)
    rng.shuffle(cards)
    return tuple(cards)


def flush_or_straight_hands(suited: bool):
    return st.integers(0, 2**64).map(lambda seed: _targeted_hand(seed, suited))


# Rows whose condition can hold, though a row above always decides first (tests above and below).
_SHADOWED = {
    "royal-flush.pair.pair-and-joker-flush-after-removing-joker",
    "flush.pair.pair-and-joker-flush-after-removing-joker",
    "straight-flush.alone.7-card-ace-first-joker-second-or-last",
    "straight-flush.alone.7-card-joker-last",
    "straight.three-of-a-kind.7-card-joker-last",
}
_NEVER_HOLD = NEVER_APPLY - _SHADOWED


@settings(max_examples=500, deadline=None)
@given(hand=st.one_of(flush_or_straight_hands(suited=True), flush_or_straight_hands(suited=False)))
def test_never_applying_rows_never_decide_in_targeted_hands(hand):
    way = load_house_way(WAY)
    result = way.set(hand)
    assert result.rule_id not in NEVER_APPLY
    assert not set(result.via) & NEVER_APPLY
    assert not set(result.skipped) & NEVER_APPLY
    # The rows whose condition itself can never hold (readings section 4) do not hold here.
    assert not set(way.matching_rules(hand)) & _NEVER_HOLD


@settings(max_examples=300, deadline=None)
@given(hand=st.lists(st.sampled_from([*NATURAL_CARDS, JOKER]), min_size=7, max_size=7, unique=True))
def test_never_applying_rows_never_decide_in_random_hands(hand):
    result = load_house_way(WAY).set(hand)
    assert {result.rule_id, *result.via, *result.skipped}.isdisjoint(NEVER_APPLY)


# -- choices where the readings are silent (docs/house-way.md, "Choices") ---------------------


def test_choice_runs_of_equal_length_the_highest_front_is_used(way):
    """3 5 6 7 9 and a joker make 3-7 or 5-9; Readings G7 (amended) uses the run that leaves
    the highest two-card hand in front: 3-7 puts K-9 up, 5-9 only K-3."""
    result = way.set(parse_cards("3c 5d 6h 7s 9d JK Kc"))
    assert (result.rule_id, result.via) == ("straight.three-of-a-kind.5-card", ("straight.no-pair",))
    assert _multiset(result.setting.low) == _multiset(parse_cards("9d Kc"))
    assert _multiset(result.setting.high) == _multiset(parse_cards("3c 5d 6h 7s JK"))


@pytest.mark.parametrize("name", ["house-way-002", "strong-004"])
@pytest.mark.parametrize(
    ("hand", "low"),
    [("3c 5d 6d 7s 9h JK Qc", "Qc 9h"), ("5c 7h 8c 9h Ts Qs JK", "Qs Ts")],
)
def test_g7_amended_examples_in_both_ways_and_both_games(name, hand, low):
    """Readings G7: the required examples, in both ways, in the 53- and 54-card games."""
    result = load_house_way(name).set(parse_cards(hand), max_jokers=1)
    assert _multiset(result.setting.low) == _multiset(parse_cards(low))
    cards = parse_cards(hand)
    assert _multiset(result.setting.high) == _multiset(c for c in cards if c not in parse_cards(low))
    assert load_house_way(name).set(cards, max_jokers=2) == result


def test_g7_the_runs_are_tried_the_higher_first_and_equal_fronts_keep_it(way):
    """Readings G7: the runs of the longest length, the higher first (kept when the fronts are
    equal); with a pair of 9s the row puts the pair up under either run."""
    from table_controller.game.house_way.straights import rank_mask, straight_windows

    assert straight_windows(rank_mask([3, 5, 6, 7, 9]), 1) == [(5, 5), (3, 5)]
    result = way.set(parse_cards("3c 5d 6h 7s 9d 9h JK"))
    assert _multiset(result.setting.low) == _multiset(parse_cards("9d 9h"))


def test_choice_the_wheel_rule_decides_between_a_wheel_and_another_run():
    from table_controller.game.house_way.straights import rank_mask, straight_window

    mask = rank_mask([14, 2, 4, 5, 7, 8])
    assert straight_window(mask, 1, nevada=True) == (1, 5)  # A-2-3-4-5 ranks second-highest
    assert straight_window(mask, 1, nevada=False) == (4, 5)  # California: the wheel is lowest
    assert straight_window(rank_mask([5, 6, 7, 8]), 1) == (4, 5)  # the joker at the bottom (G7)


DOCS = Path(__file__).resolve().parents[2] / "docs" / "house-way.md"


def test_the_review_sheets_list_every_rule_id_of_both_ways():
    """docs/house-way.md points to the review sheets (docs/house-ways/), which list every row."""
    for name in ("house-way-002", "strong-004"):
        assert f"house-ways/{name}.md" in DOCS.read_text(encoding="utf-8")
        text = (DOCS.parent / "house-ways" / f"{name}.md").read_text(encoding="utf-8")
        way = load_house_way(name)
        for rule in (*way.rules, way.last_resort):
            assert f"`{rule.id}`" in text, (name, rule.id)
