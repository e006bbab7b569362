"""What the dealer, the pit and surveillance send and read of rated players (docs/api.md,
"Ratings").

Money is integer cents, from the house's side like the casino's own reports (``actual_win_cents``
+ the house won from the player). A rating's figures are folded from the settled rounds
(accounting/ratings.py); ``shown`` holds the adjustable figures as shown after the pit's
adjustments, the others the recorded ones.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict

from ...accounting.ratings import PLAYER_ID, AdjustableField
from ..patterns import TEXT_PATTERN
from .commands import MAX_CENTS, whole_number

CardNumber = Annotated[
    str,
    Field(
        min_length=1,
        max_length=40,
        pattern=f"^{PLAYER_ID.pattern}$",
        description="the player's card number, typed or given by a card reader",
        examples=["P-100234"],
    ),
]
RatingId = Annotated[
    str, Field(min_length=1, max_length=128, description="a rating's id: table/seat-N/start")
]
Seat = Annotated[
    int,
    Strict(),
    Field(ge=2, le=7, description="a player's seat, 2..7 (1 is the dealer's)"),
    BeforeValidator(whole_number),
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatCreate(_Body):
    player: CardNumber


class RatingRef(_Body):
    rating_id: RatingId


class MoveCreate(_Body):
    rating_id: RatingId
    seat: Seat


class BuyInCreate(_Body):
    seat: Seat
    kind: Literal["cash", "chips", "marker"]
    amount_cents: Annotated[int, Strict(), Field(ge=1, le=MAX_CENTS), BeforeValidator(whole_number)]


class AdjustCreate(_Body):
    rating_id: RatingId
    field: AdjustableField
    new_value: Annotated[int, Strict(), Field(ge=-MAX_CENTS, le=MAX_CENTS), BeforeValidator(whole_number)] = (
        Field(description="cents, or seconds for seconds_played")
    )
    reason: Annotated[str, Field(min_length=1, max_length=500, pattern=TEXT_PATTERN)]
    expected_old: Annotated[int, Strict(), BeforeValidator(whole_number)] | None = Field(
        default=None, description="the value the pit user saw: refused when another changed it since"
    )


class AdjustmentPublic(BaseModel):
    field: str
    old_value: int | None
    new_value: int
    reason: str
    actor: str
    at: datetime


class RatingPublic(BaseModel):
    rating_id: str
    table_id: str
    player: str
    seat: int
    gaming_day: date
    start: datetime
    end: datetime | None
    end_reason: Literal["seat-change", "left", "table-closed", "idle"] | None
    seated: bool = Field(description="the player still holds the seat (an open rating, or one ended idle)")
    last_activity: datetime
    started_by: str
    ended_by: str | None
    seconds_played: int | None
    rounds: int
    main_wagered_cents: int
    bonus_wagered_cents: int
    total_wagered_cents: int
    average_wager_cents: int | None = Field(description="total wagered / rounds, half-even to the cent")
    actual_win_cents: int
    theoretical_win_cents: int
    theoretical_rounds: int
    buy_in_cash_cents: int
    buy_in_chips_cents: int
    buy_in_markers_cents: int
    banks: int
    bank_actual_win_cents: int = Field(description="the house's side of the rounds the player banked")
    round_ids: list[str]
    shown: dict[str, int | None] = Field(description="the adjustable figures as shown after adjustments")
    adjustments: list[AdjustmentPublic]


class BuyInPublic(BaseModel):
    id: int
    seat: int
    rating_id: str | None
    kind: Literal["cash", "chips", "marker"]
    amount_cents: int
    entered_by: str
    entered_at: datetime


class BuyInDone(BaseModel):
    buy_in: BuyInPublic
    rating: RatingPublic


class MovedPublic(BaseModel):
    ended: RatingPublic
    started: RatingPublic


class RatingsDayPublic(BaseModel):
    table_id: str
    gaming_day: date
    time_zone: str
    ratings: list[RatingPublic]


class OutboxPublic(BaseModel):
    rating_id: str
    idempotency_key: str
    attempts: int
    delivered_at: datetime | None
    next_attempt_at: datetime
    last_error: str | None
