"""Cards, card codes and the two decks.

Card codes are two characters, rank then suit (``As``, ``Td``, ``7c``), and ``JK`` for a
joker (docs/design.md, "Naming"). Ranks ``2-9 T J Q K A`` (``10`` accepted), suits ``s h d c``,
case-insensitive in, canonical out. ``parse_rank`` is the one reading of a rank in the code
base: card codes and the house way files (game/house_way) both use it.

Decks: the standard game uses 52 cards plus one joker (001_c9adb19db438d99f.txt); Double
Joker uses 52 cards plus two indistinguishable jokers (003_4dcc2fceebc6e4af.txt).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "shdc"
ACE: Final = 14
KING: Final = 13
QUEEN: Final = 12
JACK: Final = 11
TEN: Final = 10
TEN_ALIAS: Final = "10"  # read as T (card codes, way files); codes are written with T
JOKER_CODE: Final = "JK"


CARD_CODE_FORMAT: Final = (
    "a rank (A K Q J T 9 .. 2; 10 for T) then a suit (s h d c), e.g. As or Td; JK the joker"
)
"""The accepted card codes, in words: every refusal of a code says it."""


class CardError(ValueError):
    """Base class of every error about card codes and card sets."""


class UnknownRankError(CardError):
    """A rank that names no rank."""

    def __init__(self, value: object) -> None:
        super().__init__(f"not a rank: {value!r} (use A K Q J T 9 .. 2)")
        self.value = value


class UnknownCardError(CardError):
    """A card code that names no card."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unknown card code {code!r}: {CARD_CODE_FORMAT}")
        self.code = code


class DuplicateCardError(CardError):
    """The same natural card appears more than once where one deck allows it once."""

    def __init__(self, card: Card) -> None:
        super().__init__(f"duplicated card {card}")
        self.card = card


class TooManyJokersError(CardError):
    """More jokers than the game's deck holds."""

    def __init__(self, count: int, allowed: int) -> None:
        super().__init__(f"{count} jokers, the deck holds {allowed}")
        self.count = count
        self.allowed = allowed


class HandSizeError(CardError):
    """A hand with the wrong number of cards."""

    def __init__(self, count: int, expected: Iterable[int]) -> None:
        wanted = " or ".join(str(n) for n in expected)
        super().__init__(f"{count} cards, expected {wanted}")
        self.count = count


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``rank`` is 2..14 (Ace 14); a joker has rank 0 and suit ``""``."""

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def code(self) -> str:
        if self.is_joker:
            return JOKER_CODE
        return RANK_CHARS[self.rank - 2] + self.suit

    @property
    def index(self) -> int:
        """0..51 for natural cards (rank-major), 52 for the joker."""
        if self.is_joker:
            return 52
        return (self.rank - 2) * 4 + SUIT_CHARS.index(self.suit)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


JOKER: Final = Card(0, "")
NATURAL_CARDS: Final[tuple[Card, ...]] = tuple(
    Card(rank, suit) for rank in range(2, 15) for suit in SUIT_CHARS
)
_RANK_BY_CHAR: Final[dict[str, int]] = {char: rank for rank, char in enumerate(RANK_CHARS, start=2)}
_RANK_BY_CHAR[TEN_ALIAS] = TEN


def parse_rank(value: object) -> int:
    """A rank: one of ``2-9 T J Q K A`` or ``10`` (case-insensitive), or an int 2..14 (Ace 14).

    Raises UnknownRankError. The only place ranks are read (card codes, way files).
    """
    if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= ACE:
        return value
    if isinstance(value, str):
        rank = _RANK_BY_CHAR.get(value.strip().upper())
        if rank is not None:
            return rank
    raise UnknownRankError(value)


def parse_card(code: str) -> Card:
    """Parse one card code (case-insensitive, ``10`` for ``T``); raise UnknownCardError."""
    if not isinstance(code, str):
        raise UnknownCardError(repr(code))
    key = code.strip().upper()
    if key == JOKER_CODE:
        return JOKER
    suit = key[-1:].lower()
    if len(key) < 2 or suit not in SUIT_CHARS or not key[:-1].strip() == key[:-1]:
        raise UnknownCardError(code)
    try:
        return Card(parse_rank(key[:-1]), suit)
    except UnknownRankError:
        raise UnknownCardError(code) from None


def parse_cards(codes: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse card codes given as an iterable or as one space/comma-separated string."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return tuple(parse_card(code) for code in codes)


def codes(cards: Iterable[Card]) -> list[str]:
    """Canonical codes of cards, in order."""
    return [card.code for card in cards]


class Game(enum.StrEnum):
    """The two games a table can run."""

    STANDARD = "standard"
    DOUBLE_JOKER = "double-joker"

    @property
    def jokers(self) -> int:
        """Jokers in the deck: one (001), two (003)."""
        return 2 if self is Game.DOUBLE_JOKER else 1

    @property
    def deck_size(self) -> int:
        return 52 + self.jokers

    @property
    def unused_cards(self) -> int:
        """Cards left after seven 7-card piles: 4 (000, 004) or 5 (003)."""
        return self.deck_size - 49

    def deck(self) -> tuple[Card, ...]:
        """One complete deck, natural cards in rank-major order then the joker(s)."""
        return NATURAL_CARDS + (JOKER,) * self.jokers


def check_cards(cards: Iterable[Card], game: Game = Game.STANDARD) -> None:
    """Raise if ``cards`` could not all come from one deck of ``game``.

    A natural card may appear once; jokers up to the deck's count.
    """
    counts = Counter(cards)
    jokers = counts.pop(JOKER, 0)
    if jokers > game.jokers:
        raise TooManyJokersError(jokers, game.jokers)
    for card, count in counts.items():
        if count > 1:
            raise DuplicateCardError(card)


def parse_hand(
    codes_: Iterable[str] | str, game: Game = Game.STANDARD, sizes: Iterable[int] = (7,)
) -> tuple[Card, ...]:
    """Parse and validate a hand: known codes, one deck of ``game``, an allowed size."""
    cards = parse_cards(codes_)
    sizes = tuple(sizes)
    if len(cards) not in sizes:
        raise HandSizeError(len(cards), sizes)
    check_cards(cards, game)
    return cards
