"""The floor's answers built from storage/floor.py's queries: the tables at a glance and the
alerts of every table (docs/floor.md, "The API").

Every function takes the tables the person may see (``scope.Scope``) and reads them all in a
few SELECTs of one read snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from ..api.models.table import FaultPublic
from ..api.views import alert_view, hold_view
from ..record.recorder import TABLE_STATE
from ..round.phase_words import phase_words
from ..storage.alerts import Alert
from ..storage.floor import (
    FloorTableRow,
    LatestRound,
    floor_alerts,
    floor_tables,
    last_payloads,
    latest_rounds,
    newest_first,
    today_sums,
)
from ..storage.floor_tables import FloorTable, find_floor_table
from ..storage.open_alerts import OpenAlerts
from ..storage.ratings import seated_players
from ..storage.reports import today_bounds
from ..table.state import TableHold
from .models import (
    DevicesPublic,
    FloorAlertPublic,
    FloorTablePublic,
    PitMapPublic,
    PitPlacePublic,
    PlaceState,
    RatedSeatPublic,
    TodayPublic,
)
from .scope import Scope
from .severity import Severity, severity_of

LIVE_PAGE = "/ui/table.html"
NO_ROUND_WORDS = "no round yet"


def visible_tables(session: Session, scope: Scope, pit: str | None = None) -> list[FloorTableRow]:
    """The floor's tables within ``scope`` (and of ``pit`` when given)."""
    return [row for row in floor_tables(session, pit=pit) if scope.sees(row.table_id, row.pit)]


def visible_table(session: Session, scope: Scope, table_id: str) -> FloorTable | None:
    """The table if it is on the floor and within ``scope``; None either way it is not (the
    caller answers both with the same 404, so scope does not tell which tables exist)."""
    row = find_floor_table(session, table_id=table_id)
    return row if row is not None and scope.sees(row.table_id, row.pit) else None


def hold_bp(house_result_cents: int, wagered_cents: int) -> int | None:
    """The hold: actual win over wagered, in basis points, rounded half-even (Decimal, no float)."""
    if wagered_cents <= 0:
        return None
    ratio = Decimal(house_result_cents) * 10_000 / Decimal(wagered_cents)
    return int(ratio.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def devices_view(state: dict[str, Any] | None) -> DevicesPublic:
    """The health the table last chained (``recorder.TABLE_STATE``: faults, hold, open)."""
    if state is None:
        return DevicesPublic(status="unknown", table_open=None, faults=[], hold=None)
    faults = [
        FaultPublic(kind=f"{f['device']} {f['kind']}", detail=str(f.get("detail", "")))
        for f in state.get("faults", [])
    ]
    hold = None if state.get("hold") is None else TableHold.from_payload(state["hold"])
    status = "fault" if faults else "held" if hold is not None else "ok"
    return DevicesPublic(status=status, table_open=state.get("open"), faults=faults, hold=hold_view(hold))


def _round_fields(row: LatestRound | None) -> dict[str, Any]:
    if row is None:
        return {"phase": None, "round_id": None, "round_number": None, "dealer": None, "banker": None}
    return {
        "phase": row.phase,
        "round_id": row.round_id,
        "round_number": row.number,
        "dealer": row.dealer,
        "banker": "house" if row.banker_seat is None else f"seat {row.banker_seat}",
    }


def tables_overview(
    session: Session,
    scope: Scope,
    *,
    pit: str | None,
    now: datetime,
    stale_after: float,
    time_zone: str,
    open_alerts: OpenAlerts,
) -> list[FloorTablePublic]:
    """Each visible table: its newest round, open alerts by severity, device health, whether it
    answers, and today's money (five SELECTs for all tables)."""
    tables = visible_tables(session, scope, pit)
    ids = [row.table_id for row in tables]
    rounds = latest_rounds(session, table_ids=ids)
    states = last_payloads(session, table_ids=ids, kind=TABLE_STATE)
    alerts = open_alerts.read(session, ids)
    start, end = today_bounds(ZoneInfo(time_zone), now)
    sums = today_sums(session, table_ids=ids, start=start, end=end)
    stale_before = now - timedelta(seconds=stale_after)
    answer = []
    for row in tables:
        counts = dict.fromkeys(Severity, 0)
        for alert in alerts[row.table_id].values():
            counts[severity_of(alert.kind)] += 1
        today = sums.get(row.table_id) or {
            "rounds": 0,
            "settled": 0,
            "wagered_cents": 0,
            "house_result_cents": 0,
            "theoretical_win_cents": None,
        }
        fields = _round_fields(rounds.get(row.table_id))
        answer.append(
            FloorTablePublic(
                table_id=row.table_id,
                pit=row.pit,
                game=row.game,
                house_way=row.house_way,
                api_url=row.api_url,
                live_url=None if not row.api_url else row.api_url.rstrip("/") + LIVE_PAGE,
                alive=row.seen_at >= stale_before,
                seen_at=row.seen_at,
                started_at=row.started_at,
                phase_words=NO_ROUND_WORDS if fields["phase"] is None else phase_words(fields["phase"]),
                open_alerts=counts,
                devices=devices_view(states.get(row.table_id)),
                today=TodayPublic(
                    **today, hold_bp=hold_bp(today["house_result_cents"], today["wagered_cents"])
                ),
                **fields,
            )
        )
    return answer


def table_state(table: FloorTablePublic) -> tuple[PlaceState, str | None]:
    """Whether the table deals, and why not: not answering, a device fault, a hold, closed."""
    if not table.alive:
        return "not-answering", f"not heard from since {table.seen_at.isoformat(timespec='seconds')}"
    devices = table.devices
    why = [f"{fault.kind}" + (f": {fault.detail}" if fault.detail else "") for fault in devices.faults]
    if devices.hold is not None:
        why.append(f"held: {devices.hold.reason}")
    if devices.table_open is False:
        why.append("table closed")
    return ("stopped", "; ".join(why)) if why else ("dealing", None)


def pit_maps(
    session: Session,
    scope: Scope,
    *,
    pit: str | None,
    layout: Mapping[str, list[list[str]]],
    now: datetime,
    stale_after: float,
    time_zone: str,
    open_alerts: OpenAlerts,
) -> list[PitMapPublic]:
    """Each pit the person sees, its tables placed as ``layout`` (the floor's setting) lays them
    out: the overview's state and today's money of each (``tables_overview``) and its rated seats
    (one more SELECT). A table is drawn in the pit it registered in; a place of the layout whose
    table is not in that pit, not on the floor or not the person's to see is empty."""
    tables = tables_overview(
        session,
        scope,
        pit=pit,
        now=now,
        stale_after=stale_after,
        time_zone=time_zone,
        open_alerts=open_alerts,
    )
    rated = seated_players(session, table_ids=[t.table_id for t in tables])
    places: dict[str | None, dict[str, PitPlacePublic]] = {}
    for table in tables:
        state, why = table_state(table)
        places.setdefault(table.pit, {})[table.table_id] = PitPlacePublic(
            table_id=table.table_id,
            state=state,
            why=why,
            phase_words=table.phase_words,
            dealer=table.dealer,
            rated=[RatedSeatPublic(seat=seat, player=player) for seat, player in rated[table.table_id]],
            today=table.today,
            live_url=table.live_url,
        )
    maps = []
    for name in sorted(places, key=lambda p: (p is None, p or "")):
        members = places[name]
        drawn = [] if name is None else layout.get(name, [])
        rows: list[list[PitPlacePublic | None]] = [[members.get(place) for place in row] for row in drawn]
        placed = {place for row in drawn for place in row}
        rest = [members[table_id] for table_id in sorted(members) if table_id not in placed]
        if rest:
            rows.append(list(rest))
        maps.append(PitMapPublic(pit=name, laid_out=bool(drawn), rows=rows))
    return maps


def floor_alert_view(alert: Alert) -> FloorAlertPublic:
    """An alert of one of the floor's tables, with its table and severity."""
    return FloorAlertPublic(
        **alert_view(alert).model_dump(),
        table_id=alert.event.table_id,
        severity=severity_of(alert.kind),
    )


def alerts_of(
    session: Session, scope: Scope, *, pit: str | None, open_only: bool, limit: int, open_alerts: OpenAlerts
) -> list[FloorAlertPublic]:
    """The alerts of every visible table in one list, newest first (only those not yet
    acknowledged, as ``open_alerts`` keeps them, with ``open_only``)."""
    ids = [row.table_id for row in visible_tables(session, scope, pit)]
    if open_only:
        found = newest_first(
            [alert for table in open_alerts.read(session, ids).values() for alert in table.values()]
        )[:limit]
    else:
        found = floor_alerts(session, table_ids=ids, limit=limit)
    return [floor_alert_view(alert) for alert in found]


__all__ = [
    "alerts_of",
    "devices_view",
    "floor_alert_view",
    "hold_bp",
    "pit_maps",
    "table_state",
    "tables_overview",
    "visible_table",
    "visible_tables",
]
