"""The reference for the exact count: every ordered pair of disjoint hands of a (small) deck
visited one by one, settled by the game's own comparison table (settlement.COMPARISON_RULES).

Used by tests/analysis/test_exact.py (the method equals it on reduced decks) and by
benchmarks/bench_exact_edge.py (its rate per pair is the baseline). Vectorised with numpy,
but pair by pair: no inclusion-exclusion, no symmetry, no sweep.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

import numpy as np

from ..game.settlement import HandResult
from .exact_classes import Deck
from .lookup import masks_of_ids

HAND = 7
COMPARED, NOT_QUALIFIED, OVERQUALIFIED = 0, 1, 2  # the dealer's state (003)
RESULTS = (HandResult.LOSE, HandResult.COPY, HandResult.WIN)  # the player's, by sign(P - D) + 1


def deck_hands(deck: Deck) -> np.ndarray:
    """Every hand of the deck as card ids, shape (hands, 7)."""
    return np.array(list(combinations(deck.card_ids(), HAND)), np.int64).reshape(-1, HAND)


def disjoint_pairs(
    deck: Deck, masks: np.ndarray, chunk: int = 20_000
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(player rows (n,), dealer rows (n, C)): each hand of ``masks`` with every hand of the
    cards it does not hold, C = C(deck - 7, 7)."""
    bits = deck.card_bits()
    order = np.argsort(masks)
    ordered = masks[order]
    left = deck.size - HAND
    choose = np.array(list(combinations(range(left), HAND)), np.intp).reshape(-1, HAND)
    for start in range(0, len(masks), chunk):
        rows = np.arange(start, min(start + chunk, len(masks)))
        free = (bits[None, :] & masks[rows, None]) == 0
        rest = np.broadcast_to(bits, free.shape)[free].reshape(len(rows), left)
        dealer = np.bitwise_or.reduce(rest[:, choose], axis=-1)
        at = np.searchsorted(ordered, dealer)
        if not np.array_equal(ordered[at.clip(0, len(ordered) - 1)], dealer):
            raise AssertionError("a dealer hand that is not a hand of the deck")  # a bug
        yield rows, order[at]


def brute_force(
    deck: Deck, masks: np.ndarray, highs: np.ndarray, lows: np.ndarray, dealer_state: np.ndarray
) -> Counter[tuple[int, HandResult | None, HandResult | None]]:
    """Ordered pairs of disjoint hands by (dealer state, player's high result, low result);
    the results are None when the dealer is not compared."""
    tally: Counter[tuple[int, HandResult | None, HandResult | None]] = Counter()
    for players, dealers in disjoint_pairs(deck, masks):
        high = np.sign(highs[players, None] - highs[dealers]) + 1
        low = np.sign(lows[players, None] - lows[dealers]) + 1
        state = dealer_state[dealers]
        code = np.where(state == COMPARED, high * 3 + low, 9 + state)
        for value, count in enumerate(np.bincount(code.ravel(), minlength=12).tolist()):
            if not count:
                continue
            if value < 9:
                tally[(COMPARED, RESULTS[value // 3], RESULTS[value % 3])] += count
            else:
                tally[(value - 9, None, None)] += count
    return tally


def hand_masks(hands: np.ndarray) -> np.ndarray:
    return masks_of_ids(hands)


__all__ = [
    "COMPARED",
    "NOT_QUALIFIED",
    "OVERQUALIFIED",
    "brute_force",
    "deck_hands",
    "disjoint_pairs",
    "hand_masks",
]
