"""A brute-force reference ranking, for tests only.

Written from the rules text, independently of evaluator.py (it shares only cards.Card):

- A natural five-card hand is valued as in poker; ``CATEGORIES`` is the order of
  002_08ea07f9e4b504bc.txt's "Hand Ranks" (five aces on top). Straights are ordered by the
  list ``straight_runs(wheel)``: A-2-3-4-5 just below A-K-Q-J-T in Nevada (001, 002, 003),
  lowest in California (004_60e2fc6346e3399b.txt).
- A joker is tried in every role the rules give it (001, 002, 003): as every natural card not
  already in the hand, kept only when the result is a straight, flush, straight flush or royal
  flush; and as an Ace that has no suit (so it completes no flush). Two jokers are tried
  together. The hand's value is the best try. Nothing here knows the "highest missing rank"
  rule of 003: trying every card finds it.
- Two cards: pair above unmatched, then the higher card, then the lower (001); the joker is an
  Ace, or, when wild (004), also every natural card not held.
- Seven cards: the Big Hand Bonus lines of 003, in ``BIG_HAND_LINES`` order.

Values are tuples; a larger tuple is a better hand and equal tuples copy. Slow on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from table_controller.game.cards import Card

RANKS = range(2, 15)
SUITS = "shdc"
ACE = 14
NATURALS = [(rank, suit) for rank in RANKS for suit in SUITS]

CATEGORIES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
    "five aces",
)
FILLED_BY_JOKER = {"straight", "flush", "straight flush", "royal flush"}
ROYAL = frozenset({10, 11, 12, 13, 14})

BIG_HAND_LINES = (
    "straight or worse",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
    "five aces",
    "7-card straight flush",
    "six aces",
    "7-card natural straight flush",
)

Plain = tuple[int, "str | None"]  # (rank, suit); suit None for a joker playing a suitless Ace
Value = tuple[int, tuple[int, ...]]


def straight_runs(wheel: str) -> list[frozenset[int]]:
    """The five-card straights, weakest first."""
    runs = [frozenset(range(low, low + 5)) for low in range(2, 11)]  # 2-6 .. T-A
    wheel_run = frozenset({ACE, 2, 3, 4, 5})
    if wheel == "california":
        return [wheel_run, *runs]
    if wheel == "nevada":
        return [*runs[:-1], wheel_run, runs[-1]]
    raise ValueError(f"unknown wheel {wheel!r}")


def _value(cards: Sequence[Plain], runs: list[frozenset[int]]) -> Value:
    """Poker value of five plain cards."""
    ranks = [rank for rank, _ in cards]
    suits = {suit for _, suit in cards}
    flush = len(suits) == 1 and None not in suits
    rank_set = frozenset(ranks)
    straight = rank_set in runs
    if straight and flush:
        if rank_set == ROYAL:
            return CATEGORIES.index("royal flush"), ()
        return CATEGORIES.index("straight flush"), (runs.index(rank_set),)
    counts = {rank: ranks.count(rank) for rank in rank_set}
    order = sorted(rank_set, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if shape == [5]:
        assert order == [ACE], "five of a kind other than Aces cannot be dealt"
        name = "five aces"
    elif shape == [4, 1]:
        name = "four of a kind"
    elif shape == [3, 2]:
        name = "full house"
    elif flush:
        name = "flush"
    elif straight:
        return CATEGORIES.index("straight"), (runs.index(rank_set),)
    elif shape == [3, 1, 1]:
        name = "three of a kind"
    elif shape == [2, 2, 1]:
        name = "two pair"
    elif shape == [2, 1, 1, 1]:
        name = "one pair"
    else:
        name = "high card"
    return CATEGORIES.index(name), tuple(order)


def _plain(cards: Sequence[Card]) -> tuple[list[Plain], int]:
    naturals = [(card.rank, card.suit) for card in cards if not card.is_joker]
    return naturals, len(cards) - len(naturals)


def high_value(cards: Sequence[Card], wheel: str = "nevada") -> Value:
    """Best value of a five-card hand over every role of its jokers."""
    assert len(cards) == 5
    runs = straight_runs(wheel)
    naturals, jokers = _plain(cards)
    best = _value(naturals + [(ACE, None)] * jokers, runs)
    unheld = [card for card in NATURALS if card not in naturals]
    run_set = set(runs)
    for substitutes in combinations(unheld, jokers) if jokers else ():
        five = naturals + list(substitutes)
        if len({suit for _, suit in five}) != 1 and frozenset(rank for rank, _ in five) not in run_set:
            continue  # neither a flush nor a straight: a quick pre-check only, _value decides
        value = _value(five, runs)
        if CATEGORIES[value[0]] in FILLED_BY_JOKER:
            best = max(best, value)
    return best


def high_category_name(cards: Sequence[Card], wheel: str = "nevada") -> str:
    return CATEGORIES[high_value(cards, wheel)[0]]


def low_value(cards: Sequence[Card], joker_wild: bool = False) -> tuple[int, int, int]:
    """(pair?, higher rank, lower rank) of a two-card hand, best over the jokers' roles."""
    assert len(cards) == 2
    naturals, jokers = _plain(cards)
    tries = [[rank for rank, _ in naturals] + [ACE] * jokers]
    if joker_wild and jokers:
        unheld = [card for card in NATURALS if card not in naturals]
        tries += [[rank for rank, _ in naturals + list(subs)] for subs in combinations(unheld, jokers)]
    return max((int(a == b), max(a, b), min(a, b)) for a, b in tries)


def _seven_runs() -> list[frozenset[int]]:
    runs = [frozenset(range(low, low + 7)) for low in range(2, 9)]  # 2-8 .. 8-A
    return [frozenset({ACE, 2, 3, 4, 5, 6, 7}), *runs]


def big_hand_line(cards: Sequence[Card], wheel: str = "nevada") -> str:
    """The Big Hand Bonus line (003) of seven cards, by trying everything."""
    assert len(cards) == 7
    naturals, jokers = _plain(cards)
    unheld = [card for card in NATURALS if card not in naturals]
    for substitutes in combinations(unheld, jokers):
        seven = naturals + list(substitutes)
        if len({suit for _, suit in seven}) == 1 and frozenset(rank for rank, _ in seven) in _seven_runs():
            return "7-card straight flush" if jokers else "7-card natural straight flush"
    if sum(1 for rank, _ in naturals if rank == ACE) + jokers >= 6:
        return "six aces"
    best = max(high_value(five, wheel) for five in combinations(cards, 5))
    name = CATEGORIES[best[0]]
    return name if name in BIG_HAND_LINES else "straight or worse"
