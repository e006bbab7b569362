"""The lookup gives, for every hand, exactly the house-way engine's setting values; the
vectorised ranking is the evaluator's."""

from __future__ import annotations

import numpy as np
import pytest

from table_controller.analysis.lookup import (
    build_lookup,
    hand_keys,
    highest_low_settings,
    pattern_key,
    pattern_of_key,
    patterns,
)
from table_controller.analysis.vecrank import (
    card_of_id,
    high_beats_low_np,
    ids_of_cards,
    rank_high_ids,
    rank_low_ids,
)
from table_controller.game.cards import Card, parse_cards
from table_controller.game.evaluator import DEFAULT_RULES, RankingRules, Wheel, rank_high, rank_low
from table_controller.game.house_way import load_house_way
from table_controller.game.setting import high_beats_low, legal_settings

from .conftest import random_hands, rich_hands

RANKINGS = {
    "nevada": RankingRules(),
    "california": RankingRules(wheel=Wheel.CALIFORNIA),
    "nevada-wild": RankingRules(joker_wild_in_low=True),
    "california-wild": RankingRules(wheel=Wheel.CALIFORNIA, joker_wild_in_low=True),
}


def _ids(hands) -> np.ndarray:
    return np.array([ids_of_cards(hand) for hand in hands], np.int64)


def _engine_values(way, hands, rules):
    values = []
    for hand in hands:
        setting = way.set(hand, rules).setting
        values.append((rank_high(setting.high, rules), rank_low(setting.low, rules)))
    return values


def _assert_lookup_equals_engine(way_name: str, hands, rules) -> None:
    way = load_house_way(way_name)
    ids = _ids(hands)
    keys = hand_keys(ids)
    # Built from one representative hand per pattern, NOT from these hands: a lookup answer
    # for a hand is the engine's answer for another hand of its pattern.
    lookup = build_lookup(way, rules, pattern_list=[pattern_of_key(k) for k in np.unique(keys)])
    rows = lookup.index(keys)
    got = list(zip(lookup.hw_high[rows].tolist(), lookup.hw_low[rows].tolist(), strict=False))
    want = _engine_values(way, hands, rules)
    mismatches = [(hand, g, w) for hand, g, w in zip(hands, got, want, strict=False) if g != w]
    assert not mismatches, mismatches[:5]


@pytest.mark.parametrize("way", ["house-way-002", "strong-004"])
def test_lookup_equals_the_engine_on_random_hands_of_both_decks(way: str) -> None:
    hands = random_hands(21, 3000, jokers=2) + random_hands(22, 1500, jokers=1) + rich_hands(23, 1500)
    _assert_lookup_equals_engine(way, hands, DEFAULT_RULES)


def _example_hands() -> list[tuple]:
    """Every example hand of the house way tests (tests/game), as written."""
    from tests.game import (
        test_house_way_double_joker,
        test_house_way_readings,
        test_house_way_rules,
        test_house_way_strong,
    )

    found = [case[1] for case in test_house_way_readings.EXAMPLES]
    found += [case[1] for case in test_house_way_rules.CASES]
    found += [case[1] for case in test_house_way_strong.CASES + test_house_way_strong.DOUBLE_JOKER_CASES]
    found += [case[0] for case in test_house_way_double_joker.EXAMPLES]
    return list(dict.fromkeys(parse_cards(hand) for hand in found))


def _suits_moved(hand: tuple) -> tuple:
    """The same hand with its suits renamed (s->h->d->c->s): the lookup must not care."""
    move = dict(zip("shdc", "hdcs", strict=False))
    return tuple(card if card.is_joker else Card(card.rank, move[card.suit]) for card in hand)


@pytest.mark.parametrize("way", ["house-way-002", "strong-004"])
@pytest.mark.parametrize("ranking", list(RANKINGS))
def test_lookup_equals_the_engine_on_every_example_hand(way: str, ranking: str) -> None:
    hands = _example_hands()
    assert len(hands) > 150
    hands += [_suits_moved(hand) for hand in hands] + [tuple(reversed(hand)) for hand in hands]
    _assert_lookup_equals_engine(way, hands, RANKINGS[ranking])


def test_every_hand_pattern_is_enumerated() -> None:
    keys = {pattern_key(*item) for item in patterns()}
    sample = hand_keys(_ids(random_hands(31, 4000) + rich_hands(32, 1000)))
    assert set(sample.tolist()) <= keys
    assert len(keys) == 335_036


@pytest.mark.parametrize("rules", list(RANKINGS.values()))
def test_vectorised_ranking_is_the_evaluators(rules: RankingRules) -> None:
    hands = random_hands(41, 3000) + rich_hands(42, 2000)
    ids = _ids(hands)
    high = rank_high_ids(ids[:, :5], rules)
    low = rank_low_ids(ids[:, 5:], rules)
    for hand, h, lo in zip(hands, high.tolist(), low.tolist(), strict=False):
        assert h == rank_high(hand[:5], rules)
        assert lo == rank_low(hand[5:], rules)
        assert bool(high_beats_low_np(np.array(h), np.array(lo))) == high_beats_low(h, lo)


def test_highest_low_strategy_is_the_best_legal_low_then_high() -> None:
    hands = random_hands(51, 1500) + rich_hands(52, 500)
    high, low = highest_low_settings(_ids(hands), DEFAULT_RULES)
    for hand, h, lo in zip(hands, high.tolist(), low.tolist(), strict=False):
        best = max((rank_low(s.low), rank_high(s.high)) for s in legal_settings(hand))
        assert (lo, h) == best


def test_card_ids_round_trip() -> None:
    hand = parse_cards("As JK Td 2c JK 9h 5h")
    assert [card_of_id(i) for i in ids_of_cards(hand)] == list(hand)
