"""Pai gow hand ranking: five-card high hands, two-card low hands, seven-card categories.

Rules implemented (cite by file in ../shared/rules/):
- Five-card order: five aces > royal flush > straight flush > four of a kind > full house >
  flush > straight > three of a kind > two pair > one pair > high card, kickers as in
  poker (001_c9adb19db438d99f.txt, 002_08ea07f9e4b504bc.txt).
- A-2-3-4-5 is the second-highest straight and straight flush (Nevada, 001, 002, 003);
  California plays it as the lowest (004_60e2fc6346e3399b.txt): ``RankingRules.wheel``.
- The joker is a bug: it completes a straight, flush or straight flush when that gives the
  better hand, otherwise it is an Ace (001, 002). In a flush it counts as the highest rank
  missing from that suit (003_4dcc2fceebc6e4af.txt). Two jokers may both fill. Four Aces
  and a joker are five Aces (so are three Aces and two jokers).
- Two-card: any pair beats two unmatched cards, else the higher card then the lower; the
  joker is an Ace (001, 004), or fully wild where the table says so (004).
- Seven cards, for the Big Hand Bonus (003): 7-card natural straight flush > six Aces >
  7-card straight flush > five Aces > royal flush > straight flush > four of a kind > full
  house > flush > nothing (a straight or worse). Readings where 003 is silent: jokers may
  fill a 7-card straight flush (not the natural one) and a royal flush; the Ace plays low in
  A-2-3-4-5-6-7 as it does in A-2-3-4-5; six Aces are four Aces and both jokers.

A score is an int: among hands of the same size a larger score wins, equal scores copy.
High-hand layout: ``category << 20 | five 4-bit kickers``, most significant first (pairs
and trips before their kickers; a straight's one kicker is its height: 6..13 for 6-high to
K-high, 14 for the Nevada A-2-3-4-5, 15 for A-high, 5 for the California A-2-3-4-5).
Low-hand layout: ``category << 8 | higher rank << 4 | lower rank``.
``setting.high_beats_low`` reads these layouts.

How it is fast: every five-card hand falls in a *class* (its natural ranks, its jokers, its
naturals all one suit or not) and every class is scored once by the readable rules below
(``_class_score``): Nevada's tables at import (~0.1 s), California's on first use; a hand
is then one table lookup keyed by its card integers (ranking_tables.py). ``rank_high`` takes
Card objects and checks them; ``rank_high_ints`` takes card integers from ``card_ints`` and
trusts them (see its docstring).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import (
    ACE,
    Card,
    CardError,
    DuplicateCardError,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
)
from .ranking_tables import CARD_INTS, JOKER_INT, MAX_JOKERS, HandClass, HighTables, build_high_tables

# Straight heights (4-bit kicker values): K-high 13, Nevada wheel 14, A-high 15.
_NEVADA_WHEEL = 14
_CALIFORNIA_WHEEL = 5
_ACE_HIGH_STRAIGHT = 15
_WHEEL_RANKS = frozenset({ACE, 2, 3, 4, 5})


class Wheel(enum.StrEnum):
    """Where A-2-3-4-5 ranks among straights (001 / 004)."""

    NEVADA = "nevada"  # second-highest, the default
    CALIFORNIA = "california"  # lowest


@dataclass(frozen=True, slots=True)
class RankingRules:
    """The table settings that change how hands rank."""

    wheel: Wheel = Wheel.NEVADA
    joker_wild_in_low: bool = False


DEFAULT_RULES = RankingRules()


class LabelledCategory(enum.IntEnum):
    """A category of hands with its label, the word the record, the API and the pages use:
    the member's name in lowercase, words joined by ``-`` (``three-of-a-kind``)."""

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")

    @classmethod
    def by_label(cls) -> dict[str, LabelledCategory]:
        """Every member by its label, in the category's order."""
        return {member.label: member for member in cls}


class HighCategory(LabelledCategory):
    """Five-card categories; the order is the ranking (002, five aces on top)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_ACES = 10


class LowCategory(LabelledCategory):
    """Two-card categories (001: the only two-card hands are a pair and high cards)."""

    HIGH_CARD = 0
    PAIR = 1


CATEGORY_SHIFT = 20


def _pack(category: int, kickers: Sequence[int]) -> int:
    score = category
    for i in range(5):
        score = (score << 4) | (kickers[i] if i < len(kickers) else 0)
    return score


def high_category(score: int) -> HighCategory:
    """The category of a five-card score."""
    return HighCategory(score >> CATEGORY_SHIFT)


def low_category(score: int) -> LowCategory:
    """The category of a two-card score."""
    return LowCategory(score >> 8)


# --- the rules, applied once per hand class to fill the tables ----------------------------


def _straight_height(ranks: frozenset[int], jokers: int, wheel: Wheel) -> int | None:
    """Best straight height reachable when ``jokers`` fill the gaps, or None."""
    if len(ranks) + jokers != 5:
        return None
    best: int | None = None
    for top in range(ACE, 5, -1):  # A-high .. 6-high
        if ranks <= set(range(top - 4, top + 1)):
            height = _ACE_HIGH_STRAIGHT if top == ACE else top
            best = height if best is None else max(best, height)
    if ranks <= _WHEEL_RANKS:
        height = _NEVADA_WHEEL if wheel is Wheel.NEVADA else _CALIFORNIA_WHEEL
        best = height if best is None else max(best, height)
    return best


_SHAPES = {
    (5,): HighCategory.FIVE_ACES,  # only Aces: the jokers are Aces here (001, 002)
    (4, 1): HighCategory.FOUR_OF_A_KIND,
    (3, 2): HighCategory.FULL_HOUSE,
    (3, 1, 1): HighCategory.THREE_OF_A_KIND,
    (2, 2, 1): HighCategory.TWO_PAIR,
    (2, 1, 1, 1): HighCategory.ONE_PAIR,
    (1, 1, 1, 1, 1): HighCategory.HIGH_CARD,
}


def _grouped_score(ranks: list[int]) -> int:
    """Score of five ranks with no straight or flush (pairs, trips, quads, five aces)."""
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    shape = tuple(count for count, _ in groups)
    return _pack(_SHAPES[shape], [rank for _, rank in groups])


def _class_score(hand: HandClass, wheel: Wheel) -> int:
    """Score of every hand of one class: the best of the joker's roles (001, 002, 003)."""
    jokers = hand.jokers
    # The joker as an Ace (001: "otherwise it is counted as an Ace").
    best = _grouped_score(list(hand.ranks) + [ACE] * jokers)
    ranks = frozenset(hand.ranks)
    if len(ranks) != len(hand.ranks):
        return best  # a natural pair: no straight or flush can be made
    height = _straight_height(ranks, jokers, wheel)
    if hand.suited and height is not None:
        category = HighCategory.ROYAL_FLUSH if height == _ACE_HIGH_STRAIGHT else HighCategory.STRAIGHT_FLUSH
        return max(best, _pack(category, [height]))
    if hand.suited:
        # 003: a filling joker counts as the highest rank missing from the suit.
        missing = [rank for rank in range(ACE, 1, -1) if rank not in ranks][:jokers]
        kickers = sorted(list(ranks) + missing, reverse=True)
        return max(best, _pack(HighCategory.FLUSH, kickers))
    if height is not None:
        return max(best, _pack(HighCategory.STRAIGHT, [height]))
    return best


def _build_tables(wheel: Wheel) -> HighTables:
    """Every hand class scored under one wheel rule (about 0.1 s)."""
    return build_high_tables(lambda hand: _class_score(hand, wheel))


# The default (Nevada) tables are built at import; California's on its first hand, so a
# Nevada table never pays for them. Only two wheel rules exist (Wheel).
_NEVADA = Wheel.NEVADA
_NEVADA_TABLES = _build_tables(Wheel.NEVADA)
_NEVADA_SUITED = _NEVADA_TABLES.suited
_NEVADA_UNSUITED = _NEVADA_TABLES.unsuited


@functools.cache
def _california_tables() -> HighTables:
    return _build_tables(Wheel.CALIFORNIA)


# --- card integers and input checks --------------------------------------------------------


class CardIntError(CardError):
    """An int given to ``rank_high_ints`` that is not a card integer of ``card_ints``."""


def _describe(card: object) -> str:
    """A bad card's raw fields (Card's own repr would index RANK_CHARS with a bad rank)."""
    if isinstance(card, Card):
        return f"Card(rank={card.rank!r}, suit={card.suit!r})"
    return repr(card)


def card_int(card: Card) -> int:
    """The integer of one card, for ``rank_high_ints`` (ranking_tables.py gives the layout)."""
    try:
        return CARD_INTS[card.suit][card.rank]
    except (KeyError, AttributeError, TypeError):
        raise UnknownCardError(_describe(card)) from None


def card_ints(cards: Iterable[Card]) -> tuple[int, ...]:
    """The integers of ``cards``, in order (not checked for repeats: see ``rank_high``)."""
    return tuple(card_int(card) for card in cards)


def _checked_ints(cards: Sequence[Card], size: int) -> list[int]:
    """Integers of a hand of ``size`` cards; typed errors for a wrong size or impossible hand.

    A natural card may appear once; jokers up to two (the most any deck holds, 003). Whether
    the table's own deck has two jokers is ``cards.check_cards``'s question.
    """
    if len(cards) != size:
        raise HandSizeError(len(cards), (size,))
    try:
        ints = [CARD_INTS[card.suit][card.rank] for card in cards]
    except (KeyError, AttributeError, TypeError):
        ints = [card_int(card) for card in cards]  # raises UnknownCardError naming the card
    if len(set(ints)) != size:
        jokers = ints.count(JOKER_INT)
        if jokers > MAX_JOKERS:
            raise TooManyJokersError(jokers, MAX_JOKERS)
        seen: set[int] = set()
        for card, value in zip(cards, ints, strict=True):  # one int per card
            if value in seen and value != JOKER_INT:
                raise DuplicateCardError(card)
            seen.add(value)
    return ints


# --- five-card high hands --------------------------------------------------------------------


def rank_high_ints(cards: Sequence[int], rules: RankingRules = DEFAULT_RULES) -> int:
    """Score of a five-card high hand given as card integers (``card_ints``): the fast path.

    Same score as ``rank_high``. It checks the size but trusts the cards: give it only
    integers from ``card_int``/``card_ints`` of a hand already checked to come from one deck
    (``cards.check_cards``/``parse_hand``). Ints that form no hand (three jokers, zeros)
    raise CardIntError, but a foreign int or a repeated natural card can read as some other
    hand and is NOT detected here: ``rank_high`` checks all of that, use it for any hand that
    has not been checked.
    """
    try:
        a, b, c, d, e = cards
    except ValueError:
        raise HandSizeError(len(cards), (5,)) from None
    if rules.wheel is _NEVADA:
        suited, unsuited = _NEVADA_SUITED, _NEVADA_UNSUITED
    else:
        tables = _california_tables()
        suited, unsuited = tables.suited, tables.unsuited
    # Literals for speed: 0xF00 is SUIT_MASK, 15 RANK_SHIFT, 255 PRIME_MASK (ranking_tables.py).
    try:
        if a & b & c & d & e & 0xF00:
            return suited[(a + b + c + d + e) >> 15]
        return unsuited[(a & 255) * (b & 255) * (c & 255) * (d & 255) * (e & 255)]
    except (KeyError, TypeError):
        raise CardIntError(f"not the integers of a five-card hand: {list(cards)!r}") from None


def rank_high(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> int:
    """Score of a five-card high hand (see the module docstring for the rules).

    Raises HandSizeError (not five cards), UnknownCardError (not a card),
    DuplicateCardError (a natural card twice), TooManyJokersError (more than two jokers).
    """
    # The common case unrolled (this is on the house way's hot path); anything unusual
    # (wrong size, not a card, a repeated int: two jokers or a duplicate) goes through
    # _checked_ints, which raises the typed error or returns the checked ints.
    try:
        a, b, c, d, e = cards
        ints = (
            CARD_INTS[a.suit][a.rank],
            CARD_INTS[b.suit][b.rank],
            CARD_INTS[c.suit][c.rank],
            CARD_INTS[d.suit][d.rank],
            CARD_INTS[e.suit][e.rank],
        )
    except (ValueError, KeyError, AttributeError, TypeError):
        return rank_high_ints(_checked_ints(cards, 5), rules)
    if len({*ints}) != 5:
        return rank_high_ints(_checked_ints(cards, 5), rules)
    return rank_high_ints(ints, rules)


# --- two-card low hands ----------------------------------------------------------------------


def rank_low(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> int:
    """Score of a two-card low hand: a pair beats any two unmatched cards (001).

    The joker is an Ace (001, 004); with ``rules.joker_wild_in_low`` it is fully wild (004),
    so it pairs the other card (two jokers: a pair of Aces).
    """
    _checked_ints(cards, 2)
    a, b = cards
    if rules.joker_wild_in_low and (a.is_joker or b.is_joker):
        other = b if a.is_joker else a
        rank = ACE if other.is_joker else other.rank
        return (LowCategory.PAIR << 8) | (rank << 4) | rank
    ra = ACE if a.is_joker else a.rank
    rb = ACE if b.is_joker else b.rank
    hi, lo = max(ra, rb), min(ra, rb)
    category = LowCategory.PAIR if hi == lo else LowCategory.HIGH_CARD
    return (category << 8) | (hi << 4) | lo


def compare(score_a: int, score_b: int) -> int:
    """1 if a wins, -1 if b wins, 0 for a copy (same-size hands)."""
    return (score_a > score_b) - (score_a < score_b)


# --- seven cards: the Big Hand Bonus categories -----------------------------------------------


def best_five_category(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> HighCategory:
    """The best five-card category any five of ``cards`` make (the joker as a bug)."""
    return max(high_category(rank_high(five, rules)) for five in combinations(cards, 5))


class SevenCardCategory(LabelledCategory):
    """Best hand seven cards can make, for the Big Hand Bonus (003); order is the ranking."""

    NOTHING = 0  # straight or worse
    FLUSH = 1
    FULL_HOUSE = 2
    FOUR_OF_A_KIND = 3
    STRAIGHT_FLUSH = 4
    ROYAL_FLUSH = 5
    FIVE_ACES = 6
    SEVEN_CARD_STRAIGHT_FLUSH = 7
    SIX_ACES = 8
    SEVEN_CARD_NATURAL_STRAIGHT_FLUSH = 9


# Seven consecutive ranks; the Ace plays low in A-2-3-4-5-6-7 (it does in A-2-3-4-5, 001, 004).
_SEVEN_CARD_RUNS = [frozenset(range(top - 6, top + 1)) for top in range(ACE, 7, -1)]
_SEVEN_CARD_RUNS.append(frozenset({ACE, 2, 3, 4, 5, 6, 7}))

_BY_HIGH_CATEGORY = {
    HighCategory.FIVE_ACES: SevenCardCategory.FIVE_ACES,
    HighCategory.ROYAL_FLUSH: SevenCardCategory.ROYAL_FLUSH,
    HighCategory.STRAIGHT_FLUSH: SevenCardCategory.STRAIGHT_FLUSH,
    HighCategory.FOUR_OF_A_KIND: SevenCardCategory.FOUR_OF_A_KIND,
    HighCategory.FULL_HOUSE: SevenCardCategory.FULL_HOUSE,
    HighCategory.FLUSH: SevenCardCategory.FLUSH,
}


def _seven_card_straight_flush(naturals: list[Card]) -> bool:
    """Seven suited consecutive ranks, the jokers filling what the naturals lack (003)."""
    suits = {card.suit for card in naturals}
    ranks = frozenset(card.rank for card in naturals)
    if len(suits) > 1 or len(ranks) != len(naturals):
        return False
    return any(ranks <= run for run in _SEVEN_CARD_RUNS)


def seven_card_category(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> SevenCardCategory:
    """Best Big Hand Bonus category the seven cards can make (003).

    Raises the same typed errors as ``rank_high`` (HandSizeError when not seven cards).
    """
    ints = _checked_ints(cards, 7)
    naturals = [card for card in cards if not card.is_joker]
    jokers = 7 - len(naturals)
    if _seven_card_straight_flush(naturals):
        if jokers == 0:
            return SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
        return SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH
    aces = sum(1 for card in naturals if card.rank == ACE) + jokers
    if aces >= 6:
        return SevenCardCategory.SIX_ACES
    best = max(rank_high_ints(five, rules) for five in combinations(ints, 5)) >> CATEGORY_SHIFT
    return _BY_HIGH_CATEGORY.get(HighCategory(best), SevenCardCategory.NOTHING)


__all__ = [
    "CATEGORY_SHIFT",
    "DEFAULT_RULES",
    "CardIntError",
    "HighCategory",
    "LabelledCategory",
    "LowCategory",
    "RankingRules",
    "SevenCardCategory",
    "Wheel",
    "best_five_category",
    "card_int",
    "card_ints",
    "compare",
    "high_category",
    "low_category",
    "rank_high",
    "rank_high_ints",
    "rank_low",
    "seven_card_category",
]
