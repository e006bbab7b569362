"""Which straight a hand uses: the longest run of consecutive ranks (house-way-readings.md G7).

Ranks are held in a *presence mask* with one 4-bit nibble per rank: rank ``r`` (2..14) is
bit ``4 * r``, and an Ace is also bit 4 (rank 1), since it may play low (A-2-3...) or high
(...K-A), never both in one run. (Nibbles because facts.py reads the mask straight out of
the hand's rank counters.) Jokers fill gaps or extend the run (002_08ea07f9e4b504bc.txt:
the joker completes a straight).

Choice of run (readings G7, and docs/house-way.md "Choices"): the longest; among runs of
that length made of different natural cards, the one whose best straight ranks highest
(A-2-3-4-5 per the table's wheel rule); among placements of the same natural cards, the
jokers go at the bottom ("When the joker could stand at either end, it goes at the bottom").
Results are cached per (mask, jokers, wheel): a few thousand entries at most.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

ACE = 14
NIBBLE = 4
ACE_LOW = 1 << NIBBLE  # rank 1: the Ace played low
ACE_HIGH = 1 << (NIBBLE * ACE)
_ONES = sum(1 << (NIBBLE * rank) for rank in range(15))  # the lowest bit of every nibble


def rank_bit(rank: int) -> int:
    """The presence bit(s) of a natural rank (2..14); an Ace sets both ends."""
    return (1 << (NIBBLE * rank)) | (ACE_LOW if rank == ACE else 0)


def rank_mask(ranks: Iterable[int]) -> int:
    """The presence mask of natural ranks."""
    mask = 0
    for rank in ranks:
        mask |= rank_bit(rank)
    return mask


def presence(counters: int) -> int:
    """Presence mask from per-rank nibble counters (counts 0..7), the Ace at both ends."""
    mask = (counters | counters >> 1 | counters >> 2) & _ONES
    return mask | ((mask >> (NIBBLE * (ACE - 1))) & ACE_LOW)


def _window(low: int, length: int) -> int:
    return sum(1 << (NIBBLE * rank) for rank in range(low, low + length))


_WINDOWS = {length: [(low, _window(low, length)) for low in range(1, 16 - length)] for length in (5, 6, 7)}


def _value(low: int, length: int, nevada: bool) -> int:
    """How high a run stands, to choose among runs of equal length (A-high 15, wheel 14 or 5)."""
    top = low + length - 1
    if top == ACE:
        return 15
    if low == 1 and length == 5:
        return 14 if nevada else 5
    return top


@cache
def straight_window(mask: int, jokers: int, nevada: bool = True) -> tuple[int, int] | None:
    """``(lowest rank, length)`` of the run used (module docstring), or None below 5 cards.

    The lowest rank is 1 for a run that starts with an Ace played low.
    """
    found: list[tuple[int, int]] = []
    length = 0
    for length in (7, 6, 5):
        for low, window in _WINDOWS[length]:
            if length - (mask & window).bit_count() <= jokers:
                found.append((low, mask & window))
        if found:
            break
    if not found:
        return None
    best: dict[int, list[int]] = {}  # natural cards of the run -> [value, lowest start]
    for low, naturals in found:
        value = _value(low, length, nevada)
        entry = best.get(naturals)
        if entry is None:
            best[naturals] = [value, low]
        else:
            entry[0] = max(entry[0], value)
            entry[1] = min(entry[1], low)
    _, low = max(best.values())
    return low, length


@cache
def five_card_windows(mask: int, jokers: int) -> tuple[int, ...]:
    """Lowest ranks of every 5-rank window the ranks fill, jokers filling the gaps."""
    return tuple(low for low, window in _WINDOWS[5] if 5 - (mask & window).bit_count() <= jokers)
