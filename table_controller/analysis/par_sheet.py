"""The par sheet: exact hand distribution and the bonus wagers' math (003).

Everything here is exact: hand counts are integers from ``enumerate7`` (every seven-card
hand counted once), probabilities, returns and edges are ``Fraction``; decimals are for
display only.

- Best five-card hand distribution (001/003 joker: an Ace, or completing a straight, flush
  or straight flush).
- Big Hand Bonus (003): the line the player's seven cards pay on, per the pay table.
- Joker Bonus (003): where the deck's jokers fall between the player's seven cards and the
  dealer's seven (dealt from the 47 others).

Per pay line: combinations, probability, the line's contribution to the return per unit
wagered (``odds * p`` for a paying line, ``-p`` for a loss). Return = the sum; house edge =
minus the return; hit rate = probability of any paying line.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

from ..game.cards import Game
from ..game.paytables import BIG_HAND_LINES, JOKER_BONUS_LINES, Bonus, PayTable
from .enumerate7 import Progress, SevenCardCounts, count_seven_card_hands
from .provenance import Provenance

# Figures a rules document prints, to be shown beside ours (003's pay tables).
PUBLISHED_HIT_RATES = {
    Bonus.BIG_HAND: ("8.82%", Fraction(882, 10_000)),
    Bonus.JOKER: ("25.93%", Fraction(2593, 10_000)),
}

BIG_HAND_READING = (
    "Big Hand Bonus on all seven of the player's cards (003), in evaluator.seven_card_category's order: "
    "a seven-card straight flush needs every natural card in one suit, the jokers filling, the Ace low "
    "in A-2-3-4-5-6-7; six Aces count the jokers as Aces; otherwise the best five-card hand with the "
    "joker as an Ace or completing a straight, flush or straight flush (001, 003), never fully wild."
)
JOKER_BONUS_READING = (
    "Joker Bonus by the jokers in the player's seven cards and the dealer's seven, the dealer's dealt "
    "from the 47 cards the player does not hold; '2 Jokers, Dealer' = both with the dealer, none with "
    "the player (docs/settlement.md)."
)
BEST_FIVE_READING = "The joker is an Ace, or completes a straight, flush or straight flush (001, 003)."


def _decimal(value: Fraction, places: int = 6) -> str:
    """A fraction as a percentage string for display."""
    return f"{float(value) * 100:.{places}f}%"


@dataclass(frozen=True, slots=True)
class PayLineMath:
    line: str
    odds: int | None
    combinations: int
    probability: Fraction
    contribution: Fraction

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "odds": self.odds if self.odds is not None else "loss",
            "combinations": self.combinations,
            "probability": str(self.probability),
            "probability_decimal": float(self.probability),
            "contribution": str(self.contribution),
            "contribution_decimal": float(self.contribution),
        }


@dataclass(frozen=True, slots=True)
class BonusMath:
    """One bonus wager's math under one pay table."""

    bonus: Bonus
    lines: tuple[PayLineMath, ...]
    total: int  # combinations in all
    reading: str
    published_hit_rate: str | None = None
    published_matches: bool | None = None

    @property
    def hit_rate(self) -> Fraction:
        return sum((line.probability for line in self.lines if line.odds is not None), Fraction(0))

    @property
    def expected_return(self) -> Fraction:
        return sum((line.contribution for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_return

    def as_dict(self) -> dict[str, Any]:
        return {
            "bonus": self.bonus.value,
            "total_combinations": self.total,
            "lines": [line.as_dict() for line in self.lines],
            "hit_rate": str(self.hit_rate),
            "hit_rate_decimal": float(self.hit_rate),
            "house_edge": str(self.house_edge),
            "house_edge_decimal": float(self.house_edge),
            "published_hit_rate": self.published_hit_rate,
            "published_hit_rate_reproduced": self.published_matches,
            "reading": self.reading,
        }


def _bonus_math(bonus: Bonus, table: PayTable, combos: dict[str, int], total: int, reading: str) -> BonusMath:
    lines = []
    for name, count in combos.items():
        odds = table.line(name).odds
        probability = Fraction(count, total)
        contribution = probability * odds if odds is not None else -probability
        lines.append(PayLineMath(name, odds, count, probability, contribution))
    text, value = PUBLISHED_HIT_RATES[bonus]
    math = BonusMath(bonus, tuple(lines), total, reading)
    # The document prints two decimals of a percentage: reproduced when ours rounds to it.
    matches = round(math.hit_rate * 10_000) == value * 10_000
    return BonusMath(bonus, tuple(lines), total, reading, published_hit_rate=text, published_matches=matches)


def big_hand_math(counts: SevenCardCounts, table: PayTable) -> BonusMath:
    """Big Hand Bonus per line from the seven-card counts."""
    combos = {name: counts.big_hand[category] for name, category in BIG_HAND_LINES.items()}
    return _bonus_math(Bonus.BIG_HAND, table, combos, counts.total, BIG_HAND_READING)


def joker_bonus_combinations(
    deck_jokers: int, naturals: int = 52, hand: int = 7
) -> dict[tuple[int, int], int]:
    """(player jokers, dealer jokers) -> ordered (player hand, dealer hand) pairs, exact."""
    combos: dict[tuple[int, int], int] = {}
    for player in range(min(deck_jokers, hand) + 1):
        player_hands = comb(deck_jokers, player) * comb(naturals, hand - player)
        left_jokers, left_naturals = deck_jokers - player, naturals - (hand - player)
        for dealer in range(min(left_jokers, hand) + 1):
            combos[(player, dealer)] = (
                player_hands * comb(left_jokers, dealer) * comb(left_naturals, hand - dealer)
            )
    return combos


def joker_bonus_math(deck_jokers: int, table: PayTable) -> BonusMath:
    """Joker Bonus per line, exact, for a deck of ``deck_jokers`` jokers."""
    by_place = joker_bonus_combinations(deck_jokers)
    total = comb(52 + deck_jokers, 7) * comb(52 + deck_jokers - 7, 7)
    combos = {line.value: 0 for line in JOKER_BONUS_LINES.values()}
    for place, count in by_place.items():
        combos[JOKER_BONUS_LINES[place].value] += count
    return _bonus_math(Bonus.JOKER, table, combos, total, JOKER_BONUS_READING)


@dataclass(frozen=True, slots=True)
class ParSheet:
    """A game's par sheet, with what it was computed for."""

    provenance: Provenance
    counts: SevenCardCounts
    bonuses: tuple[BonusMath, ...] = field(default=())
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        total = self.counts.total
        return {
            "kind": "par-sheet",
            "provenance": self.provenance.as_dict(),
            "deck_cards": 52 + self.counts.deck_jokers,
            "hands": total,
            "best_five_reading": BEST_FIVE_READING,
            "best_five": [
                {
                    "category": category.label,
                    "combinations": count,
                    "probability": str(Fraction(count, total)),
                    "probability_decimal": count / total,
                }
                for category, count in sorted(self.counts.best_five.items(), reverse=True)
            ],
            "hands_by_jokers": {str(j): n for j, n in self.counts.by_jokers.items()},
            "bonuses": [bonus.as_dict() for bonus in self.bonuses],
            "seconds": round(self.seconds, 3),
        }


def build_par_sheet(
    game: Game,
    provenance: Provenance,
    big_hand: PayTable | None = None,
    joker_bonus: PayTable | None = None,
    progress: Progress | None = None,
) -> ParSheet:
    """Enumerate every seven-card hand of ``game``'s deck and price the given pay tables."""
    start = time.perf_counter()
    counts = count_seven_card_hands(game, progress)
    bonuses = []
    if big_hand is not None:
        bonuses.append(big_hand_math(counts, big_hand))
    if joker_bonus is not None:
        bonuses.append(joker_bonus_math(game.jokers, joker_bonus))
    return ParSheet(provenance, counts, tuple(bonuses), time.perf_counter() - start)


__all__ = [
    "BonusMath",
    "ParSheet",
    "PayLineMath",
    "big_hand_math",
    "build_par_sheet",
    "joker_bonus_combinations",
    "joker_bonus_math",
]
