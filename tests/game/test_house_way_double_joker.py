"""The Double Joker extension of the 002 house way (docs/house-way.md, "Double Joker").

003_4dcc2fceebc6e4af.txt plays a 54-card deck with two jokers, "which act as an Ace unless
they are filling a straight or flush or straight flush"; the 002 table was written for one.
The extension (DJ1-DJ6 in the docs): the jokers group as Aces (two jokers are a pair of
Aces), "the Ace" of a row is a natural Ace or, with none, a joker, "the Joker" is either
joker, either or both may fill a straight or flush, and a joker that extends a run goes at
its bottom. Each worked example below is the docs' own, expected values worked out by hand.
"""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.game.cards import JOKER, NATURAL_CARDS, Card, TooManyJokersError, parse_cards
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import is_legal

# (seven cards, low, high, rule id, via, skipped) -- the worked examples of docs/house-way.md
EXAMPLES = [
    # DJ1: JK JK is a pair of Aces: Pairs, one pair; the two highest singletons in front
    ("JK JK Kd Qs 7c 3h 2d", "Kd Qs", "JK JK 7c 3h 2d", "pairs.one", (), ()),
    # DJ1: As JK JK is three Aces: one from the 3-of-a-kind (the natural Ace: G5) and the King
    ("As JK JK Kd 9s 6c 2h", "As Kd", "JK JK 9s 6c 2h", "three-of-a-kind.one.aces", (), ()),
    # DJ1: three Aces and two jokers are five Aces; two Kings
    ("As Ah Ad JK JK Ks Kd", "Ks Kd", "As Ah Ad JK JK", "five-of-a-kind.two-kings", (), ()),
    # six Aces: "two Aces", the natural ones (the jokers stay behind, G5); four Aces remain
    ("As Ah Ad Ac JK JK 7d", "As Ah", "Ad Ac JK JK 7d", "five-of-a-kind.otherwise", (), ()),
    # DJ1: Ah Ad JK JK is four Aces: the two highest singletons
    ("Ah Ad JK JK 9s 6c 2h", "9s 6c", "Ah Ad JK JK 2h", "four-of-a-kind.two-singletons", (), ()),
    # DJ3/DJ5: the jokers' pair is not "composed of Ace and Joker" (no natural Ace); the flush
    # Kh 9h 5h + JK JK is a 5-card flush: the two non-flush
    (
        "Kh 9h 5h JK JK Qc 3d",
        "Qc 3d",
        "Kh 9h 5h JK JK",
        "flush.three-of-a-kind.5-card",
        ("flush.pair.any-other-pair",),
        (),
    ),
    # DJ3: "the Joker and the Ace" of the jokers' pair is both jokers; Kh Jh 8h 5h 3h remains a flush
    (
        "Kh Jh 8h 5h 3h JK JK",
        "JK JK",
        "Kh Jh 8h 5h 3h",
        "flush.pair.joker-pair-flush-after-removing-joker-and-ace",
        (),
        (),
    ),
    # DJ3: three pairs (JK JK, K, 9) with a flush: the Joker and the Ace = both jokers
    ("Kh Ks 9h 9s 5h JK JK", "JK JK", "Kh Ks 9h 9s 5h", "flush.pair.three-pairs", (), ()),
    # DJ6: 5 6 8 and two jokers: 4-8 or 5-9, same natural cards, jokers at the bottom (4-8);
    # the non-straights K and 2
    # Readings G7: 2-6 (jokers at 3 and 4) puts K-8 up, 4-8 only K-2
    (
        "5c 6d 8h JK JK Kc 2s",
        "8h Kc",
        "5c 6d JK JK 2s",
        "straight.three-of-a-kind.5-card",
        ("straight.pair.any-other-pair",),
        (),
    ),
    # DJ6: 3 4 JK 6 7 JK 9: a 7-card straight with a joker in the sixth place: that joker and the 9
    (
        "3c 4d 6h 7s 9c JK JK",
        "JK 9c",
        "3c 4d 6h 7s JK",
        "straight.three-of-a-kind.7-card-joker-sixth",
        ("straight.pair.any-other-pair",),
        (),
    ),
    # DJ3: three pairs (JK JK, 3, 4) with a straight: "the Ace and the Joker" = both jokers
    ("JK JK 3c 3d 4h 4s 5d", "JK JK", "3c 3d 4h 4s 5d", "straight.pair.three-pairs", (), ()),
    # the royal Ks Qs Js + JK JK; the jokers' pair: royal steps, 5-card royal: the non-flush
    (
        "Ks Qs Js JK JK 5d 2c",
        "5d 2c",
        "Ks Qs Js JK JK",
        "royal-flush.5-card",
        ("royal-flush.pair.any-other-pair",),
        (),
    ),
    # straight flush 5 6 7 + JK JK and two pairs (Aces, Kings): Straight Flush Alone, the non-straights
    ("5h 6h 7h JK JK Kc Kd", "Kc Kd", "5h 6h 7h JK JK", "straight-flush.alone.5-card", (), ()),
    # JK JK 4 5 6 7 of spades: the pair rows foul (the straight flush needs a joker), skipped;
    # 6-card straight flush with a joker first: that joker and the non-straight
    (
        "4s 5s 6s 7s JK JK 2d",
        "JK 2d",
        "4s 5s 6s 7s JK",
        "straight-flush.alone.6-card-joker-first-or-last",
        (),
        ("straight-flush.pair.joker-pair", "straight-flush.pair.one-pair"),
    ),
]


def _multiset(cards) -> Counter:
    return Counter(card.code for card in cards)


@pytest.fixture(scope="module")
def way():
    return load_house_way("house-way-002")


@pytest.mark.parametrize(
    ("hand", "low", "high", "rule_id", "via", "skipped"), EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_double_joker_worked_example(way, hand, low, high, rule_id, via, skipped):
    result = way.set(parse_cards(hand))
    assert _multiset(result.setting.low) == _multiset(parse_cards(low))
    assert _multiset(result.setting.high) == _multiset(parse_cards(high))
    assert (result.rule_id, result.via, result.skipped) == (rule_id, via, skipped)
    assert is_legal(result.setting)


def test_two_jokers_are_refused_where_the_table_allows_one(way):
    with pytest.raises(TooManyJokersError):
        way.set(parse_cards("JK JK Kd Qs 7c 3h 2d"), max_jokers=1)


def test_three_jokers_are_never_a_hand(way):
    with pytest.raises(TooManyJokersError):
        way.set((JOKER, JOKER, JOKER, *parse_cards("Kd Qs 7c 3h")))


@settings(max_examples=300, deadline=None)
@given(
    naturals=st.lists(st.sampled_from(NATURAL_CARDS), min_size=5, max_size=5, unique=True),
    where=st.permutations(range(7)),
    name=st.sampled_from(["house-way-002", "strong-004"]),
)
def test_every_two_joker_hand_gets_a_legal_setting_of_its_seven_cards(naturals, where, name):
    cards = [*naturals, JOKER, JOKER]
    hand = tuple(cards[i] for i in where)
    result = load_house_way(name).set(hand)
    assert _multiset(result.setting.high) + _multiset(result.setting.low) == _multiset(hand)
    assert len(result.setting.high) == 5 and len(result.setting.low) == 2
    assert is_legal(result.setting)


@settings(max_examples=200, deadline=None)
@given(
    suited=st.lists(st.integers(2, 14), min_size=3, max_size=5, unique=True),
    suit=st.sampled_from("shdc"),
    others=st.lists(st.sampled_from(NATURAL_CARDS), min_size=7, max_size=7, unique=True),
)
def test_two_joker_flushes_and_straight_flushes_are_legal(suited, suit, others):
    """Hands built around three to five cards of one suit and both jokers (flushes, straight
    flushes, royals), where the extension does the most work."""
    cards = [Card(rank, suit) for rank in suited] + [JOKER, JOKER]
    cards += [card for card in others if card not in cards][: 7 - len(cards)]
    assert len(cards) == 7  # seven distinct others leave enough after at most five clashes
    result = load_house_way("house-way-002").set(cards)
    assert is_legal(result.setting)
    assert _multiset(result.setting.high) + _multiset(result.setting.low) == _multiset(cards)
