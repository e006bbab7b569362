"""The table's rating desk: seating rated players, their buy-ins and the pit's adjustments, on top
of the record (docs/accounting.md, "Ratings").

Each command is one transaction (``unit_of_work``) through storage/ratings.py, which folds the
seats up to now first (idle ends, the table's closing) under the table's lock; a refusal leaves
nothing written and is logged (``rating.refused``). ``sweep`` is that fold alone, run by the
table's background worker (table/rating_push.py) so an idle rating ends without anyone asking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..accounting.gaming_day import GamingDayCalendar
from ..accounting.ratings import AdjustableField, BuyInKind, Rating
from ..settings import TableSettings
from ..storage import ratings as store
from ..storage.audit import lock_table
from ..storage.session import unit_of_work
from .accounting import calendar_of, desk_command

log = structlog.get_logger()
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RatingDesk:
    """What the rating commands need of the table's settings, built once."""

    table_id: str
    calendar: GamingDayCalendar
    folding: store.Folding

    @classmethod
    def of(cls, settings: TableSettings) -> RatingDesk:
        calendar = calendar_of(settings)
        return cls(
            table_id=settings.table_id,
            calendar=calendar,
            folding=store.Folding(
                idle_after=timedelta(minutes=settings.ratings.idle_minutes),
                idle_rounds=settings.ratings.idle_rounds,
                day_of=calendar.gaming_day_of,
            ),
        )

    def today(self, now: datetime) -> date:
        return self.calendar.gaming_day_of(now)


def _command(
    engine: Engine, desk: RatingDesk, what: str, actor: str, work: Callable[[Session], T], **data: Any
) -> T:
    """``work`` in one transaction; a refusal is logged and raised, nothing written."""
    return desk_command(engine, desk.table_id, "rating", what, actor, work, **data)


def seat_player(engine: Engine, desk: RatingDesk, *, seat: int, player: str, by: str) -> store.RatingRecord:
    """A rated player sits at ``seat``: their card number typed by the dealer or given by a reader."""
    return _command(
        engine,
        desk,
        "seated",
        by,
        lambda session: store.seat_player(
            session, table_id=desk.table_id, seat=seat, player=player, by=by, folding=desk.folding
        ),
        seat=seat,
    )


def move_player(
    engine: Engine, desk: RatingDesk, *, rating_id: str, seat: int, by: str
) -> tuple[store.RatingRecord, store.RatingRecord]:
    return _command(
        engine,
        desk,
        "moved",
        by,
        lambda session: store.move_player(
            session, table_id=desk.table_id, rating_id=rating_id, seat=seat, by=by, folding=desk.folding
        ),
        rating_id=rating_id,
        seat=seat,
    )


def end_rating(engine: Engine, desk: RatingDesk, *, rating_id: str, by: str) -> store.RatingRecord:
    return _command(
        engine,
        desk,
        "ended",
        by,
        lambda session: store.end_rating(
            session, table_id=desk.table_id, rating_id=rating_id, by=by, folding=desk.folding
        ),
        rating_id=rating_id,
    )


def leave_seat(engine: Engine, desk: RatingDesk, *, seat: int, by: str) -> store.RatingRecord:
    return _command(
        engine,
        desk,
        "left",
        by,
        lambda session: store.leave_seat(
            session, table_id=desk.table_id, seat=seat, by=by, folding=desk.folding
        ),
        seat=seat,
    )


def add_buy_in(
    engine: Engine, desk: RatingDesk, *, seat: int, kind: BuyInKind, amount: int, by: str
) -> tuple[store.BuyInRecord, store.RatingRecord]:
    return _command(
        engine,
        desk,
        "buy_in",
        by,
        lambda session: store.add_buy_in(
            session,
            table_id=desk.table_id,
            seat=seat,
            kind=kind,
            amount=amount,
            by=by,
            folding=desk.folding,
        ),
        seat=seat,
        kind=kind.value,
        amount_cents=amount,
    )


def adjust_rating(
    engine: Engine,
    desk: RatingDesk,
    *,
    rating_id: str,
    field: AdjustableField,
    new_value: int,
    reason: str,
    actor: str,
    expected_old: int | None = None,
) -> store.RatingRecord:
    return _command(
        engine,
        desk,
        "adjusted",
        actor,
        lambda session: store.adjust_rating(
            session,
            table_id=desk.table_id,
            rating_id=rating_id,
            field=field,
            new_value=new_value,
            reason=reason,
            actor=actor,
            expected_old=expected_old,
            folding=desk.folding,
        ),
        rating_id=rating_id,
        field=field.value,
    )


def sweep(engine: Engine, desk: RatingDesk, *, now: datetime | None = None) -> list[Rating]:
    """Fold the table's rated seats up to ``now``: idle ends and the table's closing written,
    running figures brought up to date. Returns the ratings that ended."""
    moment = now or datetime.now(UTC)
    with unit_of_work(engine) as session:
        if not store.seated(session, table_id=desk.table_id):
            return []  # nothing to fold: no lock taken, nothing written
        lock_table(session, table_id=desk.table_id)
        ended = store.bring_up_to_date(session, table_id=desk.table_id, now=moment, folding=desk.folding)
    for rating in ended:
        log.info(
            "rating.ended",
            table_id=desk.table_id,
            rating_id=rating.rating_id,
            end_reason=None if rating.end_reason is None else rating.end_reason.value,
        )
    return ended


__all__ = [
    "RatingDesk",
    "add_buy_in",
    "adjust_rating",
    "end_rating",
    "leave_seat",
    "move_player",
    "seat_player",
    "sweep",
]
