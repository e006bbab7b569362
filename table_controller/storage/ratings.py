"""Rated players as the store keeps them: ratings, buy-ins, adjustments and the outbox of closed
ratings for the player-tracking system (migration 0010; docs/accounting.md, "Ratings").

A rating's figures are never entered: they are folded by the accounting core's
``RatingBuilder`` (accounting/ratings.py) from the seat's own record (the sitting, the pit's
buy-ins, the table's closing) and the table's settled rounds as stored (``settled_rounds``,
storage/accounting.py). ``bring_up_to_date`` runs that fold for every seat a rated player holds,
up to a moment, and writes what it found: the running figures of an open rating, a rating that
ended (idle by time or by rounds, the table closed) with ``rating.ended`` chained, a new rating
when a player still seated after an idle end plays again (``rating.started``). Every command
calls it first, under the table's chain lock, so a check sees the seats as they are now.

Each change is an event of the table's chain and a row of a projection table in one
transaction: ``rating.started``, ``rating.ended`` (every figure and the rounds), ``rating.buy-in``,
``rating.adjusted`` (the field, both values, the reason), ``seat.left`` (a player leaving a seat
whose rating had ended idle). A closed rating, and each adjustment of one, also puts a row in
``rating_outbox`` in that transaction, so the push to the player-tracking system can be late or
retried but never lost; its idempotency key is the rating id and the number of adjustments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from sqlalchemy import BigInteger, Date, Index, Integer, Text, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from ..accounting.errors import RatingError
from ..accounting.facts import SettledRound
from ..accounting.ratings import (
    AdjustableField,
    Adjustment,
    BuyIn,
    BuyInKind,
    EndReason,
    Rating,
    RatingBuilder,
    SeatPhase,
    SeatTaken,
    TableClosed,
    adjust,
    event_time,
)
from .accounting import NAME_MAX, settled_rounds
from .audit import append_event, lock_table
from .chain import check_table_id, utc_timestamp
from .errors import StorageError
from .models import REASON_MAX, Event, UTCDateTime

RATING_STARTED: Final = "rating.started"
RATING_ENDED: Final = "rating.ended"
RATING_BUY_IN: Final = "rating.buy-in"
RATING_ADJUSTED: Final = "rating.adjusted"
SEAT_LEFT: Final = "seat.left"
TABLE_CLOSED_EVENT: Final = "table.closed"  # the service's event (table/service.py): it ends the ratings
RATING_ID_MAX: Final = 128
PLAYER_MAX: Final = 40
SYSTEM: Final = "system:ratings"  # the actor of what the fold decides (an idle end, a rating resumed)


class RatingNotFoundError(StorageError, LookupError):
    """No rating with that id, or no rated player at that seat."""


class RatingConflictError(StorageError):
    """The seats refuse this now: a card already seated, a seat taken, a rating ended twice."""


# --------------------------------------------------------------------------- the tables


class RatingRow(SQLModel, table=True):
    """``ratings``: one player's stay at one seat; ``seated`` while the player holds the seat (an
    open rating, or one ended idle while the player stays)."""

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("rating_id", name="uq_ratings_rating_id"),
        Index("ix_ratings_table_day", "table_id", "gaming_day"),
        Index("ix_ratings_player", "player"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    rating_id: str = Field(max_length=RATING_ID_MAX)
    table_id: str = Field(max_length=64)
    player: str = Field(max_length=PLAYER_MAX)
    seat: int = Field(sa_type=Integer)
    gaming_day: date = Field(sa_type=Date)
    started_at: datetime = Field(sa_type=UTCDateTime)
    started_by: str = Field(max_length=NAME_MAX)
    last_at: datetime = Field(sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    end_reason: str | None = Field(default=None, max_length=16)
    ended_by: str | None = Field(default=None, max_length=NAME_MAX)
    seated: bool = True
    rounds: int = Field(default=0, sa_type=Integer)
    main_wagered_cents: int = Field(default=0, sa_type=BigInteger)
    bonus_wagered_cents: int = Field(default=0, sa_type=BigInteger)
    actual_win_cents: int = Field(default=0, sa_type=BigInteger)
    theoretical_win_cents: int = Field(default=0, sa_type=BigInteger)
    theoretical_rounds: int = Field(default=0, sa_type=Integer)
    buy_in_cash_cents: int = Field(default=0, sa_type=BigInteger)
    buy_in_chips_cents: int = Field(default=0, sa_type=BigInteger)
    buy_in_markers_cents: int = Field(default=0, sa_type=BigInteger)
    banks: int = Field(default=0, sa_type=Integer)
    bank_actual_win_cents: int = Field(default=0, sa_type=BigInteger)
    round_ids: str = Field(default="[]", sa_type=Text)


class RatingBuyInRow(SQLModel, table=True):
    """``rating_buy_ins``: a buy-in the pit entered at a seat, and the rating it counts in."""

    __tablename__ = "rating_buy_ins"
    __table_args__ = (
        Index("ix_rating_buy_ins_table_seat", "table_id", "seat"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    seat: int = Field(sa_type=Integer)
    rating_id: str | None = Field(default=None, max_length=RATING_ID_MAX)
    kind: str = Field(max_length=8)
    amount_cents: int = Field(sa_type=BigInteger)
    entered_by: str = Field(max_length=NAME_MAX)
    entered_at: datetime = Field(sa_type=UTCDateTime)


class RatingAdjustmentRow(SQLModel, table=True):
    """``rating_adjustments``: a pit user's change of one figure, both values and the reason."""

    __tablename__ = "rating_adjustments"
    __table_args__ = (Index("ix_rating_adjustments_rating", "rating_id"), {"sqlite_autoincrement": True})

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    rating_id: str = Field(max_length=RATING_ID_MAX)
    table_id: str = Field(max_length=64)
    field: str = Field(max_length=32)
    old_value: int | None = Field(default=None, sa_type=BigInteger)
    new_value: int = Field(sa_type=BigInteger)
    reason: str = Field(max_length=REASON_MAX)
    actor: str = Field(max_length=NAME_MAX)
    adjusted_at: datetime = Field(sa_type=UTCDateTime)
    seq: int = Field(sa_type=BigInteger)


class RatingOutboxRow(SQLModel, table=True):
    """``rating_outbox``: a closed rating (or its adjusted version) waiting to be pushed."""

    __tablename__ = "rating_outbox"
    __table_args__ = (
        UniqueConstraint("idempotency_key", name="uq_rating_outbox_key"),
        Index("ix_rating_outbox_due", "delivered_at", "next_attempt_at"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    rating_id: str = Field(max_length=RATING_ID_MAX)
    idempotency_key: str = Field(max_length=RATING_ID_MAX + 8)
    payload: str = Field(sa_type=Text)
    created_at: datetime = Field(sa_type=UTCDateTime)
    attempts: int = Field(default=0, sa_type=Integer)
    next_attempt_at: datetime = Field(sa_type=UTCDateTime)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_error: str | None = Field(default=None, max_length=REASON_MAX)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A rating as stored: the core's ``Rating`` (its adjustments in), who started and ended it,
    its gaming day and whether the player still holds the seat."""

    rating: Rating
    gaming_day: date
    started_by: str
    ended_by: str | None
    last_at: datetime
    seated: bool


@dataclass(frozen=True, slots=True)
class BuyInRecord:
    id: int
    seat: int
    rating_id: str | None
    kind: BuyInKind
    amount: int
    entered_by: str
    entered_at: datetime


@dataclass(frozen=True, slots=True)
class OutboxItem:
    id: int
    rating_id: str
    idempotency_key: str
    payload: dict[str, Any]
    attempts: int


@dataclass(frozen=True, slots=True)
class Folding:
    """How ratings are folded: the idle time, the idle rounds (None: by time only), and the
    gaming day a rating starting at an instant belongs to."""

    idle_after: timedelta
    idle_rounds: int | None
    day_of: Callable[[datetime], date]


def _adjustments(session: Session, rating_ids: Iterable[str]) -> dict[str, list[Adjustment]]:
    ids = list(rating_ids)
    found: dict[str, list[Adjustment]] = {rating_id: [] for rating_id in ids}
    if not ids:
        return found
    rows = session.exec(
        select(RatingAdjustmentRow)
        .where(col(RatingAdjustmentRow.rating_id).in_(ids))
        .order_by(col(RatingAdjustmentRow.id))
    )
    for row in rows:
        found[row.rating_id].append(
            Adjustment(
                AdjustableField(row.field),
                row.old_value,
                row.new_value,
                row.reason,
                row.actor,
                row.adjusted_at,
            )
        )
    return found


def _rating(row: RatingRow, adjustments: Iterable[Adjustment] = ()) -> Rating:
    return Rating(
        rating_id=row.rating_id,
        table_id=row.table_id,
        player=row.player,
        seat=row.seat,
        start=row.started_at,
        end=row.ended_at,
        end_reason=None if row.end_reason is None else EndReason(row.end_reason),
        rounds=row.rounds,
        main_wagered=row.main_wagered_cents,
        bonus_wagered=row.bonus_wagered_cents,
        actual_win=row.actual_win_cents,
        theoretical_win=row.theoretical_win_cents,
        theoretical_rounds=row.theoretical_rounds,
        buy_in_cash=row.buy_in_cash_cents,
        buy_in_chips=row.buy_in_chips_cents,
        buy_in_markers=row.buy_in_markers_cents,
        banks=row.banks,
        bank_actual_win=row.bank_actual_win_cents,
        round_ids=tuple(json.loads(row.round_ids)),
        adjustments=tuple(adjustments),
    )


def _records(session: Session, rows: list[RatingRow]) -> list[RatingRecord]:
    adjustments = _adjustments(session, [row.rating_id for row in rows])
    return [
        RatingRecord(
            rating=_rating(row, adjustments[row.rating_id]),
            gaming_day=row.gaming_day,
            started_by=row.started_by,
            ended_by=row.ended_by,
            last_at=row.last_at,
            seated=row.seated,
        )
        for row in rows
    ]


def figures(rating: Rating) -> dict[str, Any]:
    """A rating's figures as the chain, the export and the push carry them: the recorded ones
    and, after adjustments, the shown ones (``shown``); cents, from the house's side."""
    shown = {name.value: rating.value(name) for name in AdjustableField}
    return {
        "rating_id": rating.rating_id,
        "table_id": rating.table_id,
        "player": rating.player,
        "seat": rating.seat,
        "start": rating.start.isoformat(),
        "end": None if rating.end is None else rating.end.isoformat(),
        "end_reason": None if rating.end_reason is None else rating.end_reason.value,
        "seconds_played": rating.seconds_played,
        "rounds": rating.rounds,
        "main_wagered_cents": rating.main_wagered,
        "bonus_wagered_cents": rating.bonus_wagered,
        "total_wagered_cents": rating.total_wagered,
        "average_wager_cents": rating.average_wager,
        "actual_win_cents": rating.actual_win,
        "theoretical_win_cents": rating.theoretical_win,
        "theoretical_rounds": rating.theoretical_rounds,
        "buy_in_cash_cents": rating.buy_in_cash,
        "buy_in_chips_cents": rating.buy_in_chips,
        "buy_in_markers_cents": rating.buy_in_markers,
        "banks": rating.banks,
        "bank_actual_win_cents": rating.bank_actual_win,
        "round_ids": list(rating.round_ids),
        "adjustments": len(rating.adjustments),
        "shown": shown,
    }


def idempotency_key(rating: Rating) -> str:
    """The push's key: the rating id and how many adjustments it carries (its version)."""
    return f"{rating.rating_id}#{len(rating.adjustments)}"


# --------------------------------------------------------------------------- helpers


def _moment(now: datetime | None) -> datetime:
    return utc_timestamp(now or datetime.now(UTC))


def _chain(
    session: Session, table_id: str, kind: str, actor: str, payload: dict[str, Any], at: datetime
) -> int:
    return append_event(
        session, table_id=table_id, round_id=None, kind=kind, actor=actor, payload=payload, now=at
    ).seq


def _seated_rows(session: Session, table_id: str) -> list[RatingRow]:
    rows = session.exec(
        select(RatingRow)
        .where(RatingRow.table_id == table_id, col(RatingRow.seated).is_(True))
        .order_by(col(RatingRow.seat), col(RatingRow.id))
    )
    return list(rows)


def _enqueue(session: Session, rating: Rating, at: datetime) -> None:
    session.add(
        RatingOutboxRow(
            table_id=rating.table_id,
            rating_id=rating.rating_id,
            idempotency_key=idempotency_key(rating),
            payload=json.dumps(figures(rating), sort_keys=True, separators=(",", ":")),
            created_at=at,
            next_attempt_at=at,
        )
    )


def _write_figures(row: RatingRow, rating: Rating, last: datetime) -> None:
    row.rounds = rating.rounds
    row.main_wagered_cents = rating.main_wagered
    row.bonus_wagered_cents = rating.bonus_wagered
    row.actual_win_cents = rating.actual_win
    row.theoretical_win_cents = rating.theoretical_win
    row.theoretical_rounds = rating.theoretical_rounds
    row.buy_in_cash_cents = rating.buy_in_cash
    row.buy_in_chips_cents = rating.buy_in_chips
    row.buy_in_markers_cents = rating.buy_in_markers
    row.banks = rating.banks
    row.bank_actual_win_cents = rating.bank_actual_win
    row.round_ids = json.dumps(list(rating.round_ids))
    row.last_at = last


def _end(session: Session, row: RatingRow, rating: Rating, *, last: datetime, by: str, at: datetime) -> None:
    """Close ``row`` with the fold's ``rating`` (its end and reason), chained and put in the outbox."""
    assert rating.end is not None and rating.end_reason is not None
    _write_figures(row, rating, last)
    row.ended_at, row.end_reason, row.ended_by = rating.end, rating.end_reason.value, by
    session.add(row)
    session.flush()
    closed = _rating(row, _adjustments(session, [row.rating_id])[row.rating_id])
    _chain(session, row.table_id, RATING_ENDED, by, figures(closed), at)
    _enqueue(session, closed, at)


def _start(
    session: Session,
    *,
    table_id: str,
    player: str,
    seat: int,
    at: datetime,
    by: str,
    how: str,
    folding: Folding,
) -> RatingRow:
    builder = RatingBuilder(table_id)
    builder.feed(SeatTaken(at, seat, player))  # the core's checks of the seat and the card number
    (opened,) = builder.open_ratings()
    if session.exec(select(RatingRow.id).where(RatingRow.rating_id == opened.rating_id)).first():
        raise RatingConflictError(f"rating {opened.rating_id} exists already")
    row = RatingRow(
        rating_id=opened.rating_id,
        table_id=table_id,
        player=player,
        seat=seat,
        gaming_day=folding.day_of(at),
        started_at=at,
        started_by=by,
        last_at=at,
    )
    session.add(row)
    session.flush()
    _chain(
        session,
        table_id,
        RATING_STARTED,
        by,
        {
            "rating_id": row.rating_id,
            "player": player,
            "seat": seat,
            "gaming_day": row.gaming_day.isoformat(),
            "how": how,
        },
        at,
    )
    return row


# --------------------------------------------------------------------------- the fold


def _seat_events(
    session: Session, table_id: str, seat: int, since: datetime, until: datetime, rounds: list[SettledRound]
) -> list[Any]:
    buy_ins = session.exec(
        select(RatingBuyInRow)
        .where(
            RatingBuyInRow.table_id == table_id,
            RatingBuyInRow.seat == seat,
            col(RatingBuyInRow.entered_at) >= since,
            col(RatingBuyInRow.entered_at) <= until,
        )
        .order_by(col(RatingBuyInRow.id))
    ).all()
    closings = session.exec(
        select(Event.created_at).where(
            Event.table_id == table_id,
            Event.kind == TABLE_CLOSED_EVENT,
            col(Event.created_at) >= since,
            col(Event.created_at) <= until,
        )
    ).all()
    events: list[Any] = [BuyIn(b.entered_at, seat, BuyInKind(b.kind), b.amount_cents) for b in buy_ins]
    events += [TableClosed(at) for at in closings]
    events += [r for r in rounds if r.settled_at >= since]
    # in time order; at one instant the rounds first, then the buy-ins, the closing last
    order = {SettledRound: 0, BuyIn: 1, TableClosed: 2}
    return sorted(events, key=lambda e: (event_time(e), order[type(e)]))


def bring_up_to_date(session: Session, *, table_id: str, now: datetime, folding: Folding) -> list[Rating]:
    """Fold every seat a rated player holds up to ``now`` and write what changed (the module's
    docstring); the ratings that ended are returned. The caller holds the table's lock."""
    seated = _seated_rows(session, table_id)
    if not seated:
        return []
    since = min(row.started_at if row.ended_at is None else row.ended_at for row in seated)
    rounds = settled_rounds(
        session, table_id=table_id, start=since, end=now + timedelta(microseconds=1), by_settlement=True
    )
    ended: list[Rating] = []
    for row in seated:
        ended += _fold_seat(session, row, rounds, now, folding)
    return ended


@dataclass
class _Folded:
    closed: list[Rating]
    open: list[Rating]
    last_activity: dict[str, datetime]
    phase: SeatPhase


def _fold(
    session: Session, row: RatingRow, rounds: list[SettledRound], now: datetime, folding: Folding
) -> _Folded:
    """The seat of the seated ``row`` folded up to ``now`` (nothing written)."""
    builder = RatingBuilder(row.table_id, idle_after=folding.idle_after, idle_rounds=folding.idle_rounds)
    if row.ended_at is None:
        since = row.started_at
        builder.feed(SeatTaken(row.started_at, row.seat, row.player))
    else:  # ended idle, the player still seated: only what came after the end
        since = row.ended_at + timedelta(microseconds=1)
        builder.resume_idle(row.seat, row.player, row.ended_at)
    closed: list[Rating] = []
    last_activity: dict[str, datetime] = {row.rating_id: row.last_at}
    for event in _seat_events(session, row.table_id, row.seat, since, now, rounds):
        before = {r.rating_id for r in builder.open_ratings()}
        closed += builder.feed(event)
        for rating in builder.open_ratings():
            if rating.rating_id not in before or _touches(event, row.seat):
                last_activity[rating.rating_id] = event_time(event)
    closed += builder.idle_until(now)
    return _Folded(closed, list(builder.open_ratings()), last_activity, builder.phase(row.seat))


def _fold_seat(
    session: Session, row: RatingRow, rounds: list[SettledRound], now: datetime, folding: Folding
) -> list[Rating]:
    folded = _fold(session, row, rounds, now, folding)
    last_activity = folded.last_activity
    ended: list[Rating] = []
    current = row
    for rating in [*folded.closed, *folded.open]:
        if rating.rating_id == current.rating_id:
            target = current
            if current.ended_at is not None:
                continue  # the idle rating, kept as it ended
        else:  # the player, still seated after an idle end, played again
            target = _start(
                session,
                table_id=row.table_id,
                player=row.player,
                seat=row.seat,
                at=rating.start,
                by=SYSTEM,
                how="resumed",
                folding=folding,
            )
            current.seated = False
            session.add(current)
            current = target
        last = last_activity.get(rating.rating_id, rating.start)
        if rating.end is None:
            _write_figures(target, rating, last)
            session.add(target)
        else:
            _end(session, target, rating, last=last, by=SYSTEM, at=now)
            ended.append(rating)
    if folded.phase is SeatPhase.EMPTY:  # the table closed
        current.seated = False
        session.add(current)
    session.flush()
    return ended


def _touches(event: Any, seat: int) -> bool:
    if isinstance(event, SettledRound):
        return any(s.seat == seat for s in event.seats) or (
            event.bank is not None and event.bank.seat == seat
        )
    return isinstance(event, BuyIn) and event.seat == seat


# --------------------------------------------------------------------------- commands


def _seated_player(session: Session, player: str) -> RatingRow | None:
    return session.exec(
        select(RatingRow).where(RatingRow.player == player, col(RatingRow.seated).is_(True))
    ).first()


def _seat_row(session: Session, table_id: str, seat: int) -> RatingRow | None:
    return session.exec(
        select(RatingRow).where(
            RatingRow.table_id == table_id, RatingRow.seat == seat, col(RatingRow.seated).is_(True)
        )
    ).first()


def seat_player(
    session: Session,
    *,
    table_id: str,
    seat: int,
    player: str,
    by: str,
    folding: Folding,
    now: datetime | None = None,
) -> RatingRecord:
    """A rated player sits at ``seat`` (their card number typed or read): a rating starts,
    ``rating.started``. Refused: a seat outside 2..7 or a bad card number (RatingError), a seat a
    rated player holds, a card seated at a seat of any table of this store (RatingConflictError:
    a seat change is ``move_player``)."""
    check_table_id(table_id)
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    RatingBuilder(table_id).feed(SeatTaken(moment, seat, player))  # the core's checks first
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    there = _seated_player(session, player)
    if there is not None:
        raise RatingConflictError(
            f"card {player} is seated at table {there.table_id} seat {there.seat} (rating {there.rating_id}):"
            " end it, or move the player"
        )
    taken = _seat_row(session, table_id, seat)
    if taken is not None:
        raise RatingConflictError(f"seat {seat} is held by card {taken.player}: record the leaving first")
    row = _start(
        session, table_id=table_id, player=player, seat=seat, at=moment, by=by, how="sat", folding=folding
    )
    return _records(session, [row])[0]


def move_player(
    session: Session,
    *,
    table_id: str,
    rating_id: str,
    seat: int,
    by: str,
    folding: Folding,
    now: datetime | None = None,
) -> tuple[RatingRecord, RatingRecord]:
    """The player of ``rating_id`` changes to ``seat`` at the same table: the rating ends
    (``seat-change``) and another starts. Refused: the rating ended, the seat held."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    RatingBuilder(table_id).feed(SeatTaken(moment, seat, "x"))  # the seat checked by the core
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    row = _rating_row(session, table_id, rating_id)
    if not row.seated:
        raise RatingConflictError(f"rating {rating_id}'s player has left seat {row.seat}")
    if row.seat == seat:
        raise RatingConflictError(f"rating {rating_id} is at seat {seat} already")
    taken = _seat_row(session, table_id, seat)
    if taken is not None:
        raise RatingConflictError(f"seat {seat} is held by card {taken.player}: record the leaving first")
    ended = _leave(session, row, EndReason.SEAT_CHANGE, by=by, at=moment, folding=folding)
    started = _start(
        session,
        table_id=table_id,
        player=row.player,
        seat=seat,
        at=moment,
        by=by,
        how="moved",
        folding=folding,
    )
    return ended, _records(session, [started])[0]


def _leave(
    session: Session, row: RatingRow, reason: EndReason, *, by: str, at: datetime, folding: Folding
) -> RatingRecord:
    """The player of the up-to-date ``row`` leaves its seat: an open rating ends with ``reason``
    (its figures folded to ``at``); one ended idle frees the seat (``seat.left``)."""
    if row.ended_at is None:  # the row's figures are up to date at ``at`` (bring_up_to_date)
        ending = replace(_rating(row), end=at, end_reason=reason)
        _end(session, row, ending, last=row.last_at, by=by, at=at)
    else:
        _chain(
            session,
            row.table_id,
            SEAT_LEFT,
            by,
            {"rating_id": row.rating_id, "player": row.player, "seat": row.seat},
            at,
        )
    row.seated = False
    session.add(row)
    session.flush()
    return _records(session, [row])[0]


def end_rating(
    session: Session,
    *,
    table_id: str,
    rating_id: str,
    by: str,
    folding: Folding,
    now: datetime | None = None,
) -> RatingRecord:
    """The player leaves: the open rating ends (``left``), ``rating.ended``. Refused: an unknown
    rating (RatingNotFoundError), one ended already (RatingConflictError)."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    row = _rating_row(session, table_id, rating_id)
    if row.ended_at is not None:
        raise RatingConflictError(
            f"rating {rating_id} ended already at {row.ended_at.isoformat()} ({row.end_reason})"
        )
    return _leave(session, row, EndReason.LEFT, by=by, at=moment, folding=folding)


def leave_seat(
    session: Session, *, table_id: str, seat: int, by: str, folding: Folding, now: datetime | None = None
) -> RatingRecord:
    """The rated player at ``seat`` leaves: their open rating ends (``left``), or, after an idle
    end, the seat is freed (``seat.left``). Refused: no rated player there (RatingNotFoundError)."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    row = _seat_row(session, table_id, seat)
    if row is None:
        raise RatingNotFoundError(f"no rated player at seat {seat} of table {table_id}")
    return _leave(session, row, EndReason.LEFT, by=by, at=moment, folding=folding)


def add_buy_in(
    session: Session,
    *,
    table_id: str,
    seat: int,
    kind: BuyInKind,
    amount: int,
    by: str,
    folding: Folding,
    now: datetime | None = None,
) -> tuple[BuyInRecord, RatingRecord]:
    """A buy-in (cash, chips, a marker) the pit enters for the rated player at ``seat``,
    ``rating.buy-in``; on a seat whose rating ended idle it starts a new rating. Refused: an
    amount the core refuses (RatingError), no rated player at the seat (RatingNotFoundError)."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    BuyIn(moment, seat, kind, amount)  # the core's checks first
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    if _seat_row(session, table_id, seat) is None:
        raise RatingNotFoundError(f"no rated player at seat {seat} of table {table_id}: a buy-in needs one")
    row = RatingBuyInRow(
        table_id=table_id, seat=seat, kind=kind.value, amount_cents=amount, entered_by=by, entered_at=moment
    )
    session.add(row)
    session.flush()
    bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    rating = _seat_row(session, table_id, seat)
    assert rating is not None and rating.ended_at is None  # a buy-in is activity: the rating is open
    row.rating_id = rating.rating_id
    session.add(row)
    session.flush()
    _chain(
        session,
        table_id,
        RATING_BUY_IN,
        by,
        {
            "buy_in_id": row.id,
            "rating_id": rating.rating_id,
            "seat": seat,
            "kind": kind.value,
            "amount_cents": amount,
        },
        moment,
    )
    return _buy_in(row), _records(session, [rating])[0]


def _buy_in(row: RatingBuyInRow) -> BuyInRecord:
    assert row.id is not None
    return BuyInRecord(
        row.id, row.seat, row.rating_id, BuyInKind(row.kind), row.amount_cents, row.entered_by, row.entered_at
    )


def adjust_rating(
    session: Session,
    *,
    table_id: str,
    rating_id: str,
    field: AdjustableField,
    new_value: int,
    reason: str,
    actor: str,
    expected_old: int | None = None,
    now: datetime | None = None,
    folding: Folding | None = None,
) -> RatingRecord:
    """A pit user changes one figure of a closed rating (the core's ``adjust``: a reason, both
    values), ``rating.adjusted``; the adjusted rating goes to the outbox under a new key. With
    ``folding`` the seats are folded up to now first, as every other command does, so a rating
    the table's closing or an idle time ended is closed here even before the sweep wrote it."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    if folding is not None:
        bring_up_to_date(session, table_id=table_id, now=moment, folding=folding)
    row = _rating_row(session, table_id, rating_id)
    record = _records(session, [row])[0]
    done = adjust(
        record.rating, field, new_value, reason=reason, actor=actor, at=moment, expected_old=expected_old
    )
    change = done.adjustments[-1]
    seq = _chain(
        session,
        table_id,
        RATING_ADJUSTED,
        change.actor,
        {
            "rating_id": rating_id,
            "field": change.field.value,
            "old_value": change.old_value,
            "new_value": change.new_value,
            "reason": change.reason,
        },
        moment,
    )
    session.add(
        RatingAdjustmentRow(
            rating_id=rating_id,
            table_id=table_id,
            field=change.field.value,
            old_value=change.old_value,
            new_value=change.new_value,
            reason=change.reason,
            actor=change.actor,
            adjusted_at=change.at,
            seq=seq,
        )
    )
    session.flush()
    _enqueue(session, done, moment)
    return _records(session, [row])[0]


# --------------------------------------------------------------------------- reads


def _rating_row(session: Session, table_id: str, rating_id: str) -> RatingRow:
    row = session.exec(
        select(RatingRow).where(RatingRow.rating_id == rating_id, RatingRow.table_id == table_id)
    ).first()
    if row is None:
        raise RatingNotFoundError(f"no rating {rating_id!r} at table {table_id}")
    return row


def get_rating(session: Session, *, table_id: str, rating_id: str) -> RatingRecord:
    return _records(session, [_rating_row(session, table_id, rating_id)])[0]


def ratings_of_day(session: Session, *, table_id: str, day: date) -> list[RatingRecord]:
    """The table's ratings that started in gaming day ``day``, by start."""
    rows = session.exec(
        select(RatingRow)
        .where(RatingRow.table_id == table_id, RatingRow.gaming_day == day)
        .order_by(col(RatingRow.started_at), col(RatingRow.seat))
    )
    return _records(session, list(rows))


def ratings_between(
    session: Session, *, table_ids: Iterable[str], start: datetime, end: datetime
) -> list[RatingRecord]:
    """The ratings of ``table_ids`` that started in ``[start, end)`` (a gaming day or a shift of
    it), by table, start and seat: the day and shift reports' (one SELECT and one for their
    adjustments). An open rating carries its figures as last folded (the worker's sweep)."""
    ids = sorted(set(table_ids))
    if not ids:
        return []
    rows = session.exec(
        select(RatingRow)
        .where(col(RatingRow.table_id).in_(ids), RatingRow.started_at >= start, RatingRow.started_at < end)
        .order_by(col(RatingRow.table_id), col(RatingRow.started_at), col(RatingRow.seat))
    )
    return _records(session, list(rows))


def seated(
    session: Session, *, table_id: str, now: datetime | None = None, folding: Folding | None = None
) -> list[RatingRecord]:
    """Who holds each seat of the table now, by seat (a rating ended idle included). With
    ``folding``, an open rating's figures are folded up to ``now`` on the read (nothing written:
    the worker's sweep writes them), so the live table shows the round just settled."""
    rows = _seated_rows(session, table_id)
    records = _records(session, rows)
    if folding is None or not rows:
        return records
    moment = _moment(now)
    since = min(row.started_at if row.ended_at is None else row.ended_at for row in rows)
    rounds = settled_rounds(
        session, table_id=table_id, start=since, end=moment + timedelta(microseconds=1), by_settlement=True
    )
    live = []
    for row, record in zip(rows, records, strict=True):
        folded = _fold(session, row, rounds, moment, folding)
        now_open = next((r for r in folded.open if r.rating_id == row.rating_id), None)
        # a rating the fold ended (the table closed, idle) and no command has written yet: shown
        # ended, with its figures up to its end, never as open with the figures last written
        ended = next((r for r in folded.closed if r.rating_id == row.rating_id), None)
        found = now_open or ended
        if row.ended_at is None and found is not None:
            record = replace(
                record,
                rating=replace(found, adjustments=record.rating.adjustments),
                last_at=folded.last_activity.get(row.rating_id, record.last_at),
                seated=folded.phase is not SeatPhase.EMPTY,
            )
        live.append(record)
    return live


def seated_players(session: Session, *, table_ids: Iterable[str]) -> dict[str, list[tuple[int, str]]]:
    """(seat, player) of the rated players holding a seat at each of ``table_ids``, by seat
    (one SELECT: the floor's pit map)."""
    found: dict[str, list[tuple[int, str]]] = {table_id: [] for table_id in table_ids}
    if not found:
        return found
    rows = session.exec(
        select(RatingRow.table_id, RatingRow.seat, RatingRow.player)
        .where(col(RatingRow.table_id).in_(list(found)), col(RatingRow.seated).is_(True))
        .order_by(col(RatingRow.table_id), col(RatingRow.seat))
    )
    for table_id, seat, player in rows:
        found[table_id].append((seat, player))
    return found


def player_history(session: Session, *, player: str, limit: int = 500) -> list[RatingRecord]:
    """One player's ratings at every table of this store, newest first."""
    rows = session.exec(
        select(RatingRow)
        .where(RatingRow.player == player)
        .order_by(col(RatingRow.started_at).desc(), col(RatingRow.id).desc())
        .limit(limit)
    )
    return _records(session, list(rows))


def buy_ins_of(session: Session, *, rating_id: str) -> list[BuyInRecord]:
    rows = session.exec(
        select(RatingBuyInRow).where(RatingBuyInRow.rating_id == rating_id).order_by(col(RatingBuyInRow.id))
    )
    return [_buy_in(row) for row in rows]


# --------------------------------------------------------------------------- the outbox


def due_pushes(session: Session, *, now: datetime, limit: int = 20) -> list[OutboxItem]:
    """Outbox rows not delivered whose next attempt is due, oldest first."""
    rows = session.exec(
        select(RatingOutboxRow)
        .where(col(RatingOutboxRow.delivered_at).is_(None), col(RatingOutboxRow.next_attempt_at) <= now)
        .order_by(col(RatingOutboxRow.id))
        .limit(limit)
    )
    items = []
    for row in rows:
        assert row.id is not None
        items.append(
            OutboxItem(row.id, row.rating_id, row.idempotency_key, json.loads(row.payload), row.attempts)
        )
    return items


def push_done(session: Session, *, item_id: int, at: datetime) -> None:
    row = session.get(RatingOutboxRow, item_id)
    if row is None or row.delivered_at is not None:
        return
    row.attempts += 1
    row.delivered_at = at
    row.last_error = None
    session.add(row)


def push_failed(session: Session, *, item_id: int, at: datetime, error: str, retry_in: timedelta) -> None:
    row = session.get(RatingOutboxRow, item_id)
    if row is None or row.delivered_at is not None:
        return
    row.attempts += 1
    row.last_error = error[:REASON_MAX]
    row.next_attempt_at = at + retry_in
    session.add(row)


@dataclass(frozen=True, slots=True)
class OutboxState:
    id: int
    rating_id: str
    idempotency_key: str
    attempts: int
    delivered_at: datetime | None
    next_attempt_at: datetime
    last_error: str | None


def outbox(session: Session, *, table_id: str) -> list[OutboxState]:
    rows = session.exec(
        select(RatingOutboxRow).where(RatingOutboxRow.table_id == table_id).order_by(col(RatingOutboxRow.id))
    )
    return [
        OutboxState(
            row.id or 0,
            row.rating_id,
            row.idempotency_key,
            row.attempts,
            row.delivered_at,
            row.next_attempt_at,
            row.last_error,
        )
        for row in rows
    ]


__all__ = [
    "RATING_ADJUSTED",
    "RATING_BUY_IN",
    "RATING_ENDED",
    "RATING_STARTED",
    "SEAT_LEFT",
    "BuyInRecord",
    "Folding",
    "OutboxItem",
    "OutboxState",
    "RatingAdjustmentRow",
    "RatingBuyInRow",
    "RatingConflictError",
    "RatingError",
    "RatingNotFoundError",
    "RatingOutboxRow",
    "RatingRecord",
    "RatingRow",
    "add_buy_in",
    "adjust_rating",
    "bring_up_to_date",
    "buy_ins_of",
    "due_pushes",
    "end_rating",
    "figures",
    "get_rating",
    "idempotency_key",
    "leave_seat",
    "move_player",
    "outbox",
    "player_history",
    "push_done",
    "push_failed",
    "ratings_between",
    "ratings_of_day",
    "seat_player",
    "seated",
    "seated_players",
]
