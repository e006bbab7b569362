"""How the banker's hand must be set, and enforcement of a dealer's proposed setting.

- Standard game: the house way (002_08ea07f9e4b504bc.txt by default, or the casino's own).
- Double Joker (003_4dcc2fceebc6e4af.txt), overqualifier rules: "If the Dealer has
  4-of-a-Kind or better, set the HIGH hand to reveal the 4-of-a-Kind or Straight Flush,
  playing the strongest possible LOW with the remaining cards." Otherwise the house way.

Enforcement: a proposed setting matches when it uses exactly the seven cards and is worth
the same as the required one, high hand and low hand (settings that differ only in suits,
or in whether a joker or a natural Ace plays an Ace, are worth the same; docs/house-way.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, Game, check_cards
from .evaluator import (
    DEFAULT_RULES,
    HighCategory,
    RankingRules,
    best_five_category,
    high_category,
    rank_high,
    rank_low,
)
from .house_way import HouseWay, set_house_way
from .setting import Setting, all_settings, check_setting, same_values

OVERQUALIFIER_RULE_ID = "double-joker.overqualifier"
OVERQUALIFIER_WORDS = (
    "If the Dealer has 4-of-a-Kind or better, set the HIGH hand to reveal the 4-of-a-Kind or "
    "Straight Flush, playing the strongest possible LOW with the remaining cards. (003)"
)


@dataclass(frozen=True, slots=True)
class RequiredSetting:
    """The setting the banker's hand must take, and the rule that decided it."""

    setting: Setting
    rule_id: str
    rule_words: str
    way: str


@dataclass(frozen=True, slots=True)
class SettingCheck:
    """The answer to "may the dealer set the hand this way?"."""

    matches: bool
    proposed: Setting
    required: RequiredSetting


def can_overqualify(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> bool:
    """True when the seven cards can make four of a kind or better (003)."""
    return best_five_category(cards, rules) >= HighCategory.FOUR_OF_A_KIND


def overqualifier_setting(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> Setting:
    """Four of a kind or better behind, the strongest possible low hand in front (003).

    Among the settings whose high hand is four of a kind or better, the strongest low hand
    wins; equal low hands are decided by the stronger high hand.
    """
    best: tuple[int, int] | None = None
    chosen: Setting | None = None
    for setting in all_settings(cards):
        high = rank_high(setting.high, rules)
        if high_category(high) < HighCategory.FOUR_OF_A_KIND:
            continue
        key = (rank_low(setting.low, rules), high)
        if best is None or key > best:
            best, chosen = key, setting
    if chosen is None:
        raise ValueError("the hand cannot make four of a kind or better")
    return chosen


def required_setting(
    cards: Sequence[Card],
    game: Game = Game.STANDARD,
    way: str | HouseWay = "house-way-002",
    rules: RankingRules = DEFAULT_RULES,
    overqualifier: bool = True,
) -> RequiredSetting:
    """How the banker's seven cards must be set in ``game`` (module docstring); the
    overqualifier applies in Double Joker when the table uses it (003: "When using
    OVERQUALIFIER rules")."""
    check_cards(cards, game)
    if game is Game.DOUBLE_JOKER and overqualifier and can_overqualify(cards, rules):
        return RequiredSetting(
            setting=overqualifier_setting(cards, rules),
            rule_id=OVERQUALIFIER_RULE_ID,
            rule_words=OVERQUALIFIER_WORDS,
            way="overqualifier-003",
        )
    result = set_house_way(cards, way=way, ranking=rules)
    return RequiredSetting(
        setting=result.setting, rule_id=result.rule_id, rule_words=result.rule_words, way=result.way
    )


def check_dealer_setting(
    cards: Sequence[Card],
    high: Sequence[Card],
    low: Sequence[Card],
    game: Game = Game.STANDARD,
    way: str | HouseWay = "house-way-002",
    rules: RankingRules = DEFAULT_RULES,
) -> SettingCheck:
    """Does the dealer's proposed setting follow the house way? Raises SettingError if it
    is not made of exactly the seven cards."""
    proposed = check_setting(cards, high, low)
    required = required_setting(cards, game, way, rules)
    return SettingCheck(
        matches=same_values(proposed, required.setting, rules),
        proposed=proposed,
        required=required,
    )
