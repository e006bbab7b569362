"""Shift and day reports (docs/api.md): rounds, wagers, commission collected, bonuses paid, house result."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

CSV_COLUMNS = (
    "scope", "game", "position", "rounds", "settled", "voided", "in_progress", "wins", "pushes", "losses",
    "wagered_cents", "bonus_wagered_cents", "commission_cents", "bonuses_paid_cents", "house_result_cents",
)


class ReportLine(BaseModel):
    """Counts and money (integer cents) of one scope. Money counts settled rounds only: a voided
    round returns its wagers. ``house_result_cents`` is what the house gained (negative: lost)."""

    scope: Literal["total", "game", "position"]
    game: str | None = None
    position: int | None = None
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


class ReportPublic(BaseModel):
    table_id: str
    kind: Literal["day", "shift"]
    start: datetime = Field(description="rounds opened at or after")
    end: datetime = Field(description="rounds opened before")
    time_zone: str
    total: ReportLine
    per_game: list[ReportLine]
    per_position: list[ReportLine]
