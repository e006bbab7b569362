"""Setting seven cards into a high hand (five) and a low hand (two); legality and fouls.

A setting is legal when the five-card hand outranks the two-card hand (000, 001:
"if a hand contains A-A-2-9-7-5-8, the 2 aces may not be used in the 2-card hand"; a low
hand higher than the high hand is a foul). How a five-card hand is compared with a
two-card one follows house-way-readings.md §1 "Foul": a pair in front needs two pair or
better behind, or a pair of at least its rank; two unmatched cards in front are beaten by
any pair behind, and against a high-card hand the highest card, then the second, decide;
equal compared cards leave the split legal (the high hand still has more cards).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import Card, CardError, codes
from .evaluator import DEFAULT_RULES, HighCategory, LowCategory, RankingRules, rank_high, rank_low


class SettingError(CardError):
    """A proposed setting that does not use exactly the seven cards, five behind two in front."""


@dataclass(frozen=True, slots=True)
class Setting:
    """Five cards behind (high hand), two in front (low hand)."""

    high: tuple[Card, ...]
    low: tuple[Card, ...]

    def as_dict(self) -> dict[str, list[str]]:
        return {"high": codes(self.high), "low": codes(self.low)}


def high_beats_low(high_score: int, low_score: int) -> bool:
    """True when a five-card score outranks (or equals, see module doc) a two-card score."""
    category = high_score >> 20
    top, second = (high_score >> 16) & 15, (high_score >> 12) & 15
    low_hi, low_lo = (low_score >> 4) & 15, low_score & 15
    if low_score >> 8 == LowCategory.PAIR:
        return category >= HighCategory.TWO_PAIR or (category == HighCategory.ONE_PAIR and top >= low_hi)
    return category >= HighCategory.ONE_PAIR or (top, second) >= (low_hi, low_lo)


def is_legal(setting: Setting, rules: RankingRules = DEFAULT_RULES) -> bool:
    """True when the setting is not a foul (five behind outranks two in front)."""
    if len(setting.high) != 5 or len(setting.low) != 2:
        return False
    return high_beats_low(rank_high(setting.high, rules), rank_low(setting.low, rules))


def all_settings(cards: Sequence[Card]) -> list[Setting]:
    """The 21 ways to put two of seven cards in front, in a fixed order."""
    if len(cards) != 7:
        raise SettingError(f"a hand has 7 cards, got {len(cards)}")
    settings = []
    for i, j in combinations(range(7), 2):
        low = (cards[i], cards[j])
        high = tuple(card for k, card in enumerate(cards) if k not in (i, j))
        settings.append(Setting(high=high, low=low))
    return settings


def legal_settings(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> list[Setting]:
    """The legal ones of the 21 ways (never empty: the two lowest cards in front are legal)."""
    return [setting for setting in all_settings(cards) if is_legal(setting, rules)]


def check_setting(cards: Sequence[Card], high: Sequence[Card], low: Sequence[Card]) -> Setting:
    """Check that ``high`` (5) and ``low`` (2) are exactly the seven ``cards``; return the Setting.

    This checks the cards only; whether the setting fouls is ``is_legal``'s question.
    """
    if len(high) != 5 or len(low) != 2:
        raise SettingError(f"a setting is 5 cards behind and 2 in front, got {len(high)} and {len(low)}")
    if Counter(high) + Counter(low) != Counter(cards):
        extra = Counter(high) + Counter(low) - Counter(cards)
        missing = Counter(cards) - Counter(high) - Counter(low)
        raise SettingError(
            f"setting does not use the hand's cards: extra {codes(extra.elements())}, "
            f"missing {codes(missing.elements())}"
        )
    return Setting(high=tuple(high), low=tuple(low))


def same_values(a: Setting, b: Setting, rules: RankingRules = DEFAULT_RULES) -> bool:
    """True when two settings are worth the same (they differ at most in suits)."""
    return rank_high(a.high, rules) == rank_high(b.high, rules) and rank_low(a.low, rules) == rank_low(
        b.low, rules
    )
