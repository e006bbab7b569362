"""The fast engine (engine.py, facts.py) gives exactly what the reference engine gives.

``reference.reference_set`` reads the way as written: plain facts, the rows walked in order,
``is_legal`` and the evaluator for every choice (docs/house-way.md, "Speed"). The fast path
(bit-packed facts, rows precompiled per hand signature with the predicates' static answers,
results built by ``__class__`` assignment) must agree with it on every field of the result:
the setting, the rule id, the section, ``via`` and ``skipped``. Hypothesis draws the hands
from both decks (53 cards, 001_c9adb19db438d99f.txt; 54, 003_4dcc2fceebc6e4af.txt), and from
a few neighbouring ranks in a few suits, so straights, flushes, straight flushes, quads and
five Aces are common; every example hand of the house way tests is checked as well, under
every table ranking rule. The required results themselves are pinned by those tests.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.game.cards import (
    JOKER,
    NATURAL_CARDS,
    Card,
    DuplicateCardError,
    Game,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    parse_cards,
)
from table_controller.game.evaluator import RankingRules, Wheel
from table_controller.game.house_way import load_house_way
from table_controller.game.house_way.reference import longest_run, longest_runs, reference_set
from table_controller.game.house_way.straights import rank_mask, straight_window, straight_windows

WAYS = ["house-way-002", "strong-004"]
RANKINGS = [
    RankingRules(),
    RankingRules(wheel=Wheel.CALIFORNIA),
    RankingRules(joker_wild_in_low=True),
    RankingRules(wheel=Wheel.CALIFORNIA, joker_wild_in_low=True),
]


def _same(name: str, cards, ranking: RankingRules) -> None:
    way = load_house_way(name)
    fast = way.set(cards, ranking)
    plain = reference_set(way, cards, ranking)
    assert fast == plain, (name, " ".join(card.code for card in cards), ranking, fast, plain)


# The strategies are built once: built and validated again for every example, they cost about a
# fifth of this file's time.
RANKING = st.sampled_from(RANKINGS)
SUIT_SETS = st.lists(st.sampled_from("shdc"), min_size=1, max_size=4, unique=True)


@functools.cache
def seven_of(size: int) -> st.SearchStrategy[list[int]]:
    """Seven different places in a deck of ``size`` cards."""
    return st.lists(st.sampled_from(range(size)), min_size=7, max_size=7, unique=True)


def random_hands(game: Game) -> st.SearchStrategy[tuple[Card, ...]]:
    deck = game.deck()
    return seven_of(len(deck)).map(lambda picks: tuple(deck[i] for i in picks))


@st.composite
def rich_hands(draw, game: Game):
    """Seven cards from a few neighbouring ranks in a few suits, with the deck's jokers."""
    width = draw(st.integers(5, 9))
    low = draw(st.integers(1, 15 - width))  # 1: the window starts with an Ace played low
    ranks = {14 if rank == 1 else rank for rank in range(low, low + width)}
    suits = draw(SUIT_SETS)
    deck = [card for card in NATURAL_CARDS if card.rank in ranks and card.suit in suits]
    deck += [JOKER] * game.jokers
    if len(deck) < 7:
        deck += [card for card in NATURAL_CARDS if card not in deck][: 7 - len(deck)]
    picks = draw(seven_of(len(deck)))
    return tuple(deck[i] for i in picks)


RANDOM_HANDS = {game: random_hands(game) for game in Game}
RICH_HANDS = {game: rich_hands(game) for game in Game}


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("name", WAYS)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_hands_are_set_as_the_reference_sets_them(name, game, data):
    cards = data.draw(RANDOM_HANDS[game])
    _same(name, cards, data.draw(RANKING))


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("name", WAYS)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_straight_and_flush_rich_hands_are_set_as_the_reference_sets_them(name, game, data):
    cards = data.draw(RICH_HANDS[game])
    _same(name, cards, data.draw(RANKING))


def _example_hands() -> list[str]:
    """Every example hand of the house way tests, as written."""
    from tests.game import (
        test_house_way_double_joker,
        test_house_way_readings,
        test_house_way_rules,
        test_house_way_strong,
    )

    found = [case[1] for case in test_house_way_readings.EXAMPLES]
    found += [case[1] for case in test_house_way_rules.CASES]
    found += [case[1] for case in test_house_way_strong.CASES + test_house_way_strong.DOUBLE_JOKER_CASES]
    found += [case[0] for case in test_house_way_double_joker.EXAMPLES]
    return list(dict.fromkeys(" ".join(card.code for card in parse_cards(hand)) for hand in found))


@pytest.mark.parametrize("name", WAYS)
def test_every_example_hand_is_set_as_the_reference_sets_it(name):
    hands = _example_hands()
    assert len(hands) > 150
    for hand in hands:
        cards = parse_cards(hand)
        for ranking in RANKINGS:
            _same(name, cards, ranking)
        _same(name, tuple(reversed(cards)), RankingRules())


@settings(max_examples=500, deadline=None)
@given(
    ranks=st.lists(st.integers(2, 14), min_size=0, max_size=7),
    jokers=st.integers(0, 2),
    nevada=st.booleans(),
)
def test_the_plain_straight_is_the_fast_one(ranks, jokers, nevada):
    assert longest_run(ranks, jokers, nevada) == straight_window(rank_mask(ranks), jokers, nevada)
    assert longest_runs(ranks, jokers, nevada) == straight_windows(rank_mask(ranks), jokers, nevada)


@pytest.mark.parametrize("name", WAYS)
@pytest.mark.parametrize(
    ("hand", "error"),
    [
        ("As Kd Qh Jc 9s 8d", HandSizeError),
        ("As Kd Qh Jc 9s 8d 7h 6c", HandSizeError),
        ("As Kd Qh Jc 9s 8d As", DuplicateCardError),
        ("JK Kd Qh Jc 9s JK JK", TooManyJokersError),
    ],
)
def test_bad_hands_raise_the_typed_errors_in_both_engines(name, hand, error):
    way = load_house_way(name)
    with pytest.raises(error):
        way.set(parse_cards(hand))
    with pytest.raises(error):
        reference_set(way, parse_cards(hand))


@pytest.mark.parametrize("name", WAYS)
def test_a_second_joker_is_refused_where_the_table_allows_one(name):
    way = load_house_way(name)
    with pytest.raises(TooManyJokersError):
        way.set(parse_cards("JK JK Kd Qs 7c 3h 2d"), max_jokers=1)
    with pytest.raises(TooManyJokersError):
        reference_set(way, parse_cards("JK JK Kd Qs 7c 3h 2d"), max_jokers=1)


@pytest.mark.parametrize("name", WAYS)
def test_a_card_that_is_not_a_card_is_refused(name):
    way = load_house_way(name)
    with pytest.raises(UnknownCardError):
        way.set((Card(15, "s"), *parse_cards("Kd Qh Jc 9s 8d 7h")))
    with pytest.raises(UnknownCardError):
        reference_set(way, (Card(15, "s"), *parse_cards("Kd Qh Jc 9s 8d 7h")))
