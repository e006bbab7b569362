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


PlaceState = Literal["dealing", "stopped", "not-answering"]


class RatedSeatPublic(BaseModel):
    seat: int
    player: str = Field(description="the rated player's card number")


class PitPlacePublic(BaseModel):
    """One table on the pit map: whether it deals, and why not; its rated seats; today's hold."""

    table_id: str
    state: PlaceState = Field(
        description="dealing: answering, open, no fault or hold; stopped: see why; not-answering:"
        " its daemon was not heard from within stale_after"
    )
    why: str | None = Field(description="why it is stopped or not answering; null when dealing")
    phase_words: str
    dealer: str | None = Field(description="who opened the newest round")
    rated: list[RatedSeatPublic] = Field(description="the rated players holding a seat, by seat")
    today: TodayPublic
    live_url: str | None


class PitMapPublic(BaseModel):
    """A pit's tables laid out as they stand (the floor's ``layout`` setting), row by row; a
    null place is empty (an aisle, or a table not on this floor or not the person's to see).
    The pit's tables the layout leaves out follow in a last row."""

    pit: str | None = Field(description="null: the tables in no pit")
    laid_out: bool = Field(description="the floor's layout places this pit's tables")
    rows: list[list[PitPlacePublic | None]]


class FloorAlertPublic(AlertPublic):
    """An alert of one of the floor's tables; its id is (table_id, seq)."""

    table_id: str
    severity: Severity


class FloorEventPublic(ChainEventPublic):
    """One event of a table's audit chain, as the floor's stream sends it."""

    table_id: str


__all__ = [
    "DevicesPublic",
    "FloorAlertPublic",
    "FloorEventPublic",
    "FloorTablePublic",
    "PitMapPublic",
    "PitPlacePublic",
    "PlaceState",
    "RatedSeatPublic",
    "TodayPublic",
]
