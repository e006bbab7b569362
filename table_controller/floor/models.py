"""What the floor answers (docs/floor.md, "The API"): the tables overview, the alerts of every
table, the events of the floor's stream. Money in integer cents."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ..api.models.events import ChainEventPublic
from ..api.models.table import AlertPublic, FaultPublic, TableHoldPublic
from .severity import Severity


class DevicesPublic(BaseModel):
    """The table's health as its last ``table.state`` event chained it (table/state.py)."""

    status: Literal["ok", "fault", "held", "unknown"] = Field(
        description="fault: a device fault is open; held: no new round until the pit clears the hold;"
        " unknown: the table has chained no state yet"
    )
    table_open: bool | None = Field(description="the table is open for play (None: not known yet)")
    faults: list[FaultPublic] = Field(description="each open device fault (device and kind in `kind`)")
    hold: TableHoldPublic | None


class TodayPublic(BaseModel):
    """The rounds opened today (the floor's ``time_zone``) and, over the settled ones, the money."""

    rounds: int
    settled: int
    wagered_cents: int = Field(description="main and bonus wagers of the settled rounds")
    house_result_cents: int = Field(description="the house's actual win (+ won, - lost)")
    theoretical_win_cents: int | None = Field(description="None when no settled round carries one")
    hold_bp: int | None = Field(
        description="actual win / wagered in basis points (1/100 of a percent), half-even;"
        " None: nothing wagered"
    )


class FloorTablePublic(BaseModel):
    """One table at a glance."""

    table_id: str
    pit: str | None
    game: str
    house_way: str
    api_url: str | None = Field(description="where the table serves its own API and pages")
    live_url: str | None = Field(description="the table's own live page (api_url + /ui/table.html)")
    alive: bool = Field(description="its daemon was heard from within the floor's stale_after")
    seen_at: datetime
    started_at: datetime
    phase: str | None = Field(description="the newest round's phase (round.phases.Phase); None: no round yet")
    phase_words: str = Field(examples=["waiting for the dealer's hand"])
    round_id: str | None
    round_number: int | None
    dealer: str | None = Field(description="who opened the newest round")
    banker: str | None = Field(description="'house' or 'seat N' (a player-banker) of the newest round")
    open_alerts: dict[Severity, int] = Field(description="alerts not yet acknowledged, by severity")
    devices: DevicesPublic
    today: TodayPublic


class FloorAlertPublic(AlertPublic):
    """An alert of one of the floor's tables; its id is (table_id, seq)."""

    table_id: str
    severity: Severity


class FloorEventPublic(ChainEventPublic):
    """One event of a table's audit chain, as the floor's stream sends it."""

    table_id: str


__all__ = ["DevicesPublic", "FloorAlertPublic", "FloorEventPublic", "FloorTablePublic", "TodayPublic"]
