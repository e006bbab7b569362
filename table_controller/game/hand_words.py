"""A hand as a dealer reads it aloud: its cards in reading order, and its name.

The order: the made part first, then the kickers high to low. Pairs, trips and quads are
grouped, the larger group first, then the higher rank (a full house reads its trips first;
two pair the higher pair first); a straight or straight flush reads from its top card down
(A-2-3-4-5 reads 5-4-3-2-A, "straight to the five", under either wheel rule, 001 / 004); a
flush reads high to low. The joker stands where it plays (001, 002, 003): as the card it
fills in a straight, a flush (the highest rank the suit lacks, 003) or a straight flush,
otherwise as an Ace, after any natural Ace. In the two-card hand the joker is an Ace, or,
where the table plays it fully wild in front (004), the card it pairs.

The reading follows the score ``evaluator.rank_high`` / ``rank_low`` give the hand under the
table's ``RankingRules``, so it can never read a hand other than the one that ranks: with
2-3-4-5 and the joker, Nevada reads "straight to the five" (the joker an Ace: the wheel is
the second-highest straight) and California "straight to the six" (the wheel is the lowest).

Names: "pair of kings", "two pair, aces and fives", "three sevens", "straight to the ten",
"flush, ace high", "full house, queens over fours", "four jacks", "straight flush to the
nine", "royal flush", "five aces", "ace high"; in front "pair of nines" or "king-jack".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .cards import ACE, Card
from .evaluator import (
    CATEGORY_SHIFT,
    DEFAULT_RULES,
    HighCategory,
    LowCategory,
    RankingRules,
    low_category,
    rank_high,
    rank_low,
)

RANK_WORDS: Final[dict[int, str]] = dict(
    zip(
        range(2, ACE + 1),
        [
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "jack",
            "queen",
            "king",
            "ace",
        ],
        strict=True,
    )
)

# Straight heights as evaluator.py packs them: 14 is the Nevada wheel, 5 the California
# wheel, 15 the A-high straight; any other height is the straight's top rank.
_WHEEL_HEIGHTS: Final = frozenset({14, 5})
_ACE_HIGH: Final = 15
_WHEEL_ORDER: Final = (5, 4, 3, 2, ACE)
_RUNS: Final = frozenset({HighCategory.STRAIGHT, HighCategory.STRAIGHT_FLUSH, HighCategory.ROYAL_FLUSH})


@dataclass(frozen=True, slots=True)
class HandReading:
    """A hand's cards in the order a dealer reads them, and its name."""

    cards: tuple[Card, ...]
    name: str


def rank_word(rank: int) -> str:
    """``king`` for 13."""
    return RANK_WORDS[rank]


def rank_plural(rank: int) -> str:
    """``kings`` for 13, ``sixes`` for 6."""
    word = RANK_WORDS[rank]
    return word + ("es" if word.endswith("x") else "s")


def _kickers(score: int) -> list[int]:
    """The five 4-bit kickers of a high-hand score, most significant first (evaluator.py)."""
    return [(score >> (CATEGORY_SHIFT - 4 * (i + 1))) & 15 for i in range(5)]


def _by_ranks(cards: Sequence[Card], ranks: Sequence[int]) -> tuple[Card, ...]:
    """The cards laid out to the given ranks: each rank's natural card, or a joker filling it."""
    naturals = {card.rank: card for card in cards if not card.is_joker}
    jokers = [card for card in cards if card.is_joker]
    return tuple(naturals[rank] if rank in naturals else jokers.pop() for rank in ranks)


def _grouped(cards: Sequence[Card], joker_rank: int) -> tuple[Card, ...]:
    """Larger groups first, then higher ranks; the joker counted as ``joker_rank`` and read
    after the natural cards of its rank (a stable sort keeps the rest as given)."""

    def rank(card: Card) -> int:
        return joker_rank if card.is_joker else card.rank

    counts = Counter(rank(card) for card in cards)
    return tuple(sorted(cards, key=lambda card: (-counts[rank(card)], -rank(card), card.is_joker)))


def _straight_top(height: int) -> int:
    if height in _WHEEL_HEIGHTS:
        return 5
    return ACE if height == _ACE_HIGH else height


def _high_name(category: HighCategory, kickers: list[int]) -> str:
    first, second = kickers[0], kickers[1]
    match category:
        case HighCategory.HIGH_CARD:
            return f"{rank_word(first)} high"
        case HighCategory.ONE_PAIR:
            return f"pair of {rank_plural(first)}"
        case HighCategory.TWO_PAIR:
            return f"two pair, {rank_plural(first)} and {rank_plural(second)}"
        case HighCategory.THREE_OF_A_KIND:
            return f"three {rank_plural(first)}"
        case HighCategory.STRAIGHT:
            return f"straight to the {rank_word(_straight_top(first))}"
        case HighCategory.FLUSH:
            return f"flush, {rank_word(first)} high"
        case HighCategory.FULL_HOUSE:
            return f"full house, {rank_plural(first)} over {rank_plural(second)}"
        case HighCategory.FOUR_OF_A_KIND:
            return f"four {rank_plural(first)}"
        case HighCategory.STRAIGHT_FLUSH:
            return f"straight flush to the {rank_word(_straight_top(first))}"
        case HighCategory.ROYAL_FLUSH:
            return "royal flush"
        case HighCategory.FIVE_ACES:
            return "five aces"
    raise AssertionError(category)  # pragma: no cover - every category is named above


def read_high(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> HandReading:
    """The five-card hand as a dealer reads it (see the module docstring).

    Raises what ``rank_high`` raises for a hand that is not five cards of one deck.
    """
    score = rank_high(cards, rules)
    category = HighCategory(score >> CATEGORY_SHIFT)
    kickers = _kickers(score)
    if category in _RUNS:
        top = _straight_top(kickers[0])
        ranks = _WHEEL_ORDER if top == 5 else tuple(range(top, top - 5, -1))
        ordered = _by_ranks(cards, ranks)
    elif category is HighCategory.FLUSH:
        ordered = _by_ranks(cards, kickers)  # the joker's rank is among the kickers (003)
    else:
        ordered = _grouped(cards, ACE)  # no straight or flush made: the joker is an Ace (001)
    return HandReading(cards=ordered, name=_high_name(category, kickers))


def read_low(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> HandReading:
    """The two-card hand as a dealer reads it: the higher card first, the pair or the two
    ranks named. Raises what ``rank_low`` raises for a hand that is not two cards of one deck."""
    score = rank_low(cards, rules)
    higher, lower = (score >> 4) & 15, score & 15
    naturals = [card for card in cards if not card.is_joker]
    # The joker pairs the other card where it is wild in front (004), else it is an Ace (001).
    wild = rules.joker_wild_in_low and len(naturals) == 1
    ordered = _grouped(cards, naturals[0].rank if wild else ACE)
    if low_category(score) is LowCategory.PAIR:
        name = f"pair of {rank_plural(higher)}"
    else:
        name = f"{rank_word(higher)}-{rank_word(lower)}"
    return HandReading(cards=ordered, name=name)


__all__ = ["RANK_WORDS", "HandReading", "rank_plural", "rank_word", "read_high", "read_low"]
