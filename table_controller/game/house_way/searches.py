"""Searches over the 21 splits that predicates and actions share (strong-004's straight-or-flush top)."""

from __future__ import annotations

from itertools import combinations

from ..evaluator import HighCategory
from .facts import HandFacts

_STRAIGHT_CLASS = {HighCategory.STRAIGHT: "straight"}
_FLUSH_CLASS = {
    HighCategory.FLUSH: "flush",
    HighCategory.STRAIGHT_FLUSH: "flush",
    HighCategory.ROYAL_FLUSH: "flush",
}


# per class: (the split's key, the split's two front cards)
_Tops = dict[str, tuple[tuple[int, int, int], tuple[int, int]]]


def _tops(f: HandFacts) -> _Tops:
    """Per class (straight / flush, the latter with straight and royal flushes), the split with
    the best two-card hand in front (then the best high hand, then the joker behind)."""
    memo: _Tops | None = f.memo.get("tops")
    if memo is not None:
        return memo
    tops: _Tops = {}
    for a, b in combinations(range(7), 2):
        rest = [i for i in range(7) if i != a and i != b]
        ranks = [f.grank[i] for i in rest if i not in f.jokers]
        if len(set(ranks)) != len(ranks):
            continue  # a natural pair behind: neither a straight nor a flush
        if not f.makes_flush(rest) and f.run_window_of(rest) is None:
            continue
        high, low = f.value((a, b))
        category = HighCategory(high >> 20)
        kind = _STRAIGHT_CLASS.get(category) or _FLUSH_CLASS.get(category)
        if kind is None:
            continue
        key = (low, high, -f.jokers_in((a, b)))
        if kind not in tops or key > tops[kind][0]:
            tops[kind] = (key, (a, b))
    f.memo["tops"] = tops
    return tops


def _close(low_a: int, low_b: int) -> bool:
    """004 "tops adjacent or essentially the same": both unpaired, and the same or adjacent
    top card, or both tops Q-x or lower (docs/house-way.md, strong-004 choices)."""
    if low_a >> 8 or low_b >> 8:
        return False
    a, b = (low_a >> 4) & 15, (low_b >> 4) & 15
    return abs(a - b) <= 1 or (a <= 12 and b <= 12)


def straight_or_flush_choice(
    f: HandFacts, prefer_flush_when_close: bool
) -> tuple[tuple[int, int], int] | None:
    """The split a straight-or-flush play gives, and its low score (004 "Straight with Flush")."""
    key = ("choice", prefer_flush_when_close)
    if key in f.memo:
        memo: tuple[tuple[int, int], int] | None = f.memo[key]
        return memo
    tops = _tops(f)
    choice = None
    if tops:
        straight, flush = tops.get("straight"), tops.get("flush")
        if straight and flush and prefer_flush_when_close and _close(straight[0][0], flush[0][0]):
            pick = flush
        else:
            pick = max(tops.values())
        choice = (pick[1], pick[0][0])
    f.memo[key] = choice
    return choice
