"""Which straight a hand uses: the longest run of consecutive ranks (docs/house-way.md, Readings G7).

Ranks are held in a *presence mask* with one 4-bit nibble per rank: rank ``r`` (2..14) is
bit ``4 * r``, and an Ace is also bit 4 (rank 1), since it may play low (A-2-3...) or high
(...K-A), never both in one run. (Nibbles because facts.py reads the mask straight out of
the hand's rank counters.) Jokers fill gaps or extend the run (002_08ea07f9e4b504bc.txt:
the joker completes a straight).

Runs (docs/house-way.md, Readings G7 and "Choices"): the longest; among runs of that
length made of different natural cards, ``straight_window`` gives the one whose best
straight ranks highest (A-2-3-4-5 per the table's wheel rule) and ``straight_windows`` all of
them, that one first (the engine keeps the one leaving the highest front, ties to the
first); among placements of the same natural cards, the jokers go at the bottom.

Speed (docs/house-way.md, "Speed"): the ranks held in every window of a length are counted at
once, each window's count in its own nibble (the mask plus its shifts), and the windows a run
can fill are read from the nibbles that reach the count needed. No table and no cache: every
hand pays the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import ACE

NIBBLE = 4
ACE_LOW = 1 << NIBBLE  # rank 1: the Ace played low
ACE_HIGH = 1 << (NIBBLE * ACE)
_ONES = sum(1 << (NIBBLE * rank) for rank in range(15))  # the lowest bit of every nibble
_ACE_TO_LOW = NIBBLE * (ACE - 1)
_MAX_JOKERS = 2  # the window counts below stay inside their nibbles up to two jokers


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
    return mask | ((mask >> _ACE_TO_LOW) & ACE_LOW)


def _window(low: int, length: int) -> int:
    return sum(1 << (NIBBLE * rank) for rank in range(low, low + length))


_WINDOWS = {length: [(low, _window(low, length)) for low in range(1, 16 - length)] for length in (5, 6, 7)}
_WINDOW_AT = {length: dict(windows) for length, windows in _WINDOWS.items()}
# Bit 3 of the nibble of every window start of a length (1 .. 15 - length).
_STARTS = {length: sum(8 << (NIBBLE * low) for low, _ in windows) for length, windows in _WINDOWS.items()}


def _counts(mask: int) -> tuple[int, int, int]:
    """Per start rank, in its nibble: ranks of the mask in the window of 5, 6 and 7 ranks."""
    five = mask + (mask >> 4) + (mask >> 8) + (mask >> 12) + (mask >> 16)
    six = five + (mask >> 20)
    return five, six, six + (mask >> 24)


def _reaching(counts: int, need: int, length: int) -> int:
    """Nibble bits of the starts whose window count is at least ``need`` (0 < need <= 7):
    adding 8 - need sets bit 3 exactly there, with no carry (counts are at most 7)."""
    return (counts + (8 - need) * _ONES) & _STARTS[length]


def _starts(bits: int) -> list[int]:
    """Start ranks named by nibble bits (from _reaching), lowest first."""
    lows = []
    while bits:
        bit = bits & -bits
        lows.append((bit.bit_length() - 4) // NIBBLE)
        bits ^= bit
    return lows


def straight_possible(counters: int, jokers: int) -> bool:
    """Can these ranks (per-rank nibble counters, as in a hand's code) and jokers make a
    straight? The same answer as ``straight_window(presence(counters), jokers) is not None``."""
    mask = presence(counters)
    if not 0 <= jokers <= _MAX_JOKERS:
        return _straight_window_by_windows(mask, jokers, True) is not None
    five = mask + (mask >> 4) + (mask >> 8) + (mask >> 12) + (mask >> 16)
    return bool((five + (3 + jokers) * _ONES) & _STARTS[5])


def _value(low: int, length: int, nevada: bool) -> int:
    """How high a run stands, to choose among runs of equal length (A-high 15, wheel 14 or 5)."""
    top = low + length - 1
    if top == ACE:
        return 15
    if low == 1 and length == 5:
        return 14 if nevada else 5
    return top


def _choose(found: list[tuple[int, int]], length: int, nevada: bool) -> tuple[int, int]:
    """Among runs of one length, (lowest start, natural cards) each: the module doc's choice."""
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


def straight_window(mask: int, jokers: int, nevada: bool = True) -> tuple[int, int] | None:
    """``(lowest rank, length)`` of the run used (module docstring), or None below 5 cards.

    The lowest rank is 1 for a run that starts with an Ace played low.
    """
    if not 0 <= jokers <= _MAX_JOKERS:
        return _straight_window_by_windows(mask, jokers, nevada)
    mask &= _ONES
    five = mask + (mask >> 4) + (mask >> 8) + (mask >> 12) + (mask >> 16)
    # (_reaching, inline: this is on the path of every straight with a joker)
    if not (five + (3 + jokers) * _ONES) & _STARTS[5]:
        return None
    six = five + (mask >> 20)
    seven = six + (mask >> 24)
    length = 7
    starts = (seven + (1 + jokers) * _ONES) & _STARTS[7]
    if not starts:
        length = 6
        starts = (six + (2 + jokers) * _ONES) & _STARTS[6]
        if not starts:
            length = 5
            starts = (five + (3 + jokers) * _ONES) & _STARTS[5]
    if not starts & (starts - 1):  # one start: no choice to make
        return (starts.bit_length() - 4) // NIBBLE, length
    windows = _WINDOW_AT[length]
    return _choose([(low, mask & windows[low]) for low in _starts(starts)], length, nevada)


def straight_windows(mask: int, jokers: int, nevada: bool = True) -> list[tuple[int, int]]:
    """Every run of the longest length made of different natural cards, each placed lowest
    (the jokers at the bottom), the higher first: the first is ``straight_window``'s. More
    than one only when a joker can fill different gaps; docs/house-way.md, Readings G7, then
    uses the one that leaves the highest two-card hand in front (engine.py)."""
    mask &= _ONES
    for length in (7, 6, 5):
        found = [
            (low, mask & window)
            for low, window in _WINDOWS[length]
            if length - (mask & window).bit_count() <= jokers
        ]
        if found:
            break
    else:
        return []
    best: dict[int, list[int]] = {}  # natural cards of the run -> [value, lowest start]
    for low, naturals in found:
        value = _value(low, length, nevada)
        entry = best.setdefault(naturals, [value, low])
        entry[0] = max(entry[0], value)
        entry[1] = min(entry[1], low)
    return [(low, length) for _, low in sorted(best.values(), reverse=True)]


# a byte of a rank mask -> the same bits, one per nibble (a presence mask's layout)
_SPREAD = tuple(sum(1 << (NIBBLE * bit) for bit in range(8) if byte >> bit & 1) for byte in range(256))


def spread(ranks: int) -> int:
    """The presence mask (one nibble per rank) of a rank mask (one bit per rank)."""
    return _SPREAD[ranks & 255] | _SPREAD[ranks >> 8 & 255] << (8 * NIBBLE)


def straight_window_of_ranks(ranks: int, jokers: int, nevada: bool = True) -> tuple[int, int] | None:
    """straight_window for a *rank mask*: bit ``r`` for rank r (2..14), bit 1 for an Ace
    (the form facts.py keeps for a hand). Without jokers, runs of one length that differ
    would hold more than seven ranks, so the longest run is the only one of its length."""
    if jokers:
        return straight_window(spread(ranks), jokers, nevada)
    starts = ranks & ranks >> 1 & ranks >> 2 & ranks >> 3 & ranks >> 4
    if not starts:
        return None
    length = 5
    longer = starts & ranks >> 5
    if longer:
        starts, length = longer, 6
        longer = starts & ranks >> 6
        if longer:
            starts, length = longer, 7
    if starts & (starts - 1):
        raise AssertionError(f"two runs of {length} in seven cards: {ranks:#b}")
    return starts.bit_length() - 1, length


def _straight_window_by_windows(mask: int, jokers: int, nevada: bool = True) -> tuple[int, int] | None:
    """straight_window by trying every window (any number of jokers; the tests compare)."""
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
    return _choose(found, length, nevada)


def five_card_windows(mask: int, jokers: int) -> tuple[int, ...]:
    """Lowest ranks of every 5-rank window the ranks fill, jokers filling the gaps."""
    if not 0 <= jokers <= _MAX_JOKERS:
        return tuple(low for low, window in _WINDOWS[5] if 5 - (mask & window).bit_count() <= jokers)
    five = _counts(mask & _ONES)[0]
    return tuple(_starts(_reaching(five, 5 - jokers, 5)))
