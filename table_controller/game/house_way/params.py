"""Typed parameters of the vocabulary (pydantic), and the words they are read back in.

Every predicate, card selector and action is an ``Entry``: a pydantic model whose ``name``
is its tag in a discriminated union (registry.py), whose fields are its parameters, which
compiles itself to the function the engine calls (``compiled``) and describes itself in
words (``words()``) for the review sheets (review.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)

from ..cards import ACE, JACK, KING, QUEEN, RANK_CHARS, TEN, parse_rank
from .ranks import parse_two_card_hand


def _rank(value: Any) -> int:
    return parse_rank(value)


def _two_card_hand(value: str) -> str:
    parse_two_card_hand(value)  # refuses what is not a two-card hand
    return value


Rank = Annotated[int, BeforeValidator(_rank)]
Ranks = Annotated[list[Rank], Field(min_length=1)]
GroupSize = Annotated[int, Field(ge=2, le=5)]
GroupSizes = GroupSize | Annotated[list[GroupSize], Field(min_length=1)]
Which = Literal["lowest", "highest", "only"]
Place = Annotated[int, Field(ge=1, le=7)] | Literal["last"]
TwoCardHand = Annotated[str, AfterValidator(_two_card_hand)]
OneOrTwo = Literal[1, 2]


class Entry(BaseModel):
    """One entry of a way file: a name from the vocabulary and its typed parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    if TYPE_CHECKING:  # every concrete entry's discriminator, a Literal there (registry.py)
        name: str
    entry_kind: ClassVar[str] = "entry"
    factory: ClassVar[Any] = None  # the function of the parameters that builds the callable
    _compiled: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _compile(self) -> Entry:
        # a ValueError here becomes pydantic's error for the entry
        self._compiled = self.build()
        return self

    def params(self) -> dict[str, Any]:
        """The parameters, as validated (nested entries stay entries)."""
        return {key: getattr(self, key) for key in type(self).model_fields if key not in ("name", "negate")}

    def build(self) -> Any:
        return type(self).factory(**self.params())

    @property
    def compiled(self) -> Any:
        return self._compiled

    def words(self) -> str:
        raise NotImplementedError


# -- words ------------------------------------------------------------------------------------

_RANK_NAMES = {ACE: "Ace", KING: "King", QUEEN: "Queen", JACK: "Jack", TEN: "Ten"}
_GROUP_NAMES = {1: "singleton", 2: "pair", 3: "3-of-a-kind", 4: "4-of-a-kind", 5: "five of a kind"}
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh"}
_NTH = {
    1: "highest",
    2: "2nd highest",
    3: "3rd highest",
    4: "4th highest",
    5: "5th highest",
    6: "6th highest",
    7: "7th highest",
}
_NUMBERS = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def rank_name(rank: int, plural: bool = False) -> str:
    """ "Ace", "Kings", "9s"."""
    name = _RANK_NAMES.get(rank, RANK_CHARS[rank - 2])
    if not plural:
        return name
    return name + "s"


def ranks_words(ranks: list[int] | frozenset[int], plural: bool = True, joiner: str = "or") -> str:
    names = [rank_name(rank, plural) for rank in sorted(set(ranks), reverse=True)]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" {joiner} " + names[-1]


def group_words(size: int | list[int]) -> str:
    sizes = size if isinstance(size, list) else [size]
    return " or ".join(_GROUP_NAMES[s] for s in sizes)


def number(n: int) -> str:
    return _NUMBERS.get(n, str(n))


def ordinal(place: int | str) -> str:
    return "last" if place == "last" else _ORDINALS[place]  # type: ignore[index]


def nth_highest(n: int) -> str:
    return _NTH[n]


def joined(parts: list[str], joiner: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {joiner} " + parts[-1]
