"""Shift and day reports (docs/api.md): rounds, wagers, commission collected, bonuses paid, house result."""

from __future__ import annotations

from datetime import date, datetime
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


# --- the accounting and the ratings of the period (docs/accounting.md, "The day in the reports")

# The CSV's accounting lines (scope ``accounting-table``, ``accounting-pit``, ``accounting-total``)
# and rating lines (scope ``rating``) fill these columns, after the checkpoint columns, and the
# report's own ``table_id`` and ``pit`` columns where it has them (the floor's); the other lines
# leave them empty, so the file stays one table.
CSV_ACCOUNTING_COLUMNS = (
    "gaming_day",
    "shift",
    "missing",
    "opener_cents",
    "closer_cents",
    "fills_cents",
    "credits_cents",
    "drop_cash_cents",
    "drop_markers_cents",
    "drop_cents",
    "win_cents",
    "win_hold_percent",
    "theoretical_hold_percent_of_drop",
    "band_low_hold_percent",
    "band_high_hold_percent",
    "settled_rounds",
    "computed_result_cents",
    "explained_cents",
    "variance_cents",
    "variance_flagged",
    "ratings",
    "rated_rounds",
    "rated_wagered_cents",
    "rated_actual_win_cents",
    "rated_theoretical_win_cents",
)
CSV_RATING_COLUMNS = (
    "rating_id",
    "player",
    "seat",
    "rating_start",
    "rating_end",
    "end_reason",
    "seconds_played",
    "rating_rounds",
    "average_wager_cents",
    "total_wagered_cents",
    "actual_win_cents",
    "rating_theoretical_win_cents",
    "adjustments",
    "matches_rounds",
)


class AccountingLine(BaseModel):
    """A table's, a pit's or the floor's money of the gaming day (or shift), in integer cents,
    with the counted win reconciled with the rounds' settled win and the theoretical beside it.
    A pit or total line sums the tables whose opener and closer are both signed; the others are
    named in ``missing`` and summed nowhere."""

    scope: Literal["table", "pit", "total"]
    table_id: str | None = None
    pit: str | None = None
    tables: int = Field(description="tables in the line, counted or not")
    missing: list[str] = Field(description="'TABLE: opener' (or closer) for each count not signed yet")
    opener_cents: int | None = Field(description="the signed opener (null: none yet)")
    closer_cents: int | None = Field(description="the signed closer (null: none yet)")
    fills_cents: int = Field(description="fill slips delivered in the period, not voided")
    credits_cents: int = Field(description="credit slips delivered in the period, not voided")
    drop_cash_cents: int
    drop_markers_cents: int
    drop_cents: int
    win_cents: int | None = Field(
        description="drop + (closer - opener) + credits - fills; null without both counts"
    )
    hold_percent: str | None = Field(
        description="win / drop x 100, two places half-even; null: no win or drop"
    )
    theoretical_rounds: int = Field(description="settled rounds that carry a theoretical win")
    theoretical_win_cents: int | None = Field(description="their theoretical win; null: none carries one")
    theoretical_hold_percent: str | None = Field(description="theoretical win / drop x 100, as the hold")
    band_actual_cents: int | None = Field(None, description="the house result of those rounds")
    band_low_cents: int | None = Field(None, description="theoretical - 1.96 sqrt(variance), the 95% band")
    band_high_cents: int | None = Field(None, description="theoretical + 1.96 sqrt(variance)")
    outside_band: bool | None = None
    band_low_hold_percent: str | None = Field(
        None, description="band_low_cents / drop x 100, as the hold: the band beside the hold"
    )
    band_high_hold_percent: str | None = Field(None, description="band_high_cents / drop x 100")
    settled_rounds: int = Field(description="settled rounds opened in the period")
    computed_result_cents: int = Field(description="the controller's computed result: their house result")
    explained_cents: int = Field(description="the named lines (tips, untracked side wagers, ...)")
    variance_cents: int | None = Field(
        description="counted win - computed result - named lines; null without a counted win"
    )
    variance_flagged: bool | None = Field(description="|variance| above alert_above_cents")
    ratings: int = Field(description="ratings started in the period")
    rated_rounds: int
    rated_wagered_cents: int
    rated_actual_win_cents: int = Field(description="as shown (adjustments in), the house's side")
    rated_theoretical_win_cents: int


class RatingLine(BaseModel):
    """One rating (a player's stay at a seat) started in the period, its figures as shown
    (adjustments in), from the house's side."""

    table_id: str
    pit: str | None = None
    rating_id: str
    player: str
    seat: int
    start: datetime
    end: datetime | None = Field(description="null: still open (figures as last folded)")
    end_reason: str | None
    seconds_played: int | None
    rounds: int
    average_wager_cents: int | None
    total_wagered_cents: int
    actual_win_cents: int | None
    theoretical_win_cents: int | None
    adjustments: int = Field(description="pit adjustments of its figures (each chained, both values)")
    matches_rounds: bool = Field(
        description="its recorded figures (rounds, wagers, actual and theoretical win, before any"
        " adjustment) equal those computed again from the settled rounds its seat played in its window"
    )


class AccountingSection(BaseModel):
    """The accounting of the gaming day (or the calendar shift) the report covers: per table,
    per pit and in total, and the ratings started in it."""

    gaming_day: date
    shift: str | None = Field(description="null: the whole gaming day")
    start: datetime = Field(description="the accounting period (the gaming day's calendar), UTC")
    end: datetime
    alert_above_cents: int = Field(description="a variance above this is flagged")
    total: AccountingLine
    lines: list[AccountingLine] = Field(description="per table, then per pit")
    ratings: list[RatingLine]


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
    accounting: AccountingSection | None = Field(
        None, description="the gaming day's (or shift's) accounting, reconciliation and ratings"
    )
