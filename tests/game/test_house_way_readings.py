"""Every example hand of house-way-readings.md, verbatim: seven cards -> low, high.

The low and high hands are copied from the readings; the rule ids are the rows of the 002
House Way table (002_08ea07f9e4b504bc.txt) that the readings name or that the hand reaches
by the readings' own argument (worked out by hand next to each case). ``via`` is the row
whose "Follow the steps ..." led there, ``skipped`` the rows skipped as fouls (G4).
Cards are compared as multisets: within a hand their order does not matter.
"""

from collections import Counter

import pytest

from table_controller.game.cards import parse_cards
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import is_legal

# (reading, seven cards, low, high, rule id, via, skipped)
EXAMPLES = [
    # G1. Section order.
    (
        "G1",
        "Kh Ks Kd Ah JK 9h 5h",
        "Ks Kd",
        "Kh Ah JK 9h 5h",
        "flush.full-house.three-tens-or-better",
        (),
        (),
    ),
    ("G1", "Ah Kh 9h 5h JK As Ad", "Kh 9h", "Ah As Ad JK 5h", "four-of-a-kind.two-singletons", (), ()),
    # G2. The joker in pairs and trips.
    ("G2", "Ks Qs Js Ts JK Ah Ad", "Ah Ad", "Ks Qs Js Ts JK", "royal-flush.three-of-a-kind", (), ()),
    ("G2", "Ah JK Kd 9s 7s 5h 2d", "Kd 9s", "Ah JK 7s 5h 2d", "pairs.one", (), ()),
    # G3. First match.
    (
        "G3",
        "Ks Kh Kd Ac Qd 5h 2c",
        "Ac Qd",
        "Ks Kh Kd 5h 2c",
        "three-of-a-kind.one.kings-two-others-ten-or-higher",
        (),
        (),
    ),
    # G4. Skip a row whose split would foul.
    (
        "G4",
        "5s 6s 7s 8s 9s 9h Kd",
        "9h Kd",
        "5s 6s 7s 8s 9s",
        "straight-flush.alone.5-card",
        (),
        ("straight-flush.pair.one-pair",),
    ),
    (
        "G4",
        "Ah 2h 3h 4h JK As 7s",
        "As 7s",
        "Ah 2h 3h 4h JK",
        "straight-flush.alone.5-card",
        (),
        ("straight-flush.three-of-a-kind",),
    ),
    # G5. Choosing cards.
    ("G5", "As Ks Qs Js Ts Ah Ad", "Ah Ad", "As Ks Qs Js Ts", "royal-flush.three-of-a-kind", (), ()),
    ("G5", "As 2s 3s 4s 5s Ah JK", "As Ah", "JK 2s 3s 4s 5s", "straight-flush.three-of-a-kind", (), ()),
    # G7. Straights.
    (
        "G7",
        "5c 6h 7s 8d 9s Td 2c",
        "Td 2c",
        "5c 6h 7s 8d 9s",
        "straight.three-of-a-kind.6-card-any-other",
        ("straight.no-pair",),
        (),
    ),
    (
        "G7",
        "3c 4d 5h 6s 7c 8d JK",
        "JK 8d",
        "3c 4d 5h 6s 7c",
        "straight.three-of-a-kind.7-card-joker-first",
        ("straight.no-pair",),
        (),
    ),
    # G7 as amended: the run that leaves the highest two-card hand in front (not the higher run)
    (
        "G7",
        "3c 5d 6d 7s 9h JK Qc",
        "Qc 9h",
        "3c JK 5d 6d 7s",
        "straight.three-of-a-kind.5-card",
        ("straight.no-pair",),
        (),
    ),
    (
        "G7",
        "5c 7h 8c 9h Ts Qs JK",
        "Qs Ts",
        "5c JK 7h 8c 9h",
        "straight.three-of-a-kind.6-card-any-other",
        ("straight.no-pair",),
        (),
    ),
    # G8. Flush size.
    (
        "G8",
        "Kh Jh 9h 7h 5h 3h Qs",
        "Kh Qs",
        "Jh 9h 7h 5h 3h",
        "flush.three-of-a-kind.6-card-without-joker",
        ("flush.otherwise",),
        (),
    ),
    (
        "G8",
        "Kh 9h 7h 5h 3h 2h JK",
        "JK Kh",
        "9h 7h 5h 3h 2h",
        "flush.three-of-a-kind.7-card-with-joker",
        ("flush.otherwise",),
        (),
    ),
    # G9. "... still have a Flush / Straight after removing X".
    (
        "G9",
        "Kh 9h 7h 5h 3h 9s JK",
        "9h 9s",
        "Kh 7h 5h 3h JK",
        "flush.pair.pair-and-joker-flush-after-removing-pair",
        (),
        (),
    ),
    # G10. "first pair" / "second pair".
    (
        "G10",
        "As Ah Ks Kh 9h 5h 3h",
        "As Ks",
        "Ah Kh 9h 5h 3h",
        "flush.three-of-a-kind.5-card",
        ("flush.pair.two-pairs-first-2-or-king-second-ace",),
        (),
    ),
    (
        "G10",
        "2c 2d 3h 3s 4d 5c 6h",
        "2c 3h",
        "2d 3s 4d 5c 6h",
        "straight.three-of-a-kind.5-card",
        ("straight.pair.two-pairs-first-2-second-below-5-no-aces",),
        (),
    ),
    # Five of a kind.
    ("five of a kind", "As Ah Ad Ac JK Ks Kd", "Ks Kd", "As Ah Ad Ac JK", "five-of-a-kind.two-kings", (), ()),
    ("five of a kind", "As Ah Ad Ac JK Qs Qd", "As Ah", "Ad Ac JK Qs Qd", "five-of-a-kind.otherwise", (), ()),
    # R1. Royal rows.
    ("R1", "Ks Qs Js Ts 9s JK 2d", "JK 2d", "Ks Qs Js Ts 9s", "royal-flush.6-card-with-joker", (), ()),
    ("R1", "As Ks Qs Js Ts 4s 2d", "As 2d", "Ks Qs Js Ts 4s", "royal-flush.6-card-without-joker", (), ()),
    # R2. Royal Flush and 3-of-a-kind.
    ("R2", "Ks Qs Js Ts JK Kh Kd", "Kh Kd", "Ks Qs Js Ts JK", "royal-flush.three-of-a-kind", (), ()),
    (
        "R2",
        "As Ks Qs Js JK Ah 5d",
        "Ah 5d",
        "As Ks Qs Js JK",
        "royal-flush.5-card",
        (),
        ("royal-flush.three-of-a-kind",),
    ),
    # S1. Straight Flush and One Pair.
    ("S1", "5s 6s 7s 8s 9s 9h 2s", "9s 9h", "5s 6s 7s 8s 2s", "straight-flush.pair.one-pair", (), ()),
    ("S1", "5s 6s 7s 8s 9s 5h 9h", "5h 9h", "5s 6s 7s 8s 9s", "straight-flush.alone.5-card", (), ()),
    # S2. "... and Full House" rows.
    ("S2", "As 2s 3s 4s JK Ah 2h", "2s 2h", "As Ah JK 3s 4s", "straight-flush.full-house.three-aces", (), ()),
    ("S2", "7h 7s 7d Ah JK 9h 5h", "JK Ah", "7h 7s 7d 9h 5h", "flush.full-house.any-other", (), ()),
    # Q1, Q2. Four of a Kind.
    ("Q1", "9s 9h 9d 9c Kd 7h 2c", "Kd 7h", "9s 9h 9d 9c 2c", "four-of-a-kind.two-singletons", (), ()),
    (
        "Q2",
        "As Ah Ad Ac 2s 2h 2d",
        "As Ah",
        "Ad Ac 2s 2h 2d",
        "four-of-a-kind.three-of-a-kind.any-other",
        (),
        (),
    ),
    (
        "Q2",
        "5s 5h 5d 5c Ks Kh Kd",
        "Ks Kh",
        "5s 5h 5d 5c Kd",
        "four-of-a-kind.three-of-a-kind.any-other",
        (),
        (),
    ),
    # H1. Full House.
    (
        "H1",
        "5s 5h 5d 2s 2h Ad Kc",
        "2s 2h",
        "5s 5h 5d Ad Kc",
        "full-house.two-singletons.pair-higher",
        (),
        (),
    ),
    ("H1", "As Ah JK 2s 2h 3d 3c", "As Ah", "JK 2s 2h 3d 3c", "full-house.pair.aces-twos-threes", (), ()),
    # F1. Flush and 3-of-a-kind / Otherwise.
    (
        "F1",
        "As Ah JK Kh 8h 5h 3h",
        "JK As",
        "Ah Kh 8h 5h 3h",
        "flush.three-of-a-kind.6-card-with-joker",
        (),
        (),
    ),
    # F2. "One Pair, Joker".
    (
        "F2",
        "Ks Qs Js Ts JK 5h 5d",
        "5h 5d",
        "Ks Qs Js Ts JK",
        "royal-flush.pair.pair-and-joker-flush-after-removing-pair",
        (),
        (),
    ),
    (
        "F2",
        "Ah Kh Qh 9h 5h 3h JK",
        "JK Ah",
        "Kh Qh 9h 5h 3h",
        "flush.pair.joker-pair-flush-after-removing-joker-and-ace",
        (),
        (),
    ),
    # F3. "Any other One Pair, Joker".
    ("F3", "Kh 9h 5h 3h JK 9s 2d", "JK 2d", "Kh 9h 5h 3h 9s", "flush.pair.any-other-pair-and-joker", (), ()),
    (
        "F3",
        "Ks Qs Js Ts JK Kh 5d",
        "JK 5d",
        "Ks Kh Qs Js Ts",
        "royal-flush.pair.any-other-pair-and-joker",
        (),
        (),
    ),
    # F4. Off-suit Ace + joker.
    (
        "F4",
        "Qh Th 8h 7h JK Ac 4d",
        "Ac 4d",
        "Qh Th 8h 7h JK",
        "flush.three-of-a-kind.5-card",
        ("flush.pair.any-other-pair",),
        (),
    ),
    (
        "F4",
        "Ks Qs Js Ts JK Ah 5d",
        "Ah 5d",
        "Ks Qs Js Ts JK",
        "royal-flush.5-card",
        ("royal-flush.pair.any-other-pair",),
        (),
    ),
    # F5. "One Pair composed of Ace and Joker, where the Ace is also used by the flush".
    (
        "F5",
        "Ah Kh 9h 5h JK 7c 2d",
        "7c 2d",
        "Ah Kh 9h 5h JK",
        "flush.three-of-a-kind.5-card",
        ("flush.pair.any-other-pair",),
        ("flush.pair.ace-joker-pair-ace-in-flush",),
    ),
    (
        "F5",
        "As Ks Qs Js Ts JK 5d",
        "JK 5d",
        "As Ks Qs Js Ts",
        "royal-flush.6-card-with-joker",
        ("royal-flush.pair.any-other-pair",),
        ("royal-flush.pair.ace-joker-pair-ace-in-flush",),
    ),
    (
        "F5",
        "Ah 9h 7h 5h 3h JK Kc",
        "Ah Kc",
        "JK 9h 7h 5h 3h",
        "flush.pair.ace-joker-pair-ace-in-flush",
        (),
        (),
    ),
    (
        "F5",
        "As Ks Qs Js Ts JK 9d",
        "As Ks",
        "JK Qs Js Ts 9d",
        "royal-flush.pair.ace-joker-pair-ace-in-flush",
        (),
        (),
    ),
    (
        "F5",
        "Ah 6h 4h 3h JK 2c 5d",
        "Ah 6h",
        "JK 5d 4h 3h 2c",
        "flush.pair.ace-joker-pair-ace-in-flush",
        (),
        (),
    ),
    (
        "F5",
        "As Qs Js Ts 9s JK Kd",
        "As Kd",
        "JK Qs Js Ts 9s",
        "royal-flush.pair.ace-joker-pair-ace-in-flush",
        (),
        (),
    ),
    # F6. Two and three pairs.
    (
        "F6",
        "Ah Kh 9h 3h JK Ks 5d",
        "Ks 5d",
        "Ah Kh 9h 3h JK",
        "flush.three-of-a-kind.5-card",
        ("flush.pair.two-pairs-first-2-or-king-second-ace",),
        (),
    ),
    ("F6", "Ah 9h 5h 3h JK 9s 5d", "JK Ah", "9h 9s 5h 5d 3h", "flush.pair.three-pairs", (), ()),
    # T1. No pair and no 3-of-a-kind.
    (
        "T1",
        "5c 6h 7s 8d 9s Kc 2d",
        "Kc 2d",
        "5c 6h 7s 8d 9s",
        "straight.three-of-a-kind.5-card",
        ("straight.no-pair",),
        (),
    ),
    (
        "T1",
        "Ac 2d 3h 4s 5c 6d Kh",
        "Ac Kh",
        "2d 3h 4s 5c 6d",
        "straight.three-of-a-kind.6-card-starting-with-ace",
        ("straight.no-pair",),
        (),
    ),
    # T2. "One Pair with a Joker and a Straight without Ace".
    (
        "T2",
        "5c 6h 7s 9d JK Ah Kc",
        "Ah Kc",
        "5c 6h 7s 9d JK",
        "straight.pair.ace-joker-pair-straight-without-ace",
        (),
        (),
    ),
    (
        "T2",
        "3c 5d 6h 7s 9d JK Ah",
        "Ah 9d",
        "3c 5d 6h 7s JK",
        "straight.pair.ace-joker-pair-straight-without-ace",
        (),
        (),
    ),
    # T3. "One Pair, Joker, and still have a Straight after removing the pair".
    (
        "T3",
        "5c 6h 7s 8d 9s 9h JK",
        "9s 9h",
        "5c 6h 7s 8d JK",
        "straight.pair.pair-and-joker-straight-after-removing-pair",
        (),
        (),
    ),
    (
        "T3",
        "5c 6h 7s 8d 9c JK Ah",
        "JK Ah",
        "5c 6h 7s 8d 9c",
        "straight.three-of-a-kind.6-card-joker-first-or-last",
        ("straight.pair.any-other-pair",),
        (),
    ),
    (
        "T3",
        "Ac 2d 3h 4s 5c 6d JK",
        "Ac JK",
        "2d 3h 4s 5c 6d",
        "straight.three-of-a-kind.7-card-ace-first-joker-second-or-last",
        ("straight.pair.any-other-pair",),
        (),
    ),
    # T4. "One Pair raking King / Queen, Jack or 10, and a Straight containing A K Q J 10".
    ("T4", "JK Kd Qh Jc Ts Kh 4d", "JK Qh", "Kd Kh Jc Ts 4d", "straight.pair.pair-of-kings-broadway", (), ()),
    (
        "T4",
        "As Kd Qh Jc Ts Td 4c",
        "As Kd",
        "Qh Jc Ts Td 4c",
        "straight.pair.pair-of-queens-jacks-or-tens-broadway",
        (),
        (),
    ),
    # T5. Two and three pairs.
    (
        "T5",
        "Ah JK 7c 7d 2s 3h 4d",
        "7c 7d",
        "Ah JK 2s 3h 4d",
        "straight.pair.two-pairs-straight-after-removing-first-pair",
        (),
        (),
    ),
    ("T5", "Ah JK 2c 2d 3h 3s 4d", "Ah JK", "2c 2d 3h 3s 4d", "straight.pair.three-pairs", (), ()),
    # K1, K2. Three of a kind.
    (
        "K1",
        "Ks Kh Kd JK Td 5h 2c",
        "JK Td",
        "Ks Kh Kd 5h 2c",
        "three-of-a-kind.one.kings-two-others-ten-or-higher",
        (),
        (),
    ),
    ("K1", "Ks Kh Kd Ac 9d 5h 2c", "Ks Ac", "Kh Kd 9d 5h 2c", "three-of-a-kind.one.kings", (), ()),
    ("K2", "As Ah JK Kc 9d 5h 2c", "As Kc", "Ah JK 9d 5h 2c", "three-of-a-kind.one.aces", (), ()),
    # C1. High Card.
    ("C1", "Ac Qd 9h 7s 5c 3d 2h", "Qd 7s", "Ac 9h 5c 3d 2h", "high-card.second-and-fourth", (), ()),
    ("C1", "Ac Qd Th 9s 5c 3d 2h", "Qd Th", "Ac 9s 5c 3d 2h", "high-card.otherwise", (), ()),
]

IDS = [f"{reading}:{hand}" for reading, hand, *_ in EXAMPLES]


def _multiset(cards) -> Counter:
    return Counter(card.code for card in cards)


@pytest.fixture(scope="module")
def way():
    return load_house_way("house-way-002")


def test_every_readings_example_is_here():
    """64 example hands in house-way-readings.md (counted by hand: G1 2, G2 2, G3 1, G4 2,
    G5 2, G7 4, G8 2, G9 1, G10 2, five of a kind 2, R1 2, R2 2, S1 2, S2 2, Q1 1, Q2 2,
    H1 2, F1 1, F2 2, F3 2, F4 2, F5 6, F6 2, T1 2, T2 2, T3 3, T4 2, T5 2, K1 2, K2 1, C1 2)."""
    assert len(EXAMPLES) == 64
    assert len({hand for _, hand, *_ in EXAMPLES}) == 64


@pytest.mark.parametrize(("reading", "hand", "low", "high", "rule_id", "via", "skipped"), EXAMPLES, ids=IDS)
def test_readings_example(way, reading, hand, low, high, rule_id, via, skipped):
    result = way.set(parse_cards(hand))
    assert _multiset(result.setting.low) == _multiset(parse_cards(low))
    assert _multiset(result.setting.high) == _multiset(parse_cards(high))
    assert result.rule_id == rule_id
    assert result.via == via
    assert result.skipped == skipped
    assert result.way == "house-way-002"
    assert is_legal(result.setting)


@pytest.mark.parametrize(("reading", "hand", "low", "high", "rule_id", "via", "skipped"), EXAMPLES, ids=IDS)
def test_readings_example_words_are_the_rows_words(way, reading, hand, low, high, rule_id, via, skipped):
    rule = way.rule(rule_id)
    result = way.set(parse_cards(hand))
    assert result.rule_words == rule.words
    assert rule.split in result.rule_words
