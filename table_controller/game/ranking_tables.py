"""Card integers and the lookup tables behind the fast five-card ranking.

A card is encoded as one small int (every field chosen so that the sum of five cards keeps
the fields apart, and every value stays below 2**30, a one-digit Python int):

    bits  0-7   the rank's prime (2, 3, 5, ... 41 for 2..Ace; the joker has its own, 43)
    bits  8-11  the suit, one bit per suit; the joker has all four bits set
    bits 15-28  one bit per rank (bit 15 + rank - 2); the joker has bit 15 + 13

Two facts make one hand one lookup:

- ``a & b & c & d & e & SUIT_MASK`` is non-zero exactly when every natural card is of one
  suit (the joker, holding all four suit bits, never breaks the AND). A natural pair always
  has two suits, so those hands never get there.
- Then the naturals have distinct ranks, so ``(a + b + c + d + e) >> RANK_SHIFT`` is their
  rank bitmask plus ``jokers * JOKER_RANK_BIT`` (one joker sets bit 13, two set bit 14): the
  key of the *suited* table. Otherwise the product of the five primes names the multiset of
  ranks (the joker included) and is the key of the *unsuited* table.

Which score a key gets is a rule, not a table matter: ``build_high_tables`` enumerates every
key once and asks the caller's scoring function (evaluator.py keeps the readable rules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from math import prod
from typing import Final

from .cards import ACE, NATURAL_CARDS, SUIT_CHARS, Game

# --- the card integer -------------------------------------------------------------------

RANK_PRIMES: Final[dict[int, int]] = dict(
    zip(range(2, ACE + 1), (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41), strict=True)
)
JOKER_PRIME: Final = 43
PRIME_MASK: Final = 0xFF
SUIT_BITS: Final[dict[str, int]] = {suit: 1 << (8 + i) for i, suit in enumerate(SUIT_CHARS)}
SUIT_MASK: Final = 0xF00
RANK_SHIFT: Final = 15
JOKER_RANK_BIT: Final = 1 << 13
MAX_JOKERS: Final = max(game.jokers for game in Game)  # two, the Double Joker deck (003)


def natural_int(rank: int, suit: str) -> int:
    """The int of the natural card ``rank`` (2..14) of ``suit`` (one of ``shdc``)."""
    return RANK_PRIMES[rank] | SUIT_BITS[suit] | (1 << (RANK_SHIFT + rank - 2))


JOKER_INT: Final = JOKER_PRIME | SUIT_MASK | (JOKER_RANK_BIT << RANK_SHIFT)

# suit -> rank -> int; the joker is suit "" rank 0 (cards.Card). Two plain lookups, no hashing
# of Card objects (a frozen dataclass hashes in Python, which is slow).
CARD_INTS: Final[dict[str, dict[int, int]]] = {suit: {} for suit in SUIT_CHARS}
for _card in NATURAL_CARDS:
    CARD_INTS[_card.suit][_card.rank] = natural_int(_card.rank, _card.suit)
CARD_INTS[""] = {0: JOKER_INT}
del _card

# --- table keys -------------------------------------------------------------------------


def unsuited_key(ranks: tuple[int, ...], jokers: int) -> int:
    """Key of a hand whose naturals are not all one suit: the product of the five primes."""
    key: int = prod(RANK_PRIMES[rank] for rank in ranks) * JOKER_PRIME**jokers  # int ** int is Any to mypy
    return key


def suited_key(ranks: tuple[int, ...], jokers: int) -> int:
    """Key of a hand whose naturals are all one suit (distinct ranks): rank bits + jokers."""
    return sum(1 << (rank - 2) for rank in ranks) + jokers * JOKER_RANK_BIT


@dataclass(frozen=True, slots=True)
class HandClass:
    """Every five-card hand with these natural ranks, this many jokers, suited or not.

    All hands of one class rank the same; the tables hold one score per class.
    """

    ranks: tuple[int, ...]  # natural ranks, ascending, repeats allowed when not suited
    jokers: int
    suited: bool  # every natural card of one suit

    @property
    def key(self) -> int:
        if self.suited:
            return suited_key(self.ranks, self.jokers)
        return unsuited_key(self.ranks, self.jokers)


def high_hand_classes() -> Iterator[HandClass]:
    """Every class of five-card hand one deck can deal (at most four of a rank, two jokers)."""
    ranks = range(2, ACE + 1)
    for jokers in range(MAX_JOKERS + 1):
        naturals = 5 - jokers
        for combo in combinations_with_replacement(ranks, naturals):
            if all(combo.count(rank) <= len(SUIT_CHARS) for rank in combo):
                yield HandClass(combo, jokers, suited=False)
        for combo in combinations(ranks, naturals):
            yield HandClass(combo, jokers, suited=True)


@dataclass(frozen=True, slots=True)
class HighTables:
    """The two lookups of one set of ranking rules: key -> score."""

    suited: dict[int, int]
    unsuited: dict[int, int]


def build_high_tables(score: Callable[[HandClass], int]) -> HighTables:
    """Score every hand class once with ``score`` and file it under its key."""
    suited: dict[int, int] = {}
    unsuited: dict[int, int] = {}
    for hand_class in high_hand_classes():
        table = suited if hand_class.suited else unsuited
        key = hand_class.key
        if key in table:  # the encoding must give every class its own key
            raise AssertionError(f"two hand classes share key {key}: {hand_class}")
        table[key] = score(hand_class)
    return HighTables(suited=suited, unsuited=unsuited)
