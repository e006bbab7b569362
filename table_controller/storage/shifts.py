"""Shifts: a pit's (or the whole floor's) shift, opened and closed with the people on duty
named (migration 0007; docs/floor-reports.md, "Shifts"). Each change is also an event of the
store's ``floor`` chain (``shift.opened``, ``shift.closed``), in the same transaction.

One open shift per pit (and one for the whole floor) at a time; a shift closes once. The names
on duty and signing off are people of the store, enabled. Who may open or close a shift is the
API's rule (floor/routers/shifts.py); here ``actor`` is only recorded.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from sqlalchemy import Index, Integer, Text, or_
from sqlalchemy.sql.expression import ColumnElement
from sqlmodel import Field, Session, SQLModel, col, select

from .audit import append_event, lock_table
from .chain import utc_timestamp
from .errors import InvalidFieldError, StorageError
from .floor_tables import PIT_MAX
from .models import UTCDateTime
from .users import User

FLOOR_CHAIN: Final = "floor"  # the chain's id in the events table (no table may take it)


class Shift(SQLModel, table=True):
    """The ``shifts`` table. ``on_duty`` and ``signed_off`` are JSON lists of names."""

    __tablename__ = "shifts"
    __table_args__ = (Index("ix_shifts_pit_opened", "pit", "opened_at"), {"sqlite_autoincrement": True})

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    pit: str | None = Field(default=None, max_length=PIT_MAX)  # None: the whole floor
    opened_at: datetime = Field(sa_type=UTCDateTime)
    opened_by: str = Field(max_length=64)
    on_duty: str = Field(sa_type=Text)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    closed_by: str | None = Field(default=None, max_length=64)
    signed_off: str | None = Field(default=None, sa_type=Text)
    note: str | None = Field(default=None, sa_type=Text)


OPENED: Final = "shift.opened"
CLOSED: Final = "shift.closed"
NOTE_MAX: Final = 2_000
NAMES_MAX: Final = 50  # people named on one shift


class ShiftNotFoundError(StorageError, LookupError):
    """No shift with that id."""


class ShiftConflictError(StorageError):
    """A second open shift of one pit, or a shift closed twice."""


class ShiftPeopleError(InvalidFieldError):
    """A name on duty or signing off that is no enabled person of the store (or none given)."""


@dataclass(frozen=True, slots=True)
class ShiftRecord:
    """A shift as the store keeps it, its lists of names parsed."""

    id: int
    pit: str | None
    opened_at: datetime
    opened_by: str
    on_duty: tuple[str, ...]
    closed_at: datetime | None
    closed_by: str | None
    signed_off: tuple[str, ...]
    note: str | None

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


def _record(row: Shift) -> ShiftRecord:
    assert row.id is not None
    return ShiftRecord(
        id=row.id,
        pit=row.pit,
        opened_at=row.opened_at,
        opened_by=row.opened_by,
        on_duty=tuple(json.loads(row.on_duty)),
        closed_at=row.closed_at,
        closed_by=row.closed_by,
        signed_off=tuple(json.loads(row.signed_off)) if row.signed_off else (),
        note=row.note,
    )


def _people(session: Session, names: Sequence[str], what: str) -> list[str]:
    """``names`` cleaned (stripped, in the order given, once each); each an enabled person."""
    cleaned = list(dict.fromkeys(name.strip() for name in names if isinstance(name, str)))
    if not cleaned or "" in cleaned or len(cleaned) != len(names):
        raise ShiftPeopleError(
            f"{what}: give 1..{NAMES_MAX} distinct, non-empty names of people of the store"
        )
    if len(cleaned) > NAMES_MAX:
        raise ShiftPeopleError(f"{what}: at most {NAMES_MAX} names")
    rows = session.exec(select(User.name, User.disabled).where(col(User.name).in_(cleaned))).all()
    enabled = {name for name, disabled in rows if not disabled}
    unknown = [name for name in cleaned if name not in enabled]
    if unknown:
        raise ShiftPeopleError(f"{what}: no enabled person named {', '.join(unknown)}")
    return cleaned


def _check_pit(pit: str | None) -> str | None:
    if pit is None:
        return None
    if not isinstance(pit, str) or not pit.strip() or len(pit) > PIT_MAX or pit != pit.strip():
        raise InvalidFieldError(f"pit must be 1..{PIT_MAX} characters without surrounding spaces")
    return pit


def _same_pit(pit: str | None) -> ColumnElement[bool]:
    return col(Shift.pit).is_(None) if pit is None else col(Shift.pit) == pit


def open_shift(
    session: Session, *, pit: str | None, on_duty: Sequence[str], actor: str, now: datetime | None = None
) -> ShiftRecord:
    """Open the shift of ``pit`` (None: the whole floor) with the people ``on_duty``; chained as
    ``shift.opened``. Refused (:class:`ShiftConflictError`) while that pit has an open shift.

    The floor chain's lock is taken first, so two people opening one pit's shift at once cannot
    both pass the check."""
    pit = _check_pit(pit)
    lock_table(session, table_id=FLOOR_CHAIN)
    names = _people(session, on_duty, "on duty")
    moment = utc_timestamp(now or datetime.now(UTC))
    already = session.exec(select(Shift).where(_same_pit(pit), col(Shift.closed_at).is_(None))).first()
    if already is not None:
        where = "the floor" if pit is None else f"pit {pit}"
        raise ShiftConflictError(
            f"{where} has an open shift already: shift {already.id}, opened by {already.opened_by}"
            f" at {already.opened_at.isoformat()}; close it first"
        )
    row = Shift(pit=pit, opened_at=moment, opened_by=actor, on_duty=json.dumps(names))
    session.add(row)
    session.flush()
    append_event(
        session,
        table_id=FLOOR_CHAIN,
        round_id=None,
        kind=OPENED,
        actor=actor,
        payload={"shift_id": row.id, "pit": pit, "on_duty": names, "opened_at": moment.isoformat()},
        now=moment,
    )
    return _record(row)


def close_shift(
    session: Session,
    *,
    shift_id: int,
    actor: str,
    signed_off: Sequence[str],
    note: str | None = None,
    now: datetime | None = None,
) -> ShiftRecord:
    """Close shift ``shift_id`` with the people who sign off its report; chained as
    ``shift.closed``. Refused once it is closed (:class:`ShiftConflictError`)."""
    lock_table(session, table_id=FLOOR_CHAIN)
    row = session.get(Shift, shift_id)
    if row is None:
        raise ShiftNotFoundError(f"no shift {shift_id}")
    if row.closed_at is not None:
        raise ShiftConflictError(
            f"shift {shift_id} was closed by {row.closed_by} at {row.closed_at.isoformat()}"
        )
    names = _people(session, signed_off, "signed off")
    cleaned = (note or "").strip() or None
    if cleaned is not None and len(cleaned) > NOTE_MAX:
        raise InvalidFieldError(f"note: at most {NOTE_MAX} characters")
    moment = utc_timestamp(now or datetime.now(UTC))
    if moment < row.opened_at:
        raise InvalidFieldError(
            f"shift {shift_id} cannot close before it opened ({row.opened_at.isoformat()})"
        )
    row.closed_at, row.closed_by, row.signed_off, row.note = moment, actor, json.dumps(names), cleaned
    session.add(row)
    session.flush()
    append_event(
        session,
        table_id=FLOOR_CHAIN,
        round_id=None,
        kind=CLOSED,
        actor=actor,
        payload={
            "shift_id": shift_id,
            "pit": row.pit,
            "signed_off": names,
            "note": cleaned,
            "closed_at": moment.isoformat(),
        },
        now=moment,
    )
    return _record(row)


def get_shift(session: Session, *, shift_id: int) -> ShiftRecord:
    row = session.get(Shift, shift_id)
    if row is None:
        raise ShiftNotFoundError(f"no shift {shift_id}")
    return _record(row)


def list_shifts(
    session: Session, *, pits: Collection[str | None] | None = None, open_only: bool = False, limit: int = 100
) -> list[ShiftRecord]:
    """The newest shifts first; of ``pits`` only when given (``None`` in it: the whole floor's)."""
    statement = select(Shift)
    if pits is not None:
        named = [pit for pit in pits if pit is not None]
        statement = statement.where(
            or_(col(Shift.pit).in_(named), *([col(Shift.pit).is_(None)] if None in pits else []))
        )
    if open_only:
        statement = statement.where(col(Shift.closed_at).is_(None))
    rows = session.exec(statement.order_by(col(Shift.opened_at).desc(), col(Shift.id).desc()).limit(limit))
    return [_record(row) for row in rows]


__all__ = [
    "CLOSED",
    "FLOOR_CHAIN",
    "OPENED",
    "Shift",
    "ShiftConflictError",
    "ShiftNotFoundError",
    "ShiftPeopleError",
    "ShiftRecord",
    "close_shift",
    "get_shift",
    "list_shifts",
    "open_shift",
]
