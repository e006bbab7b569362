"""Ranks and rank groups as the way files name them (the joker is an Ace: docs/house-way.md, Readings G2).

A rank is read by ``cards.parse_rank``, the game core's one definition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from ..cards import Card, parse_rank
from ..evaluator import rank_low
from .facts import HandFacts


def parse_ranks(values: Any) -> frozenset[int]:
    if not isinstance(values, list) or not values:
        raise ValueError(f"expected a non-empty list of ranks, got {values!r}")
    return frozenset(parse_rank(value) for value in values)


def parse_two_card_hand(text: Any) -> int:
    """A reference two-card hand such as "KJ", "A8", "AA", "Q2" -> its rank_low score."""
    if not isinstance(text, str):
        raise ValueError(f"expected a two-card hand such as 'KJ', got {text!r}")
    key = text.strip().upper().replace("10", "T")
    if len(key) != 2:
        raise ValueError(f"expected a two-card hand such as 'KJ', got {text!r}")
    first, second = parse_rank(key[0]), parse_rank(key[1])
    return rank_low((Card(first, "s"), Card(second, "h")))


def group_sizes(size: Any) -> tuple[int, ...]:
    sizes = tuple(size) if isinstance(size, list) else (size,)
    if not sizes or any(isinstance(s, bool) or not isinstance(s, int) or not 2 <= s <= 5 for s in sizes):
        raise ValueError(f"group size must be 2..5 or a list of them, got {size!r}")
    return sizes


_WHICH = ("lowest", "highest", "only")


def check_which(which: str) -> str:
    if which not in _WHICH:
        raise ValueError(f"which must be one of {_WHICH}, got {which!r}")
    return which


def group_rank_of(facts: HandFacts, sizes: tuple[int, ...], which: str) -> int | None:
    """Rank of the group of one of ``sizes`` cards (joker = Ace, G2) picked by ``which``."""
    ranks: Sequence[int]
    if sizes == (2,):
        ranks = facts.pairs
    elif sizes == (3,):
        ranks = facts.threes
    else:
        ranks = sorted(rank for rank, size in facts.counts.items() if size in sizes)
    if not ranks:
        return None
    if which == "lowest":
        return ranks[0]
    if which == "highest":
        return ranks[-1]
    return ranks[0] if len(ranks) == 1 else None


def group_rank_getter(sizes: tuple[int, ...], which: str) -> Callable[[HandFacts], int | None]:
    """group_rank_of for fixed ``sizes`` and ``which``, made once when a way is loaded."""
    ranks_of: Callable[[HandFacts], Sequence[int]]
    if sizes == (2,) or sizes == (3,):
        ranks_of = attrgetter("pairs" if sizes == (2,) else "threes")
    else:

        def ranks_of(f: HandFacts) -> list[int]:
            return sorted(rank for rank, size in f.counts.items() if size in sizes)

    if which == "lowest":

        def lowest(f: HandFacts) -> int | None:
            ranks = ranks_of(f)
            return ranks[0] if ranks else None

        return lowest
    if which == "highest":

        def highest(f: HandFacts) -> int | None:
            ranks = ranks_of(f)
            return ranks[-1] if ranks else None

        return highest

    def only(f: HandFacts) -> int | None:
        ranks = ranks_of(f)
        return ranks[0] if len(ranks) == 1 else None

    return only
