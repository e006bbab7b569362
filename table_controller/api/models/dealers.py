"""What the dealer and the pit send and read of the dealers on the box and the table's limits
(docs/api.md, "Dealers and limits"; docs/dealers.md).

Hands per hour are decimal text to one place, half-even (accounting/dealers.py), like the
accounting's hold percent: never a float. Limits are integer cents.
"""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field

from ...storage.users import UserName
from .commands import MAX_CENTS, cents


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SignInCreate(_Body):
    dealer: UserName | None = Field(
        default=None,
        description="the dealer who goes on the box; none: the caller. Naming another person is the pit's",
    )


class LimitsCreate(_Body):
    """The limits asked for (cents), each within the table's approved ones (docs/dealers.md)."""

    min_main_cents: cents(1, MAX_CENTS, "the least main wager, cents")  # type: ignore[valid-type]
    max_main_cents: cents(1, MAX_CENTS, "the most main wager, cents")  # type: ignore[valid-type]
    max_bonus_cents: cents(0, MAX_CENTS, "the most on each bonus wager (Double Joker, 003), cents")  # type: ignore[valid-type]
    max_fortune_cents: cents(1, MAX_CENTS, "the most on the Fortune Bonus; none: unchanged") | None = None  # type: ignore[valid-type]


class StintPublic(BaseModel):
    """One dealer's time on the box: from their sign-in to the next dealer's (``relieved``) or
    their sign-out (``signed-out``); ``end`` null while on it."""

    dealer: str
    start: datetime
    end: datetime | None
    signed_in_by: str
    ended_by: str | None
    end_reason: str | None = Field(description="relieved or signed-out; null while on the box")


class SignedInPublic(BaseModel):
    signed_in: StintPublic
    relieved: StintPublic | None = Field(description="the stint the sign-in ended (the push); null: none")


class PacePublic(BaseModel):
    """Hands (settled rounds) over time on the box in the gaming day up to now."""

    dealer: str | None = Field(description="null: the table (every dealer's hands and time)")
    hands: int
    seconds_on_box: int
    hands_per_hour: str | None = Field(
        description="one decimal place, half-even; null with no time on the box"
    )


class DealersPublic(BaseModel):
    """A gaming day's dealers at the table (``GET /api/dealers``)."""

    table_id: str
    gaming_day: date
    time_zone: str
    on_box: StintPublic | None
    stints: list[StintPublic]
    dealers: list[PacePublic]
    table: PacePublic


class DealerNowPublic(BaseModel):
    """The dealer on the box now and the pace of the gaming day (``GET /api/table``'s ``dealer``)."""

    dealer: str | None = Field(description="null: nobody signed in (a round then records who opened it)")
    since: datetime | None
    hands_per_hour: str | None = Field(description="the dealer on the box's, today")
    table_hands_per_hour: str | None = Field(description="the table's, today")


class LimitsNowPublic(BaseModel):
    """The limits in force (cents) and the approved ones a pit user changes them within."""

    min_main_cents: int
    max_main_cents: int
    max_bonus_cents: int
    max_fortune_cents: int | None = Field(description="null: the table offers no Fortune Bonus")
    approved: dict[str, int | None] = Field(description="the configured limits, the bounds of any change")
    round: dict[str, int | None] | None = Field(
        None, description="the open round's limits where they differ (a change holds from the next round)"
    )


__all__ = [
    "DealerNowPublic",
    "DealersPublic",
    "LimitsCreate",
    "LimitsNowPublic",
    "PacePublic",
    "SignInCreate",
    "SignedInPublic",
    "StintPublic",
]
