"""Card selectors: the cards a row names ("the Joker", "the lowest pair", "the non-flush").

A selector is ``f(facts) -> alternatives``, each alternative a tuple of card positions.
Alternatives are copies of the same rank (which Ace, which joker, which two of three Kings):
the row leaves that choice open and the engine makes it (docs/house-way.md, Readings G5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, product
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias, Union

from pydantic import BeforeValidator, Field

from ..cards import ACE, parse_rank
from .facts import HandFacts
from .params import (
    Entry,
    GroupSizes,
    OneOrTwo,
    Place,
    Rank,
    Which,
    group_words,
    joined,
    nth_highest,
    number,
    ordinal,
    rank_name,
)
from .ranks import check_which, group_rank_getter, group_sizes

Alternatives = list[tuple[int, ...]]
Selector = Callable[[HandFacts], Alternatives]


def _position(value: Any) -> int | str:
    if value == "last" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 7):
        position: int | str = value
        return position
    raise ValueError(f"a place in the straight is 1..7 or 'last', got {value!r}")


def _place(value: int | str, length: int) -> int:
    return length if value == "last" else value  # type: ignore[return-value]


def _sized(select: Selector, size: int | None, shape: str = "") -> Selector:
    """Record how many cards each alternative of a selector holds (None: it varies), and the
    shape of the two cards it names, if it names two (``always_legal``)."""
    select.size = size  # type: ignore[attr-defined]
    select.shape = shape  # type: ignore[attr-defined]
    return select


def sel_joker() -> Selector:
    """One joker ("the Joker"); with two jokers either one (G5 chooses)."""

    def select(f: HandFacts) -> Alternatives:
        return [(i,) for i in f.jokers]

    return _sized(select, 1)


def sel_ace() -> Selector:
    """One natural Ace ("the Ace"); with none, a joker (the joker plays the Ace: readings T4;
    in Double Joker the pair of jokers is a pair of Aces)."""

    def select(f: HandFacts) -> Alternatives:
        aces = f.natural_places(ACE)
        return [(i,) for i in (aces or f.jokers)]

    return _sized(select, 1)


def sel_rank(*, rank: Any, count: int = 1) -> Selector:
    """``count`` cards of ``rank`` (jokers are Aces, G2): "the two Kings", "two Aces", "the Queen"."""
    wanted = parse_rank(rank)
    if count not in (1, 2):
        raise ValueError(f"count must be 1 or 2, got {count!r}")

    def select(f: HandFacts) -> Alternatives:
        return list(combinations(f.places(wanted), count))

    return _sized(select, count)


def sel_pair(*, which: str = "only") -> Selector:
    """Both cards of a pair: the lowest ("first", G10), the highest ("second"), or the only one."""
    check_which(which)

    at = {"lowest": 0, "highest": -1, "only": 0}[which]

    def select(f: HandFacts) -> Alternatives:
        pairs = f.pairs
        if not pairs or (which == "only" and len(pairs) != 1):
            return []
        rank = pairs[at]
        index = f.grank.index
        place = index(rank)
        return [(place, index(rank, place + 1))]

    return _sized(select, 2, "lowest-pair" if which == "lowest" else "")


def sel_group(*, size: Any, which: str = "highest", count: int = 2) -> Selector:
    """``count`` cards of a group of ``size`` (a list: any of those sizes), e.g. "two from the
    3-of-a-kind", "two cards of the higher group" (readings Q2)."""
    sizes = group_sizes(size)
    check_which(which)
    if count not in (1, 2):
        raise ValueError(f"count must be 1 or 2, got {count!r}")

    rank_of = group_rank_getter(sizes, which)

    def select(f: HandFacts) -> Alternatives:
        rank = rank_of(f)
        return [] if rank is None else list(combinations(f.places(rank), count))

    return _sized(select, count)


def sel_singletons(*, count: int = 1, off_suit: bool = False) -> Selector:
    """The ``count`` highest singletons (G6: a card whose rank appears once, joker = Ace);
    ``off_suit``: only natural cards not of the flush suit ("not from the flush", F3)."""
    if count not in (1, 2):
        raise ValueError(f"count must be 1 or 2, got {count!r}")

    def select(f: HandFacts) -> Alternatives:
        singles = f.singles
        index = f.grank.index
        if not off_suit:
            if len(singles) < count:
                return []
            return [(index(singles[0]), index(singles[1]))] if count == 2 else [(index(singles[0]),)]
        suit = f.flush_suit
        chosen: list[int] = []
        for rank in singles:
            i = index(rank)
            if i in f.jokers or f.suits[i] == suit:
                continue
            chosen.append(i)
            if len(chosen) == count:
                return [tuple(chosen)]
        return []

    return _sized(select, count, "singletons" if count == 2 and not off_suit else "")


def sel_highest(*, nth: list[int]) -> Selector:
    """The cards at these places of the seven ranked highest first ("2nd & 3rd highest"), the
    joker an Ace (G6); tied ranks give alternatives."""
    if not isinstance(nth, list) or not nth or any(not isinstance(n, int) or not 1 <= n <= 7 for n in nth):
        raise ValueError(f"nth must be a list of places 1..7, got {nth!r}")
    places = tuple(n - 1 for n in nth)

    def tied(f: HandFacts, wanted: list[int]) -> Alternatives:
        """Ranks held more than once among those wanted: which copies is left open."""
        choices = [list(combinations(f.places(rank), k)) for rank, k in Counter(wanted).items()]
        if len(choices) == 1:
            return choices[0]
        return [sum(parts, ()) for parts in product(*choices)]

    if len(places) == 2:  # the rows' usual "n-th & m-th highest"
        first, second = places

        def select(f: HandFacts) -> Alternatives:
            ranks = f.ranks_high_first()
            high, low = ranks[first], ranks[second]
            if high != low and high in f.singles and low in f.singles:
                index = f.grank.index
                return [(index(high), index(low))]
            return tied(f, [high, low])

    else:

        def select(f: HandFacts) -> Alternatives:
            ranks = f.ranks_high_first()
            wanted = [ranks[n] for n in places]
            singles = f.singles
            if all(rank in singles for rank in wanted):
                index = f.grank.index
                return [tuple([index(rank) for rank in wanted])]
            return tied(f, wanted)

    return _sized(select, len(places), "below-top" if len(set(places)) == 2 and 0 not in places else "")


def sel_non_flush() -> Selector:
    """All natural cards not of the flush suit ("the non-flush", G6)."""

    def select(f: HandFacts) -> Alternatives:
        suit = f.flush_suit
        if suit is None:
            return []
        suits = f.suits
        return [tuple(i for i in range(7) if suits[i] and suits[i] != suit)]

    return _sized(select, None, "outside-flush")


def sel_flush_cards(*, count: int = 1) -> Selector:
    """The ``count`` highest natural cards of the flush suit ("the highest card in the flush", G8)."""
    if count not in (1, 2):
        raise ValueError(f"count must be 1 or 2, got {count!r}")

    def select(f: HandFacts) -> Alternatives:
        cards = f.flush_cards()
        return [tuple(cards[:count])] if len(cards) >= count else []

    return _sized(select, count)


def sel_non_straight() -> Selector:
    """The cards outside the straight used ("the non-straight(s)", G6, G7)."""

    def select(f: HandFacts) -> Alternatives:
        run = f.run()
        return [] if run is None else [run.outside]

    return _sized(select, None, "outside-run")


def sel_run_card(*, position: Any) -> Selector:
    """The card at a place of the straight, counted from its lowest card (G7): 1 = "first",
    "last", 6 = "sixth"."""
    where = _position(position)

    def select(f: HandFacts) -> Alternatives:
        run = f.run()
        if run is None:
            return []
        place = _place(where, run.length)
        return [(run.members[place - 1],)] if place <= run.length else []

    return _sized(select, 1)


def sel_highest_left_out_of_straight(*, without: list[SelectorEntry]) -> Selector:
    """Readings T2: after removing ``without``, the highest card that can be left out of a
    5-card straight of the cards that remain (the joker filling)."""
    removed = compiled(without)

    def select(f: HandFacts) -> Alternatives:
        best: list[int] = []
        best_rank = 0
        for taken in alternatives_of(removed, f):
            rest = [i for i in range(7) if i not in taken]
            for low in f.five_card_windows_of(rest):
                for i in _left_out(f, rest, low):
                    if f.grank[i] > best_rank:
                        best, best_rank = [i], f.grank[i]
                    elif f.grank[i] == best_rank and i not in best:
                        best.append(i)
        return [(i,) for i in best]

    return _sized(select, 1)


def _left_out(f: HandFacts, places: list[int], low: int) -> list[int]:
    """Cards of ``places`` not used by the 5-card straight starting at ``low``."""
    suits = f.suits
    spare = [i for i in places if suits[i] == ""]
    used: set[int] = set()
    for rank in range(low, low + 5):
        wanted = ACE if rank == 1 else rank
        copies = [i for i in places if suits[i] and f.grank[i] == wanted]
        used.add(copies[-1] if copies else spare.pop(0))
    return [i for i in places if i not in used]


def alternatives_of(selectors: Sequence[Selector], f: HandFacts) -> Alternatives:
    """Every way to pick one alternative of each selector with no card twice (sorted tuples)."""
    if len(selectors) == 1:
        return [tuple(sorted(option)) for option in selectors[0](f)]
    if len(selectors) == 2:
        first = selectors[0](f)
        if len(first) == 1:
            second = selectors[1](f)
            if len(second) == 1:  # the common case: one choice each
                pick = first[0] + second[0]
                if len(set(pick)) < len(pick):
                    return []
                return [tuple(sorted(pick))]
            options = first, second
        elif not first:
            return []
        else:
            options = first, selectors[1](f)
        picks: Alternatives = [()]
        for choices in options:
            picks = [pick + option for pick in picks for option in choices if not set(option) & set(pick)]
            if not picks:
                return []
        if len(picks) == 1:
            return [tuple(sorted(picks[0]))]
        return list(dict.fromkeys(tuple(sorted(pick)) for pick in picks))
    picks = [()]
    for select in selectors:
        alternatives = select(f)
        picks = [pick + option for pick in picks for option in alternatives if not set(option) & set(pick)]
        if not picks:
            return []
    if len(picks) == 1:
        return [tuple(sorted(picks[0]))]
    return list(dict.fromkeys(tuple(sorted(pick)) for pick in picks))


def compiled(entries: Sequence[SelectorEntry]) -> tuple[Selector, ...]:
    """The selectors of validated entries."""
    return tuple(entry.compiled for entry in entries)


def cards_words(entries: Sequence[SelectorEntry]) -> str:
    """Selectors in words, joined: "the Joker and the Ace"."""
    return joined([entry.words() for entry in entries])


# -- the typed entries (registry.py puts them in one discriminated union on ``name``) ----------


class SelectorEntry(Entry):
    entry_kind: ClassVar[str] = "selector"


class JokerSelector(SelectorEntry):
    name: Literal["joker"]
    factory: ClassVar[Any] = sel_joker

    def words(self) -> str:
        return "the Joker"


class AceSelector(SelectorEntry):
    name: Literal["ace"]
    factory: ClassVar[Any] = sel_ace

    def words(self) -> str:
        return "the Ace"


class RankSelector(SelectorEntry):
    name: Literal["rank"]
    rank: Rank
    count: OneOrTwo = 1
    factory: ClassVar[Any] = sel_rank

    def words(self) -> str:
        if self.count == 1:
            return f"{'an' if self.rank == ACE else 'a'} {rank_name(self.rank)}"
        return f"two {rank_name(self.rank, plural=True)}"


class PairSelector(SelectorEntry):
    name: Literal["pair"]
    which: Which = "only"
    factory: ClassVar[Any] = sel_pair

    def words(self) -> str:
        return {"only": "the pair", "lowest": "the lowest pair", "highest": "the highest pair"}[self.which]


class GroupSelector(SelectorEntry):
    name: Literal["group"]
    size: GroupSizes
    which: Which = "highest"
    count: OneOrTwo = 2
    factory: ClassVar[Any] = sel_group

    def words(self) -> str:
        which = "the" if self.which == "only" else f"the {self.which}"
        cards = "card" if self.count == 1 else "cards"
        return f"{number(self.count)} {cards} from {which} {group_words(self.size)}"


class SingletonsSelector(SelectorEntry):
    name: Literal["singletons"]
    count: OneOrTwo = 1
    off_suit: bool = False
    factory: ClassVar[Any] = sel_singletons

    def words(self) -> str:
        text = "the highest singleton" if self.count == 1 else "the two highest singletons"
        return text + (" not of the flush suit" if self.off_suit else "")


class HighestSelector(SelectorEntry):
    name: Literal["highest"]
    nth: Annotated[list[Annotated[int, Field(ge=1, le=7)]], Field(min_length=1)]
    factory: ClassVar[Any] = sel_highest

    def words(self) -> str:
        places = joined([nth_highest(n).removesuffix(" highest") for n in self.nth])
        return f"the {places} highest cards".replace("the highest highest", "the highest")


class NonFlushSelector(SelectorEntry):
    name: Literal["non_flush"]
    factory: ClassVar[Any] = sel_non_flush

    def words(self) -> str:
        return "the natural cards not of the flush suit"


class FlushCardsSelector(SelectorEntry):
    name: Literal["flush_cards"]
    count: OneOrTwo = 1
    factory: ClassVar[Any] = sel_flush_cards

    def words(self) -> str:
        return (
            "the highest card of the flush suit"
            if self.count == 1
            else "the two highest cards of the flush suit"
        )


class NonStraightSelector(SelectorEntry):
    name: Literal["non_straight"]
    factory: ClassVar[Any] = sel_non_straight

    def words(self) -> str:
        return "the cards outside the straight used"


class RunCardSelector(SelectorEntry):
    name: Literal["run_card"]
    position: Place
    factory: ClassVar[Any] = sel_run_card

    def words(self) -> str:
        return f"the {ordinal(self.position)} card of the straight (counted from its lowest)"


class HighestLeftOutOfStraightSelector(SelectorEntry):
    name: Literal["highest_left_out_of_straight"]
    without: Annotated[list[SelectorSpec], Field(min_length=1)]
    factory: ClassVar[Any] = sel_highest_left_out_of_straight

    def words(self) -> str:
        return (
            "the highest card that can be left out of a 5-card straight of the cards left after removing "
            + cards_words(self.without)
        )


def named(value: Any) -> Any:
    """A bare name in a way file is the entry of that name with no parameters."""
    return {"name": value} if isinstance(value, str) else value


SELECTOR_ENTRIES: tuple[type[SelectorEntry], ...] = (
    JokerSelector,
    AceSelector,
    RankSelector,
    PairSelector,
    GroupSelector,
    SingletonsSelector,
    HighestSelector,
    NonFlushSelector,
    FlushCardsSelector,
    NonStraightSelector,
    RunCardSelector,
    HighestLeftOutOfStraightSelector,
)
if TYPE_CHECKING:  # a type checker cannot read a union built from a tuple: it sees the base entry
    SelectorSpec: TypeAlias = SelectorEntry
else:
    SelectorSpec = Annotated[
        Union[SELECTOR_ENTRIES],  # noqa: UP007  (a union built from the tuple above)
        Field(discriminator="name"),
        BeforeValidator(named),
    ]
SelectorList = Annotated[list[SelectorSpec], Field(min_length=1)]
HighestLeftOutOfStraightSelector.model_rebuild()
