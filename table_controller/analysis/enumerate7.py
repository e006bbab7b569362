"""Exact counts of every seven-card hand by category, counted over patterns, not hands.

A hand with ``j`` jokers has ``n = 7 - j`` natural cards. Counting in two passes:

1. **Every rank multiset** (counts 0..4 per rank, summing to n), weighted by its suit
   assignments ``prod C(4, c_r)``, is filed under its category *as if no suit held a flush*.
2. **Flush correction.** A hand with a flush suit (at least ``5 - j`` naturals of one suit;
   never two such suits, patterns.py) is exactly: the suit (4 ways), the set F of its ranks
   (C(13, |F|)), and the other ``n - |F|`` naturals as a rank multiset M over the three other
   suits (``prod C(3, m_r)`` ways; they can never make a second flush suit). Each such hand
   moves from its pass-1 category to its real one.

With the ``C(J, j)`` ways to pick the hand's jokers from the deck's J, every one of the
C(52 + J, 7) hands is counted once (the totals are checked). About 300,000 patterns in all
instead of 177 million hands.

The counts belong to the deck alone, so a process counts each deck once (``_COUNTED``): every
table app of a floor, every par-sheet request and every table's theoretical win of the same game
share them, where each used to spend one to three seconds of CPU on the same count.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from math import comb

from ..game.cards import Game
from ..game.evaluator import HighCategory, SevenCardCategory
from .patterns import RANKS, SUITS, big_hand, rank_multisets, suit_ways, suited_category, unsuited_category

Progress = Callable[[int, int], None]  # (steps done, steps in all)


@dataclass(frozen=True, slots=True)
class SevenCardCounts:
    """Hands of seven cards from one deck, by best five-card category and by Big Hand line
    (one instance per deck and process, shared by every caller: read, never changed)."""

    deck_jokers: int
    total: int
    best_five: dict[HighCategory, int]
    big_hand: dict[SevenCardCategory, int]
    by_jokers: dict[int, int]  # hands holding 0, 1, 2 jokers


def _flush_cases(naturals: int, jokers: int) -> list[tuple[int, int]]:
    """(flush set size, rest size) for a hand of ``naturals`` natural cards."""
    return [(size, naturals - size) for size in range(max(5 - jokers, 0), naturals + 1)]


_COUNTED: dict[Game, SevenCardCounts] = {}
_COUNTING = threading.Lock()  # one count per deck even when two threads ask at once


def count_seven_card_hands(game: Game, progress: Progress | None = None) -> SevenCardCounts:
    """Exact category counts of every seven-card hand of ``game``'s deck, counted once per
    process (``progress`` hears the count's steps, or one step when it was already counted)."""
    with _COUNTING:
        counts = _COUNTED.get(game)
        if counts is None:
            counts = _COUNTED[game] = _count(game, progress)
        elif progress is not None:
            progress(1, 1)
    return counts


def _count(game: Game, progress: Progress | None) -> SevenCardCounts:
    deck_jokers = game.jokers
    high: Counter[HighCategory] = Counter()
    big: Counter[SevenCardCategory] = Counter()
    by_jokers: dict[int, int] = {}
    plain_of: dict[tuple[int, ...], tuple[HighCategory, SevenCardCategory]] = {}  # pass 1, reused by pass 2
    steps: list[tuple[int, tuple[int, int] | None]] = [(j, None) for j in range(deck_jokers + 1)]
    steps += [(j, case) for j in range(deck_jokers + 1) for case in _flush_cases(7 - j, j)]
    for done, (jokers, case) in enumerate(steps):
        weight = comb(deck_jokers, jokers)
        naturals = 7 - jokers
        if case is None:
            hands = 0
            for counts in rank_multisets(naturals, SUITS):
                ways = weight * suit_ways(counts)
                hands += ways
                plain = unsuited_category(counts, jokers)
                plain_big = big_hand(counts, jokers, 0, plain)
                plain_of[counts] = plain, plain_big
                high[plain] += ways
                big[plain_big] += ways
            by_jokers[jokers] = hands
        else:
            size, rest = case
            others = [(m, suit_ways(m, SUITS - 1)) for m in rank_multisets(rest, SUITS - 1)]
            for flush in combinations(range(RANKS), size):
                flush_mask = sum(1 << r for r in flush)
                suited = suited_category(flush_mask, jokers)
                for extra, extra_ways in others:
                    counts = tuple(c + (flush_mask >> r & 1) for r, c in enumerate(extra))
                    ways = weight * SUITS * extra_ways
                    plain, as_plain = plain_of[counts]
                    best = max(plain, suited)
                    if best != plain:
                        high[best] += ways
                        high[plain] -= ways
                    real = big_hand(counts, jokers, flush_mask, best)
                    if real != as_plain:
                        big[real] += ways
                        big[as_plain] -= ways
        if progress is not None:
            progress(done + 1, len(steps))
    total = comb(52 + deck_jokers, 7)
    if sum(high.values()) != total or sum(big.values()) != total or sum(by_jokers.values()) != total:
        raise AssertionError("the pattern counts do not add up to every hand")  # a bug, never the input
    return SevenCardCounts(
        deck_jokers=deck_jokers,
        total=total,
        best_five={category: high.get(category, 0) for category in HighCategory},
        big_hand={category: big.get(category, 0) for category in SevenCardCategory},
        by_jokers=by_jokers,
    )


__all__ = ["Progress", "SevenCardCounts", "count_seven_card_hands"]
