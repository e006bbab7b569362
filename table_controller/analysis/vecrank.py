"""Card ids and vectorised ranking (numpy), derived from the game core's evaluator.

Card ids for bulk work: ``suit * 13 + rank index`` (suits in ``cards.SUIT_CHARS`` order,
rank index 0..12 for 2..Ace), 52 and 53 for the jokers (the Double Joker deck's two,
indistinguishable in play).

The five-card ranking uses the evaluator's own card integers and keys
(``ranking_tables.py``): every hand class is scored once by ``evaluator.rank_high_ints``
on a representative hand, and the scores are laid out as numpy arrays. So a vectorised
score is the evaluator's score by construction (tests/analysis checks it on random hands).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..game.cards import ACE, JOKER, SUIT_CHARS, Card
from ..game.evaluator import DEFAULT_RULES, LowCategory, RankingRules, card_int, rank_high_ints
from ..game.ranking_tables import JOKER_INT, RANK_SHIFT, SUIT_MASK, HandClass, high_hand_classes

RANKS = 13
NATURALS = 52
JOKER_IDS = (52, 53)
SUITED_TABLE_SIZE = 1 << 15


def card_of_id(card_id: int) -> Card:
    """The Card of a card id."""
    if card_id >= NATURALS:
        return JOKER
    suit, rank_index = divmod(card_id, RANKS)
    return Card(rank_index + 2, SUIT_CHARS[suit])


def id_of_card(card: Card, second_joker: bool = False) -> int:
    """The card id of a Card (a joker is 52, or 53 when ``second_joker``)."""
    if card.is_joker:
        return JOKER_IDS[1 if second_joker else 0]
    return SUIT_CHARS.index(card.suit) * RANKS + card.rank - 2


def ids_of_cards(cards: list[Card] | tuple[Card, ...]) -> list[int]:
    """Card ids of a hand, the jokers numbered 52 then 53."""
    ids, jokers = [], 0
    for card in cards:
        ids.append(id_of_card(card, second_joker=card.is_joker and jokers > 0))
        jokers += card.is_joker
    return ids


CARD_INT_OF_ID = np.array(
    [card_int(card_of_id(i)) for i in range(NATURALS)] + [JOKER_INT, JOKER_INT], np.int64
)
RANK_OF_ID = np.array([i % RANKS + 2 for i in range(NATURALS)] + [0, 0], np.int64)  # 0: joker


def _representative(hand: HandClass) -> list[int]:
    """Card integers of one hand of the class (suits chosen to match ``suited``)."""
    cards = []
    if hand.suited:
        cards = [Card(rank, SUIT_CHARS[0]) for rank in hand.ranks]
    else:
        seen: dict[int, int] = {}
        for rank in hand.ranks:
            cards.append(Card(rank, SUIT_CHARS[seen.get(rank, 0)]))
            seen[rank] = seen.get(rank, 0) + 1
        if len({card.suit for card in cards}) == 1:
            cards[0] = Card(cards[0].rank, SUIT_CHARS[1])
    return [card_int(card) for card in cards] + [JOKER_INT] * hand.jokers


@dataclass(frozen=True, slots=True)
class HighTablesNp:
    suited: np.ndarray  # rank bits + jokers -> score, int32
    unsuited_keys: np.ndarray  # sorted prime products, int64
    unsuited_scores: np.ndarray  # int32, same order


@functools.cache
def high_tables(rules: RankingRules = DEFAULT_RULES) -> HighTablesNp:
    """The evaluator's five-card scores of every hand class, as numpy arrays."""
    suited = np.zeros(SUITED_TABLE_SIZE, np.int32)
    unsuited: dict[int, int] = {}
    for hand in high_hand_classes():
        score = rank_high_ints(_representative(hand), rules)
        if hand.suited:
            suited[hand.key] = score
        else:
            unsuited[hand.key] = score
    keys = np.array(sorted(unsuited), np.int64)
    scores = np.array([unsuited[int(key)] for key in keys], np.int32)
    return HighTablesNp(suited, keys, scores)


def rank_high_ids(ids: np.ndarray, rules: RankingRules = DEFAULT_RULES) -> np.ndarray:
    """Five-card scores of ``ids`` (shape (..., 5) card ids), as ``evaluator.rank_high``."""
    tables = high_tables(rules)
    ints = CARD_INT_OF_ID[ids]
    all_and = ints[..., 0] & ints[..., 1] & ints[..., 2] & ints[..., 3] & ints[..., 4] & SUIT_MASK
    suited_key = (ints.sum(axis=-1) >> RANK_SHIFT) & (SUITED_TABLE_SIZE - 1)
    product = np.prod(ints & 0xFF, axis=-1)
    where = np.searchsorted(tables.unsuited_keys, product).clip(0, len(tables.unsuited_keys) - 1)
    return np.where(all_and != 0, tables.suited[suited_key], tables.unsuited_scores[where])


def rank_low_ids(ids: np.ndarray, rules: RankingRules = DEFAULT_RULES) -> np.ndarray:
    """Two-card scores of ``ids`` (shape (..., 2)), as ``evaluator.rank_low``."""
    ranks = RANK_OF_ID[ids]
    a, b = ranks[..., 0], ranks[..., 1]
    if rules.joker_wild_in_low:
        # 004: the joker pairs the other card; two jokers are a pair of Aces.
        a_wild, b_wild = a == 0, b == 0
        a = np.where(a_wild, np.where(b_wild, ACE, b), a)
        b = np.where(b_wild, a, b)
    a = np.where(a == 0, ACE, a)
    b = np.where(b == 0, ACE, b)
    hi, lo = np.maximum(a, b), np.minimum(a, b)
    return (((hi == lo) * int(LowCategory.PAIR)) << 8 | hi << 4 | lo).astype(np.int32)


def high_beats_low_np(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """``setting.high_beats_low`` on arrays of scores."""
    category = high >> 20
    top, second = (high >> 16) & 15, (high >> 12) & 15
    low_hi, low_lo = (low >> 4) & 15, low & 15
    pair_front = (low >> 8) == LowCategory.PAIR
    versus_pair = (category >= 2) | ((category == 1) & (top >= low_hi))
    versus_cards = (category >= 1) | (top > low_hi) | ((top == low_hi) & (second >= low_lo))
    return np.where(pair_front, versus_pair, versus_cards)


__all__ = [
    "CARD_INT_OF_ID",
    "JOKER_IDS",
    "RANK_OF_ID",
    "card_of_id",
    "high_beats_low_np",
    "high_tables",
    "id_of_card",
    "ids_of_cards",
    "rank_high_ids",
    "rank_low_ids",
]
