"""Hands as patterns: rank counts, jokers and the flush suit's ranks, and their categories.

A seven-card hand's best five-card category (001, 002, 003: the joker is an Ace unless it
completes a straight, a flush or a straight flush) and its Big Hand Bonus category (003)
depend only on

- the *rank counts* of its natural cards (how many 2s, 3s, ... Aces),
- its *jokers*,
- the ranks held in its *flush suit*: the one suit holding at least ``5 - jokers`` natural
  cards, if any. Seven cards never have two such suits (0 jokers: 5 of 7; 1 joker: 4 of 6;
  2 jokers: 3 of 5).

So the par sheet counts patterns, each weighted by the number of hands that show it
(``par_sheet.py``), and the house-edge lookup keys hands by the same three facts
(``lookup.py``). Ranks are indexed 0..12 for 2..Ace here; a rank set is a 13-bit mask.

The categories are the evaluator's (``evaluator.HighCategory``, ``SevenCardCategory``);
tests/analysis checks these functions against ``evaluator.best_five_category`` and
``seven_card_category`` on random hands.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import comb
from typing import Final

from ..game.cards import ACE
from ..game.evaluator import HighCategory, SevenCardCategory

RANKS: Final = 13
ACE_INDEX: Final = ACE - 2  # ranks 2..Ace are indexed 0..12
SUITS: Final = 4

# Five consecutive ranks, A-high (the royal window) down to 6-high, then A-2-3-4-5 (001).
ROYAL_WINDOW: Final = 0b1_1111 << 8
STRAIGHT_WINDOWS: Final[tuple[int, ...]] = (
    *(0b1_1111 << low for low in range(8, -1, -1)),
    (1 << ACE_INDEX) | 0b1111,
)
# Seven consecutive ranks for the seven-card straight flush (003), the Ace low in A-2-...-7.
SEVEN_CARD_RUNS: Final[tuple[int, ...]] = (
    *(0b111_1111 << low for low in range(6, -1, -1)),
    (1 << ACE_INDEX) | 0b11_1111,
)

_BIG_HAND_OF_HIGH: Final = {
    HighCategory.FIVE_ACES: SevenCardCategory.FIVE_ACES,
    HighCategory.ROYAL_FLUSH: SevenCardCategory.ROYAL_FLUSH,
    HighCategory.STRAIGHT_FLUSH: SevenCardCategory.STRAIGHT_FLUSH,
    HighCategory.FOUR_OF_A_KIND: SevenCardCategory.FOUR_OF_A_KIND,
    HighCategory.FULL_HOUSE: SevenCardCategory.FULL_HOUSE,
    HighCategory.FLUSH: SevenCardCategory.FLUSH,
}


def rank_mask(counts: tuple[int, ...]) -> int:
    """The ranks held at least once, as a 13-bit mask."""
    mask = 0
    for index, count in enumerate(counts):
        if count:
            mask |= 1 << index
    return mask


def grouped_category(counts: tuple[int, ...], jokers: int) -> HighCategory:
    """Best pairs/trips/quads/five-aces category, the jokers playing as Aces (001)."""
    aces = counts[ACE_INDEX] + jokers
    if aces >= 5:
        return HighCategory.FIVE_ACES
    groups = sorted((*counts[:ACE_INDEX], aces), reverse=True)
    first, second = groups[0], groups[1]
    if first >= 4:
        return HighCategory.FOUR_OF_A_KIND
    if first == 3:
        return HighCategory.FULL_HOUSE if second >= 2 else HighCategory.THREE_OF_A_KIND
    if first == 2:
        return HighCategory.TWO_PAIR if second == 2 else HighCategory.ONE_PAIR
    return HighCategory.HIGH_CARD


def makes_straight(mask: int, jokers: int) -> bool:
    """Five consecutive ranks from ``mask``, the jokers filling the gaps (001, 003)."""
    need = 5 - jokers
    return any((mask & window).bit_count() >= need for window in STRAIGHT_WINDOWS)


def suited_category(flush_ranks: int, jokers: int) -> HighCategory:
    """Best category of the flush suit's naturals with the jokers: royal, straight flush or flush."""
    need = 5 - jokers
    if (flush_ranks & ROYAL_WINDOW).bit_count() >= need:
        return HighCategory.ROYAL_FLUSH
    if any((flush_ranks & window).bit_count() >= need for window in STRAIGHT_WINDOWS):
        return HighCategory.STRAIGHT_FLUSH
    return HighCategory.FLUSH


def unsuited_category(counts: tuple[int, ...], jokers: int) -> HighCategory:
    """Best five-card category when no suit holds a flush."""
    best = grouped_category(counts, jokers)
    if best < HighCategory.STRAIGHT and makes_straight(rank_mask(counts), jokers):
        return HighCategory.STRAIGHT
    return best


def best_five(counts: tuple[int, ...], jokers: int, flush_ranks: int = 0) -> HighCategory:
    """Best five-card category of a hand's pattern (``flush_ranks`` 0: no flush suit)."""
    best = unsuited_category(counts, jokers)
    if flush_ranks:
        return max(best, suited_category(flush_ranks, jokers))
    return best


def big_hand(
    counts: tuple[int, ...], jokers: int, flush_ranks: int = 0, best: HighCategory | None = None
) -> SevenCardCategory:
    """Big Hand Bonus category of a seven-card pattern, in ``seven_card_category``'s order (003).

    ``best``: the pattern's ``best_five``, when the caller has it already.
    """
    naturals = sum(counts)
    if (
        flush_ranks
        and flush_ranks.bit_count() == naturals
        and any(flush_ranks & run == flush_ranks for run in SEVEN_CARD_RUNS)
    ):
        return (
            SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
            if jokers == 0
            else SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH
        )
    if counts[ACE_INDEX] + jokers >= 6:
        return SevenCardCategory.SIX_ACES
    if best is None:
        best = best_five(counts, jokers, flush_ranks)
    return _BIG_HAND_OF_HIGH.get(best, SevenCardCategory.NOTHING)


def rank_multisets(size: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every count vector over the 13 ranks summing to ``size``, no rank above ``most``."""
    counts = [0] * RANKS

    def fill(index: int, left: int) -> Iterator[tuple[int, ...]]:
        if index == RANKS - 1:
            if left <= most:
                counts[index] = left
                yield tuple(counts)
                counts[index] = 0
            return
        for count in range(min(most, left) + 1):
            counts[index] = count
            yield from fill(index + 1, left - count)
        counts[index] = 0

    yield from fill(0, size)


def suit_ways(counts: tuple[int, ...], suits: int = SUITS) -> int:
    """Hands of natural cards with these rank counts, over ``suits`` suits: prod C(suits, c)."""
    ways = 1
    for count in counts:
        if count:
            ways *= comb(suits, count)
    return ways


def ranks_of_mask(mask: int) -> tuple[int, ...]:
    """Rank counts (0 or 1) of a 13-bit mask."""
    return tuple((mask >> index) & 1 for index in range(RANKS))


__all__ = [
    "ACE_INDEX",
    "RANKS",
    "SEVEN_CARD_RUNS",
    "STRAIGHT_WINDOWS",
    "best_five",
    "big_hand",
    "grouped_category",
    "makes_straight",
    "rank_mask",
    "rank_multisets",
    "ranks_of_mask",
    "suit_ways",
    "suited_category",
    "unsuited_category",
]
