"""Actions: what a row puts in front.

``take`` (the union of selectors, two cards), ``follow`` (the step rows of another
combination: "Follow the steps described for ..."), or a search such as
``best_straight_or_flush_top``. Where the cards are left open the engine chooses (G5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from .facts import HandFacts
from .params import Entry
from .searches import straight_or_flush_choice
from .selectors import Alternatives, SelectorEntry, SelectorList, alternatives_of, cards_words, compiled

Candidates = Callable[[HandFacts], Alternatives]


@dataclass(frozen=True, slots=True)
class Follow:
    """The ``follow`` action: read the rows of another combination (their own conditions only)."""

    combination: str


def act_take(*, cards: list[SelectorEntry]) -> Candidates:
    """The cards named by the selectors go in front (two in all); alternatives are chosen by G5."""
    selectors = compiled(cards)
    sizes: list[int | None] = [getattr(select, "size", None) for select in selectors]
    known = [size for size in sizes if size is not None]
    if len(known) == len(sizes) and sum(known) != 2:
        raise ValueError(f"the selectors name {sum(known)} cards, the low hand has 2")
    if len(selectors) == 1:
        (only,) = selectors
        if sizes == [2]:
            return only  # its alternatives are the candidates (and its shape, always_legal)

        def pairs_of_only(f: HandFacts) -> Alternatives:
            return [pick for pick in only(f) if len(pick) == 2]

        pairs_of_only.shape = only.shape  # type: ignore[attr-defined]  # the same cards, when two
        return pairs_of_only

    def candidates(f: HandFacts) -> Alternatives:
        return [pick for pick in alternatives_of(selectors, f) if len(pick) == 2]

    return candidates


def act_follow(*, combination: str) -> Follow:
    """'Follow the steps described for "..."': the rows of that combination decide."""
    if not isinstance(combination, str) or not combination:
        raise ValueError("follow needs the id of a combination")
    return Follow(combination)


def act_best_straight_or_flush_top(*, prefer_flush_when_close: bool = True) -> Candidates:
    """004 "play whichever straight-or-better five-card hand makes the best two-card hand":
    a straight, flush, straight flush or royal flush behind, the best two-card hand in front;
    the flush when both tops are essentially the same (``prefer_flush_when_close``)."""
    if not isinstance(prefer_flush_when_close, bool):
        raise ValueError("prefer_flush_when_close must be true or false")

    def candidates(f: HandFacts) -> Alternatives:
        choice = straight_or_flush_choice(f, prefer_flush_when_close)
        return [] if choice is None else [choice[0]]

    return candidates


def act_strongest_legal_low() -> Candidates:
    """004 basic strategy: "set the highest two-card hand that they can legally set": of the
    21 splits, the legal one with the strongest low hand, then the strongest high hand, then
    the jokers behind."""

    def candidates(f: HandFacts) -> Alternatives:
        best = None
        best_key = None
        for low in combinations(range(7), 2):
            if f.legal(*low):
                high_score, low_score = f.value(low)
                key = (low_score, high_score, -f.jokers_in(low))
                if best_key is None or key > best_key:
                    best, best_key = low, key
        return [] if best is None else [best]

    return candidates


# -- the typed entries (registry.py puts them in one discriminated union on ``name``) ----------


class ActionEntry(Entry):
    entry_kind: ClassVar[str] = "action"


class Take(ActionEntry):
    name: Literal["take"]
    cards: SelectorList
    factory: ClassVar[Any] = act_take

    def words(self) -> str:
        return f"in front: {cards_words(self.cards)}"


class FollowSteps(ActionEntry):
    name: Literal["follow"]
    combination: Annotated[str, Field(min_length=1)]
    factory: ClassVar[Any] = act_follow

    def words(self) -> str:
        return f"follow the rows of {self.combination!r}"


class BestStraightOrFlushTop(ActionEntry):
    name: Literal["best_straight_or_flush_top"]
    prefer_flush_when_close: bool = True
    factory: ClassVar[Any] = act_best_straight_or_flush_top

    def words(self) -> str:
        words = "a Straight, Flush or better behind, with the best two-card hand that leaves one in front"
        if self.prefer_flush_when_close:
            words += "; the Flush when both tops are essentially the same"
        return words


class StrongestLegalLow(ActionEntry):
    name: Literal["strongest_legal_low"]
    factory: ClassVar[Any] = act_strongest_legal_low

    def words(self) -> str:
        return "in front: the strongest two-card hand that can legally go there"


ACTION_ENTRIES: tuple[type[ActionEntry], ...] = (Take, FollowSteps, BestStraightOrFlushTop, StrongestLegalLow)
