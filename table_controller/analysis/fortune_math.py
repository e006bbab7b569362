"""The Fortune Bonus and Envy Bonus math, exact over the C(53, 7) hands (docs/progressive.md).

The counts are made the way ``enumerate7`` makes the par sheet's, over patterns
(patterns.py): rank counts, jokers, and the flush suit's ranks, each pattern weighted by the
hands that show it. Two facts of the Fortune are not in the par sheet's counts, so they are
counted here:

- three of a kind stands above a straight (it pays more, progressive-research.md §1.2): a
  hand holding both is three of a kind, so the line of a pattern without a flush suit is
  its pairs category when that is three of a kind or better, else a straight if it makes one;
- the royal match (a natural K and Q of one other suit) depends on the suits of the cards
  outside the flush suit: of a royal pattern's ``prod C(3, m_r)`` ways to put the other
  naturals in the three other suits, ``royal_match_ways`` hold a K and a Q in one suit.

Every amount is a ``Fraction``; decimals are for display.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any, Final

from ..game.evaluator import HighCategory
from ..game.fortune import FORTUNE_GAME, FORTUNE_LINES, FortuneHand, FortunePayTable
from .patterns import (
    ACE_INDEX,
    RANKS,
    SEVEN_CARD_RUNS,
    SUITS,
    grouped_category,
    makes_straight,
    rank_mask,
    rank_multisets,
    suit_ways,
    suited_category,
)

KING_INDEX: Final = ACE_INDEX - 1
QUEEN_INDEX: Final = ACE_INDEX - 2
HANDS: Final = comb(52 + FORTUNE_GAME.jokers, 7)

_OF_GROUPED: Final = {
    HighCategory.FIVE_ACES: FortuneHand.FIVE_ACES,
    HighCategory.FOUR_OF_A_KIND: FortuneHand.FOUR_OF_A_KIND,
    HighCategory.FULL_HOUSE: FortuneHand.FULL_HOUSE,
    HighCategory.THREE_OF_A_KIND: FortuneHand.THREE_OF_A_KIND,
}
_OF_SUITED: Final = {
    HighCategory.ROYAL_FLUSH: FortuneHand.ROYAL_FLUSH,
    HighCategory.STRAIGHT_FLUSH: FortuneHand.STRAIGHT_FLUSH,
    HighCategory.FLUSH: FortuneHand.FLUSH,
}


def plain_fortune(counts: tuple[int, ...], jokers: int) -> FortuneHand:
    """The Fortune line of a pattern with no flush suit (trips over a straight)."""
    grouped = _OF_GROUPED.get(grouped_category(counts, jokers))
    if grouped is not None:
        return grouped
    return FortuneHand.STRAIGHT if makes_straight(rank_mask(counts), jokers) else FortuneHand.NOTHING


def pattern_fortune(counts: tuple[int, ...], jokers: int, flush_ranks: int = 0) -> FortuneHand:
    """The Fortune line of a pattern, the royal match aside (a royal with one is ROYAL_FLUSH)."""
    plain = plain_fortune(counts, jokers)
    if not flush_ranks:
        return plain
    if flush_ranks.bit_count() == sum(counts) and any(
        flush_ranks & run == flush_ranks for run in SEVEN_CARD_RUNS
    ):
        return (
            FortuneHand.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
            if jokers == 0
            else FortuneHand.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER
        )
    return max(plain, _OF_SUITED[suited_category(flush_ranks, jokers)])


def royal_match_ways(others: tuple[int, ...]) -> int:
    """Of the ``prod C(3, m_r)`` ways to put ``others`` in the three non-royal suits, those
    where one suit holds both a King and a Queen: all ways, less those whose Kings and Queens
    share no suit (``C(3, k) C(3 - k, q)``)."""
    kings, queens = others[KING_INDEX], others[QUEEN_INDEX]
    rest = suit_ways(
        tuple(0 if i in (KING_INDEX, QUEEN_INDEX) else c for i, c in enumerate(others)), SUITS - 1
    )
    together = comb(SUITS - 1, kings) * comb(SUITS - 1, queens) - comb(SUITS - 1, kings) * comb(
        SUITS - 1 - kings, queens
    )
    return together * rest


_COUNTED: dict[str, dict[FortuneHand, int]] = {}
_COUNTING = threading.Lock()


def fortune_counts() -> dict[FortuneHand, int]:
    """Hands of the 53-card deck per Fortune line, exact; counted once per process (~1 s)."""
    with _COUNTING:
        if "53" not in _COUNTED:
            _COUNTED["53"] = _count()
        return dict(_COUNTED["53"])


def _count() -> dict[FortuneHand, int]:
    tally: Counter[FortuneHand] = Counter()
    for jokers in range(FORTUNE_GAME.jokers + 1):
        weight = comb(FORTUNE_GAME.jokers, jokers)
        naturals = 7 - jokers
        plain_of: dict[tuple[int, ...], FortuneHand] = {}
        # Pass 1: every hand as if no suit held a flush.
        for counts in rank_multisets(naturals, SUITS):
            plain_of[counts] = line = plain_fortune(counts, jokers)
            tally[line] += weight * suit_ways(counts)
        # Pass 2: the hands with a flush suit (its suit, its ranks, the others in three suits)
        # move to their real line.
        for size in range(max(5 - jokers, 0), naturals + 1):
            others = [(m, suit_ways(m, SUITS - 1)) for m in rank_multisets(naturals - size, SUITS - 1)]
            for flush in combinations(range(RANKS), size):
                mask = sum(1 << r for r in flush)
                for extra, extra_ways in others:
                    counts = tuple(c + (mask >> r & 1) for r, c in enumerate(extra))
                    plain = plain_of[counts]
                    real = pattern_fortune(counts, jokers, mask)
                    ways = weight * SUITS * extra_ways
                    tally[plain] -= ways
                    if real is FortuneHand.ROYAL_FLUSH:
                        matched = weight * SUITS * royal_match_ways(extra)
                        tally[FortuneHand.ROYAL_FLUSH_WITH_ROYAL_MATCH] += matched
                        tally[FortuneHand.ROYAL_FLUSH] += ways - matched
                    else:
                        tally[real] += ways
    if sum(tally.values()) != HANDS:
        raise AssertionError("the Fortune counts do not add up to every hand")  # a bug, never the input
    return {hand: tally.get(hand, 0) for hand in FORTUNE_LINES}


@dataclass(frozen=True, slots=True)
class FortuneLineMath:
    hand: FortuneHand
    odds: int | None
    envy: int  # cents
    combinations: int
    probability: Fraction
    contribution: Fraction  # to the return per unit wagered


@dataclass(frozen=True, slots=True)
class FortuneMath:
    """One Fortune pay table priced exactly, with its envy's value."""

    table: str
    lines: tuple[FortuneLineMath, ...]
    total: int

    @property
    def expected_return(self) -> Fraction:
        return sum((line.contribution for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_return

    @property
    def hit_rate(self) -> Fraction:
        return sum((line.probability for line in self.lines if line.odds is not None), Fraction(0))

    @property
    def envy_per_other_position(self) -> Fraction:
        """Expected envy, in cents, that one other occupied position's hand pays an eligible
        position: each position's seven cards are a uniform 7-subset of the deck, so by
        linearity this holds though the positions are dealt from one deck (§1.4)."""
        return sum((line.probability * line.envy for line in self.lines), Fraction(0))

    @property
    def envy_hit_rate(self) -> Fraction:
        return sum((line.probability for line in self.lines if line.envy), Fraction(0))

    def envy_value(self, wager: int) -> Fraction:
        """The envy per other position as a fraction of a ``wager`` in cents (e.g. 500)."""
        return self.envy_per_other_position / wager

    def edge_with_envy(self, wager: int, others: int) -> Fraction:
        """House edge of a ``wager`` (cents, eligible) with ``others`` other occupied positions."""
        return self.house_edge - others * self.envy_value(wager)

    def as_dict(self, envy_wager: int) -> dict[str, Any]:
        return {
            "table": self.table,
            "total_combinations": self.total,
            "lines": [
                {
                    "line": line.hand.label,
                    "odds": line.odds if line.odds is not None else "loss",
                    "envy_cents": line.envy,
                    "combinations": line.combinations,
                    "probability": str(line.probability),
                    "probability_decimal": float(line.probability),
                    "contribution": str(line.contribution),
                    "contribution_decimal": float(line.contribution),
                }
                for line in self.lines
            ],
            "hit_rate": str(self.hit_rate),
            "hit_rate_decimal": float(self.hit_rate),
            "house_edge": str(self.house_edge),
            "house_edge_decimal": float(self.house_edge),
            "envy_hit_rate": str(self.envy_hit_rate),
            "envy_hit_rate_decimal": float(self.envy_hit_rate),
            "envy_per_other_position_cents": str(self.envy_per_other_position),
            "envy_per_other_position_cents_decimal": float(self.envy_per_other_position),
            "envy_wager_cents": envy_wager,
            "envy_value": str(self.envy_value(envy_wager)),
            "envy_value_decimal": float(self.envy_value(envy_wager)),
        }


def fortune_math(table: FortunePayTable, counts: dict[FortuneHand, int] | None = None) -> FortuneMath:
    """Price ``table`` line by line from the exact counts."""
    counts = counts if counts is not None else fortune_counts()
    total = sum(counts.values())
    lines = []
    for hand in FORTUNE_LINES:
        odds = table.odds[hand]
        probability = Fraction(counts[hand], total)
        contribution = probability * odds if odds is not None else -probability
        lines.append(FortuneLineMath(hand, odds, table.envy[hand], counts[hand], probability, contribution))
    return FortuneMath(table.name, tuple(lines), total)


__all__ = [
    "HANDS",
    "FortuneLineMath",
    "FortuneMath",
    "fortune_counts",
    "fortune_math",
    "pattern_fortune",
    "plain_fortune",
    "royal_match_ways",
]
