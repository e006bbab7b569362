"""The exact house-edge count (inclusion-exclusion over shared cards, suit classes, sweeps)
equals the pair-by-pair brute force on reduced decks, with the real house way and with
random keys; the money follows from the counts as settlement pays (docs/math.md)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from table_controller.analysis.exact import (
    DealerRules,
    ExactCountError,
    ExactEdge,
    PairCounts,
    codes_of,
    commission_rate,
    count_pairs,
    hand_codes,
)
from table_controller.analysis.exact_brute import (
    COMPARED,
    NOT_QUALIFIED,
    OVERQUALIFIED,
    brute_force,
    brute_force_compiled,
    deck_hands,
    hand_masks,
)
from table_controller.analysis.exact_classes import Deck, every_set, set_classes
from table_controller.analysis.lookup import build_lookup, hand_keys, pattern_of_key
from table_controller.analysis.vecrank import card_of_id
from table_controller.game.cards import Game
from table_controller.game.evaluator import DEFAULT_RULES, rank_high, rank_low
from table_controller.game.house_way import load_house_way
from table_controller.game.money import FlatFee
from table_controller.game.settlement import (
    COMPARISON_RULES,
    DealerQualification,
    HandResult,
    Outcome,
    dealer_qualification,
)
from table_controller.game.table_rules import TableRules

WAY = "house-way-002"
W, L, C = HandResult.WIN, HandResult.LOSE, HandResult.COPY
CELL_OF = {
    (W, W): "won_won",
    (L, L): "lost_lost",
    (W, C): "won_copy",
    (L, C): "lost_copy",
    (C, W): "copy_won",
    (C, L): "copy_lost",
    (C, C): "copy_copy",
}
J, Q, K, A = 9, 10, 11, 12  # rank indices (0 is the 2)
DECKS = {
    # four suits: quads, five Aces, a joker's straights and flushes (J-Q-K-A + joker)
    "J-A, 4 suits, joker": Deck((J, Q, K, A), 1),
    # wheels and natural flushes, three suits (renamings of three suits)
    "A-5, 3 suits, joker": Deck((A, 0, 1, 2, 3), 1, (0, 1, 2)),
    # six ranks, no joker: natural straights, flushes and straight flushes
    "7-Q, 3 suits": Deck((5, 6, 7, 8, 9, 10), 0, (1, 2, 3)),
}


def _lookup(deck: Deck, way: str = WAY):
    keys = np.unique(hand_keys(deck_hands(deck)))
    return build_lookup(load_house_way(way), pattern_list=[pattern_of_key(k) for k in keys])


def _values(lookup, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = lookup.index(hand_keys(hands))
    return lookup.hw_high[rows].astype(np.int64), lookup.hw_low[rows].astype(np.int64)


def _assert_equal(counts: PairCounts, tally, premium_multiple: int = 3) -> None:
    """Every cell, and every outcome as settlement's comparison table decides it."""
    want_cells = {"pairs": sum(n for (state, _, _), n in tally.items() if state == COMPARED)}
    for (state, high, low), n in tally.items():
        if state == COMPARED and (high, low) in CELL_OF:
            want_cells[CELL_OF[high, low]] = want_cells.get(CELL_OF[high, low], 0) + n
    assert counts.cells == {name: want_cells.get(name, 0) for name in counts.cells}
    outcomes = {Outcome.WIN: 0, Outcome.PUSH: 0, Outcome.LOSE: 0, Outcome.PREMIUM: 0}
    for (state, high, low), n in tally.items():
        if state == NOT_QUALIFIED:
            outcomes[Outcome.PUSH] += n  # returned, as a push (003)
        elif state == OVERQUALIFIED:
            outcomes[Outcome.PREMIUM] += n
        else:
            outcomes[COMPARISON_RULES[high, low].outcome] += n
    got = (counts.wins, counts.pushes, counts.losses, counts.premium)
    assert got == (
        outcomes[Outcome.WIN],
        outcomes[Outcome.PUSH],
        outcomes[Outcome.LOSE],
        outcomes[Outcome.PREMIUM],
    )
    assert counts.pairs == sum(tally.values()) == comb(counts.deck_cards, 7) * comb(counts.deck_cards - 7, 7)


@pytest.mark.parametrize("deck", [*DECKS.values(), Deck.full(1), Deck.full(2)], ids=[*DECKS, "53", "54"])
def test_suit_classes_stand_for_every_card_set_once(deck: Deck) -> None:
    size = 6 if deck.size < 30 else 4
    classes = set_classes(deck, size)
    for k in range(size + 1):
        assert int(classes.weights[classes.sizes == k].sum()) == comb(deck.size, k)
    # a class's set is in canonical form: its suits' rank masks are non-increasing
    for mask in classes.masks[:2000].tolist():
        suit_masks = [(mask >> (13 * s)) & 0x1FFF for s in deck.suits]
        assert suit_masks == sorted(suit_masks, reverse=True)


@pytest.mark.parametrize("name", list(DECKS))
def test_house_way_pairs_equal_brute_force(name: str) -> None:
    deck = DECKS[name]
    lookup = _lookup(deck)
    hands = deck_hands(deck)
    highs, lows = _values(lookup, hands)
    tally = brute_force(deck, hand_masks(hands), highs, lows, np.full(len(hands), COMPARED))
    counts = count_pairs(lookup, deck)
    _assert_equal(counts, tally)
    assert counts.cells["won_won"] == counts.cells["lost_lost"]  # the same way on both sides
    assert count_pairs(lookup, deck, symmetry=False).cells == counts.cells


def test_compiled_brute_force_equals_the_numpy_one() -> None:
    """The compiled reference (the benchmark's, and the 25-card check's) is the numpy one."""
    deck = DECKS["A-5, 3 suits, joker"]
    hands = deck_hands(deck)
    highs, lows = _values(_lookup(deck), hands)
    want = brute_force(deck, hand_masks(hands), highs, lows, np.full(len(hands), COMPARED))
    assert brute_force_compiled(deck, hands, highs, lows) == want


def test_brute_force_with_the_engine_itself_agrees() -> None:
    """Hand values from HouseWay.set on each hand's own cards, not the lookup."""
    deck = DECKS["J-A, 4 suits, joker"]
    way = load_house_way(WAY)
    hands = deck_hands(deck)
    values = []
    for row in hands.tolist():
        setting = way.set([card_of_id(c) for c in row], DEFAULT_RULES).setting
        values.append((rank_high(setting.high, DEFAULT_RULES), rank_low(setting.low, DEFAULT_RULES)))
    highs, lows = (np.array(v, np.int64) for v in zip(*values, strict=True))
    tally = brute_force(deck, hand_masks(hands), highs, lows, np.full(len(hands), COMPARED))
    _assert_equal(count_pairs(_lookup(deck), deck), tally)


@pytest.mark.parametrize("overqualifier", [True, False])
def test_double_joker_qualification_and_premium_equal_brute_force(overqualifier: bool) -> None:
    # 16 cards, both jokers: seven ranks with gaps, so some hands hold no pair; quads only
    # as two jokers with a pair of Aces, straight flushes only with a joker
    deck = Deck((0, 1, 2, 4, 6, 8, A), 2, (0, 3))
    rules = TableRules(game=Game.DOUBLE_JOKER, overqualifier=overqualifier)
    lookup = _lookup(deck)
    hands = deck_hands(deck)
    highs, lows = _values(lookup, hands)
    state_of = {
        DealerQualification.NOT_QUALIFIED: NOT_QUALIFIED,
        DealerQualification.OVERQUALIFIED: OVERQUALIFIED,
        DealerQualification.QUALIFIED: COMPARED,
    }
    # the dealer's state by the game core, from the seven cards (003)
    states = np.array(
        [state_of[dealer_qualification(rules, [card_of_id(c) for c in row])] for row in hands.tolist()]
    )
    assert (states == NOT_QUALIFIED).any() and (states == OVERQUALIFIED).any() == overqualifier
    tally = brute_force(deck, hand_masks(hands), highs, lows, states)
    counts = count_pairs(lookup, deck, DealerRules.of(rules))
    _assert_equal(counts, tally)
    assert counts.dealer_pair_or_better == counts.pairs - tally[(NOT_QUALIFIED, None, None)]
    if overqualifier:
        assert counts.dealer_four_or_better == tally[(OVERQUALIFIED, None, None)] == counts.premium > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_keys_on_a_toy_deck_equal_brute_force(seed: int) -> None:
    """Few distinct random (high, low) values per pattern, so copies are everywhere, and a
    random half of the hands compared: the counting alone, whatever the house way."""
    deck = DECKS["J-A, 4 suits, joker"]
    lookup = _lookup(deck)
    rng = np.random.default_rng(seed)
    rows = len(lookup.keys)
    highs, lows, compared = rng.integers(0, 4, rows), rng.integers(0, 3, rows), rng.integers(0, 2, rows)
    codes = codes_of(highs, lows, compared)
    hands = deck_hands(deck)
    at = lookup.index(hand_keys(hands))
    state = np.where(compared[at] == 1, COMPARED, NOT_QUALIFIED)
    tally = brute_force(deck, hand_masks(hands), highs[at], lows[at], state)
    for symmetry in (True, False):
        counts = count_pairs(lookup, deck, codes=codes, symmetry=symmetry)
        want = {name: 0 for name in counts.cells}
        want["pairs"] = sum(n for (s, _, _), n in tally.items() if s == COMPARED)
        for (s, high, low), n in tally.items():
            if s == COMPARED and (high, low) in CELL_OF:
                want[CELL_OF[high, low]] += n
        assert counts.cells == want


def test_codes_order_hands_as_their_scores() -> None:
    lookup = _lookup(DECKS["7-Q, 3 suits"])
    codes = hand_codes(lookup, DealerRules())
    high, low = codes >> 8, (codes >> 1) & 127
    i, j = np.random.default_rng(5).integers(0, len(codes), (2, 20_000))
    assert np.array_equal(
        np.sign(high[i] - high[j]), np.sign(lookup.hw_high[i].astype(np.int64) - lookup.hw_high[j])
    )
    assert np.array_equal(
        np.sign(low[i] - low[j]), np.sign(lookup.hw_low[i].astype(np.int64) - lookup.hw_low[j])
    )
    assert np.all(codes & 1)  # the standard game compares every dealer


def test_a_lookup_of_another_deck_is_refused() -> None:
    lookup = _lookup(DECKS["J-A, 4 suits, joker"])
    with pytest.raises(ExactCountError):
        count_pairs(lookup, DECKS["A-5, 3 suits, joker"])


def test_every_set_lists_each_set_once() -> None:
    deck = DECKS["J-A, 4 suits, joker"]
    sets = every_set(deck, 3)
    assert len(sets) == len(set(sets.masks.tolist())) == sum(comb(17, k) for k in range(4))


def _counts(**cells: int) -> PairCounts:
    names = ("pairs", "won_won", "lost_lost", "won_copy", "lost_copy", "copy_won", "copy_lost", "copy_copy")
    return PairCounts(52, 0, {n: cells.get(n, 0) for n in names}, cells.get("nq", 0), cells.get("premium", 0))


def test_money_from_the_counts() -> None:
    # 1000 compared pairs: 300 won, 280 lost outright, 20 lost on copies, 10 pushed on copies, 390 split
    counts = _counts(pairs=1000, won_won=300, lost_lost=280, copy_lost=12, copy_copy=8, won_copy=10)
    assert (counts.wins, counts.pushes, counts.losses) == (300, 400, 300)
    assert (counts.push_copies, counts.loss_copies, counts.split) == (10, 20, 390)
    edge = ExactEdge(counts, commission_rate(TableRules()), 3, banking=True)
    # the player: +0.95 on 300 wins, -1 on 300 losses, per 1000 pairs
    assert edge.house_edge == Fraction(300 - Fraction(95, 100) * 300, 1000) == Fraction(3, 200)
    # a banking player: wins the 300 losses less 5%, pays the 300 wins
    assert edge.banker_return == Fraction(95 * 300 - 100 * 300, 100 * 1000)


def test_double_joker_money_and_flat_fee() -> None:
    counts = _counts(pairs=800, won_won=200, lost_lost=300, nq=150, premium=50)
    assert counts.pairs == 1000 and counts.pushes == 300 + 150
    dj = ExactEdge(counts, commission_rate(TableRules(game=Game.DOUBLE_JOKER)), 3, banking=False)
    assert dj.house_edge == Fraction(300 - 200 - 3 * 50, 1000)  # no commission (003)
    assert dj.banker_return is None
    flat = TableRules(commission=FlatFee(fee=100))
    assert commission_rate(flat) is None
    assert ExactEdge(counts, None, 3, banking=True).house_edge is None
