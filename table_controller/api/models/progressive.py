"""A progressive pool's gaming day as the API serves it (docs/api.md, "Progressive reports";
docs/progressive.md, "The day's reconciliation"): every amount integer cents, named ``_cents``."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field


class LevelDisplay(BaseModel):
    """One level as a display shows it (cents)."""

    level: str
    meter: int = Field(description="the current jackpot (PRG-49)")
    reset: int
    base: int
    limit: int | None
    overflow: int
    hits: int
    locked: int = Field(description="awards pending payment")
    paid: int = Field(description="the cumulative paid meter (PRG-13)")
    paid_by_system: int
    paid_by_attendant: int


class PendingDisplay(BaseModel):
    """A hit awaiting payment: PENDING on every display until it is paid."""

    hit_id: int
    level: str
    amount: int
    table_id: str
    position: int
    held: bool
    at: datetime | None


class HitDisplay(BaseModel):
    """One of the last hits (PRG-11), with the new amount the level reset to (PRG-25)."""

    hit_id: int
    at: datetime | None
    table_id: str
    position: int
    level: str
    line: str
    amount: int
    meter_after: int
    held: bool
    pending: bool
    paid_at: datetime | None
    paid_by: str | None


class ProgressiveDisplay(BaseModel):
    """A pool as its displays show it: the meter page, the table page (docs/api.md,
    "Progressive displays"); also each frame of ``/api/progressive/{pool_id}/stream``."""

    pool_id: str
    name: str
    seq: int = Field(description="the pool chain's seq the view is at")
    open: bool
    levels: list[LevelDisplay]
    pending: list[PendingDisplay]
    recent_hits: list[HitDisplay] = Field(description="the last hits, newest first")


class LevelDayPublic(BaseModel):
    """One level reconciled: ``computed_end_meter_cents`` = start + contributions - hits + seeds +
    rolled forward + adjustments; ``variance_cents`` = the end meter as recorded less it."""

    level: str
    base_cents: int
    start_meter_cents: int
    contributions_cents: int
    wagers: int = Field(description="wagers that contributed in the period (the in-meter count)")
    wagered_cents: int
    hits_cents: int = Field(description="awards taken off the meter")
    hit_count: int
    seeds_cents: int = Field(description="put back on the meter by resets (reserve and house)")
    rolled_forward_cents: int
    adjustments_cents: int = Field(description="the signed two-person corrections")
    computed_end_meter_cents: int
    end_meter_cents: int
    variance_cents: int
    start_reserve_cents: int
    to_reserve_cents: int
    seeded_from_reserve_cents: int
    end_reserve_cents: int
    start_overflow_cents: int
    to_overflow_cents: int
    end_overflow_cents: int
    start_locked_cents: int = Field(description="awards pending payment when the period starts")
    paid_cents: int
    paid_by_system_cents: int
    paid_by_attendant_cents: int
    end_locked_cents: int
    accrued_cents: int = Field(description="the player money the period's wagers added (PRG-51)")


class TableContributionsPublic(BaseModel):
    table_id: str
    wagers: int
    wagered_cents: int
    to_meters_cents: int
    to_reserves_cents: int
    to_overflows_cents: int


class DayHitPublic(BaseModel):
    hit_id: int
    seq: int
    at: datetime
    round_id: str | None
    table_id: str
    position: int
    level: str
    line: str
    share_bp: int
    order: int
    meter_before_cents: int
    amount_cents: int
    meter_after_cents: int = Field(description="the new amount: the meter after its reset (PRG-25)")
    held: bool
    paid_at: datetime | None
    paid_by: str | None
    verified_by: str | None


class DayPaymentPublic(BaseModel):
    hit_id: int
    seq: int
    at: datetime
    level: str
    amount_cents: int
    paid_by: str
    verified_by: str
    by_system: bool


class DayAdjustmentPublic(BaseModel):
    seq: int
    at: datetime
    level: str
    amount_cents: int
    reason: str
    requested_by: str
    approved_by: str
    note: str
    meter_before_cents: int
    meter_after_cents: int


class DayParameterChangePublic(BaseModel):
    seq: int
    at: datetime
    level: str
    requested_by: str
    approved_by: str
    rate_changed: bool = Field(description="a changed rate: the notice for accounting (PRG-03)")
    before: dict[str, Any]
    after: dict[str, Any]


class DayStatusPublic(BaseModel):
    seq: int
    at: datetime
    open: bool
    reason: str


class DayVariancePublic(BaseModel):
    """A figure that does not add up: an event of the chain (``seq``), or the meters the displays
    show against the chain's (``seq`` None, ``source`` "display")."""

    source: str = Field(description="chain: a record; display: the meters the sign shows")
    seq: int | None
    at: datetime | None
    level: str | None
    field: str
    recorded_cents: int | None
    computed_cents: int | None
    variance_cents: int | None
    detail: str


class ProgressiveDayPublic(BaseModel):
    """A pool's gaming day (or shift): contributions, hits, payments and the meters reconciled."""

    pool_id: str
    name: str
    gaming_day: date
    shift: str | None
    start: datetime
    end: datetime
    time_zone: str
    generated_at: datetime
    last_seq: int = Field(description="the pool chain's last seq the report read")
    events: int
    display_checked: bool = Field(
        description="whether the meters the displays show were compared (the period reaches the chain's end)"
    )
    reconciled: bool
    levels: list[LevelDayPublic]
    per_table: list[TableContributionsPublic]
    hits: list[DayHitPublic]
    payments: list[DayPaymentPublic]
    adjustments: list[DayAdjustmentPublic]
    parameter_changes: list[DayParameterChangePublic]
    statuses: list[DayStatusPublic]
    variances: list[DayVariancePublic]


__all__ = [
    "DayAdjustmentPublic",
    "DayHitPublic",
    "DayParameterChangePublic",
    "DayPaymentPublic",
    "DayStatusPublic",
    "DayVariancePublic",
    "HitDisplay",
    "LevelDayPublic",
    "LevelDisplay",
    "PendingDisplay",
    "ProgressiveDayPublic",
    "ProgressiveDisplay",
    "TableContributionsPublic",
]
