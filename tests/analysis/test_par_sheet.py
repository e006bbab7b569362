"""The par sheet: the 53-card distribution as published, the pattern categories equal to the
game core's, the bonus math cross-checked by brute force."""

from __future__ import annotations

import threading
import time
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

from table_controller.analysis import enumerate7
from table_controller.analysis.enumerate7 import count_seven_card_hands
from table_controller.analysis.par_sheet import big_hand_math, joker_bonus_combinations, joker_bonus_math
from table_controller.analysis.patterns import best_five, big_hand
from table_controller.game.cards import Game
from table_controller.game.evaluator import HighCategory as H
from table_controller.game.evaluator import SevenCardCategory as S
from table_controller.game.evaluator import best_five_category, seven_card_category
from table_controller.game.paytables import JOKER_BONUS_LINES, Bonus, load_paytable

from .conftest import random_hands, rich_hands

PUBLISHED_53 = {  # the published distribution of the best five-card hand, 53-card deck
    "five-aces": 1_128,
    "straight-flush-including-royal": 210_964,
    H.FOUR_OF_A_KIND: 307_472,
    H.FULL_HOUSE: 4_188_528,
    H.FLUSH: 6_172_088,
    H.STRAIGHT: 11_236_028,
    H.THREE_OF_A_KIND: 7_470_676,
    H.TWO_PAIR: 35_553_816,
    H.ONE_PAIR: 64_221_960,
    H.HIGH_CARD: 24_780_420,
}


@pytest.fixture(scope="module")
def counts_53():
    return count_seven_card_hands(Game.STANDARD)


def test_53_card_distribution_equals_the_published_table(counts_53) -> None:
    got = counts_53.best_five
    assert counts_53.total == comb(53, 7) == 154_143_080
    assert got[H.FIVE_ACES] == PUBLISHED_53["five-aces"]
    assert got[H.STRAIGHT_FLUSH] + got[H.ROYAL_FLUSH] == PUBLISHED_53["straight-flush-including-royal"]
    for category in (
        H.FOUR_OF_A_KIND,
        H.FULL_HOUSE,
        H.FLUSH,
        H.STRAIGHT,
        H.THREE_OF_A_KIND,
        H.TWO_PAIR,
        H.ONE_PAIR,
        H.HIGH_CARD,
    ):
        assert got[category] == PUBLISHED_53[category], category.label
    assert sum(got.values()) == counts_53.total


def _pattern(hand):
    counts = [0] * 13
    suits: dict[str, set[int]] = {}
    jokers = 0
    for card in hand:
        if card.is_joker:
            jokers += 1
            continue
        counts[card.rank - 2] += 1
        suits.setdefault(card.suit, set()).add(card.rank - 2)
    flush = 0
    for ranks in suits.values():
        if len(ranks) >= 5 - jokers:
            flush = sum(1 << r for r in ranks)
    return tuple(counts), jokers, flush


def test_pattern_categories_equal_the_evaluator_on_random_and_rich_hands() -> None:
    hands = random_hands(11, 3000) + rich_hands(12, 3000)
    seen = Counter()
    for hand in hands:
        pattern = _pattern(hand)
        assert best_five(*pattern) == best_five_category(hand), hand
        assert big_hand(*pattern) == seven_card_category(hand), hand
        seen[big_hand(*pattern)] += 1
    assert len(seen) >= 8  # the rare lines are exercised (rich hands)


@pytest.fixture(scope="module")
def counts_54():
    return count_seven_card_hands(Game.DOUBLE_JOKER)


def test_six_aces_and_seven_card_straight_flush_counts_by_hand(counts_54) -> None:
    counts = counts_54

    # Six Aces: four Aces and both jokers, and one of the other 48 cards.
    assert counts.big_hand[S.SIX_ACES] == 48
    # Natural seven-card straight flushes: 8 runs (A-high .. 8-high and A-2-..-7) x 4 suits.
    assert counts.big_hand[S.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH] == 32
    # With jokers: runs of 7 with 1 joker (C(7,1) naturals missing) or 2 jokers (C(7,2)), per
    # suit; a hand fits several runs when the jokers sit at an end, so count the distinct hands.
    hands = set()
    runs = [tuple(range(top - 6, top + 1)) for top in range(8, 15)] + [(14, 2, 3, 4, 5, 6, 7)]
    for run in runs:
        for missing in (1, 2):
            for kept in combinations(run, 7 - missing):
                hands.add((frozenset(kept), missing))
    # one joker: either of the deck's two (two ways); two jokers: one way
    ways = sum(2 if missing == 1 else 1 for _, missing in hands)
    assert counts.big_hand[S.SEVEN_CARD_STRAIGHT_FLUSH] == 4 * ways


def test_big_hand_edge_is_the_sum_of_its_lines(counts_53) -> None:
    counts = counts_53
    table = load_paytable(Bonus.BIG_HAND)
    math = big_hand_math(counts, table)
    assert sum(line.combinations for line in math.lines) == comb(53, 7)
    expected = sum(
        Fraction(line.combinations, comb(53, 7)) * (table.line(line.line).odds or -1) for line in math.lines
    )
    assert math.expected_return == expected
    assert math.house_edge == -expected


def test_joker_bonus_combinations_equal_brute_force_on_a_reduced_deck() -> None:
    """Same formula, a deck of 8 naturals and 2 jokers, hands of 3: every ordered pair of hands."""
    naturals, hand = 8, 3
    deck = [*list(range(naturals)), "J1", "J2"]
    brute: Counter = Counter()
    for player in combinations(deck, hand):
        rest = [card for card in deck if card not in player]
        for dealer in combinations(rest, hand):
            brute[(sum(isinstance(c, str) for c in player), sum(isinstance(c, str) for c in dealer))] += 1
    assert joker_bonus_combinations(2, naturals=naturals, hand=hand) == dict(brute)


def test_joker_bonus_is_exact_and_reproduces_003() -> None:
    math = joker_bonus_math(2, load_paytable(Bonus.JOKER))
    assert math.total == comb(54, 7) * comb(47, 7)
    assert math.house_edge == Fraction(4, 53)
    assert math.published_matches  # 003: "25.93% hit rate"
    assert {line.line for line in math.lines} == {line.value for line in JOKER_BONUS_LINES.values()}


def test_a_deck_is_counted_once_per_process_even_by_two_threads_at_once(monkeypatch) -> None:
    """The counts are the deck's alone: a second request, or one racing the first, gets the same
    counts without counting again, and its progress hears one finished step."""
    counted: list[Game] = []

    def slow_count(game: Game, progress):
        counted.append(game)
        time.sleep(0.2)  # long enough for the other thread to ask meanwhile
        if progress is not None:
            progress(5, 5)
        return object()

    monkeypatch.setattr(enumerate7, "_COUNTED", {})
    monkeypatch.setattr(enumerate7, "_count", slow_count)
    heard: dict[str, list[tuple[int, int]]] = {"first": [], "second": []}
    got: dict[str, object] = {}

    def ask(name: str) -> None:
        def progress(done: int, steps: int) -> None:
            heard[name].append((done, steps))

        got[name] = count_seven_card_hands(Game.STANDARD, progress)

    threads = [threading.Thread(target=ask, args=(name,)) for name in heard]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counted == [Game.STANDARD]
    assert got["first"] is got["second"]
    assert sorted(heard.values()) == [[(1, 1)], [(5, 5)]]  # the counter heard the steps, the other one
    assert count_seven_card_hands(Game.STANDARD) is got["first"]
    count_seven_card_hands(Game.DOUBLE_JOKER)
    assert counted == [Game.STANDARD, Game.DOUBLE_JOKER]  # another deck is counted on its own
