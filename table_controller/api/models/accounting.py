"""What the pit sends and reads of the table's accounting (docs/api.md, "Table accounting").

Money is integer cents; chips are ``{"denomination in cents": count}`` (JSON keys are text). The
counts, the denominations and the signatures are checked by the accounting core
(accounting/chips.py, slips.py): an unknown denomination or a negative count is a 422 naming it.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict

from ...storage.users import UserName
from ..patterns import TEXT_PATTERN
from .commands import MAX_CENTS, BodyCents, cents, whole_number

Name = Annotated[str, Field(min_length=1, max_length=128, pattern=TEXT_PATTERN)]
ShiftName = Annotated[str, Field(min_length=1, max_length=32, pattern=TEXT_PATTERN)]
Count = Annotated[int, Strict(), BeforeValidator(whole_number)]
ChipsBody = Annotated[
    dict[Annotated[str, Field(pattern=r"^[0-9]{1,12}$")], Count],
    Field(
        max_length=20,
        examples=[{"2500": 40, "500": 100}],
        description="chips by denomination: the denomination in cents (as text) -> the number of chips",
    ),
]
DayField = Annotated[
    date | None, Field(default=None, description="the gaming day (YYYY-MM-DD); default: the one now")
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CountCreate(_Body):
    """An opener or closer, entered by the pit supervisor (the caller), naming the dealer who
    signs it next (``POST /api/accounting/counts/{id}/sign``)."""

    kind: Literal["opener", "closer"]
    gaming_day: DayField = None
    shift: ShiftName | None = Field(default=None, description="one of the day's shifts; none: the whole day")
    chips: ChipsBody
    dealer: UserName = Field(description="the dealer who counted with the supervisor and signs second")


class SlipCreate(_Body):
    kind: Literal["fill", "credit"]
    chips: ChipsBody


class DeliveryCreate(_Body):
    runner: Name = Field(
        description="who carried the chips (the cage's runner); the caller signs for the table"
    )


class VoidCreate(_Body):
    reason: Annotated[str, Field(min_length=1, max_length=500, pattern=TEXT_PATTERN)]


class DropCreate(_Body):
    gaming_day: DayField = None
    shift: ShiftName | None = None
    kind: Literal["cash", "marker"]
    amount_cents: BodyCents
    reference: Name | None = Field(default=None, description="the marker's number (required for a marker)")


class LineCreate(_Body):
    gaming_day: DayField = None
    shift: ShiftName | None = None
    name: Name = Field(examples=["tips", "untracked side wager", "chip exchange"])
    amount_cents: cents(-MAX_CENTS, MAX_CENTS) = Field(  # type: ignore[valid-type]  # an Annotated
        description="from the house's side: + the tray or drop gained outside the rounds, - it lost"
    )


class PeriodCreate(_Body):
    gaming_day: DayField = None
    shift: ShiftName | None = None


class CountPublic(BaseModel):
    id: int
    kind: Literal["opener", "closer"]
    gaming_day: date
    shift: str | None
    counted_at: datetime
    chips: dict[str, int]
    value_cents: int
    supervisor: str
    dealer: str
    signed_at: datetime | None = Field(description="when the dealer signed; a count counts once signed")


class SlipPublic(BaseModel):
    number: int
    table_id: str
    kind: Literal["fill", "credit"]
    state: Literal["requested", "delivered", "voided"]
    chips: dict[str, int]
    value_cents: int
    requested_at: datetime
    requested_by: str
    delivered_at: datetime | None
    runner: str | None
    table_signer: str | None
    void_asked_by: str | None
    void_reason: str | None
    voided_at: datetime | None
    void_approved_by: str | None


class DropPublic(BaseModel):
    id: int
    gaming_day: date
    shift: str | None
    kind: Literal["cash", "marker"]
    amount_cents: int
    source: str
    reference: str | None
    entered_by: str
    entered_at: datetime
    file_sha256: str | None
    file_line: int | None


class ImportPublic(BaseModel):
    file_sha256: str
    entries: list[DropPublic]
    other_tables: int = Field(description="lines of the file for other tables, left to them")


class LinePublic(BaseModel):
    id: int
    gaming_day: date
    shift: str | None
    name: str
    amount_cents: int
    entered_by: str
    entered_at: datetime


class AccountPublic(BaseModel):
    """win = drop + (closer - opener) + credits - fills; hold = win / drop x 100 (two places,
    half-even; none with no drop)."""

    opener_cents: int
    closer_cents: int
    fills_cents: int
    credits_cents: int
    drop_cash_cents: int
    drop_markers_cents: int
    drop_cents: int
    win_cents: int
    hold_percent: str | None
    fill_slips: list[int]
    credit_slips: list[int]


class TheoryPublic(BaseModel):
    """The theoretical win of the period's settled rounds and its 95% band around their result."""

    rounds: int
    actual_cents: int
    theoretical_win_cents: int
    theoretical_hold_percent: str | None
    low_cents: int
    high_cents: int
    outside: bool


class ReconciliationPublic(BaseModel):
    """variance = counted win - computed result - named lines; flagged above ``alert_above_cents``."""

    counted_win_cents: int
    computed_result_cents: int
    explained_cents: int
    variance_cents: int
    alert_above_cents: int
    flagged: bool
    rounds: list[str] = Field(description="the settled rounds summed, for the drill-down")


class ReconciledPublic(BaseModel):
    """A reconciliation kept (chained ``day.reconciled``) and the alert it raised, if any."""

    id: int
    reconciled_at: datetime
    reconciled_by: str
    counted_win_cents: int
    computed_result_cents: int
    explained_cents: int
    variance_cents: int
    alert_above_cents: int
    rounds: int
    alert_seq: int | None


class DayPublic(BaseModel):
    table_id: str
    gaming_day: date
    shift: str | None
    start: datetime
    end: datetime
    time_zone: str
    counts: list[CountPublic]
    slips: list[SlipPublic]
    drop: list[DropPublic]
    lines: list[LinePublic]
    account: AccountPublic | None
    theory: TheoryPublic | None
    reconciliation: ReconciliationPublic | None
    reconciled: list[ReconciledPublic]
    missing: list[str] = Field(description="what the period lacks to be accounted: a signed opener, closer")


__all__ = [
    "AccountPublic",
    "CountCreate",
    "CountPublic",
    "DayPublic",
    "DeliveryCreate",
    "DropCreate",
    "DropPublic",
    "ImportPublic",
    "LineCreate",
    "LinePublic",
    "PeriodCreate",
    "ReconciledPublic",
    "ReconciliationPublic",
    "SlipCreate",
    "SlipPublic",
    "TheoryPublic",
    "VoidCreate",
]
