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
from math import comb

import numba as nb
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


LOW_SHIFT = 10  # a hand's value for the compiled loop: high score << 10 | low score (< 1024)
LOW_MASK = (1 << LOW_SHIFT) - 1


@nb.njit(cache=True)
def _rank(hand_positions, binomial):
    rank = 0
    for j in range(len(hand_positions)):
        rank += binomial[hand_positions[j], j + 1]
    return rank


@nb.njit(cache=True, parallel=True)
def _compiled_pairs(positions, colex_value, binomial, deck_size, workers):
    """Per worker, pairs by the player's (high result * 3 + low result), results 0 lose, 1 copy, 2 win."""
    out = np.zeros((workers, 9), np.int64)
    hands = len(positions)
    take = HAND
    left = deck_size - take
    if left < take:
        return out
    for worker in nb.prange(workers):
        free = np.empty(left, np.int64)
        index = np.empty(take, np.int64)
        partial = np.empty(take + 1, np.int64)
        for i in range(worker, hands, workers):
            n = 0
            held = 0
            for p in range(deck_size):
                if held < take and positions[i, held] == p:
                    held += 1
                else:
                    free[n] = p
                    n += 1
            for j in range(take):
                index[j] = j
            partial[0] = 0
            for j in range(take):
                partial[j + 1] = partial[j] + binomial[free[j], j + 1]
            mine = colex_value[_rank(positions[i], binomial)]
            high, low = mine >> LOW_SHIFT, mine & LOW_MASK
            while True:
                theirs = colex_value[partial[take]]
                other_high, other_low = theirs >> LOW_SHIFT, theirs & LOW_MASK
                hr = 2 if high > other_high else (1 if high == other_high else 0)
                lr = 2 if low > other_low else (1 if low == other_low else 0)
                out[worker, hr * 3 + lr] += 1
                j = take - 1
                while j >= 0 and index[j] == left - take + j:
                    j -= 1
                if j < 0:
                    break
                index[j] += 1
                partial[j + 1] = partial[j] + binomial[free[index[j]], j + 1]
                for k in range(j + 1, take):
                    index[k] = index[k - 1] + 1
                    partial[k + 1] = partial[k] + binomial[free[index[k]], k + 1]
    return out


def brute_force_compiled(
    deck: Deck, hands: np.ndarray, highs: np.ndarray, lows: np.ndarray, workers: int = 2
) -> Counter[tuple[int, HandResult | None, HandResult | None]]:
    """``brute_force`` for a standard deal (every dealer compared), compiled: each hand of
    ``hands`` (card ids, ``deck_hands`` order) against every hand of the cards it leaves,
    found by its colex rank. For decks too large for the numpy reference (25 cards)."""
    ids = deck.card_ids()
    position_of = {card: p for p, card in enumerate(ids)}
    positions = np.sort(np.vectorize(position_of.__getitem__)(hands), axis=1).astype(np.int64)
    binomial = np.array([[comb(n, k) for k in range(HAND + 1)] for n in range(deck.size + 1)], np.int64)
    ranks = sum(binomial[positions[:, j], j + 1] for j in range(HAND))
    if lows.max() > LOW_MASK:
        raise ValueError("low scores beyond the compiled loop's 10 bits")
    colex_value = np.full(comb(deck.size, HAND), -1, np.int64)
    colex_value[ranks] = (highs.astype(np.int64) << LOW_SHIFT) | lows
    if np.any(colex_value < 0):
        raise ValueError("the hands are not every hand of the deck")
    out = _compiled_pairs(positions, colex_value, binomial, deck.size, workers).sum(axis=0)
    tally: Counter[tuple[int, HandResult | None, HandResult | None]] = Counter()
    for value, count in enumerate(out.tolist()):
        if count:
            tally[(COMPARED, RESULTS[value // 3], RESULTS[value % 3])] += count
    return tally


__all__ = [
    "COMPARED",
    "NOT_QUALIFIED",
    "OVERQUALIFIED",
    "brute_force",
    "brute_force_compiled",
    "deck_hands",
    "disjoint_pairs",
    "hand_masks",
]
