"""What can happen to a round: frozen, serialisable records.

Each event is validated on the way in (a wrong payload is refused with a clear error), stored
as JSON in the audit chain, and replayed through the state machine after a restart, so the
stored events *are* the round.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    field_validator,
    model_serializer,
    model_validator,
)

from ..game.banking import DEALER_SEAT, PLAYER_SEATS, Bank, position_of_seat
from ..game.cards import Game, parse_card
from ..game.deal import DEFAULT_DICE_DIRECTION, PLAYER_POSITIONS, DiceDirection
from ..game.money import BASIS_POINTS, Cents

PlayerPosition = Annotated[int, Field(ge=min(PLAYER_POSITIONS), le=max(PLAYER_POSITIONS))]
PlayerSeat = Annotated[int, Field(ge=min(PLAYER_SEATS), le=max(PLAYER_SEATS))]
CardCode = str


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    actor: str = "system"


def _canonical(value: list[str]) -> list[str]:
    """Card codes in canonical form; an unknown code is refused naming it."""
    return [parse_card(code).code for code in value]


class Wager(BaseModel):
    """A position's wagers in integer cents: the main wager, the Double Joker bonuses (003), and
    the side wagers a table may offer, the Fortune Bonus and the progressive (game/side_wagers.py).

    The side wagers are written only when made, so a round without them records exactly what
    it always did (its chained ``round.opened`` is unchanged)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    main: Cents = Field(gt=0)
    big_hand: Cents = Field(default=0, ge=0)
    joker_bonus: Cents = Field(default=0, ge=0)
    fortune: Cents = Field(default=0, ge=0)
    progressive: Cents = Field(default=0, ge=0)

    @model_serializer(mode="wrap")
    def _side_wagers_when_made(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in SIDE_WAGER_FIELDS:
            if not data.get(name):
                data.pop(name, None)
        return data


SIDE_WAGER_FIELDS = ("fortune", "progressive")


class RoundBank(BaseModel):
    """A player's bank as the round records it (game/banking.py; docs/settlement.md, 8).

    ``seat`` (2..7, seats counted counter-clockwise from the dealer's, seat 1) banks and is
    position 1 this round; ``amount`` is the bank declared, in cents; ``house_wager`` what
    the dealer's own hand wagers for the house against it (0: it does not play);
    ``house_share_bp`` the house's share of a co-banked bank (None: not co-banked);
    ``offered`` whether the table's banking policy offered the bank to this seat.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: PlayerSeat
    amount: Cents = Field(ge=0)
    house_wager: Cents = Field(default=0, ge=0)
    house_share_bp: int | None = Field(default=None, gt=0, lt=BASIS_POINTS)

    @property
    def co_banked(self) -> bool:
        return self.house_share_bp is not None

    @property
    def house_position(self) -> int:
        """Where the dealer's seven cards sit this round (positions count from the banker, 004)."""
        return position_of_seat(DEALER_SEAT, self.seat)

    def terms(self) -> Bank:
        """The game core's value of the same bank."""
        return Bank(
            seat=self.seat,
            amount=self.amount,
            house_wager=self.house_wager,
            house_share_bp=self.house_share_bp,
        )


class RoundOpened(_Event):
    """Wagers recorded for positions 2-7; the banker is position 1 (docs/round-lifecycle.md, "The phases").

    Positions are numbered from the banker (004_60e2fc6346e3399b.txt): when a player banks
    (``bank``), position 1 is that player's seat and the dealer's seven cards sit at
    ``bank.house_position``, which holds no player's wager. ``bank_offer`` is the seat the
    table's banking policy offered the bank to this round (None: the house's turn), so the
    rotation can be rebuilt from the records. ``dice_direction`` is how the dice were counted
    (000 or 004). A record stored before these fields existed replays as a house-banked
    round counted counter-clockwise, as it was played.
    """

    kind: Literal["round.opened"] = "round.opened"
    table_id: str
    round_id: str
    number: int = Field(ge=1)
    game: Game
    rules: dict[str, Any]  # the table rules in force for this round, as stored
    wagers: dict[PlayerPosition, Wager]
    bank: RoundBank | None = None  # None: the house banks
    bank_offer: PlayerSeat | None = None
    dice_direction: DiceDirection = DEFAULT_DICE_DIRECTION
    # the rules' contents it was decided under, by SHA-256 ("house_way", "table_rules",
    # "paytable.<bonus>"; docs/audit-chain.md); empty in records older than the pins (by name)
    evidence: dict[str, str] = Field(default_factory=dict)
    # the dealer on the box when the round opened (docs/dealers.md); None: nobody signed in,
    # and then not written, so the record of a table without sign-ins is what it always was
    dealer: str | None = Field(default=None, min_length=1, max_length=128)

    @model_serializer(mode="wrap")
    def _dealer_when_signed_in(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("dealer") is None:
            data.pop("dealer", None)
        return data

    @field_validator("wagers")
    @classmethod
    def _some_wager(cls, wagers: dict[int, Wager]) -> dict[int, Wager]:
        if not wagers:
            raise ValueError("a round needs at least one position with a main wager")
        return wagers

    @model_validator(mode="after")
    def _house_hand_has_no_player(self) -> RoundOpened:
        bank = self.bank
        if bank is not None and bank.house_position in self.wagers:
            raise ValueError(
                f"position {bank.house_position} is the dealer's seat this round (seat {bank.seat} "
                "banks): it holds the house's hand, not a player's wager"
            )
        return self

    @property
    def banker_seat(self) -> int:
        """The seat that banks: the dealer's (1) when the house banks."""
        return self.bank.seat if self.bank is not None else 1


class DiceRolled(_Event):
    """Three dice, and the source that chose them: the shaker or the RNG (docs/protocols/dice-shaker.md).

    ``source`` is a value of the drivers' ``DiceSource``, spelled out here because the round
    imports no driver module (tests/round/test_round_is_pure.py checks that they agree)."""

    kind: Literal["dice.rolled"] = "dice.rolled"
    faces: tuple[int, int, int]
    source: Literal["shaker", "rng"]
    roll_id: str | None = None

    @field_validator("faces")
    @classmethod
    def _faces(cls, faces: tuple[int, int, int]) -> tuple[int, int, int]:
        if any(face < 1 or face > 6 for face in faces):
            raise ValueError(f"dice faces must be 1..6, got {list(faces)}")
        return faces


class PilesDealt(_Event):
    """The seven piles in dealing order and the unused cards, as the reader saw them."""

    kind: Literal["piles.dealt"] = "piles.dealt"
    piles: list[list[CardCode]]  # kept as read: an unknown code (or ``??``, unreadable) is a misdeal
    unused: list[CardCode]
    interrupted: str | None = None  # the shuffler stopped or lost the deal: a misdeal with this reason


class _SettingEvent(_Event):
    high: list[CardCode]
    low: list[CardCode]

    @field_validator("high", "low")
    @classmethod
    def _codes(cls, value: list[str]) -> list[str]:
        return _canonical(value)


class PlayerSet(_SettingEvent):
    """A position's high (five) and low (two) hands."""

    kind: Literal["player.set"] = "player.set"
    position: PlayerPosition
    high: list[CardCode]  # five cards; another count is a foul (004), settled by the foul rule
    low: list[CardCode]


class DealerSet(_SettingEvent):
    """The dealer's setting of the banker's hand; refused when it deviates from the house way."""

    kind: Literal["dealer.set"] = "dealer.set"
    high: list[CardCode] = Field(min_length=5, max_length=5)
    low: list[CardCode] = Field(min_length=2, max_length=2)


class DealerOverride(DealerSet):
    """A pit supervisor lets a deviating dealer setting stand, with a reason
    (docs/round-lifecycle.md, "The phases")."""

    kind: Literal["dealer.override"] = "dealer.override"  # type: ignore[assignment]
    reason: str = Field(min_length=3)


class SideWagerPlaced(_Event):
    """A position's side wagers as they stand before the deal starts (the bet sensor or the
    dealer's entry): they replace the position's Fortune and progressive wagers. Accepted only
    while the round is open: the wagers lock when the dice are rolled (progressive-research.md
    PRG-16, PRG-17; docs/progressive.md, "At the table")."""

    kind: Literal["wager.side"] = "wager.side"
    position: PlayerPosition
    fortune: Cents = Field(default=0, ge=0)
    progressive: Cents = Field(default=0, ge=0)


class RoundSettled(_Event):
    """Settlement recorded; ``result`` is what the game core computed (checked on replay)."""

    kind: Literal["round.settled"] = "round.settled"
    result: dict[str, Any] | None = None


class RoundVoided(_Event):
    """The pit voids the round before settlement: wagers returned, nothing settled."""

    kind: Literal["round.voided"] = "round.voided"
    reason: str = Field(min_length=3)


RoundEvent = Annotated[
    (
        RoundOpened
        | SideWagerPlaced
        | DiceRolled
        | PilesDealt
        | PlayerSet
        | DealerSet
        | DealerOverride
        | RoundSettled
        | RoundVoided
    ),
    Field(discriminator="kind"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(RoundEvent)
ROUND_EVENT_KINDS = frozenset(
    cls.model_fields["kind"].default
    for cls in (
        RoundOpened,
        SideWagerPlaced,
        DiceRolled,
        PilesDealt,
        PlayerSet,
        DealerSet,
        DealerOverride,
        RoundSettled,
        RoundVoided,
    )
)


def event_from_payload(payload: dict[str, Any]) -> _Event:
    """Rebuild a stored event (raises pydantic.ValidationError on a bad payload)."""
    return _ADAPTER.validate_python(payload)
