"""The Fortune Bonus counts and edges, exact over C(53, 7), checked against values worked out
by hand and against the research's table (progressive-research.md §1.2, §1.4, §1.5)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations, product
from math import comb

import pytest

from table_controller.analysis.fortune_math import (
    HANDS,
    fortune_counts,
    fortune_math,
    pattern_fortune,
    royal_match_ways,
)
from table_controller.game.cards import JOKER, Card
from table_controller.game.evaluator import HighCategory as H
from table_controller.game.fortune import FortuneHand, fortune_hand, load_fortune_paytable
from table_controller.game.paytables import paytables_dir

from .conftest import random_hands, rich_hands
from .test_par_sheet import PUBLISHED_53, _pattern

F = FortuneHand

# progressive-research.md §1.2 "combos" column (computed there from math.md's counts).
RESEARCH_COUNTS = {
    F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH: 32,
    F.ROYAL_FLUSH_WITH_ROYAL_MATCH: 72,
    F.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER: 196,
    F.FIVE_ACES: 1_128,
    F.ROYAL_FLUSH: 26_020,
    F.STRAIGHT_FLUSH: 184_644,
    F.FOUR_OF_A_KIND: 307_472,
    F.FULL_HOUSE: 4_188_528,
    F.FLUSH: 6_172_088,
    F.THREE_OF_A_KIND: 7_672_500,
    F.STRAIGHT: 11_034_204,
    F.NOTHING: 124_556_196,
}


@pytest.fixture(scope="module")
def counts():
    return fortune_counts()


def test_every_hand_is_counted_once(counts) -> None:
    assert HANDS == comb(53, 7) == 154_143_080
    assert sum(counts.values()) == HANDS


def test_the_top_lines_equal_their_formulas(counts) -> None:
    # Natural seven-card straight flushes: 8 runs of seven ranks (A-7 .. 8-A) in 4 suits.
    assert counts[F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH] == 4 * 8
    # With the joker: six suited naturals inside a run; a six-set inside two runs (the joker
    # at either end) is one hand, so count the distinct six-sets.
    runs = [frozenset(range(top - 6, top + 1)) for top in range(8, 15)] + [frozenset({14, 2, 3, 4, 5, 6, 7})]
    six_sets = {frozenset(kept) for run in runs for kept in combinations(run, 6)}
    assert counts[F.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER] == 4 * len(six_sets) == 196
    # Five aces: the four Aces, the joker and any two of the other 48 cards.
    assert counts[F.FIVE_ACES] == comb(48, 2)
    # Royal + royal match: the royal's suit (4), natural or the joker for one of its five
    # cards (1 + 5), and the K-Q of one of the three other suits.
    assert counts[F.ROYAL_FLUSH_WITH_ROYAL_MATCH] == 4 * (1 + 5) * 3


def test_the_lines_agree_with_the_published_best_five_distribution(counts) -> None:
    """The Fortune moves hands between lines only where its order differs from poker's."""
    for fortune, high in (
        (F.FOUR_OF_A_KIND, H.FOUR_OF_A_KIND),
        (F.FULL_HOUSE, H.FULL_HOUSE),
        (F.FLUSH, H.FLUSH),
    ):
        assert counts[fortune] == PUBLISHED_53[high]
    straight_flushes = (
        F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH,
        F.ROYAL_FLUSH_WITH_ROYAL_MATCH,
        F.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER,
        F.ROYAL_FLUSH,
        F.STRAIGHT_FLUSH,
    )
    assert sum(counts[line] for line in straight_flushes) == PUBLISHED_53["straight-flush-including-royal"]
    assert counts[F.FIVE_ACES] == PUBLISHED_53["five-aces"]
    # A hand with trips and a straight is paid as trips: the two lines keep their sum.
    assert (
        counts[F.THREE_OF_A_KIND] + counts[F.STRAIGHT]
        == PUBLISHED_53[H.THREE_OF_A_KIND] + PUBLISHED_53[H.STRAIGHT]
    )
    assert counts[F.THREE_OF_A_KIND] > PUBLISHED_53[H.THREE_OF_A_KIND]


def test_the_counts_equal_the_researchs_table(counts) -> None:
    assert counts == RESEARCH_COUNTS


def test_the_pattern_line_equals_the_game_cores_on_random_and_rich_hands() -> None:
    hands = random_hands(21, 3000, jokers=1) + [
        h for h in rich_hands(22, 6000) if sum(c.is_joker for c in h) < 2
    ]
    seen = set()
    for hand in hands:
        line = fortune_hand(hand)
        expected = F.ROYAL_FLUSH if line is F.ROYAL_FLUSH_WITH_ROYAL_MATCH else line
        assert pattern_fortune(*_pattern(hand)) is expected, hand
        seen.add(line)
    assert len(seen) >= 10


def test_every_hand_of_a_reduced_deck_by_brute_force() -> None:
    """T-A in three suits and the joker (16 cards, 11,440 hands): the game core's line of
    every hand, counted; the pattern line agrees with it on every hand. Royal + match by
    hand: the royal's suit (3), natural or the joker in one of five places (1 + 5), the K-Q
    of one of the two other suits (2)."""
    deck = [Card(rank, suit) for rank in range(10, 15) for suit in "shd"] + [JOKER]
    counted: Counter[FortuneHand] = Counter()
    for hand in combinations(deck, 7):
        line = fortune_hand(hand)
        counted[line] += 1
        expected = F.ROYAL_FLUSH if line is F.ROYAL_FLUSH_WITH_ROYAL_MATCH else line
        assert pattern_fortune(*_pattern(hand)) is expected, hand
    assert sum(counted.values()) == comb(16, 7)
    assert counted[F.ROYAL_FLUSH_WITH_ROYAL_MATCH] == 3 * (1 + 5) * 2
    assert counted[F.FIVE_ACES] == counted[F.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH] == 0  # three Aces, five ranks


def test_royal_match_ways_equal_brute_force() -> None:
    """Kings are rank index 11, Queens 10: place the other naturals in three suits by hand."""
    cases = [
        (0,) * 13,
        tuple(1 if i in (10, 11) else 0 for i in range(13)),
        tuple(2 if i == 11 else 1 if i in (10, 3) else 0 for i in range(13)),
        tuple(2 if i in (10, 11) else 0 for i in range(13)),
    ]
    for extra in cases:
        cards = [rank for rank, count in enumerate(extra) for _ in range(count)]
        found = 0
        for suits in product(range(3), repeat=len(cards)):
            placed = list(zip(cards, suits, strict=True))
            if len(set(placed)) != len(placed):
                continue  # a card twice
            if any((11, s) in placed and (10, s) in placed for s in range(3)):
                found += 1
        # product() orders the cards of one rank: each hand is counted once per ordering.
        orderings = 1
        for count in extra:
            orderings *= [1, 1, 2, 6][count]
        assert royal_match_ways(extra) * orderings == found, extra


def _edge_by_hand(odds: list[int | None]) -> Fraction:
    """The house edge from the research's counts and the table's odds (§1.5)."""
    win = sum(
        RESEARCH_COUNTS[line] * o for line, o in zip(RESEARCH_COUNTS, odds, strict=True) if o is not None
    )
    loss = RESEARCH_COUNTS[F.NOTHING]
    return Fraction(loss - win, HANDS)


@pytest.mark.parametrize(
    ("name", "odds", "edge_percent"),
    [
        ("fortune-a", [8000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2, None], "7.765575"),
        ("fortune-b", [5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2, None], "7.827854"),
    ],
)
def test_the_edges_of_tables_a_and_b(counts, name, odds, edge_percent) -> None:
    math = fortune_math(load_fortune_paytable(paytables_dir() / f"{name}.toml"), counts)
    assert math.house_edge == _edge_by_hand(odds)
    assert f"{float(math.house_edge) * 100:.6f}" == edge_percent
    # §1.5: 11,970,096 / 154,143,080 for table A.
    if name == "fortune-a":
        assert math.house_edge == Fraction(11_970_096, HANDS)
    assert math.hit_rate == Fraction(HANDS - RESEARCH_COUNTS[F.NOTHING], HANDS)


def test_the_envy_value_per_other_position(counts) -> None:
    """§1.4: 7,143,240 / 154,143,080 dollars with table A's amounts = 0.9268% of $5;
    0.9185% with table B's; a qualifying hand 519,564 times in C(53, 7)."""
    a = fortune_math(load_fortune_paytable(paytables_dir() / "fortune-a.toml"), counts)
    b = fortune_math(load_fortune_paytable(paytables_dir() / "fortune-b.toml"), counts)
    dollars = 32 * 5000 + 72 * 1000 + 196 * 500 + 1128 * 250 + 26020 * 50 + 184644 * 20 + 307472 * 5
    assert dollars == 7_143_240
    assert a.envy_per_other_position == Fraction(dollars * 100, HANDS)
    assert f"{float(a.envy_value(500)) * 100:.4f}" == "0.9268"
    assert f"{float(b.envy_value(500)) * 100:.4f}" == "0.9185"
    assert a.envy_hit_rate == Fraction(519_564, HANDS)
    # With 5 others at a $5 wager, table A: 7.7656% - 5 x 0.9268% = 3.13% (§1.4).
    assert f"{float(a.edge_with_envy(500, 5)) * 100:.2f}" == "3.13"
