"""Compiled loops of the exact house-edge count (numba): per group of hands, the pair counts
by outcome cell (docs/math.md, "Exact house edge").

A *group* is every seven-card hand of the deck holding a given card set S. For one group,
``group_cells`` counts the ordered pairs (player hand P, dealer hand D) of its hands, D
among the *compared* hands (flag set; every hand in the standard game), by how P's high and
low hands compare with D's (codes below), not caring whether P and D share cards: that is
what the inclusion-exclusion of ``exact.py`` undoes.

A hand's *code* is ``high ordinal << 8 | low ordinal << 1 | compared`` where the ordinals
number the distinct high and low scores of the house way's settings in order (so comparing
ordinals is comparing scores). A hand's code is found from its card mask as the
simulation finds its lookup row (lookup.py: pattern key, open-addressing hash table).

The cells, for the player (a copy goes to the banker, 000_f88fa0f023e5142c.txt):

=====  ==========================  =======
index  high, low                   outcome
=====  ==========================  =======
0      pairs in all (|A| * |B|)
1      won, won                    win
2      lost, lost                  lose
3      won, copy                   push
4      lost, copy                  lose
5      copy, won                   push
6      copy, lost                  lose
7      copy, copy                  lose
=====  ==========================  =======

Won/lost, lost/won (a push without a copy) is the rest of the pairs.

Per group, the hands are either sorted (small groups) or counted into a histogram of codes
(large ones); then one sweep in order of high ordinal, with Fenwick trees over the low
ordinal for the hands of lower high hands, counts every cell.
"""

from __future__ import annotations

import numba as nb
import numpy as np

CELLS = 8
PAIRS, WON_WON, LOST_LOST, WON_COPY, LOST_COPY, COPY_WON, COPY_LOST, COPY_COPY = range(CELLS)
LOW_BITS = 7  # low ordinals < 128
HIGH_BITS = 13  # high ordinals < 8192
CODE_SPACE = 1 << (HIGH_BITS + LOW_BITS + 1)
LOW_SIZE = 1 << LOW_BITS
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
JOKER_SHIFT = 39
FLUSH_SHIFT = 41


@nb.njit(cache=True, inline="always")
def code_of_mask(
    mask: np.int64,
    spread: np.ndarray,
    popcount: np.ndarray,
    table_keys: np.ndarray,
    table_codes: np.ndarray,
    shift: np.uint64,
) -> np.int64:
    """The code of a hand mask (-1 when its pattern is not in the table): lookup.keys_of_masks,
    then the hash table's linear probing (lookup.SettingLookup.index)."""
    joker_bits = mask >> 52
    jokers = (joker_bits & 1) + (joker_bits >> 1)
    need = 5 - jokers
    key = jokers << JOKER_SHIFT
    flush = np.int64(0)
    for suit in range(4):
        ranks = (mask >> (13 * suit)) & 0x1FFF
        key += spread[ranks]
        if popcount[ranks] >= need:
            flush = ranks
    key |= flush << FLUSH_SHIFT
    slot = np.int64((np.uint64(key) * HASH_MULTIPLIER) >> shift)
    last = len(table_keys) - 1
    while True:
        found = table_keys[slot]
        if found == key:
            return np.int64(table_codes[slot])
        if found == -1:
            return np.int64(-1)
        slot = (slot + 1) & last


@nb.njit(cache=True)
def _sweep(highs, lows, a_counts, b_counts, used, fen_a, fen_b, point_a, point_b, cells) -> None:
    """Add the cells of entries (distinct (high, low) cells, sorted by high then low, with
    their counts of player hands A and compared hands B) into ``cells``."""
    fen_a[:] = 0
    fen_b[:] = 0
    point_a[:] = 0
    point_b[:] = 0
    total_a = np.int64(0)
    total_b = np.int64(0)
    i = 0
    while i < used:
        high = highs[i]
        j = i
        while j < used and highs[j] == high:
            j += 1
        run_a = np.int64(0)
        run_b = np.int64(0)
        for e in range(i, j):
            low = lows[e]
            a = a_counts[e]
            b = b_counts[e]
            below_a = np.int64(0)  # hands of lower high and lower low
            below_b = np.int64(0)
            x = low
            while x > 0:
                below_a += fen_a[x]
                below_b += fen_b[x]
                x -= x & -x
            cells[WON_WON] += a * below_b
            cells[LOST_LOST] += b * below_a
            cells[WON_COPY] += a * point_b[low]
            cells[LOST_COPY] += b * point_a[low]
            cells[COPY_WON] += a * run_b  # same high, lower low (the block is sorted by low)
            cells[COPY_LOST] += b * run_a
            cells[COPY_COPY] += a * b
            run_a += a
            run_b += b
        for e in range(i, j):
            low = lows[e]
            x = low + 1
            while x <= LOW_SIZE:
                fen_a[x] += a_counts[e]
                fen_b[x] += b_counts[e]
                x += x & -x
            point_a[low] += a_counts[e]
            point_b[low] += b_counts[e]
        total_a += run_a
        total_b += run_b
        i = j
    cells[PAIRS] += total_a * total_b


@nb.njit(cache=True)
def _enumerate(set_mask, take, others, histogram, codes, spread, popcount, table_keys, table_codes, shift):
    """Every hand ``set_mask`` | ``take`` of ``others``: counted into ``histogram`` (when it has
    cells) or written to ``codes``. Returns the number of hands, or -1 for an unknown pattern."""
    into_histogram = len(histogram) > 0
    m = len(others)
    if take > m:
        return 0
    index = np.arange(take)
    partial = np.empty(take + 1, np.int64)
    partial[0] = set_mask
    for i in range(take):
        partial[i + 1] = partial[i] | others[i]
    n = 0
    while True:
        code = code_of_mask(partial[take], spread, popcount, table_keys, table_codes, shift)
        if code < 0:
            return -1
        if into_histogram:
            histogram[code] += 1
        else:
            codes[n] = code
        n += 1
        i = take - 1
        while i >= 0 and index[i] == m - take + i:
            i -= 1
        if i < 0:
            return n
        index[i] += 1
        partial[i + 1] = partial[i] | others[index[i]]
        for j in range(i + 1, take):
            index[j] = index[j - 1] + 1
            partial[j + 1] = partial[j] | others[index[j]]


@nb.njit(cache=True)
def _entries_of_codes(codes, n, highs, lows, a_counts, b_counts):
    """Sorted codes -> distinct (high, low) entries with their A and B counts."""
    used = 0
    previous = -1
    for i in range(n):
        code = codes[i]
        cell = code >> 1
        if cell != previous:
            highs[used] = cell >> LOW_BITS
            lows[used] = cell & (LOW_SIZE - 1)
            a_counts[used] = 0
            b_counts[used] = 0
            used += 1
            previous = cell
        a_counts[used - 1] += 1
        b_counts[used - 1] += code & 1
    return used


@nb.njit(cache=True)
def _entries_of_histogram(histogram, highs, lows, a_counts, b_counts):
    """A histogram of codes -> distinct (high, low) entries (emptying the histogram)."""
    used = 0
    for cell in range(len(histogram) // 2):
        b = histogram[2 * cell + 1]
        a = histogram[2 * cell] + b
        if a:
            highs[used] = cell >> LOW_BITS
            lows[used] = cell & (LOW_SIZE - 1)
            a_counts[used] = a
            b_counts[used] = b
            used += 1
            histogram[2 * cell] = 0
            histogram[2 * cell + 1] = 0
    return used


@nb.njit(cache=True, parallel=True)
def group_cells(
    set_masks,
    sizes,
    deck_bits,
    hand_size,
    max_hands,
    use_histogram,
    spread,
    popcount,
    table_keys,
    table_codes,
    shift,
    workers,
):
    """Cells (``CELLS`` columns) of the group of every set; -1 in column 0 when a hand's
    pattern is not in the table. Sets are shared out over ``workers`` threads."""
    count = len(set_masks)
    out = np.zeros((count, CELLS), np.int64)
    for worker in nb.prange(workers):
        entries = min(max_hands, CODE_SPACE // 2) if use_histogram else max_hands
        histogram = np.zeros(CODE_SPACE if use_histogram else 0, np.int64)
        codes = np.empty(0 if use_histogram else max_hands, np.int64)
        highs = np.empty(entries, np.int64)
        lows = np.empty(entries, np.int64)
        a_counts = np.empty(entries, np.int64)
        b_counts = np.empty(entries, np.int64)
        fen_a = np.empty(LOW_SIZE + 1, np.int64)
        fen_b = np.empty(LOW_SIZE + 1, np.int64)
        point_a = np.empty(LOW_SIZE, np.int64)
        point_b = np.empty(LOW_SIZE, np.int64)
        cells = np.empty(CELLS, np.int64)
        for s in range(worker, count, workers):
            set_mask = set_masks[s]
            others = deck_bits[(deck_bits & set_mask) == 0]
            n = _enumerate(
                set_mask,
                hand_size - sizes[s],
                others,
                histogram,
                codes,
                spread,
                popcount,
                table_keys,
                table_codes,
                shift,
            )
            if n < 0:
                out[s, 0] = -1
                continue
            if use_histogram:
                used = _entries_of_histogram(histogram, highs, lows, a_counts, b_counts)
            else:
                codes[:n].sort()
                used = _entries_of_codes(codes, n, highs, lows, a_counts, b_counts)
            cells[:] = 0
            _sweep(highs, lows, a_counts, b_counts, used, fen_a, fen_b, point_a, point_b, cells)
            out[s, :] = cells
    return out


@nb.njit(cache=True)
def row_histogram(deck_bits, hand_size, rows, spread, popcount, table_keys, table_rows, shift):
    """Hands of the deck per lookup row (``table_rows`` holds rows): [hands or -1, counts...]."""
    histogram = np.zeros(rows, np.int64)
    n = _enumerate(
        0, hand_size, deck_bits, histogram, histogram, spread, popcount, table_keys, table_rows, shift
    )
    out = np.empty(rows + 1, np.int64)
    out[0] = n
    out[1:] = histogram
    return out


__all__ = ["CELLS", "CODE_SPACE", "code_of_mask", "group_cells", "row_histogram"]
