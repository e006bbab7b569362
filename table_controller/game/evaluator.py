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
  and a joker are five Aces.
- Two-card: any pair beats two unmatched cards, else the higher card then the lower; the
  joker is an Ace (001, 004), or fully wild where the table says so (004).

A score is an int: among hands of the same size a larger score wins, equal scores copy.
Layout: category << 20 | five 4-bit kicker values, most significant first.
"""

from __future__ import annotations

import enum
from collections import Counter
from itertools import combinations
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import ACE, Card

# Straight heights (4-bit kicker values): K-high 13, Nevada wheel 14, A-high 15.
_NEVADA_WHEEL = 14
_CALIFORNIA_WHEEL = 5
_ACE_HIGH_STRAIGHT = 15


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


class HighCategory(enum.IntEnum):
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

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


class LowCategory(enum.IntEnum):
    """Two-card categories (001: the only two-card hands are a pair and high cards)."""

    HIGH_CARD = 0
    PAIR = 1

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


CATEGORY_SHIFT = 20


def _pack(category: int, kickers: Sequence[int]) -> int:
    score = category
    for i in range(5):
        score = (score << 4) | (kickers[i] if i < len(kickers) else 0)
    return score


def high_category(score: int) -> HighCategory:
    return HighCategory(score >> CATEGORY_SHIFT)


def low_category(score: int) -> LowCategory:
    return LowCategory(score >> 8)


def _straight_height(ranks: frozenset[int], jokers: int, rules: RankingRules) -> int | None:
    """Best straight height reachable when ``jokers`` fill the gaps, or None."""
    if len(ranks) + jokers != 5:
        return None
    best: int | None = None
    for top in range(14, 5, -1):  # A-high .. 6-high
        window = set(range(top - 4, top + 1))
        if ranks <= window:
            height = _ACE_HIGH_STRAIGHT if top == 14 else top
            best = height if best is None else max(best, height)
    if ranks <= {14, 2, 3, 4, 5}:
        height = _NEVADA_WHEEL if rules.wheel is Wheel.NEVADA else _CALIFORNIA_WHEEL
        best = height if best is None else max(best, height)
    return best


def _grouped_score(ranks: list[int]) -> int:
    """Score of five ranks with no straight or flush (pairs, trips, quads, five aces)."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    kickers = [rank for rank, _ in groups]
    category = {
        (5,): HighCategory.FIVE_ACES,
        (4, 1): HighCategory.FOUR_OF_A_KIND,
        (3, 2): HighCategory.FULL_HOUSE,
        (3, 1, 1): HighCategory.THREE_OF_A_KIND,
        (2, 2, 1): HighCategory.TWO_PAIR,
        (2, 1, 1, 1): HighCategory.ONE_PAIR,
        (1, 1, 1, 1, 1): HighCategory.HIGH_CARD,
    }[shape]
    return _pack(category, kickers)


def rank_high(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> int:
    """Score of a five-card high hand (see module docstring for the rules)."""
    if len(cards) != 5:
        raise ValueError(f"a high hand has 5 cards, got {len(cards)}")
    naturals = [card for card in cards if not card.is_joker]
    jokers = 5 - len(naturals)
    # The joker as an Ace (001: "otherwise it is counted as an Ace").
    best = _grouped_score([card.rank for card in naturals] + [ACE] * jokers)
    ranks = frozenset(card.rank for card in naturals)
    if len(ranks) != len(naturals):
        return best  # a natural pair: no straight or flush can be made
    height = _straight_height(ranks, jokers, rules)
    flush = len({card.suit for card in naturals}) <= 1
    if flush and height is not None:
        category = HighCategory.ROYAL_FLUSH if height == _ACE_HIGH_STRAIGHT else HighCategory.STRAIGHT_FLUSH
        return max(best, _pack(category, [height]))
    if flush:
        # 003: a filling joker counts as the highest rank missing from the suit.
        missing = [rank for rank in range(14, 1, -1) if rank not in ranks][:jokers]
        kickers = sorted(list(ranks) + missing, reverse=True)
        best = max(best, _pack(HighCategory.FLUSH, kickers))
    elif height is not None:
        best = max(best, _pack(HighCategory.STRAIGHT, [height]))
    return best


def rank_low(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> int:
    """Score of a two-card low hand: a pair beats any two unmatched cards (001)."""
    if len(cards) != 2:
        raise ValueError(f"a low hand has 2 cards, got {len(cards)}")
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


class SevenCardCategory(enum.IntEnum):
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

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


def _seven_card_straight_flush(naturals: list[Card]) -> bool:
    """Seven suited consecutive ranks, the jokers filling what the naturals lack (003)."""
    suits = {card.suit for card in naturals}
    ranks = frozenset(card.rank for card in naturals)
    if len(suits) > 1 or len(ranks) != len(naturals):
        return False
    windows = [set(range(top - 6, top + 1)) for top in range(14, 7, -1)]
    windows.append({14, 2, 3, 4, 5, 6, 7})  # the Ace plays low
    return any(ranks <= window for window in windows)


def seven_card_category(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> SevenCardCategory:
    """Best Big Hand Bonus category the seven cards can make (003)."""
    if len(cards) != 7:
        raise ValueError(f"a hand has 7 cards, got {len(cards)}")
    naturals = [card for card in cards if not card.is_joker]
    jokers = 7 - len(naturals)
    if _seven_card_straight_flush(naturals):
        if jokers == 0:
            return SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
        return SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH
    aces = sum(1 for card in naturals if card.rank == ACE) + jokers
    if aces >= 6:
        return SevenCardCategory.SIX_ACES
    best = max(high_category(rank_high(five, rules)) for five in combinations(cards, 5))
    return {
        HighCategory.FIVE_ACES: SevenCardCategory.FIVE_ACES,
        HighCategory.ROYAL_FLUSH: SevenCardCategory.ROYAL_FLUSH,
        HighCategory.STRAIGHT_FLUSH: SevenCardCategory.STRAIGHT_FLUSH,
        HighCategory.FOUR_OF_A_KIND: SevenCardCategory.FOUR_OF_A_KIND,
        HighCategory.FULL_HOUSE: SevenCardCategory.FULL_HOUSE,
        HighCategory.FLUSH: SevenCardCategory.FLUSH,
    }.get(best, SevenCardCategory.NOTHING)


__all__ = [
    "CATEGORY_SHIFT",
    "DEFAULT_RULES",
    "HighCategory",
    "LowCategory",
    "RankingRules",
    "SevenCardCategory",
    "Wheel",
    "compare",
    "high_category",
    "low_category",
    "rank_high",
    "rank_low",
    "seven_card_category",
]
