"""The dealers on the tables' boxes as the store keeps them (migration 0011; docs/dealers.md).

A row of ``dealer_stints`` is one dealer's time on one table's box: opened by their sign-in,
closed by the next dealer's sign-in at that table (``relieved``: the push) or by their
sign-out. Each change is an event of the table's chain and the row, in one transaction, the
chain's lock taken first: ``dealer.signed-in`` (the dealer, the stint, whom they relieve) and
``dealer.signed-out``. The checks are the accounting core's (accounting/dealers.py) and the
store's: one dealer on a table's box at a time, one box per dealer at a time.

The round's recorded dealer is the one on the box when it opened (record/recorder.py reads
``on_box`` in the round's own transaction); ``hands_by_dealer`` counts the settled rounds by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from sqlalchemy import BigInteger, Index, Integer, func
from sqlmodel import Field, Session, SQLModel, col, select

from ..accounting.dealers import Stint
from .audit import append_event, lock_table
from .chain import check_name, check_table_id, utc_timestamp
from .errors import StorageError
from .models import ACTOR_MAX, Round, UTCDateTime
from .users import User

DEALER_SIGNED_IN: Final = "dealer.signed-in"
DEALER_SIGNED_OUT: Final = "dealer.signed-out"
RELIEVED: Final = "relieved"  # the end of a stint the next dealer's sign-in closed (the push)
SIGNED_OUT: Final = "signed-out"


class DealerConflictError(StorageError):
    """The boxes refuse this now: the dealer is on this box already, or on another table's box;
    nobody is on the box to sign out."""


class DealerNotFoundError(StorageError, LookupError):
    """No enabled person of that name to sign in."""


class DealerStintRow(SQLModel, table=True):
    """``dealer_stints``: one dealer's time on one table's box; open while ``ended_at`` is None."""

    __tablename__ = "dealer_stints"
    __table_args__ = (
        Index("ix_dealer_stints_table_started", "table_id", "started_at"),
        Index("ix_dealer_stints_dealer_ended", "dealer", "ended_at"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    dealer: str = Field(max_length=ACTOR_MAX)
    started_at: datetime = Field(sa_type=UTCDateTime)
    signed_in_by: str = Field(max_length=ACTOR_MAX)
    signed_in_seq: int = Field(sa_type=BigInteger)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    ended_by: str | None = Field(default=None, max_length=ACTOR_MAX)
    end_reason: str | None = Field(default=None, max_length=16)


@dataclass(frozen=True, slots=True)
class StintRecord:
    """A stint as stored: the core's ``Stint``, its id, who signed it in and how it ended."""

    id: int
    table_id: str
    stint: Stint
    signed_in_by: str
    ended_by: str | None
    end_reason: str | None

    @property
    def dealer(self) -> str:
        return self.stint.dealer


def _record(row: DealerStintRow) -> StintRecord:
    assert row.id is not None
    return StintRecord(
        id=row.id,
        table_id=row.table_id,
        stint=Stint(row.dealer, row.started_at, row.ended_at),
        signed_in_by=row.signed_in_by,
        ended_by=row.ended_by,
        end_reason=row.end_reason,
    )


def _open_row(session: Session, table_id: str) -> DealerStintRow | None:
    return session.exec(
        select(DealerStintRow)
        .where(DealerStintRow.table_id == table_id, col(DealerStintRow.ended_at).is_(None))
        .order_by(col(DealerStintRow.id).desc())
    ).first()


def on_box(session: Session, *, table_id: str) -> StintRecord | None:
    """The dealer on the table's box now, or None."""
    row = _open_row(session, table_id)
    return None if row is None else _record(row)


def _close(row: DealerStintRow, at: datetime, by: str, reason: str) -> None:
    row.ended_at, row.ended_by, row.end_reason = max(at, row.started_at), by, reason


def sign_in(
    session: Session, *, table_id: str, dealer: str, by: str, now: datetime | None = None
) -> tuple[StintRecord, StintRecord | None]:
    """``dealer`` signs in to the table's box, relieving the dealer on it (their stint ends
    ``relieved``): ``dealer.signed-in``. Returns the new stint and the relieved one. Refused: a
    name the store cannot keep (InvalidFieldError), no enabled person of that name
    (DealerNotFoundError), the dealer on this box already or on another table's
    (DealerConflictError)."""
    check_table_id(table_id)
    check_name("dealer", dealer)
    lock_table(session, table_id=table_id)
    moment = utc_timestamp(now or datetime.now(UTC))
    disabled = session.exec(select(User.disabled).where(User.name == dealer)).first()
    if disabled is None or disabled:
        raise DealerNotFoundError(f"no enabled person named {dealer!r} to sign in to the box")
    there = session.exec(
        select(DealerStintRow).where(DealerStintRow.dealer == dealer, col(DealerStintRow.ended_at).is_(None))
    ).first()
    if there is not None:
        where = "this table's box" if there.table_id == table_id else f"the box of table {there.table_id}"
        raise DealerConflictError(
            f"{dealer} is on {where} since {there.started_at.isoformat()}: signed in once"
            + ("" if there.table_id == table_id else "; they are relieved or sign out there first")
        )
    relieved = _open_row(session, table_id)
    Stint(dealer, moment)  # the core's checks of the name and the time
    if relieved is not None:
        _close(relieved, moment, by, RELIEVED)
        session.add(relieved)
    seq = append_event(
        session,
        table_id=table_id,
        round_id=None,
        kind=DEALER_SIGNED_IN,
        actor=by,
        payload={"dealer": dealer, "relieves": None if relieved is None else relieved.dealer},
        now=moment,
    ).seq
    row = DealerStintRow(
        table_id=table_id, dealer=dealer, started_at=moment, signed_in_by=by, signed_in_seq=seq
    )
    session.add(row)
    session.flush()
    return _record(row), None if relieved is None else _record(relieved)


def sign_out(session: Session, *, table_id: str, by: str, now: datetime | None = None) -> StintRecord:
    """The dealer on the box leaves it with no one relieving them (the game closes, a break with
    no relief): ``dealer.signed-out``. Refused: nobody on the box (DealerConflictError)."""
    check_table_id(table_id)
    lock_table(session, table_id=table_id)
    moment = utc_timestamp(now or datetime.now(UTC))
    row = _open_row(session, table_id)
    if row is None:
        raise DealerConflictError(f"no dealer is on the box of table {table_id}: nobody to sign out")
    _close(row, moment, by, SIGNED_OUT)
    session.add(row)
    append_event(
        session,
        table_id=table_id,
        round_id=None,
        kind=DEALER_SIGNED_OUT,
        actor=by,
        payload={"dealer": row.dealer},
        now=moment,
    )
    session.flush()
    return _record(row)


_STINTS = DealerStintRow.__table__.c  # type: ignore[attr-defined]
_STINT_COLUMNS = (
    _STINTS.id,
    _STINTS.table_id,
    _STINTS.dealer,
    _STINTS.started_at,
    _STINTS.ended_at,
    _STINTS.signed_in_by,
    _STINTS.ended_by,
    _STINTS.end_reason,
)


def stints_between(session: Session, *, table_id: str, start: datetime, end: datetime) -> list[StintRecord]:
    """The table's stints that lie at least in part within ``[start, end)``, by start (plain
    columns: the live table reads them at every chain event, benchmarks/bench_dealers.py)."""
    rows = session.exec(
        select(*_STINT_COLUMNS)  # type: ignore[call-overload]
        .where(
            _STINTS.table_id == table_id,
            _STINTS.started_at < end,
            _STINTS.ended_at.is_(None) | (_STINTS.ended_at > start),
        )
        .order_by(_STINTS.started_at, _STINTS.id)
    ).all()
    return [
        StintRecord(
            id=row_id,
            table_id=table,
            stint=Stint(dealer, started, ended),
            signed_in_by=signed_in_by,
            ended_by=ended_by,
            end_reason=reason,
        )
        for row_id, table, dealer, started, ended, signed_in_by, ended_by, reason in rows
    ]


def hands_by_dealer(session: Session, *, table_id: str, start: datetime, end: datetime) -> dict[str, int]:
    """The table's hands (settled rounds) opened in ``[start, end)``, by the dealer each
    round recorded: one grouped SELECT."""
    r = Round.__table__.c  # type: ignore[attr-defined]
    rows = session.exec(
        select(r.dealer, func.count())
        .where(r.table_id == table_id, r.phase == "closed", r.opened_at >= start, r.opened_at < end)
        .group_by(r.dealer)
    ).all()
    return {str(dealer): int(count) for dealer, count in rows}


__all__ = [
    "DEALER_SIGNED_IN",
    "DEALER_SIGNED_OUT",
    "RELIEVED",
    "SIGNED_OUT",
    "DealerConflictError",
    "DealerNotFoundError",
    "DealerStintRow",
    "StintRecord",
    "hands_by_dealer",
    "on_box",
    "sign_in",
    "sign_out",
    "stints_between",
]
