"""The named vocabulary a way file is written in: predicates, card selectors and actions.

Each entry is a factory taking keyword parameters (from the way file) and returning a small
function of the hand's facts (facts.py). Way files name entries; nothing here knows a row
of any table. The readings conventions (house-way-readings.md G2-G10) live in facts.py and
in the definitions below; docs/house-way.md lists every entry with its parameters.

- A **predicate** answers a question about the hand: ``f(facts) -> bool``.
- A **card selector** names cards: ``f(facts) -> alternatives``, each alternative a tuple of
  card positions. Alternatives are copies of the same rank (which Ace, which joker, which two
  of three Kings): the row leaves that choice open and the engine makes it by G5.
- An **action** says what goes in front: ``take`` (the union of selectors, two cards),
  ``follow`` (the step rows of another combination), or a search such as
  ``best_straight_or_flush_top``.

A predicate may also carry ``static(signature) -> True / False / None``: its answer for every
hand of that signature (facts.py: the sizes of the rank groups, the joker count, what the
hand can make, whether a joker is wild in front), or None when the cards themselves decide.
The engine compiles each signature's rows with it at load (engine.py); a predicate without
one is always asked per hand. A static answer must be the one the predicate gives for every
hand of the signature (the equivalence tests hold the engine to its frozen results).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from operator import attrgetter
from typing import Any

from ..cards import Card
from ..evaluator import HighCategory, rank_low
from .facts import ACE, FLUSH, KINDS, STRAIGHT, STRAIGHT_FLUSH, HandFacts

Predicate = Callable[[HandFacts], bool]
Alternatives = list[tuple[int, ...]]
Selector = Callable[[HandFacts], Alternatives]

_RANK_WORDS = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10, "10": 10}


def parse_rank(value: Any) -> int:
    """A rank as a way file writes it: "A", "K", "Q", "J", "T" or "10", "2".."9" (or 2..14)."""
    if isinstance(value, bool):
        raise ValueError(f"not a rank: {value!r}")
    if isinstance(value, int) and 2 <= value <= 14:
        return value
    if isinstance(value, str):
        key = value.strip().upper()
        if key in _RANK_WORDS:
            return _RANK_WORDS[key]
        if key.isdigit() and 2 <= int(key) <= 9:
            return int(key)
    raise ValueError(f"not a rank: {value!r} (use A K Q J T 9 .. 2)")


def parse_ranks(values: Any) -> frozenset[int]:
    if not isinstance(values, list) or not values:
        raise ValueError(f"expected a non-empty list of ranks, got {values!r}")
    return frozenset(parse_rank(value) for value in values)


def parse_two_card_hand(text: Any) -> int:
    """A reference two-card hand such as "KJ", "A8", "AA", "Q2" -> its rank_low score."""
    if not isinstance(text, str):
        raise ValueError(f"expected a two-card hand such as 'KJ', got {text!r}")
    key = text.strip().upper().replace("10", "T")
    if len(key) != 2:
        raise ValueError(f"expected a two-card hand such as 'KJ', got {text!r}")
    first, second = parse_rank(key[0]), parse_rank(key[1])
    return rank_low((Card(first, "s"), Card(second, "h")))


def _group_sizes(size: Any) -> tuple[int, ...]:
    sizes = tuple(size) if isinstance(size, list) else (size,)
    if not sizes or any(isinstance(s, bool) or not isinstance(s, int) or not 2 <= s <= 5 for s in sizes):
        raise ValueError(f"group size must be 2..5 or a list of them, got {size!r}")
    return sizes


@dataclass(frozen=True)
class Signature:
    """What every hand of one signature shares (facts.py), for the predicates' ``static``."""

    sizes: tuple[int, ...]  # sizes of the rank groups, joker = Ace (G2)
    jokers: int
    kinds: int  # "can make" bits (facts.KINDS)
    wild: bool  # a joker is held and plays wild in the low hand
    run_kind: str = "straight"  # the straight the section's rows speak of

    def groups(self, sizes: tuple[int, ...]) -> int:
        """How many rank groups have one of these sizes."""
        return sum(1 for size in self.sizes if size in sizes)

    @property
    def flush(self) -> bool:
        return bool(self.kinds & FLUSH)

    @property
    def straight(self) -> bool:
        return bool(self.kinds & STRAIGHT)

    @property
    def has_run(self) -> bool:
        """Is there a straight of the section's kind (facts.run() is not None)?"""
        if self.run_kind == "straight-flush":
            return bool(self.kinds & STRAIGHT_FLUSH)
        return self.straight


Static = Callable[[Signature], "bool | None"]


def with_static(predicate: Predicate, static: Static) -> Predicate:
    """Attach a predicate's answer per signature (module docstring)."""
    predicate.static = static  # type: ignore[attr-defined]
    return predicate


def static_value(predicate: Predicate, signature: Signature) -> bool | None:
    """A predicate's answer for every hand of the signature, or None (module docstring)."""
    static = getattr(predicate, "static", None)
    return None if static is None else static(signature)


def _false_unless(condition: Callable[[Signature], bool]) -> Static:
    """False where ``condition`` fails, else open."""
    return lambda sig: None if condition(sig) else False


_WHICH = ("lowest", "highest", "only")


def _check_which(which: str) -> str:
    if which not in _WHICH:
        raise ValueError(f"which must be one of {_WHICH}, got {which!r}")
    return which


def group_rank_of(facts: HandFacts, sizes: tuple[int, ...], which: str) -> int | None:
    """Rank of the group of one of ``sizes`` cards (joker = Ace, G2) picked by ``which``."""
    if sizes == (2,):
        ranks = facts.pairs
    elif sizes == (3,):
        ranks = facts.threes
    else:
        ranks = sorted(rank for rank, size in facts.counts.items() if size in sizes)
    if not ranks:
        return None
    if which == "lowest":
        return ranks[0]
    if which == "highest":
        return ranks[-1]
    return ranks[0] if len(ranks) == 1 else None


def group_rank_getter(sizes: tuple[int, ...], which: str) -> Callable[[HandFacts], int | None]:
    """group_rank_of for fixed ``sizes`` and ``which``, made once when a way is loaded."""
    if sizes == (2,) or sizes == (3,):
        ranks_of = attrgetter("pairs" if sizes == (2,) else "threes")
    else:

        def ranks_of(f: HandFacts) -> list[int]:
            return sorted(rank for rank, size in f.counts.items() if size in sizes)

    if which == "lowest":

        def lowest(f: HandFacts) -> int | None:
            ranks = ranks_of(f)
            return ranks[0] if ranks else None

        return lowest
    if which == "highest":

        def highest(f: HandFacts) -> int | None:
            ranks = ranks_of(f)
            return ranks[-1] if ranks else None

        return highest

    def only(f: HandFacts) -> int | None:
        ranks = ranks_of(f)
        return ranks[0] if len(ranks) == 1 else None

    return only


def group_found(sig: Signature, sizes: tuple[int, ...], which: str) -> bool:
    """Does group_rank_of find a rank for every hand of the signature?"""
    found = sig.groups(sizes)
    return found == 1 if which == "only" else found >= 1


def _position(value: Any) -> int | str:
    if value == "last" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 7):
        return value
    raise ValueError(f"a place in the straight is 1..7 or 'last', got {value!r}")


def _place(value: int | str, length: int) -> int:
    return length if value == "last" else value  # type: ignore[return-value]


# -- card selectors ---------------------------------------------------------------------------


def _sized(select: Selector, size: int | None, shape: str = "") -> Selector:
    """Record how many cards each alternative of a selector holds (None: it varies), and the
    shape of the two cards it names, if it names two (``always_legal``)."""
    select.size = size  # type: ignore[attr-defined]
    select.shape = shape  # type: ignore[attr-defined]
    return select


def always_legal(shape: str, sig: Signature) -> bool:
    """Does a front of this shape never foul, in every hand of the signature? The foul rule
    is house-way-readings.md section 1 (facts.HandFacts.legal); a shape is named by the
    selector that takes it:

    - ``singletons``: two singletons (different ranks, each held once). With a pair or more
      behind and no joker wild in front (a wild joker would pair the other card), the five
      cards hold a pair and the two cards none: never a foul.
    - ``lowest-pair``: the lowest pair. With another group of two or more behind, the five
      cards hold a higher pair, or three or more of a kind: never a foul.
    - ``below-top``: two cards, neither the highest. With seven singletons the highest card
      stays behind and the two cards in front are unpaired: never a foul.
    - ``outside-run``: the cards outside the straight used, when they are two: the five
      behind are the straight (or straight flush). Never a foul.
    - ``outside-flush``: the natural cards not of the flush suit, when they are two: the five
      behind are the flush suit's cards and the jokers, a flush (G8). Never a foul.
    """
    if shape in ("outside-run", "outside-flush"):
        return True
    if shape == "singletons":
        return not sig.wild and sig.sizes.count(1) >= 2 and max(sig.sizes) >= 2
    if shape == "lowest-pair":
        return sig.sizes.count(2) >= 1 and sum(1 for size in sig.sizes if size >= 2) >= 2
    if shape == "below-top":
        return sig.sizes == (1,) * 7
    return False


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
    _check_which(which)

    at = {"lowest": 0, "highest": -1, "only": 0}[which]

    def select(f: HandFacts) -> Alternatives:
        pairs = f.pairs
        if not pairs or which == "only" and len(pairs) != 1:
            return []
        rank = pairs[at]
        index = f.grank.index
        place = index(rank)
        return [(place, index(rank, place + 1))]

    return _sized(select, 2, "lowest-pair" if which == "lowest" else "")


def sel_group(*, size: Any, which: str = "highest", count: int = 2) -> Selector:
    """``count`` cards of a group of ``size`` (a list: any of those sizes), e.g. "two from the
    3-of-a-kind", "two cards of the higher group" (readings Q2)."""
    sizes = _group_sizes(size)
    _check_which(which)
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


def sel_highest(*, nth: list) -> Selector:
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


def sel_highest_left_out_of_straight(*, without: list) -> Selector:
    """Readings T2: after removing ``without``, the highest card that can be left out of a
    5-card straight of the cards that remain (the joker filling)."""
    removed = compile_selectors(without)

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


SELECTORS: dict[str, Callable[..., Selector]] = {
    "joker": sel_joker,
    "ace": sel_ace,
    "rank": sel_rank,
    "pair": sel_pair,
    "group": sel_group,
    "singletons": sel_singletons,
    "highest": sel_highest,
    "non_flush": sel_non_flush,
    "flush_cards": sel_flush_cards,
    "non_straight": sel_non_straight,
    "run_card": sel_run_card,
    "highest_left_out_of_straight": sel_highest_left_out_of_straight,
}


class VocabularyError(ValueError):
    """A name or parameter the vocabulary does not know (the loader adds the file and rule)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "predicate", "selector", "action" or "parameter"


def _split_spec(spec: Any, kind: str) -> tuple[str, dict[str, Any]]:
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, dict) and isinstance(spec.get("name"), str):
        params = dict(spec)
        return params.pop("name"), params
    raise VocabularyError("parameter", f"a {kind} is a name or a table with a 'name', got {spec!r}")


def _build(registry: dict[str, Callable], kind: str, spec: Any) -> tuple[str, dict[str, Any], Any]:
    name, params = _split_spec(spec, kind)
    factory = registry.get(name)
    if factory is None:
        known = ", ".join(sorted(registry))
        raise VocabularyError(kind, f"unknown {kind} {name!r} (known: {known})")
    try:
        return name, params, factory(**params)
    except TypeError as error:
        raise VocabularyError("parameter", f"{kind} {name!r}: bad parameters {params!r} ({error})") from None
    except ValueError as error:
        if isinstance(error, VocabularyError):
            raise
        raise VocabularyError("parameter", f"{kind} {name!r}: {error}") from None


def compile_selectors(specs: Any) -> tuple[Selector, ...]:
    if not isinstance(specs, list) or not specs:
        raise VocabularyError("parameter", f"expected a non-empty list of card selectors, got {specs!r}")
    return tuple(_build(SELECTORS, "selector", spec)[2] for spec in specs)


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
        options = select(f)
        picks = [pick + option for pick in picks for option in options if not set(option) & set(pick)]
        if not picks:
            return []
    if len(picks) == 1:
        return [tuple(sorted(picks[0]))]
    return list(dict.fromkeys(tuple(sorted(pick)) for pick in picks))


# -- predicates -------------------------------------------------------------------------------

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
    sizes = _group_sizes(size)
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


def pred_group_rank(*, size: Any, ranks: list, which: str = "highest") -> Predicate:
    """The rank of the group of ``size`` picked by ``which`` is one of ``ranks``."""
    sizes = _group_sizes(size)
    wanted = parse_ranks(ranks)
    _check_which(which)
    rank_of = group_rank_getter(sizes, which)
    return with_static(lambda f: rank_of(f) in wanted, _false_unless(lambda sig: group_found(sig, sizes, which)))


def pred_group_ranks(*, size: Any, ranks: list) -> Predicate:
    """The groups of ``size`` have exactly these ranks ("a Pair of 2s and a Pair of 3s")."""
    sizes = _group_sizes(size)
    wanted = sorted(parse_rank(rank) for rank in ranks)
    return with_static(
        lambda f: sorted(r for r, size in f.counts.items() if size in sizes) == wanted,
        _false_unless(lambda sig: sig.groups(sizes) == len(wanted)),
    )


def pred_group_has_joker(*, size: Any, which: str = "only") -> Predicate:
    """The group picked (``which``; or ``any`` group of that size) holds a joker ("One Pair
    that uses Joker"). Jokers group with the Aces (G2)."""
    sizes = _group_sizes(size)
    if which != "any":
        _check_which(which)

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


def pred_flush_after_removing(*, cards: list) -> Predicate:
    """G9: the cards left after removing these can still make a flush (a joker left fills)."""
    selectors = compile_selectors(cards)

    def holds(f: HandFacts) -> bool:
        return any(
            f.makes_flush([i for i in range(7) if i not in taken]) for taken in alternatives_of(selectors, f)
        )

    # fewer cards cannot make a flush the seven cannot
    return with_static(holds, _false_unless(lambda sig: sig.flush))


def pred_straight_after_removing(*, cards: list) -> Predicate:
    """G9: the cards left after removing these can still make a straight (a joker left fills)."""
    selectors = compile_selectors(cards)

    def holds(f: HandFacts) -> bool:
        return any(f.makes_straight([i for i in range(7) if i not in taken]) for taken in alternatives_of(selectors, f))

    # fewer cards cannot make a straight the seven cannot
    return with_static(holds, _false_unless(lambda sig: sig.straight))


def pred_longest_straight_after_removing(*, cards: list, length: int) -> Predicate:
    """Readings T2: the longest straight the cards left make has exactly ``length`` cards."""
    selectors = compile_selectors(cards)

    def holds(f: HandFacts) -> bool:
        for taken in alternatives_of(selectors, f):
            window = f.run_window_of([i for i in range(7) if i not in taken])
            if window is not None and window[1] == length:
                return True
        return False

    return with_static(holds, _false_unless(lambda sig: sig.straight))


def pred_in_flush_suit(*, cards: list) -> Predicate:
    """The selected cards are natural cards of the flush suit ("the Ace is also used by the
    flush", F5); a joker is of no suit."""
    selectors = compile_selectors(cards)

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


def pred_run_joker_at(*, positions: list) -> Predicate:
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


def pred_can_make_straight_of(*, ranks: list) -> Predicate:
    """The hand can make the straight of exactly these ranks, jokers filling (T4: "a Straight
    containing Ace, King, Queen, Jack and 10")."""
    wanted = parse_ranks(ranks)
    if len(wanted) != 5:
        raise ValueError("a straight has five ranks")
    holds = lambda f: sum(1 for r in wanted if not f.natural_places(r)) <= len(f.jokers)  # noqa: E731
    low = min(wanted)
    if wanted == set(range(low, low + 5)) or wanted == {14, 2, 3, 4, 5}:
        # five ranks in a row: the seven cards make a straight whenever these make one
        return with_static(holds, _false_unless(lambda sig: sig.straight))
    return holds


def pred_nth_highest_rank(*, n: int, ranks: list) -> Predicate:
    """The ``n``-th highest of the seven cards (joker = Ace) has one of ``ranks`` (C1)."""
    wanted = parse_ranks(ranks)
    if not isinstance(n, int) or not 1 <= n <= 7:
        raise ValueError(f"n must be 1..7, got {n!r}")
    place = n - 1
    return lambda f: f.ranks_high_first()[place] in wanted


def pred_groups_adjacent(*, sizes: list) -> Predicate:
    """The ranks of the (highest) groups of the two sizes are 1 apart; the Ace is next to the
    King only (readings Q2)."""
    if not isinstance(sizes, list) or len(sizes) != 2:
        raise ValueError(f"sizes must be a list of two group sizes, got {sizes!r}")
    first, second = _group_sizes(sizes[0]), _group_sizes(sizes[1])

    def holds(f: HandFacts) -> bool:
        a, b = group_rank_of(f, first, "highest"), group_rank_of(f, second, "highest")
        return a is not None and b is not None and abs(a - b) == 1

    return with_static(holds, _false_unless(lambda sig: sig.groups(first) >= 1 and sig.groups(second) >= 1))


def pred_group_above(*, size: int, other: int) -> Predicate:
    """The group of ``size`` ranks above the group of ``other`` ("the rank of the 4-of-a-kind is
    greater than the rank of the Pair")."""
    first, second = _group_sizes(size), _group_sizes(other)

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
    sizes = _group_sizes(size)
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


def pred_singleton_ranks_include(*, ranks: list) -> Predicate:
    """Some singleton has one of ``ranks`` (joker = Ace): "with any Ace" among the side cards."""
    wanted = parse_ranks(ranks)
    return with_static(lambda f: any(r in wanted for r in f.singles), _false_unless(lambda sig: 1 in sig.sizes))


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


PREDICATES: dict[str, Callable[..., Predicate]] = {
    "can_make": pred_can_make,
    "groups": pred_groups,
    "rank_count": pred_rank_count,
    "has_natural": pred_has_natural,
    "group_rank": pred_group_rank,
    "group_ranks": pred_group_ranks,
    "group_has_joker": pred_group_has_joker,
    "joker_unpaired": pred_joker_unpaired,
    "has_joker": pred_has_joker,
    "flush_after_removing": pred_flush_after_removing,
    "straight_after_removing": pred_straight_after_removing,
    "longest_straight_after_removing": pred_longest_straight_after_removing,
    "in_flush_suit": pred_in_flush_suit,
    "flush_size": pred_flush_size,
    "run_length": pred_run_length,
    "run_starts_with_ace": pred_run_starts_with_ace,
    "run_joker_at": pred_run_joker_at,
    "can_make_straight_of": pred_can_make_straight_of,
    "nth_highest_rank": pred_nth_highest_rank,
    "groups_adjacent": pred_groups_adjacent,
    "group_above": pred_group_above,
    "pair_beats_singletons": pred_pair_beats_singletons,
    "others_at_least": pred_others_at_least,
    "singletons_top_at_least": pred_singletons_top_at_least,
    "singleton_ranks_include": pred_singleton_ranks_include,
    "straight_or_flush_top": pred_straight_or_flush_top,
}


def compile_predicate(spec: Any) -> tuple[str, Predicate]:
    """A condition entry: a name, or a table ``{name = ..., negate = true?, params...}``."""
    negate = False
    if isinstance(spec, dict) and "negate" in spec:
        spec = dict(spec)
        negate = spec.pop("negate")
        if not isinstance(negate, bool):
            raise VocabularyError("parameter", f"negate must be true or false, got {negate!r}")
    name, _, predicate = _build(PREDICATES, "predicate", spec)
    if negate:
        inner = predicate

        def static(sig: Signature) -> bool | None:
            value = static_value(inner, sig)
            return None if value is None else not value

        return name, with_static(lambda f: not inner(f), static)
    return name, predicate


# -- actions ----------------------------------------------------------------------------------

Candidates = Callable[[HandFacts], Alternatives]


@dataclass(frozen=True, slots=True)
class Follow:
    """The ``follow`` action: read the rows of another combination (their own conditions only)."""

    combination: str


def act_take(*, cards: list) -> Candidates:
    """The cards named by the selectors go in front (two in all); alternatives are chosen by G5."""
    selectors = compile_selectors(cards)
    sizes = [getattr(select, "size", None) for select in selectors]
    if None not in sizes and sum(sizes) != 2:
        raise ValueError(f"the selectors name {sum(sizes)} cards, the low hand has 2")
    if len(selectors) == 1:
        (only,) = selectors
        if sizes == [2]:
            return only  # its alternatives are the candidates (and its shape, always_legal)

        def candidates(f: HandFacts) -> Alternatives:
            return [pick for pick in only(f) if len(pick) == 2]

        candidates.shape = only.shape  # type: ignore[attr-defined]  # the same cards, when two
        return candidates

    def candidates(f: HandFacts) -> Alternatives:
        return [pick for pick in alternatives_of(selectors, f) if len(pick) == 2]

    return candidates


def act_follow(*, combination: str) -> Follow:
    """'Follow the steps described for "..."': the rows of that combination decide."""
    if not isinstance(combination, str) or not combination:
        raise ValueError("follow needs the id of a combination")
    return Follow(combination)


_STRAIGHT_CLASS = {HighCategory.STRAIGHT: "straight"}
_FLUSH_CLASS = {
    HighCategory.FLUSH: "flush",
    HighCategory.STRAIGHT_FLUSH: "flush",
    HighCategory.ROYAL_FLUSH: "flush",
}


def _tops(f: HandFacts) -> dict[str, tuple[tuple[int, int, int], tuple[int, int]]]:
    """Per class (straight / flush, the latter with straight and royal flushes), the split with
    the best two-card hand in front (then the best high hand, then the joker behind)."""
    tops = f.memo.get("tops")
    if tops is not None:
        return tops
    tops = {}
    for a, b in combinations(range(7), 2):
        rest = [i for i in range(7) if i != a and i != b]
        ranks = [f.grank[i] for i in rest if i not in f.jokers]
        if len(set(ranks)) != len(ranks):
            continue  # a natural pair behind: neither a straight nor a flush
        if not f.makes_flush(rest) and f.run_window_of(rest) is None:
            continue
        high, low = f.value((a, b))
        category = HighCategory(high >> 20)
        kind = _STRAIGHT_CLASS.get(category) or _FLUSH_CLASS.get(category)
        if kind is None:
            continue
        key = (low, high, -f.jokers_in((a, b)))
        if kind not in tops or key > tops[kind][0]:
            tops[kind] = (key, (a, b))
    f.memo["tops"] = tops
    return tops


def _close(low_a: int, low_b: int) -> bool:
    """004 "tops adjacent or essentially the same": both unpaired, and the same or adjacent
    top card, or both tops Q-x or lower (docs/house-way.md, strong-004 choices)."""
    if low_a >> 8 or low_b >> 8:
        return False
    a, b = (low_a >> 4) & 15, (low_b >> 4) & 15
    return abs(a - b) <= 1 or (a <= 12 and b <= 12)


def straight_or_flush_choice(f: HandFacts, prefer_flush_when_close: bool) -> tuple[tuple[int, int], int] | None:
    """The split a straight-or-flush play gives, and its low score (004 "Straight with Flush")."""
    key = ("choice", prefer_flush_when_close)
    if key in f.memo:
        return f.memo[key]
    tops = _tops(f)
    choice = None
    if tops:
        straight, flush = tops.get("straight"), tops.get("flush")
        if straight and flush and prefer_flush_when_close and _close(straight[0][0], flush[0][0]):
            pick = flush
        else:
            pick = max(tops.values())
        choice = (pick[1], pick[0][0])
    f.memo[key] = choice
    return choice


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


ACTIONS: dict[str, Callable[..., Any]] = {
    "take": act_take,
    "follow": act_follow,
    "best_straight_or_flush_top": act_best_straight_or_flush_top,
    "strongest_legal_low": act_strongest_legal_low,
}


def compile_action(spec: Any) -> tuple[str, dict[str, Any], Candidates | Follow]:
    if not isinstance(spec, dict):
        raise VocabularyError("parameter", f"an action is a table with a 'name', got {spec!r}")
    return _build(ACTIONS, "action", spec)
