"""Predicates: questions about the hand, ``f(facts) -> bool`` ("the hand holds two pairs").

Most carry ``static`` (signature.py): their answer for every hand of a signature, or None.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..cards import ACE, parse_rank
from ..evaluator import rank_low
from .facts import KINDS, HandFacts
from .params import (
    Entry,
    GroupSize,
    GroupSizes,
    Place,
    Rank,
    Ranks,
    TwoCardHand,
    Which,
    group_words,
    joined,
    nth_highest,
    number,
    ordinal,
    rank_name,
    ranks_words,
)
from .ranks import (
    check_which,
    group_rank_getter,
    group_rank_of,
    group_sizes,
    parse_ranks,
    parse_two_card_hand,
)
from .searches import straight_or_flush_choice
from .selectors import SelectorEntry, SelectorList, _place, _position, alternatives_of, cards_words, compiled
from .signature import Predicate, Signature, _false_unless, group_found, static_value, with_static


def pred_can_make(*, hand: str) -> Predicate:
    """The seven cards can make ``hand`` (G1: the joker may fill): five-aces, royal-flush,
    straight-flush, four-of-a-kind, flush, straight, straight-or-flush, full-house (one
    3-of-a-kind with one or two pairs), three-of-a-kind, pair."""
    if hand not in KINDS:
        raise ValueError(f"hand must be one of {sorted(KINDS)}, got {hand!r}")
    bit = KINDS[hand]
    return with_static(lambda f: bool(f.kinds_bits & bit), lambda sig: bool(sig.kinds & bit))


def pred_groups(*, size: int, count: int | None = None, min: int | None = None) -> Predicate:
    """How many groups of exactly ``size`` cards of one rank (joker = Ace): ``count`` exactly,
    or at least ``min``."""
    sizes = group_sizes(size)
    if len(sizes) != 1 or (count is None) == (min is None):
        raise ValueError("give one size and exactly one of count, min")
    k = sizes[0]
    if count is not None:
        static = lambda sig: sig.sizes.count(k) == count  # noqa: E731
        if count == 0:
            return with_static(lambda f: k not in f.counts.values(), static)
        return with_static(lambda f: list(f.counts.values()).count(k) == count, static)
    static = lambda sig: sig.sizes.count(k) >= min  # noqa: E731
    if min == 1:
        return with_static(lambda f: k in f.counts.values(), static)
    return with_static(lambda f: list(f.counts.values()).count(k) >= min, static)  # type: ignore[operator]


def pred_rank_count(*, rank: Any, count: int) -> Predicate:
    """Exactly ``count`` cards of ``rank`` (jokers count as Aces): "Hand contains two Kings";
    rank A count 0 is "lacks Aces and Joker"."""
    wanted = parse_rank(rank)

    def static(sig: Signature) -> bool | None:
        if count != 0 and count not in sig.sizes:
            return False  # no rank is held that many times
        if count == 0 and wanted == ACE and sig.jokers:
            return False  # the jokers are Aces (G2)
        return None

    return with_static(lambda f: f.count(wanted) == count, static)


def pred_has_natural(*, rank: Any) -> Predicate:
    """A natural card (not a joker) of ``rank`` is held."""
    wanted = parse_rank(rank)
    return lambda f: bool(f.natural_places(wanted))


def pred_group_rank(*, size: Any, ranks: list[int], which: str = "highest") -> Predicate:
    """The rank of the group of ``size`` picked by ``which`` is one of ``ranks``."""
    sizes = group_sizes(size)
    wanted = parse_ranks(ranks)
    check_which(which)
    rank_of = group_rank_getter(sizes, which)
    return with_static(
        lambda f: rank_of(f) in wanted, _false_unless(lambda sig: group_found(sig, sizes, which))
    )


def pred_group_ranks(*, size: Any, ranks: list[int]) -> Predicate:
    """The groups of ``size`` have exactly these ranks ("a Pair of 2s and a Pair of 3s")."""
    sizes = group_sizes(size)
    wanted = sorted(parse_rank(rank) for rank in ranks)
    return with_static(
        lambda f: sorted(r for r, size in f.counts.items() if size in sizes) == wanted,
        _false_unless(lambda sig: sig.groups(sizes) == len(wanted)),
    )


def pred_group_has_joker(*, size: Any, which: str = "only") -> Predicate:
    """The group picked (``which``; or ``any`` group of that size) holds a joker ("One Pair
    that uses Joker"). Jokers group with the Aces (G2)."""
    sizes = group_sizes(size)
    if which != "any":
        check_which(which)

    def holds(f: HandFacts) -> bool:
        if not f.jokers:
            return False
        if which == "any":
            return f.count(ACE) in sizes
        return group_rank_of(f, sizes, which) == ACE

    def static(sig: Signature) -> bool | None:
        if not sig.jokers:
            return False
        if not (sig.groups(sizes) >= 1 if which == "any" else group_found(sig, sizes, which)):
            return False  # no group of those sizes, so none holds the joker
        return None

    return with_static(holds, static)


def pred_joker_unpaired() -> Predicate:
    """A joker is held and is part of no pair or 3-of-a-kind (readings F2: "One Pair, Joker"
    means a natural pair plus a joker that is not part of it)."""
    return with_static(
        lambda f: bool(f.jokers) and f.count(ACE) == 1,
        _false_unless(lambda sig: sig.jokers == 1 and 1 in sig.sizes),
    )


def pred_has_joker() -> Predicate:
    """A joker is held (the steps' "with Joker")."""
    return with_static(lambda f: bool(f.jokers), lambda sig: sig.jokers > 0)


def pred_flush_after_removing(*, cards: list[SelectorEntry]) -> Predicate:
    """G9: the cards left after removing these can still make a flush (a joker left fills)."""
    selectors = compiled(cards)

    def holds(f: HandFacts) -> bool:
        return any(
            f.makes_flush([i for i in range(7) if i not in taken]) for taken in alternatives_of(selectors, f)
        )

    # fewer cards cannot make a flush the seven cannot
    return with_static(holds, _false_unless(lambda sig: sig.flush))


def pred_straight_after_removing(*, cards: list[SelectorEntry]) -> Predicate:
    """G9: the cards left after removing these can still make a straight (a joker left fills)."""
    selectors = compiled(cards)

    def holds(f: HandFacts) -> bool:
        return any(
            f.makes_straight([i for i in range(7) if i not in taken])
            for taken in alternatives_of(selectors, f)
        )

    # fewer cards cannot make a straight the seven cannot
    return with_static(holds, _false_unless(lambda sig: sig.straight))


def pred_longest_straight_after_removing(*, cards: list[SelectorEntry], length: int) -> Predicate:
    """Readings T2: the longest straight the cards left make has exactly ``length`` cards."""
    selectors = compiled(cards)

    def holds(f: HandFacts) -> bool:
        for taken in alternatives_of(selectors, f):
            window = f.run_window_of([i for i in range(7) if i not in taken])
            if window is not None and window[1] == length:
                return True
        return False

    return with_static(holds, _false_unless(lambda sig: sig.straight))


def pred_in_flush_suit(*, cards: list[SelectorEntry]) -> Predicate:
    """The selected cards are natural cards of the flush suit ("the Ace is also used by the
    flush", F5); a joker is of no suit."""
    selectors = compiled(cards)

    def holds(f: HandFacts) -> bool:
        if f.flush_suit is None:
            return False
        suit = f.flush_suit
        suits = f.suits
        return any(all(suits[i] == suit for i in taken) for taken in alternatives_of(selectors, f))

    return with_static(holds, _false_unless(lambda sig: sig.flush))


def pred_flush_size(*, n: int) -> Predicate:
    """G8: the flush counts ``n`` cards (natural cards of the suit plus the jokers held)."""
    return with_static(lambda f: f.flush_size() == n, lambda sig: None if sig.flush else n == 0)


def pred_run_length(*, n: int) -> Predicate:
    """The straight used (G7) has ``n`` cards."""

    def holds(f: HandFacts) -> bool:
        run = f.run()
        return run is not None and run.length == n

    return with_static(holds, _false_unless(lambda sig: sig.has_run))


def pred_run_starts_with_ace() -> Predicate:
    """G7: the straight starts with a natural Ace played low."""

    def holds(f: HandFacts) -> bool:
        run = f.run()
        return run is not None and run.low == 1 and 1 not in run.joker_places

    return with_static(holds, _false_unless(lambda sig: sig.has_run))


def pred_run_joker_at(*, positions: list[int | Literal["last"]]) -> Predicate:
    """A joker stands at one of these places of the straight (1 = first, "last", G7)."""
    if not isinstance(positions, list) or not positions:
        raise ValueError(f"positions must be a non-empty list, got {positions!r}")
    wanted = tuple(_position(p) for p in positions)

    def holds(f: HandFacts) -> bool:
        run = f.run()
        if run is None:
            return False
        return any(_place(p, run.length) in run.joker_places for p in wanted)

    return with_static(holds, _false_unless(lambda sig: sig.has_run and sig.jokers > 0))


def pred_can_make_straight_of(*, ranks: list[int]) -> Predicate:
    """The hand can make the straight of exactly these ranks, jokers filling (T4: "a Straight
    containing Ace, King, Queen, Jack and 10")."""
    wanted = parse_ranks(ranks)
    if len(wanted) != 5:
        raise ValueError("a straight has five ranks")
    holds = lambda f: sum(1 for r in wanted if not f.natural_places(r)) <= len(f.jokers)  # noqa: E731
    low = min(wanted)
    if wanted == set(range(low, low + 5)) or wanted == {ACE, 2, 3, 4, 5}:
        # five ranks in a row: the seven cards make a straight whenever these make one
        return with_static(holds, _false_unless(lambda sig: sig.straight))
    return holds


def pred_nth_highest_rank(*, n: int, ranks: list[int]) -> Predicate:
    """The ``n``-th highest of the seven cards (joker = Ace) has one of ``ranks`` (C1)."""
    wanted = parse_ranks(ranks)
    if not isinstance(n, int) or not 1 <= n <= 7:
        raise ValueError(f"n must be 1..7, got {n!r}")
    place = n - 1
    return lambda f: f.ranks_high_first()[place] in wanted


def pred_groups_adjacent(*, sizes: list[int | list[int]]) -> Predicate:
    """The ranks of the (highest) groups of the two sizes are 1 apart; the Ace is next to the
    King only (readings Q2)."""
    if not isinstance(sizes, list) or len(sizes) != 2:
        raise ValueError(f"sizes must be a list of two group sizes, got {sizes!r}")
    first, second = group_sizes(sizes[0]), group_sizes(sizes[1])

    def holds(f: HandFacts) -> bool:
        a, b = group_rank_of(f, first, "highest"), group_rank_of(f, second, "highest")
        return a is not None and b is not None and abs(a - b) == 1

    return with_static(holds, _false_unless(lambda sig: sig.groups(first) >= 1 and sig.groups(second) >= 1))


def pred_group_above(*, size: int, other: int) -> Predicate:
    """The group of ``size`` ranks above the group of ``other`` ("the rank of the 4-of-a-kind is
    greater than the rank of the Pair")."""
    first, second = group_sizes(size), group_sizes(other)

    def holds(f: HandFacts) -> bool:
        a, b = group_rank_of(f, first, "highest"), group_rank_of(f, second, "highest")
        return a is not None and b is not None and a > b

    return with_static(holds, _false_unless(lambda sig: sig.groups(first) >= 1 and sig.groups(second) >= 1))


def pred_pair_beats_singletons() -> Predicate:
    """Readings H1: the pair, as a two-card hand, beats the two highest singletons as one."""

    def holds(f: HandFacts) -> bool:
        if not f.pairs or len(f.singles) < 2:
            return False
        singles = [f.grank.index(r) for r in f.singles[:2]]
        if not (f.ranking.joker_wild_in_low and f.jokers and set(singles) & set(f.jokers)):
            return True  # a pair beats any two unmatched cards (001)
        pair = [f.cards[i] for i in f.places(f.pairs[-1])]
        return rank_low(pair, f.ranking) > rank_low([f.cards[i] for i in singles], f.ranking)

    def static(sig: Signature) -> bool | None:
        if 2 not in sig.sizes or sig.sizes.count(1) < 2:
            return False
        return None if sig.wild else True  # no joker plays wild in front: the pair wins (001)

    return with_static(holds, static)


def pred_others_at_least(*, size: int, rank: Any, count: int) -> Predicate:
    """At least ``count`` cards outside the group of ``size`` rank ``rank`` or better (joker =
    Ace): "3 Kings & 2 others equal to or higher than Ten cards" (K1)."""
    sizes = group_sizes(size)
    floor = parse_rank(rank)

    def holds(f: HandFacts) -> bool:
        group = group_rank_of(f, sizes, "highest")
        others = [r for r in f.grank if r != group]
        return sum(1 for r in others if r >= floor) >= count

    return holds


def pred_singletons_top_at_least(*, hand: str) -> Predicate:
    """The two highest singletons, as a two-card hand, are at least ``hand`` ("KJ", "A8")."""
    floor = parse_two_card_hand(hand)

    def holds(f: HandFacts) -> bool:
        if len(f.singles) < 2:
            return False
        top = [f.cards[f.grank.index(r)] for r in f.singles[:2]]
        return rank_low(top, f.ranking) >= floor

    return with_static(holds, _false_unless(lambda sig: sig.sizes.count(1) >= 2))


def pred_singleton_ranks_include(*, ranks: list[int]) -> Predicate:
    """Some singleton has one of ``ranks`` (joker = Ace): "with any Ace" among the side cards."""
    wanted = parse_ranks(ranks)
    return with_static(
        lambda f: any(r in wanted for r in f.singles), _false_unless(lambda sig: 1 in sig.sizes)
    )


_TOP_KINDS = ("pair", "ace", "ace-face")


def pred_straight_or_flush_top(
    *, kind: str | None = None, below: str | None = None, at_least: str | None = None
) -> Predicate:
    """About the best two-card hand that can go in front of a straight or flush
    (``best_straight_or_flush_top``): it is a pair / holds an Ace / is Ace-face (A with K, Q
    or J, unpaired); or it ranks below / at least a reference hand ("K2": "Q-x or lower")."""
    if [kind, below, at_least].count(None) != 2:
        raise ValueError("give exactly one of kind, below, at_least")
    if kind is not None and kind not in _TOP_KINDS:
        raise ValueError(f"kind must be one of {_TOP_KINDS}, got {kind!r}")
    reference = parse_two_card_hand(below if below is not None else at_least) if kind is None else 0

    def holds(f: HandFacts) -> bool:
        top = straight_or_flush_choice(f, prefer_flush_when_close=True)
        if top is None:
            return False
        low = top[1]
        pair, high, second = low >> 8, (low >> 4) & 15, low & 15
        if kind == "pair":
            return pair == 1
        if kind == "ace":
            return high == ACE
        if kind == "ace-face":
            return pair == 0 and high == ACE and second in (11, 12, 13)
        return low < reference if below is not None else low >= reference

    # no five of the cards make a straight or a flush: there is no such top
    return with_static(holds, _false_unless(lambda sig: sig.flush or sig.straight))


# -- the typed entries (registry.py puts them in one discriminated union on ``name``) ----------


def negated(predicate: Predicate) -> Predicate:
    """``not predicate``, with its static answer turned round too."""

    def static(sig: Signature) -> bool | None:
        value = static_value(predicate, sig)
        return None if value is None else not value

    return with_static(lambda f: not predicate(f), static)


class PredicateEntry(Entry):
    """A predicate; ``negate = true`` asks the opposite."""

    entry_kind: ClassVar[str] = "predicate"
    negate: bool = False

    def build(self) -> Any:
        predicate = super().build()
        return negated(predicate) if self.negate else predicate

    def words(self) -> str:
        text = self.holds_words()
        return f"not so: {text}" if self.negate else text

    def holds_words(self) -> str:
        raise NotImplementedError


_HAND_WORDS = {
    "five-aces": "five Aces",
    "royal-flush": "a Royal Flush",
    "straight-flush": "a Straight Flush",
    "four-of-a-kind": "a 4-of-a-kind",
    "flush": "a Flush",
    "straight": "a Straight",
    "straight-or-flush": "a Straight or a Flush",
    "full-house": "a Full House (one 3-of-a-kind with one or two pairs)",
    "three-of-a-kind": "a 3-of-a-kind",
    "pair": "a pair",
}
Hand = Literal[
    "five-aces",
    "royal-flush",
    "straight-flush",
    "four-of-a-kind",
    "flush",
    "straight",
    "straight-or-flush",
    "full-house",
    "three-of-a-kind",
    "pair",
]


def _which_group(which: str, size: Any) -> str:
    return f"the {'' if which == 'only' else which + ' '}{group_words(size)}"


class CanMake(PredicateEntry):
    name: Literal["can_make"]
    hand: Hand
    factory: ClassVar[Any] = pred_can_make

    def holds_words(self) -> str:
        return f"the seven cards can make {_HAND_WORDS[self.hand]}"


class Groups(PredicateEntry):
    name: Literal["groups"]
    size: GroupSize
    count: Annotated[int, Field(ge=0, le=7)] | None = None
    min: Annotated[int, Field(ge=1, le=7)] | None = None
    factory: ClassVar[Any] = pred_groups

    def holds_words(self) -> str:
        group = group_words(self.size)
        if self.count is not None:
            if self.count == 0:
                return f"the hand holds no {group}"
            plural = "s" if self.count > 1 else ""
            return f"the hand holds exactly {number(self.count)} {group}{plural}"
        minimum = self.min
        assert minimum is not None  # pred_groups refuses an entry with neither count nor min
        return f"the hand holds at least {number(minimum)} {group}{'s' if minimum > 1 else ''}"


class RankCount(PredicateEntry):
    name: Literal["rank_count"]
    rank: Rank
    count: Annotated[int, Field(ge=0, le=7)]
    factory: ClassVar[Any] = pred_rank_count

    def holds_words(self) -> str:
        if self.count == 0 and self.rank == ACE:
            return "the hand holds no Ace and no Joker"
        joker = " (a Joker counts as an Ace)" if self.rank == ACE else ""
        return f"the hand holds exactly {number(self.count)} {rank_name(self.rank, self.count != 1)}{joker}"


class HasNatural(PredicateEntry):
    name: Literal["has_natural"]
    rank: Rank
    factory: ClassVar[Any] = pred_has_natural

    def holds_words(self) -> str:
        return f"the hand holds a natural {rank_name(self.rank)} (not a Joker)"


class GroupRank(PredicateEntry):
    name: Literal["group_rank"]
    size: GroupSizes
    ranks: Ranks
    which: Which = "highest"
    factory: ClassVar[Any] = pred_group_rank

    def holds_words(self) -> str:
        return f"{_which_group(self.which, self.size)} is of {ranks_words(self.ranks)}"


class GroupRanks(PredicateEntry):
    name: Literal["group_ranks"]
    size: GroupSizes
    ranks: Ranks
    factory: ClassVar[Any] = pred_group_ranks

    def holds_words(self) -> str:
        return f"the {group_words(self.size)}s are of {ranks_words(self.ranks, joiner='and')}, and no other"


class GroupHasJoker(PredicateEntry):
    name: Literal["group_has_joker"]
    size: GroupSizes
    which: Which | Literal["any"] = "only"
    factory: ClassVar[Any] = pred_group_has_joker

    def holds_words(self) -> str:
        if self.which == "any":
            return f"a {group_words(self.size)} holds a Joker"
        return f"{_which_group(self.which, self.size)} holds a Joker"


class JokerUnpaired(PredicateEntry):
    name: Literal["joker_unpaired"]
    factory: ClassVar[Any] = pred_joker_unpaired

    def holds_words(self) -> str:
        return "a Joker is held outside every pair and 3-of-a-kind"


class HasJoker(PredicateEntry):
    name: Literal["has_joker"]
    factory: ClassVar[Any] = pred_has_joker

    def holds_words(self) -> str:
        return "a Joker is held"

    def words(self) -> str:
        return "no Joker is held" if self.negate else self.holds_words()


class FlushAfterRemoving(PredicateEntry):
    name: Literal["flush_after_removing"]
    cards: SelectorList
    factory: ClassVar[Any] = pred_flush_after_removing

    def holds_words(self) -> str:
        return f"the cards left after removing {cards_words(self.cards)} still make a Flush"


class StraightAfterRemoving(PredicateEntry):
    name: Literal["straight_after_removing"]
    cards: SelectorList
    factory: ClassVar[Any] = pred_straight_after_removing

    def holds_words(self) -> str:
        return f"the cards left after removing {cards_words(self.cards)} still make a Straight"


class LongestStraightAfterRemoving(PredicateEntry):
    name: Literal["longest_straight_after_removing"]
    cards: SelectorList
    length: Annotated[int, Field(ge=5, le=7)]
    factory: ClassVar[Any] = pred_longest_straight_after_removing

    def holds_words(self) -> str:
        return (
            f"the longest Straight of the cards left after removing {cards_words(self.cards)} "
            f"has exactly {number(self.length)} cards"
        )


class InFlushSuit(PredicateEntry):
    name: Literal["in_flush_suit"]
    cards: SelectorList
    factory: ClassVar[Any] = pred_in_flush_suit

    def holds_words(self) -> str:
        return f"{cards_words(self.cards)} {'is' if len(self.cards) == 1 else 'are'} of the flush suit"


class FlushSize(PredicateEntry):
    name: Literal["flush_size"]
    n: Annotated[int, Field(ge=0, le=7)]
    factory: ClassVar[Any] = pred_flush_size

    def holds_words(self) -> str:
        return f"the Flush counts {number(self.n)} cards (its suit's natural cards and the Jokers)"


class RunLength(PredicateEntry):
    name: Literal["run_length"]
    n: Annotated[int, Field(ge=5, le=7)]
    factory: ClassVar[Any] = pred_run_length

    def holds_words(self) -> str:
        return f"the straight used has {number(self.n)} cards"


class RunStartsWithAce(PredicateEntry):
    name: Literal["run_starts_with_ace"]
    factory: ClassVar[Any] = pred_run_starts_with_ace

    def holds_words(self) -> str:
        return "the straight used starts with a natural Ace played low"


class RunJokerAt(PredicateEntry):
    name: Literal["run_joker_at"]
    positions: Annotated[list[Place], Field(min_length=1)]
    factory: ClassVar[Any] = pred_run_joker_at

    def holds_words(self) -> str:
        places = joined([ordinal(p) for p in self.positions], "or")
        return f"a Joker stands {places} in the straight used (counted from its lowest card)"


class CanMakeStraightOf(PredicateEntry):
    name: Literal["can_make_straight_of"]
    ranks: Ranks
    factory: ClassVar[Any] = pred_can_make_straight_of

    def holds_words(self) -> str:
        return f"the hand can make the Straight {ranks_words(self.ranks, plural=False, joiner='and')}"


class NthHighestRank(PredicateEntry):
    name: Literal["nth_highest_rank"]
    n: Annotated[int, Field(ge=1, le=7)]
    ranks: Ranks
    factory: ClassVar[Any] = pred_nth_highest_rank

    def holds_words(self) -> str:
        return f"the {nth_highest(self.n)} card is {ranks_words(self.ranks, plural=False)}"


class GroupsAdjacent(PredicateEntry):
    name: Literal["groups_adjacent"]
    sizes: Annotated[list[GroupSizes], Field(min_length=2, max_length=2)]
    factory: ClassVar[Any] = pred_groups_adjacent

    def holds_words(self) -> str:
        first, second = self.sizes
        return (
            f"the {group_words(first)} and the {group_words(second)} are one rank apart "
            "(the Ace is next to the King only)"
        )


class GroupAbove(PredicateEntry):
    name: Literal["group_above"]
    size: GroupSizes
    other: GroupSizes
    factory: ClassVar[Any] = pred_group_above

    def holds_words(self) -> str:
        return f"the {group_words(self.size)} ranks above the {group_words(self.other)}"


class PairBeatsSingletons(PredicateEntry):
    name: Literal["pair_beats_singletons"]
    factory: ClassVar[Any] = pred_pair_beats_singletons

    def holds_words(self) -> str:
        return "the pair, as a two-card hand, beats the two highest singletons"


class OthersAtLeast(PredicateEntry):
    name: Literal["others_at_least"]
    size: GroupSizes
    rank: Rank
    count: Annotated[int, Field(ge=0, le=7)]
    factory: ClassVar[Any] = pred_others_at_least

    def holds_words(self) -> str:
        return (
            f"at least {number(self.count)} cards outside the {group_words(self.size)} are "
            f"{rank_name(self.rank, plural=True)} or better (a Joker counts as an Ace)"
        )


class SingletonsTopAtLeast(PredicateEntry):
    name: Literal["singletons_top_at_least"]
    hand: TwoCardHand
    factory: ClassVar[Any] = pred_singletons_top_at_least

    def holds_words(self) -> str:
        return f"the two highest singletons make {self.hand} or better as a two-card hand"


class SingletonRanksInclude(PredicateEntry):
    name: Literal["singleton_ranks_include"]
    ranks: Ranks
    factory: ClassVar[Any] = pred_singleton_ranks_include

    def holds_words(self) -> str:
        return f"a singleton is {'an' if ACE in self.ranks else 'a'} {ranks_words(self.ranks, plural=False)}"


class StraightOrFlushTop(PredicateEntry):
    name: Literal["straight_or_flush_top"]
    kind: Literal["pair", "ace", "ace-face"] | None = None
    below: TwoCardHand | None = None
    at_least: TwoCardHand | None = None
    factory: ClassVar[Any] = pred_straight_or_flush_top

    def holds_words(self) -> str:
        top = "the best two-card hand that can go in front of a Straight or Flush"
        if self.kind == "pair":
            return f"{top} is a pair"
        if self.kind == "ace":
            return f"{top} holds an Ace"
        if self.kind == "ace-face":
            return f"{top} is Ace-face (an Ace with a King, Queen or Jack)"
        if self.below is not None:
            return f"{top} ranks below {self.below}"
        return f"{top} is {self.at_least} or better"


PREDICATE_ENTRIES: tuple[type[PredicateEntry], ...] = (
    CanMake,
    Groups,
    RankCount,
    HasNatural,
    GroupRank,
    GroupRanks,
    GroupHasJoker,
    JokerUnpaired,
    HasJoker,
    FlushAfterRemoving,
    StraightAfterRemoving,
    LongestStraightAfterRemoving,
    InFlushSuit,
    FlushSize,
    RunLength,
    RunStartsWithAce,
    RunJokerAt,
    CanMakeStraightOf,
    NthHighestRank,
    GroupsAdjacent,
    GroupAbove,
    PairBeatsSingletons,
    OthersAtLeast,
    SingletonsTopAtLeast,
    SingletonRanksInclude,
    StraightOrFlushTop,
)
