"""Shift and day reports (docs/api.md): rounds, wagers, commission collected, bonuses paid, house result."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

CSV_COLUMNS = (
    "scope",
    "game",
    "position",
    "rounds",
    "settled",
    "voided",
    "in_progress",
    "wins",
    "pushes",
    "losses",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
    "dealer",
    "hold_percent",
    "theoretical_rounds",
    "theoretical_win_cents",
    "theoretical_variance",
    "theoretical_hold_percent",
    "band_actual_cents",
    "band_low_cents",
    "band_high_cents",
    "outside_band",
)
# A checkpoint of the period is one more line of the CSV (scope ``checkpoint``) with these columns
# filled, the money columns empty: the file stays one table (docs/audit-chain.md, "Anchoring").
CSV_CHECKPOINT_COLUMNS = (
    "checkpoint_seq",
    "checkpoint_hash",
    "checkpoint_at",
    "checkpoint_reason",
    "checkpoint_signature",
    "checkpoint_in_period",
)


class ReportLine(BaseModel):
    """Counts and money (integer cents) of one scope. Money counts settled rounds only: a voided
    round returns its wagers. ``house_result_cents`` is what the house gained (negative: lost)."""

    scope: Literal["total", "game", "position", "dealer"]
    game: str | None = None
    position: int | None = None
    dealer: str | None = None
    rounds: int = Field(description="rounds opened in the period (position lines: settled rounds played)")
    settled: int
    voided: int = Field(description="voided rounds, misdeals included")
    in_progress: int
    wins: int = Field(0, description="position lines and totals: main wagers won by the player")
    pushes: int = 0
    losses: int = 0
    wagered_cents: int = Field(description="main wagers of settled rounds")
    bonus_wagered_cents: int
    commission_cents: int = Field(description="commission collected")
    bonuses_paid_cents: int
    house_result_cents: int
    hold_percent: str | None = Field(
        None,
        description="house result / (main + bonus wagered) x 100, two places "
        "half-even, a decimal string; null when nothing was wagered",
    )
    theoretical_rounds: int | None = Field(
        None,
        description="settled rounds that carry a theoretical win "
        "(null on position lines: it is kept per round)",
    )
    theoretical_win_cents: int | None = Field(
        None,
        description="sum of the rounds' theoretical win; null when no round carries one (missing, never 0)",
    )
    theoretical_variance: int | None = Field(None, description="sum of the rounds' variances, cents squared")
    theoretical_hold_percent: str | None = Field(
        None, description="theoretical win / wagered of those rounds"
    )
    band_actual_cents: int | None = Field(
        None, description="the house result of the rounds with a theoretical win"
    )
    band_low_cents: int | None = Field(None, description="theoretical - 1.96 sqrt(variance), half-even cents")
    band_high_cents: int | None = Field(None, description="theoretical + 1.96 sqrt(variance)")
    outside_band: bool | None = Field(None, description="band_actual_cents lies outside [low, high]")


class BankerLine(BaseModel):
    """The rounds the house banked, or those players banked (docs/settlement.md, 8), cents."""

    banker: Literal["house", "player"]
    rounds: int
    settled: int
    house_result_cents: int = Field(description="the house's own result in these rounds")
    commission_cents: int = Field(description="commission paid by the positions")
    bank_commission_cents: int = Field(description="commission paid by player-bankers on their net wins")
    banker_result_cents: int = Field(description="the player-bankers' results (their share when co-banked)")
    house_hand_result_cents: int = Field(description="the house's own hand against player-bankers")


class ReportCheckpoint(BaseModel):
    """A signed checkpoint of the table's chain the report was made under (docs/audit-chain.md,
    "Anchoring"): one written in the period, or the first written after it, the first to sign
    every row of the period (storage/checkpoints.report_checkpoints)."""

    seq: int = Field(description="the chain head it signs: seq")
    hash: str = Field(description="the chain head it signs: hash")
    at: str
    reason: str
    signature: str = Field(
        default="", description="Ed25519, hex, over the signed bytes of docs/audit-chain.md"
    )
    in_period: bool = Field(
        default=True,
        description="written in the period; false: the first written after it, which signs the"
        " period's last rows",
    )


class ReportPublic(BaseModel):
    table_id: str
    kind: Literal["day", "shift"]
    start: datetime = Field(description="rounds opened at or after")
    end: datetime = Field(description="rounds opened before")
    time_zone: str
    total: ReportLine
    per_game: list[ReportLine]
    per_position: list[ReportLine]
    per_dealer: list[ReportLine] = Field(default_factory=list, description="per dealer (rounds.dealer)")
    per_banker: list[BankerLine] = Field(
        default_factory=list, description="house-banked and player-banked rounds apart"
    )
    checkpoints: list[ReportCheckpoint] = Field(
        default_factory=list,
        description="signed checkpoints written in the period, and the first after it (the first to"
        " sign every row of the period): surveillance compares them with its copy",
    )
