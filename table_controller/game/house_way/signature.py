"""The compile-time optimisation: what every hand of one *signature* shares.

A hand's signature (facts.py) is the sizes of its rank groups, its joker count, what it can
make and whether a joker plays wild in front. A predicate may carry ``static(signature) ->
True / False / None``: its answer for every hand of that signature, or None when the cards
themselves decide. The engine compiles each signature's rows with it at load (engine.py);
a predicate without one is always asked per hand. A static answer must be the one the
predicate gives for every hand of the signature: the property test against the reference
engine holds the engine to it (docs/house-way.md, "Speed").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .facts import FLUSH, STRAIGHT, STRAIGHT_FLUSH, HandFacts

Predicate = Callable[[HandFacts], bool]


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


def group_found(sig: Signature, sizes: tuple[int, ...], which: str) -> bool:
    """Does group_rank_of find a rank for every hand of the signature?"""
    found = sig.groups(sizes)
    return found == 1 if which == "only" else found >= 1


def always_legal(shape: str, sig: Signature) -> bool:
    """Does a front of this shape never foul, in every hand of the signature? The foul rule
    is docs/house-way.md, Readings ("Values and fouls") (facts.HandFacts.legal); a shape is named by the
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
