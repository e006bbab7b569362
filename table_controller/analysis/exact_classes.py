"""Card sets up to suit symmetry: the groups of the exact house-edge count (docs/math.md,
"Exact house edge").

The inclusion-exclusion of ``exact.py`` sums over every set S of at most six cards of a
deck. Renaming the four suits changes no hand's setting (a hand's setting depends on its
pattern, lookup.py, which no suit renaming changes), so two sets that differ only by a
renaming of suits count the same, and only one set per class is visited, weighted by the
size of its class.

A set is its jokers and four 13-bit rank masks, one per suit. Sorting the four masks is a
canonical form under the 24 renamings; the class of a set whose masks show multiplicities
m1, m2, ... has ``24 / (m1! m2! ...)`` sets (``s! / ...`` for a test deck of ``s`` suits).
The deck's jokers are interchangeable too: a set holding ``j`` of the deck's J jokers stands
for ``C(J, j)`` sets.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import combinations
from math import comb, factorial

import numpy as np

from .lookup import BIT_OF_ID
from .patterns import RANKS, SUITS

JOKER_BITS = (1 << 52, (1 << 52) | (1 << 53))  # a set's jokers: ids 52, then 53


@dataclass(frozen=True)
class Deck:
    """A deck of every card of some ranks (indices 0..12 for 2..Ace) in some suits (indices
    into cards.SUIT_CHARS), and 0-2 jokers. The game's decks hold all 13 ranks in all four
    suits; smaller decks are for tests."""

    ranks: tuple[int, ...]
    jokers: int
    suits: tuple[int, ...] = tuple(range(SUITS))

    @classmethod
    def full(cls, jokers: int) -> Deck:
        return cls(tuple(range(RANKS)), jokers)

    @property
    def rank_mask(self) -> int:
        return sum(1 << r for r in self.ranks)

    @property
    def size(self) -> int:
        return len(self.suits) * len(self.ranks) + self.jokers

    def card_ids(self) -> list[int]:
        return [s * RANKS + r for s in self.suits for r in self.ranks] + [52, 53][: self.jokers]

    def card_bits(self) -> np.ndarray:
        return BIT_OF_ID[self.card_ids()]


@dataclass(frozen=True)
class SetClasses:
    """One set per class: its cards as a mask (lookup.py's layout), its size, its class size."""

    masks: np.ndarray  # int64
    sizes: np.ndarray  # int64
    weights: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.masks)

    def select(self, which: np.ndarray) -> SetClasses:
        return SetClasses(self.masks[which], self.sizes[which], self.weights[which])


def _orbit_size(suit_masks: tuple[int, ...]) -> int:
    size = factorial(len(suit_masks))
    for mask in set(suit_masks):
        size //= factorial(suit_masks.count(mask))
    return size


def _sorted_suit_masks(rank_mask: int, suits: int, naturals: int) -> list[tuple[int, ...]]:
    """Every non-increasing ``suits``-tuple of subsets of ``rank_mask``, ``naturals`` cards in all."""
    ranks = [r for r in range(RANKS) if rank_mask >> r & 1]
    by_size = [
        sorted(sum(1 << r for r in chosen) for chosen in combinations(ranks, size))
        for size in range(min(naturals, len(ranks)) + 1)
    ]
    out: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], left: int, ceiling: int) -> None:
        slots = suits - len(prefix)
        if slots == 0:
            if left == 0:
                out.append(prefix)
            return
        for size, masks in enumerate(by_size):
            rest = left - size
            # The other slots - 1 masks hold the rest: none if this one is empty (they are smaller).
            if rest < 0 or rest > (slots - 1) * (len(ranks) if size else 0):
                continue
            for mask in masks[: bisect_right(masks, ceiling)]:
                extend((*prefix, mask), rest, mask)

    extend((), naturals, (1 << RANKS) - 1)
    return out


def set_classes(deck: Deck, max_size: int) -> SetClasses:
    """One set per suit-renaming class for every set of 0..``max_size`` cards of ``deck``."""
    masks: list[int] = []
    sizes: list[int] = []
    weights: list[int] = []
    for size in range(max_size + 1):
        for jokers in range(min(deck.jokers, size) + 1):
            joker_bits = JOKER_BITS[jokers - 1] if jokers else 0
            for suit_masks in _sorted_suit_masks(deck.rank_mask, len(deck.suits), size - jokers):
                mask = joker_bits
                for suit, ranks in zip(deck.suits, suit_masks, strict=True):
                    mask |= ranks << (RANKS * suit)
                masks.append(mask)
                sizes.append(size)
                weights.append(comb(deck.jokers, jokers) * _orbit_size(suit_masks))
    return SetClasses(np.array(masks, np.int64), np.array(sizes, np.int64), np.array(weights, np.int64))


def every_set(deck: Deck, max_size: int) -> SetClasses:
    """Every set of 0..``max_size`` cards of ``deck``, each its own class (no symmetry: tests)."""
    bits = [int(b) for b in deck.card_bits()]
    masks: list[int] = []
    sizes: list[int] = []
    for size in range(max_size + 1):
        for chosen in combinations(bits, size):
            masks.append(sum(chosen))
            sizes.append(size)
    return SetClasses(np.array(masks, np.int64), np.array(sizes, np.int64), np.ones(len(masks), np.int64))


__all__ = ["Deck", "SetClasses", "every_set", "set_classes"]
