"""Settings as a dealer reads them, for the answers: each setting's high and low hand in reading
order with its name (game/hand_words.py), under the ranking rules the round was opened with
(docs/api.md, "What the terminals read")."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..game.cards import CardError, codes, parse_cards
from ..game.evaluator import RankingRules
from ..game.hand_words import HandReading, read_high, read_low
from ..game.table_rules import TableRules


@lru_cache(maxsize=8)
def _ranking_json(table_rules: str) -> RankingRules:
    return TableRules.model_validate_json(table_rules).ranking


def round_ranking(table_rules: Mapping[str, Any]) -> RankingRules:
    """The ranking rules of a round's stored table rules (``RoundOpened.rules["table"]``),
    parsed once per rule set."""
    return _ranking_json(json.dumps(table_rules, sort_keys=True))


def _read(cards: Sequence[str] | None, size: int, rules: RankingRules) -> HandReading | None:
    if cards is None or len(cards) != size:
        return None  # a split other than five and two (a foul) names no hands
    try:
        return (read_high if size == 5 else read_low)(parse_cards(cards), rules)
    except CardError:  # not the cards of one deck: shown as given, unnamed
        return None


def setting_words(
    high: Sequence[str] | None, low: Sequence[str] | None, rules: RankingRules
) -> dict[str, Any]:
    """``high_sorted``, ``high_name``, ``low_sorted``, ``low_name`` of a setting given as card
    codes; each null where its side is not a hand of the right size."""
    words: dict[str, Any] = {}
    for side, cards, size in (("high", high, 5), ("low", low, 2)):
        reading = _read(cards, size, rules)
        words[f"{side}_sorted"] = None if reading is None else codes(reading.cards)
        words[f"{side}_name"] = None if reading is None else reading.name
    return words


def with_words(setting: Any, rules: RankingRules) -> Any:
    """A setting model (``NamedSettingPublic`` or a subclass) with its reading filled in; None stays None."""
    if setting is None:
        return None
    for name, value in setting_words(setting.high, setting.low, rules).items():
        setattr(setting, name, value)
    return setting
