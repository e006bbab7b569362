"""Shared hands and lookups for the analysis tests."""

from __future__ import annotations

import random

from table_controller.game.cards import JOKER, NATURAL_CARDS, Card

SUITS = "shdc"


def random_hands(seed: int, count: int, jokers: int = 2) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    deck = list(NATURAL_CARDS) + [JOKER] * jokers
    return [tuple(rng.sample(deck, 7)) for _ in range(count)]


def rich_hands(seed: int, count: int) -> list[tuple[Card, ...]]:
    """Hands from few ranks and suits, so flushes, straight flushes, quads and five Aces come often."""
    rng = random.Random(seed)
    hands = []
    while len(hands) < count:
        ranks = rng.sample(range(2, 15), rng.choice((3, 5, 7)))
        if rng.random() < 0.3:
            ranks = sorted(set(ranks) | {14, 13, 12, 11, 10})
        suits = rng.sample(SUITS, rng.choice((1, 2, 4)))
        pool = [Card(r, s) for r in ranks for s in suits] + [JOKER] * rng.choice((0, 1, 2))
        if len(pool) >= 7:
            hands.append(tuple(rng.sample(pool, 7)))
    return hands
