"""The reference engine: the house way read as plainly as it is written.

``reference_set(way, cards)`` gives what ``HouseWay.set`` gives, the readable way: the facts
of the hand computed with counters and loops (``PlainFacts``), the sections and rows walked
in order as the way file lists them, every split checked with ``setting.is_legal`` and every
choice scored with the evaluator. No signatures, no bit-packed codes, no precompiled rows.
The fast engine (engine.py, facts.py) must give the same result for every hand: a
hypothesis property test holds it to this one (tests/game/test_house_way_reference.py).

The steps (docs/house-way.md, Readings):

1. G1: the first section, in the order tried, whose condition holds.
2. G3: its rows top to bottom; a row applies when its combination's condition and its own
   hold. "Follow the steps described for ..." reads that combination's rows with their own
   conditions only.
3. G5: among the fronts a row leaves open, the legal one with the strongest high hand, then
   the strongest low hand, then the fewest jokers in front; still equal, the first.
4. G4: a row whose every choice fouls is skipped (recorded) and the next one is tried.
5. No row: the way's last resort, else NoLegalSettingError.
6. G7: when the joker can fill different gaps, giving more than one run of the longest
   length, steps 2-5 are taken with each; the run whose front is the highest two-card hand
   is used, equal, the higher run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..cards import (
    ACE,
    SUIT_CHARS,
    Card,
    DuplicateCardError,
    HandSizeError,
    TooManyJokersError,
    UnknownCardError,
    codes,
)
from ..evaluator import DEFAULT_RULES, RankingRules, Wheel, rank_high, rank_low
from ..ranking_tables import MAX_JOKERS
from ..setting import Setting, is_legal
from .engine import HouseWay, HouseWayResult, Rule, Section
from .errors import NoLegalSettingError
from .facts import (
    FLUSH,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    Run,
    group_kinds,
)

Low = tuple[int, int]


# -- straights, plainly (docs/house-way.md, Readings G7) ---------------------------------------


def _held(ranks: Sequence[int]) -> set[int]:
    """Natural ranks held, the Ace also as 1 (it plays low or high)."""
    held = set(ranks)
    if ACE in held:
        held.add(1)
    return held


def _how_high(low: int, length: int, nevada: bool) -> int:
    """How a run stands among runs of its length: ending with an Ace 15; A-2-3-4-5 14 (Nevada)
    or 5 (California); else its top card."""
    top = low + length - 1
    if top == ACE:
        return 15
    if low == 1 and length == 5:
        return 14 if nevada else 5
    return top


def longest_runs(ranks: Sequence[int], jokers: int, nevada: bool) -> list[tuple[int, int]]:
    """``(lowest rank, length)`` of every run of the longest length the natural ``ranks`` and
    ``jokers`` make, one per set of natural cards used, placed lowest (the jokers at the
    bottom); the highest first."""
    held = _held(ranks)
    for length in (7, 6, 5):
        runs: dict[frozenset[int], list[int]] = {}  # natural ranks used -> the starts that use them
        for low in range(1, 16 - length):
            used = frozenset(rank for rank in range(low, low + length) if rank in held)
            if length - len(used) <= jokers:
                runs.setdefault(used, []).append(low)
        if runs:
            ordered = sorted(
                runs.values(),
                key=lambda starts: (max(_how_high(low, length, nevada) for low in starts), min(starts)),
            )
            return [(min(starts), length) for starts in reversed(ordered)]
    return []


def longest_run(ranks: Sequence[int], jokers: int, nevada: bool) -> tuple[int, int] | None:
    """The higher of the longest runs (longest_runs), or None below five cards."""
    runs = longest_runs(ranks, jokers, nevada)
    return runs[0] if runs else None


# -- the facts of a hand, plainly ----------------------------------------------------------------


class PlainFacts:
    """What the predicates and card selectors ask about seven cards (the same questions as
    facts.HandFacts), computed plainly. Cards are named by their position 0..6."""

    def __init__(self, cards: Sequence[Card], ranking: RankingRules) -> None:
        self.cards = tuple(cards)
        self.ranking = ranking
        self.run_kind = "straight"
        self.forced_run: tuple[int, int] | None = None  # Readings G7: the run tried
        self.memo: dict[Any, Any] = {}
        self.jokers = [i for i, card in enumerate(self.cards) if card.is_joker]
        # G2: in groups of ranks a joker is an Ace
        self.grank = [ACE if card.is_joker else card.rank for card in self.cards]
        self.suits = [card.suit for card in self.cards]
        self.counts: dict[int, int] = dict(Counter(self.grank))
        self.singles = tuple(sorted((r for r, n in self.counts.items() if n == 1), reverse=True))
        self.pairs = tuple(sorted(r for r, n in self.counts.items() if n == 2))
        self.threes = tuple(sorted(r for r, n in self.counts.items() if n == 3))
        self.nevada = ranking.wheel is Wheel.NEVADA
        self.flush_suit = self._flush_suit(range(7))

    # groups of ranks

    def count(self, rank: int) -> int:
        return self.counts.get(rank, 0)

    def places(self, rank: int) -> list[int]:
        return [i for i in range(7) if self.grank[i] == rank]

    def natural_places(self, rank: int) -> list[int]:
        return [i for i in self.places(rank) if i not in self.jokers]

    def ranks_high_first(self) -> list[int]:
        return sorted(self.grank, reverse=True)

    # flushes

    def _flush_suit(self, places: Sequence[int]) -> str | None:
        jokers = sum(1 for i in places if i in self.jokers)
        for suit in SUIT_CHARS:
            if sum(1 for i in places if self.suits[i] == suit) + jokers >= 5:
                return suit
        return None

    def makes_flush(self, places: Sequence[int]) -> bool:
        return self._flush_suit(places) is not None

    def flush_size(self) -> int:
        if self.flush_suit is None:
            return 0
        return self.suits.count(self.flush_suit) + len(self.jokers)

    def flush_cards(self) -> list[int]:
        places = [i for i in range(7) if self.flush_suit is not None and self.suits[i] == self.flush_suit]
        return sorted(places, key=lambda i: self.grank[i], reverse=True)

    # straights

    def _naturals(self, places: Sequence[int]) -> tuple[list[int], int]:
        naturals = [self.grank[i] for i in places if i not in self.jokers]
        return naturals, len(places) - len(naturals)

    def run_window_of(self, places: Sequence[int]) -> tuple[int, int] | None:
        return longest_run(*self._naturals(places), self.nevada)

    def makes_straight(self, places: Sequence[int]) -> bool:
        return self.run_window_of(places) is not None

    def five_card_windows_of(self, places: Sequence[int]) -> tuple[int, ...]:
        naturals, jokers = self._naturals(places)
        held = _held(naturals)
        return tuple(
            low for low in range(1, 11) if sum(1 for r in range(low, low + 5) if r not in held) <= jokers
        )

    def straight_flush_window(self) -> tuple[int, int] | None:
        if self.flush_suit is None:
            return None
        ranks = [self.grank[i] for i in range(7) if self.suits[i] == self.flush_suit]
        return longest_run(ranks, len(self.jokers), self.nevada)

    def runs(self) -> list[tuple[int, int]]:
        """Every run of the longest length the section's rows could use, the highest first."""
        if self.run_kind == "straight-flush":
            if self.flush_suit is None:
                return []
            ranks = [self.grank[i] for i in range(7) if self.suits[i] == self.flush_suit]
            return longest_runs(ranks, len(self.jokers), self.nevada)
        return longest_runs(*self._naturals(range(7)), self.nevada)

    def run(self) -> Run | None:
        """The straight used by the section being read (the straight flush's in Straight
        Flush), from its lowest card up: each rank's last natural copy in hand order, a joker
        where none (G7). The run tried (``forced_run``), else the highest."""
        suit = self.flush_suit if self.run_kind == "straight-flush" else None
        runs = self.runs()
        window = self.forced_run or (runs[0] if runs else None)
        if window is None:
            return None
        low, length = window
        spare = list(self.jokers)
        members, joker_places = [], []
        for place, rank in enumerate(range(low, low + length), start=1):
            wanted = ACE if rank == 1 else rank
            copies = [i for i in self.natural_places(wanted) if suit is None or self.suits[i] == suit]
            if copies:
                members.append(copies[-1])
            else:
                members.append(spare.pop(0))
                joker_places.append(place)
        outside = tuple(i for i in range(7) if i not in members)
        return Run(low=low, members=tuple(members), joker_places=tuple(joker_places), outside=outside)

    # what the seven cards can make (G1)

    def kinds(self) -> int:
        kinds = group_kinds(sorted(self.counts.values(), reverse=True))
        if self.flush_suit is not None:
            kinds |= FLUSH
            if self.straight_flush_window() is not None:
                kinds |= STRAIGHT_FLUSH
                ranks = {self.grank[i] for i in range(7) if self.suits[i] == self.flush_suit}
                if sum(1 for rank in range(10, 15) if rank not in ranks) <= len(self.jokers):
                    kinds |= ROYAL_FLUSH
        if self.run_window_of(range(7)) is not None:
            kinds |= STRAIGHT
        return kinds

    @property
    def kinds_bits(self) -> int:
        return self.kinds()

    # splits

    def split(self, low: Sequence[int]) -> Setting:
        front = sorted(low)
        return Setting(
            high=tuple(self.cards[i] for i in range(7) if i not in front),
            low=tuple(self.cards[i] for i in front),
        )

    def legal(self, a: int, b: int) -> bool:
        return is_legal(self.split((a, b)), self.ranking)

    def value(self, low: Sequence[int]) -> tuple[int, int]:
        setting = self.split(low)
        return rank_high(setting.high, self.ranking), rank_low(setting.low, self.ranking)

    def jokers_in(self, low: Sequence[int]) -> int:
        return sum(1 for i in low if i in self.jokers)


# -- the walk -------------------------------------------------------------------------------------


def _check_hand(cards: Sequence[Card], max_jokers: int) -> None:
    if len(cards) != 7:
        raise HandSizeError(len(cards), (7,))
    for card in cards:
        natural = isinstance(card, Card) and card.suit in tuple(SUIT_CHARS) and card.rank in range(2, ACE + 1)
        if not (natural or (isinstance(card, Card) and card.is_joker and card.suit == "")):
            raise UnknownCardError(
                f"Card(rank={getattr(card, 'rank', None)!r}, suit={getattr(card, 'suit', None)!r})"
            )
    jokers = sum(1 for card in cards if card.is_joker)
    for card, copies in Counter(cards).items():
        if copies > 1 and not card.is_joker:
            raise DuplicateCardError(card)
    if jokers > max_jokers:
        raise TooManyJokersError(jokers, max_jokers)


def choose(picks: Sequence[tuple[int, ...]], facts: PlainFacts) -> Low | None:
    """G5 (module docstring, step 3); None when every choice fouls (G4)."""
    best, best_key = None, None
    for low in picks:
        if not facts.legal(low[0], low[1]):
            continue
        key = (*facts.value(low), -facts.jokers_in(low))
        if best_key is None or key > best_key:
            best, best_key = low, key
    return best  # type: ignore[return-value]


def _walk(
    way: HouseWay,
    rules: Sequence[Rule],
    facts: PlainFacts,
    skipped: list[str],
    via: tuple[str, ...],
    steps: bool,
) -> tuple[Rule, Low, tuple[str, ...]] | None:
    for rule in rules:
        combination = way.combinations[rule.combination]
        if not steps and not all(test(facts) for test in combination.condition.tests):  # type: ignore[arg-type]  # PlainFacts duck-types HandFacts
            continue
        if not all(test(facts) for test in rule.condition.tests):  # type: ignore[arg-type]  # PlainFacts duck-types HandFacts
            continue
        target = rule.action.follows
        if target is not None:
            followed = [step for step in way.rules if step.combination == target]
            found = _walk(way, followed, facts, skipped, (*via, rule.id), steps=True)
            if found is not None:
                return found
        else:
            low = choose(rule.action.run(facts), facts)  # type: ignore[operator, arg-type]  # run: Candidates; PlainFacts duck-types HandFacts
            if low is not None:
                return rule, low, via
        skipped.append(rule.id)
    return None


def section_of(way: HouseWay, facts: PlainFacts) -> Section:
    for section in way.sections:
        if all(test(facts) for test in section.condition.tests):  # type: ignore[arg-type]  # PlainFacts duck-types HandFacts
            return section
    raise NoLegalSettingError(way.name, " ".join(codes(facts.cards)), "(no section applies)")


def reference_set(
    way: HouseWay,
    cards: Sequence[Card],
    ranking: RankingRules = DEFAULT_RULES,
    *,
    max_jokers: int = MAX_JOKERS,
) -> HouseWayResult:
    """What ``way.set(cards, ranking)`` gives, computed plainly (module docstring)."""
    _check_hand(cards, max_jokers)
    facts = PlainFacts(cards, ranking)
    section = section_of(way, facts)
    facts.run_kind = section.run
    runs = facts.runs()
    if len(runs) <= 1:
        return _set(way, section, facts)
    # Readings G7: the run that leaves the highest two-card hand in front under the row that
    # applies; equal, the higher run (the first)
    best, best_low = None, -1
    for window in runs:
        tried = PlainFacts(cards, ranking)
        tried.run_kind = section.run
        tried.forced_run = window
        result = _set(way, section, tried)
        low = rank_low(result.setting.low, ranking)
        if low > best_low:
            best, best_low = result, low
    return best  # type: ignore[return-value]


def _set(way: HouseWay, section: Section, facts: PlainFacts) -> HouseWayResult:
    skipped: list[str] = []
    rules = [rule for rule in way.rules if rule.section == section.id]
    found = _walk(way, rules, facts, skipped, (), steps=False)
    if found is None:
        last = way.last_resort
        low = None if last is None else choose(last.action.run(facts), facts)  # type: ignore[operator, arg-type]  # run: Candidates; PlainFacts duck-types HandFacts
        if last is None or low is None:
            raise NoLegalSettingError(way.name, " ".join(codes(facts.cards)), section.id)
        found = (last, low, ())
    rule, low, via = found
    return HouseWayResult(
        setting=facts.split(low),
        rule_id=rule.id,
        rule_words=rule.words,
        way=way.name,
        section=section.id,
        via=via,
        skipped=tuple(skipped),
    )
