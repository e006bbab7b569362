"""Rated players: seating a card number, moving, ending, buy-ins, the pit's adjustments, the
ratings of a gaming day as JSON or CSV, one player's history and the push's outbox (docs/api.md,
"Ratings").

The dealer or the pit seats, moves and ends (``rate``); buy-ins and adjustments are the pit's
(``account``); the ratings are read by the pit and surveillance (``audit``), and who is rated at
each seat by every terminal of the table (``read-table``). Every command is one transaction
through table/ratings.py: refused whole (4xx), never half-written. A rating id holds slashes
(``table/seat-N/start``), so commands take it in the body and reads as a query parameter.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from sqlmodel import Session

from ...accounting.ratings import BuyInKind
from ...storage import ratings as store
from ...storage.ratings import RatingConflictError, RatingNotFoundError
from ...table import ratings as desk_ops
from ..deps import AuditDep, Authorizer, ReadTableDep, SettingsDep, StoreDep
from ..errors import responses
from ..models.errors import ErrorBody, RefusalBody
from ..models.ratings import (
    AdjustCreate,
    AdjustmentPublic,
    BuyInCreate,
    BuyInDone,
    BuyInPublic,
    MoveCreate,
    MovedPublic,
    OutboxPublic,
    RatingPublic,
    RatingRef,
    RatingsDayPublic,
    SeatCreate,
)
from ..roles import Permission
from ..tokens import Principal

router = APIRouter(prefix="/api/ratings", tags=["ratings"])
RateDep = Annotated[Principal, Depends(Authorizer(Permission.RATE))]
AccountDep = Annotated[Principal, Depends(Authorizer(Permission.ACCOUNT))]
SeatPath = Annotated[int, Path(ge=2, le=7, description="a player's seat, 2..7")]
DayQuery = Annotated[date | None, Query(description="the gaming day, YYYY-MM-DD; default: the one now")]
RatingQuery = Annotated[str, Query(min_length=1, max_length=128, description="the rating's id")]
PlayerPath = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,39}$")]
CSV_COLUMNS = (
    "rating_id",
    "table_id",
    "gaming_day",
    "player",
    "seat",
    "start",
    "end",
    "end_reason",
    "seconds_played",
    "rounds",
    "main_wagered_cents",
    "bonus_wagered_cents",
    "total_wagered_cents",
    "average_wager_cents",
    "actual_win_cents",
    "theoretical_win_cents",
    "theoretical_rounds",
    "buy_in_cash_cents",
    "buy_in_chips_cents",
    "buy_in_markers_cents",
    "banks",
    "bank_actual_win_cents",
    "adjustments",
)
"""The CSV's columns: the figures as shown (an adjusted figure's new value), one rating a line."""
_CSV: dict[int | str, dict[str, Any]] = {
    200: {"description": "the ratings as CSV", "content": {"text/csv": {"schema": {"type": "string"}}}}
}


def _desk(settings: Any) -> desk_ops.RatingDesk:
    return desk_ops.RatingDesk.of(settings)


def rating_view(record: store.RatingRecord) -> RatingPublic:
    rating = record.rating
    shown = store.figures(rating)["shown"]
    return RatingPublic(
        rating_id=rating.rating_id,
        table_id=rating.table_id,
        player=rating.player,
        seat=rating.seat,
        gaming_day=record.gaming_day,
        start=rating.start,
        end=rating.end,
        end_reason=None if rating.end_reason is None else rating.end_reason.value,
        seated=record.seated,
        last_activity=record.last_at,
        started_by=record.started_by,
        ended_by=record.ended_by,
        seconds_played=rating.seconds_played,
        rounds=rating.rounds,
        main_wagered_cents=rating.main_wagered,
        bonus_wagered_cents=rating.bonus_wagered,
        total_wagered_cents=rating.total_wagered,
        average_wager_cents=rating.average_wager,
        actual_win_cents=rating.actual_win,
        theoretical_win_cents=rating.theoretical_win,
        theoretical_rounds=rating.theoretical_rounds,
        buy_in_cash_cents=rating.buy_in_cash,
        buy_in_chips_cents=rating.buy_in_chips,
        buy_in_markers_cents=rating.buy_in_markers,
        banks=rating.banks,
        bank_actual_win_cents=rating.bank_actual_win,
        round_ids=list(rating.round_ids),
        shown=shown,
        adjustments=[
            AdjustmentPublic(
                field=a.field.value,
                old_value=a.old_value,
                new_value=a.new_value,
                reason=a.reason,
                actor=a.actor,
                at=a.at,
            )
            for a in rating.adjustments
        ],
    )


def buy_in_view(record: store.BuyInRecord) -> BuyInPublic:
    return BuyInPublic(
        id=record.id,
        seat=record.seat,
        rating_id=record.rating_id,
        kind=record.kind.value,
        amount_cents=record.amount,
        entered_by=record.entered_by,
        entered_at=record.entered_at,
    )


def ratings_csv(ratings: list[RatingPublic]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for rating in ratings:
        values = {**rating.model_dump(mode="json"), **{f"{k}": v for k, v in rating.shown.items()}}
        values["adjustments"] = len(rating.adjustments)
        for name in ("buy_in_cash", "buy_in_chips", "buy_in_markers", "actual_win", "theoretical_win"):
            values[f"{name}_cents"] = rating.shown[name]
        values["average_wager_cents"] = rating.shown["average_wager"]
        values["seconds_played"] = rating.shown["seconds_played"]
        writer.writerow(["" if values[c] is None else values[c] for c in CSV_COLUMNS])
    return out.getvalue()


# --------------------------------------------------------------------------- commands


@router.post("/seats/{seat}", status_code=201, response_model=RatingPublic, responses=responses(409, 503))
async def seat_player(
    seat: SeatPath, body: SeatCreate, who: RateDep, settings: SettingsDep, store_: StoreDep
) -> RatingPublic:
    """A rated player sits at ``seat`` (the card number typed, or given by a card reader): a
    rating starts (``rating.started``). 409: the seat held by a rated player, the card seated at
    a seat already (a seat change is ``POST /api/ratings/move``)."""
    return rating_view(
        await store_.run(
            desk_ops.seat_player, store_.engine, _desk(settings), seat=seat, player=body.player, by=who.name
        )
    )


@router.post("/seats/{seat}/leave", response_model=RatingPublic, responses=responses(404, 503))
async def leave_seat(seat: SeatPath, who: RateDep, settings: SettingsDep, store_: StoreDep) -> RatingPublic:
    """The rated player at ``seat`` leaves: their rating ends (``left``), or, after it ended
    idle, the seat is freed (``seat.left``). 404: no rated player there."""
    return rating_view(
        await store_.run(desk_ops.leave_seat, store_.engine, _desk(settings), seat=seat, by=who.name)
    )


@router.post("/end", response_model=RatingPublic, responses=responses(404, 409, 503))
async def end_rating(body: RatingRef, who: RateDep, settings: SettingsDep, store_: StoreDep) -> RatingPublic:
    """End a rating: the player left (``rating.ended``, every figure chained). 409: ended already."""
    return rating_view(
        await store_.run(
            desk_ops.end_rating, store_.engine, _desk(settings), rating_id=body.rating_id, by=who.name
        )
    )


@router.post("/move", response_model=MovedPublic, responses=responses(404, 409, 503))
async def move_player(body: MoveCreate, who: RateDep, settings: SettingsDep, store_: StoreDep) -> MovedPublic:
    """The player changes seat: the rating ends (``seat-change``) and another starts at ``seat``."""
    ended, started = await store_.run(
        desk_ops.move_player,
        store_.engine,
        _desk(settings),
        rating_id=body.rating_id,
        seat=body.seat,
        by=who.name,
    )
    return MovedPublic(ended=rating_view(ended), started=rating_view(started))


@router.post("/buy-ins", status_code=201, response_model=BuyInDone, responses=responses(404, 503))
async def add_buy_in(
    body: BuyInCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> BuyInDone:
    """A buy-in (cash, chips, a marker) of the rated player at ``seat``, entered by the pit
    (``rating.buy-in``). 404: no rated player at the seat."""
    done, rating = await store_.run(
        desk_ops.add_buy_in,
        store_.engine,
        _desk(settings),
        seat=body.seat,
        kind=BuyInKind(body.kind),
        amount=body.amount_cents,
        by=who.name,
    )
    return BuyInDone(buy_in=buy_in_view(done), rating=rating_view(rating))


@router.post("/adjust", response_model=RatingPublic, responses=responses(404, 503))
async def adjust_rating(
    body: AdjustCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> RatingPublic:
    """A pit user changes one figure of a closed rating, with a reason: ``rating.adjusted``
    chains the old and the new value; the adjusted rating is pushed again under a new key.
    422: an open rating, no reason, a negative amount, ``expected_old`` not the value shown."""
    return rating_view(
        await store_.run(
            desk_ops.adjust_rating,
            store_.engine,
            _desk(settings),
            rating_id=body.rating_id,
            field=body.field,
            new_value=body.new_value,
            reason=body.reason,
            actor=who.name,
            expected_old=body.expected_old,
        )
    )


# --------------------------------------------------------------------------- reads


async def _day(store_: StoreDep, settings: Any, gaming_day: date | None) -> RatingsDayPublic:
    desk = _desk(settings)
    day = gaming_day if gaming_day is not None else desk.today(datetime.now(UTC))

    def read(session: Session) -> RatingsDayPublic:
        live = {
            r.rating.rating_id: r
            for r in store.seated(
                session, table_id=desk.table_id, now=datetime.now(UTC), folding=desk.folding
            )
        }
        found = [
            live.get(r.rating.rating_id, r)
            for r in store.ratings_of_day(session, table_id=desk.table_id, day=day)
        ]
        return RatingsDayPublic(
            table_id=desk.table_id,
            gaming_day=day,
            time_zone=desk.calendar.zone,
            ratings=[rating_view(r) for r in found],
        )

    return await store_.read_current(read)


@router.get("", response_model=RatingsDayPublic, responses=responses())
async def ratings_of_day(
    _: AuditDep, settings: SettingsDep, store_: StoreDep, gaming_day: DayQuery = None
) -> RatingsDayPublic:
    """The table's ratings that started in the gaming day, open and closed, by start (an open
    one's figures folded up to now)."""
    return await _day(store_, settings, gaming_day)


@router.get("/day.csv", response_class=Response, responses={**responses(), **_CSV})
async def ratings_csv_export(
    _: AuditDep, settings: SettingsDep, store_: StoreDep, gaming_day: DayQuery = None
) -> Response:
    """The gaming day's ratings as CSV: one rating a line, the figures as shown."""
    found = await _day(store_, settings, gaming_day)
    name = f"{found.table_id}-ratings-{found.gaming_day.isoformat()}"
    return Response(
        ratings_csv(found.ratings),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


@router.get("/seated", response_model=list[RatingPublic], responses=responses())
async def seated(_: ReadTableDep, settings: SettingsDep, store_: StoreDep) -> list[RatingPublic]:
    """Who is rated at each seat now (the live table page), by seat; an open rating's figures
    folded from the rounds settled up to now."""
    desk = _desk(settings)
    found = await store_.read_current(
        lambda s: store.seated(s, table_id=desk.table_id, now=datetime.now(UTC), folding=desk.folding)
    )
    return [rating_view(r) for r in found]


@router.get("/rating", response_model=RatingPublic, responses=responses(404))
async def get_rating(
    _: AuditDep, settings: SettingsDep, store_: StoreDep, rating_id: RatingQuery
) -> RatingPublic:
    """One rating, its adjustments in."""
    table_id = settings.table_id
    return rating_view(
        await store_.read_current(lambda s: store.get_rating(s, table_id=table_id, rating_id=rating_id))
    )


@router.get("/players/{player}", response_model=list[RatingPublic], responses=responses())
async def player_history(player: PlayerPath, _: AuditDep, store_: StoreDep) -> list[RatingPublic]:
    """One player's ratings at every table of this store, newest first (500 at most)."""
    return [rating_view(r) for r in await store_.read(lambda s: store.player_history(s, player=player))]


@router.get("/outbox", response_model=list[OutboxPublic], responses=responses())
async def outbox(_: AuditDep, settings: SettingsDep, store_: StoreDep) -> list[OutboxPublic]:
    """The closed ratings for the player-tracking system: delivered or waiting, with the errors."""
    table_id = settings.table_id
    rows = await store_.read_current(lambda s: store.outbox(s, table_id=table_id))
    return [
        OutboxPublic(
            rating_id=r.rating_id,
            idempotency_key=r.idempotency_key,
            attempts=r.attempts,
            delivered_at=r.delivered_at,
            next_attempt_at=r.next_attempt_at,
            last_error=r.last_error,
        )
        for r in rows
    ]


# --------------------------------------------------------------------------- errors


def install_rating_errors(app: FastAPI) -> None:
    """No such rating or no rated player at the seat 404; the seats refusing now 409 (a card
    seated already, a seat held, a rating ended twice). A bad seat, card number, amount or
    adjustment is an AccountingError: 422 (install_accounting_errors)."""

    def _json(status: int, body: Any) -> JSONResponse:
        return JSONResponse(status_code=status, content=body.model_dump(mode="json", exclude_none=True))

    @app.exception_handler(RatingConflictError)
    async def _conflict(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="rating-refused", detail=str(error)))

    @app.exception_handler(RatingNotFoundError)
    async def _missing(_: Request, error: Exception) -> JSONResponse:
        return _json(404, ErrorBody(error="not-found", detail=str(error)))


__all__ = ["install_rating_errors", "router"]
