"""What the terminals send: wagers, settings, reasons. Validated before the table sees them (422)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict

from ...game.banking import PLAYER_SEATS
from ...game.cards import parse_card
from ..patterns import CARD_PATTERN, TEXT_PATTERN

MAX_CENTS = 10**12  # far above any table limit; the limits themselves are checked by the table


def _card(code: str) -> str:
    return parse_card(code).code


CardCode = Annotated[
    str,
    Field(
        min_length=2,
        max_length=3,
        pattern=CARD_PATTERN,
        examples=["As", "Td", "JK"],
        description="rank then suit (2-9 T J Q K A, s h d c; any case; 10 for T), or JK",
    ),
    AfterValidator(_card),
]


def whole_number(value: object) -> object:
    """JSON has one number type: ``2500.0`` is the whole number 2500 (JSON Schema's "integer"
    says so too) and is taken as such; ``25.5`` stays a float and is refused, never rounded;
    a string or a bool is refused."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def cents(minimum: int = 0, maximum: int = MAX_CENTS, description: str = "cents") -> Any:
    """An amount of money in integer cents within [minimum, maximum] (shown in the schema)."""
    return Annotated[
        int, Strict(), Field(ge=minimum, le=maximum, description=description), BeforeValidator(whole_number)
    ]


BodyCents = Annotated[
    int, Strict(), Field(ge=0, le=MAX_CENTS, description="cents"), BeforeValidator(whole_number)
]
"""Cents in a request body, 0..MAX_CENTS (``cents`` gives the table's own bounds)."""


Reason = Annotated[
    str,
    Field(
        min_length=3,
        max_length=500,
        pattern=TEXT_PATTERN,
        description="why, in words (3..500 characters, a letter or digit, no control characters)",
    ),
]
Note = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        pattern=TEXT_PATTERN,
        description="1..500 characters, a letter or digit, no control characters",
    ),
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


PositionKey = Literal["2", "3", "4", "5", "6", "7"]


class WagerCreate(_Body):
    """A position's wagers in integer cents (a float or a string is refused, never rounded)."""

    main: cents(1, description="main wager, cents")  # type: ignore[valid-type]
    big_hand: BodyCents = 0
    joker_bonus: BodyCents = 0
    fortune: BodyCents = 0  # the Fortune Bonus, where the table offers it (docs/progressive.md)
    progressive: BodyCents = 0  # the progressive wager: its fixed amount


class BankCreate(_Body):
    """A player's bank (docs/settlement.md, 8): the seat that banks (2..7; seats count
    counter-clockwise from the dealer's, seat 1), the bank it declares (cents: it must cover
    every wager against it), and whether it co-banks with the house in the table's share (its
    hand is then set by the house way, 004)."""

    seat: Annotated[
        int,
        Strict(),
        Field(
            ge=min(PLAYER_SEATS),
            le=max(PLAYER_SEATS),
            description=f"the banking player's seat, {min(PLAYER_SEATS)}..{max(PLAYER_SEATS)}",
        ),
        BeforeValidator(whole_number),
    ]
    amount: BodyCents
    co_bank: bool = False


class OpenRoundCreate(_Body):
    """Open a round: the wagers of each position that plays, keyed by position ``"2"``..``"7"``
    (the banker is position 1, 003, 004), as the ``round.opened`` event stores them
    (docs/round-lifecycle.md, "The phases"). ``bank`` absent: the house banks and positions are
    the seats. ``bank`` given: that seat banks, positions are numbered counter-clockwise from it
    (004), and the dealer's seat is no player's position."""

    wagers: Annotated[
        dict[PositionKey, WagerCreate],
        Field(min_length=1, max_length=6, examples=[{"3": {"main": 2500}, "5": {"main": 1000}}]),
    ]
    bank: BankCreate | None = None


class PlayerSettingCreate(_Body):
    """A player's setting as the player made it: normally five cards behind and two in front.
    Another split of the position's seven cards is a foul (004), settled by the foul rule; cards
    that are not the position's seven are refused by the round (409)."""

    high: list[CardCode] = Field(max_length=7)
    low: list[CardCode] = Field(max_length=7)


class DealerSettingCreate(_Body):
    """The dealer's setting of the banker's hand: five cards high, two low."""

    high: list[CardCode] = Field(min_length=5, max_length=5)
    low: list[CardCode] = Field(min_length=2, max_length=2)


class OverrideCreate(DealerSettingCreate):
    """The pit lets a deviating dealer setting stand, and says why (docs/round-lifecycle.md, "The phases")."""

    reason: Reason


class VoidCreate(_Body):
    reason: Reason


class AcknowledgeCreate(_Body):
    note: Note
