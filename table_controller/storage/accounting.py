"""The table's accounting as the store keeps it: openers and closers, fill and credit slips, the
drop, named variance lines and reconciled days (migration 0008; docs/accounting.md, "Storage,
API and pages").

Each change is an event of the table's chain and a row of a projection table, written in one
transaction, the chain's lock taken first so that a check and its write cannot interleave with
another writer of the table. The checks are the accounting core's (accounting/): a count is an
``InventoryCount``, a slip goes through ``request_slip``, ``deliver`` and ``void_slip``, a drop
line is a ``DropEntry``, a named line a ``NamedLine``; anything they refuse is refused before a
row is written. What needs two people is split in two steps by two authenticated people, as the
approvals do (storage/approvals.py): a count entered by the pit supervisor is signed by the
dealer it names; a void asked by one pit user is done when a second one confirms it. The person
who did the first step can never do the second (:class:`TwoPersonRefusedError`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final

from sqlalchemy import BigInteger, Date, Index, Integer, Text
from sqlmodel import Field, Session, SQLModel, col, select

from ..accounting.chips import Chips, ChipSet, CountKind, InventoryCount
from ..accounting.drop import DropEntry, DropKind, DropSource
from ..accounting.errors import SlipError
from ..accounting.facts import BankResult, SeatResult, SettledRound
from ..accounting.reconcile import NamedLine, Reconciliation
from ..accounting.slips import Slip, SlipKind, Void, deliver, request_slip, void_slip
from ..accounting.win import TableAccount
from ..game.banking import seat_of_position
from .alerts import RAISED
from .approvals import TwoPersonRefusedError
from .audit import append_event, lock_table
from .chain import check_table_id, utc_timestamp
from .errors import InvalidFieldError, StorageError
from .models import BANKER_POSITION, REASON_MAX, Round, RoundPosition, UTCDateTime
from .users import User

COUNT_ENTERED: Final = "count.entered"
COUNT_SIGNED: Final = "count.signed"
SLIP_REQUESTED: Final = "slip.requested"
SLIP_DELIVERED: Final = "slip.delivered"
SLIP_VOID_ASKED: Final = "slip.void-asked"
SLIP_VOIDED: Final = "slip.voided"
DROP_ENTERED: Final = "drop.entered"
LINE_ENTERED: Final = "variance-line.entered"
DAY_RECONCILED: Final = "day.reconciled"
VARIANCE_ALERT: Final = "accounting-variance"  # the alert's kind (floor/severity.py: a warning)
SHIFT_MAX: Final = 32
NAME_MAX: Final = 128


class AccountingNotFoundError(StorageError, LookupError):
    """No count or slip with that id at this table, or no enabled person of that name."""


class AccountingConflictError(StorageError):
    """The day's record refuses this now: a closer before its opener, a count entered twice, a
    count signed twice, a marker already in the drop, a void already waiting."""


# --------------------------------------------------------------------------- the tables


class AccountingCount(SQLModel, table=True):
    """``accounting_counts``: an opener or closer; counts once ``signed_at`` is set."""

    __tablename__ = "accounting_counts"
    __table_args__ = (
        Index("ix_accounting_counts_table_day", "table_id", "gaming_day"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    kind: str = Field(max_length=8)
    gaming_day: date = Field(sa_type=Date)
    shift: str | None = Field(default=None, max_length=SHIFT_MAX)
    counted_at: datetime = Field(sa_type=UTCDateTime)
    chips: str = Field(sa_type=Text)
    value_cents: int = Field(sa_type=BigInteger)
    supervisor: str = Field(max_length=NAME_MAX)
    dealer: str = Field(max_length=NAME_MAX)
    signed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AccountingSlip(SQLModel, table=True):
    """``accounting_slips``: a fill or credit slip; ``number`` is the slip's number."""

    __tablename__ = "accounting_slips"
    __table_args__ = (
        Index("ix_accounting_slips_table_requested", "table_id", "requested_at"),
        {"sqlite_autoincrement": True},
    )

    number: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    kind: str = Field(max_length=8)
    chips: str = Field(sa_type=Text)
    value_cents: int = Field(sa_type=BigInteger)
    requested_at: datetime = Field(sa_type=UTCDateTime)
    requested_by: str = Field(max_length=NAME_MAX)
    delivered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    runner: str | None = Field(default=None, max_length=NAME_MAX)
    table_signer: str | None = Field(default=None, max_length=NAME_MAX)
    void_asked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    void_asked_by: str | None = Field(default=None, max_length=NAME_MAX)
    void_reason: str | None = Field(default=None, max_length=REASON_MAX)
    voided_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    void_approved_by: str | None = Field(default=None, max_length=NAME_MAX)


class AccountingDrop(SQLModel, table=True):
    """``accounting_drop``: one amount of a gaming day's drop."""

    __tablename__ = "accounting_drop"
    __table_args__ = (
        Index("ix_accounting_drop_table_day", "table_id", "gaming_day"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    gaming_day: date = Field(sa_type=Date)
    shift: str | None = Field(default=None, max_length=SHIFT_MAX)
    kind: str = Field(max_length=8)
    amount_cents: int = Field(sa_type=BigInteger)
    source: str = Field(max_length=16)
    reference: str | None = Field(default=None, max_length=NAME_MAX)
    entered_by: str = Field(max_length=NAME_MAX)
    entered_at: datetime = Field(sa_type=UTCDateTime)
    file_sha256: str | None = Field(default=None, max_length=64)
    file_line: int | None = Field(default=None, sa_type=Integer)


class AccountingLine(SQLModel, table=True):
    """``accounting_lines``: a named variance line, signed from the house's side."""

    __tablename__ = "accounting_lines"
    __table_args__ = (
        Index("ix_accounting_lines_table_day", "table_id", "gaming_day"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    gaming_day: date = Field(sa_type=Date)
    shift: str | None = Field(default=None, max_length=SHIFT_MAX)
    name: str = Field(max_length=NAME_MAX)
    amount_cents: int = Field(sa_type=BigInteger)
    entered_by: str = Field(max_length=NAME_MAX)
    entered_at: datetime = Field(sa_type=UTCDateTime)


class AccountingReconciliation(SQLModel, table=True):
    """``accounting_reconciliations``: a day (or shift) reconciled, and the alert it raised."""

    __tablename__ = "accounting_reconciliations"
    __table_args__ = (
        Index("ix_accounting_reconciliations_table_day", "table_id", "gaming_day"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    table_id: str = Field(max_length=64)
    gaming_day: date = Field(sa_type=Date)
    shift: str | None = Field(default=None, max_length=SHIFT_MAX)
    reconciled_at: datetime = Field(sa_type=UTCDateTime)
    reconciled_by: str = Field(max_length=NAME_MAX)
    counted_win_cents: int = Field(sa_type=BigInteger)
    computed_result_cents: int = Field(sa_type=BigInteger)
    explained_cents: int = Field(sa_type=BigInteger)
    variance_cents: int = Field(sa_type=BigInteger)
    alert_above_cents: int = Field(sa_type=BigInteger)
    rounds: int = Field(sa_type=Integer)
    alert_seq: int | None = Field(default=None, sa_type=BigInteger)


# --------------------------------------------------------------------------- records


def chips_json(chips: Chips) -> dict[str, int]:
    """Chips as the chain and the projection keep them: denomination (cents, as text) -> count."""
    return {str(denomination): count for denomination, count in chips.counts}


def _chips(text: str) -> Chips:
    return Chips.of({int(denomination): count for denomination, count in json.loads(text).items()})


@dataclass(frozen=True, slots=True)
class CountRecord:
    """An opener or closer as stored: signed (``signed_at``) or waiting for the dealer."""

    id: int
    table_id: str
    kind: CountKind
    day: date
    shift: str | None
    counted_at: datetime
    chips: Chips
    value: int
    supervisor: str
    dealer: str
    signed_at: datetime | None

    def inventory(self, chip_set: ChipSet) -> InventoryCount:
        return InventoryCount(
            kind=self.kind,
            table_id=self.table_id,
            day=self.day,
            shift=self.shift,
            at=self.counted_at,
            chips=self.chips,
            dealer=self.dealer,
            supervisor=self.supervisor,
            chip_set=chip_set,
        )


@dataclass(frozen=True, slots=True)
class SlipRecord:
    """A slip as stored: the core's ``Slip`` and a void that waits for a second person."""

    slip: Slip
    void_asked_at: datetime | None
    void_asked_by: str | None
    void_reason: str | None

    @property
    def void_waiting(self) -> bool:
        return self.void_asked_by is not None and self.slip.void is None


@dataclass(frozen=True, slots=True)
class DropRecord:
    id: int
    entry: DropEntry
    entered_by: str
    entered_at: datetime
    file_sha256: str | None
    file_line: int | None


@dataclass(frozen=True, slots=True)
class LineRecord:
    id: int
    day: date
    shift: str | None
    line: NamedLine
    entered_at: datetime


@dataclass(frozen=True, slots=True)
class ReconciliationRecord:
    id: int
    day: date
    shift: str | None
    reconciled_at: datetime
    reconciled_by: str
    counted_win: int
    computed_result: int
    explained: int
    variance: int
    alert_above: int
    rounds: int
    alert_seq: int | None


def _count_record(row: AccountingCount) -> CountRecord:
    assert row.id is not None
    return CountRecord(
        id=row.id,
        table_id=row.table_id,
        kind=CountKind(row.kind),
        day=row.gaming_day,
        shift=row.shift,
        counted_at=row.counted_at,
        chips=_chips(row.chips),
        value=row.value_cents,
        supervisor=row.supervisor,
        dealer=row.dealer,
        signed_at=row.signed_at,
    )


def _slip_record(row: AccountingSlip) -> SlipRecord:
    assert row.number is not None
    void = None
    if row.voided_at is not None:
        assert row.void_asked_by and row.void_approved_by and row.void_reason
        void = Void(
            at=row.voided_at, by=row.void_asked_by, approved_by=row.void_approved_by, reason=row.void_reason
        )
    slip = Slip(
        kind=SlipKind(row.kind),
        number=row.number,
        table_id=row.table_id,
        chips=_chips(row.chips),
        requested_at=row.requested_at,
        requested_by=row.requested_by,
        delivered_at=row.delivered_at,
        runner=row.runner,
        table_signer=row.table_signer,
        void=void,
    )
    return SlipRecord(slip, row.void_asked_at, row.void_asked_by, row.void_reason)


def _drop_record(row: AccountingDrop) -> DropRecord:
    assert row.id is not None
    entry = DropEntry(
        table_id=row.table_id,
        day=row.gaming_day,
        shift=row.shift,
        kind=DropKind(row.kind),
        amount=row.amount_cents,
        source=DropSource(row.source),
        reference=row.reference,
    )
    return DropRecord(row.id, entry, row.entered_by, row.entered_at, row.file_sha256, row.file_line)


def _line_record(row: AccountingLine) -> LineRecord:
    assert row.id is not None
    line = NamedLine(name=row.name, amount=row.amount_cents, entered_by=row.entered_by)
    return LineRecord(row.id, row.gaming_day, row.shift, line, row.entered_at)


def _reconciliation_record(row: AccountingReconciliation) -> ReconciliationRecord:
    assert row.id is not None
    return ReconciliationRecord(
        id=row.id,
        day=row.gaming_day,
        shift=row.shift,
        reconciled_at=row.reconciled_at,
        reconciled_by=row.reconciled_by,
        counted_win=row.counted_win_cents,
        computed_result=row.computed_result_cents,
        explained=row.explained_cents,
        variance=row.variance_cents,
        alert_above=row.alert_above_cents,
        rounds=row.rounds,
        alert_seq=row.alert_seq,
    )


def _moment(now: datetime | None) -> datetime:
    return utc_timestamp(now or datetime.now(UTC))


def _shift(shift: str | None) -> str | None:
    if shift is None:
        return None
    if not isinstance(shift, str) or not shift.strip() or len(shift) > SHIFT_MAX:
        raise InvalidFieldError(f"shift must be 1..{SHIFT_MAX} characters, got {shift!r}")
    return shift.strip()


def _same_period(statement: Any, model: Any, day: date, shift: str | None) -> Any:
    statement = statement.where(model.gaming_day == day)
    return statement.where(col(model.shift).is_(None) if shift is None else model.shift == shift)


def _chained(
    session: Session, table_id: str, kind: str, actor: str, payload: dict[str, Any], at: datetime
) -> int:
    return append_event(
        session, table_id=table_id, round_id=None, kind=kind, actor=actor, payload=payload, now=at
    ).seq


# --------------------------------------------------------------------------- openers and closers


def _enabled_person(session: Session, name: str, what: str) -> str:
    found = session.exec(select(User.disabled).where(User.name == name)).first()
    if found is None or found:
        raise AccountingNotFoundError(f"{what}: no enabled person named {name!r} in the store")
    return name


def enter_count(
    session: Session,
    *,
    table_id: str,
    kind: CountKind,
    day: date,
    shift: str | None,
    chips: Chips,
    chip_set: ChipSet,
    supervisor: str,
    dealer: str,
    now: datetime | None = None,
) -> CountRecord:
    """The pit ``supervisor`` enters an opener or closer naming the ``dealer`` who signs it next
    (``sign_count``); chained as ``count.entered``. Refused: chips the core refuses (an unknown
    denomination, a negative count: ChipError), the same person twice (SignatureError), a
    dealer who is no enabled person, a count of that kind already entered for the period, a
    closer while the period has no signed opener (AccountingConflictError)."""
    check_table_id(table_id)
    shift = _shift(shift)
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    count = InventoryCount(
        kind=kind,
        table_id=table_id,
        day=day,
        shift=shift,
        at=moment,
        chips=chips,
        dealer=dealer,
        supervisor=supervisor,
        chip_set=chip_set,
    )
    _enabled_person(session, count.dealer, "dealer")
    existing = {
        row.kind: row
        for row in session.exec(
            _same_period(select(AccountingCount), AccountingCount, day, shift).where(
                AccountingCount.table_id == table_id
            )
        )
    }
    period = f"{day.isoformat()} {shift or 'day'}"
    if kind.value in existing:
        raise AccountingConflictError(
            f"the {kind.value} of {period} is entered already (count {existing[kind.value].id})"
        )
    if kind is CountKind.CLOSER:
        opener = existing.get(CountKind.OPENER.value)
        if opener is None or opener.signed_at is None:
            raise AccountingConflictError(
                f"no signed opener for {period}: the closer is entered after the opener is signed"
            )
    row = AccountingCount(
        table_id=table_id,
        kind=kind.value,
        gaming_day=day,
        shift=shift,
        counted_at=moment,
        chips=json.dumps(chips_json(chips), sort_keys=True),
        value_cents=chips.value,
        supervisor=count.supervisor,
        dealer=count.dealer,
    )
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        COUNT_ENTERED,
        count.supervisor,
        {
            "count_id": row.id,
            "kind": kind.value,
            "gaming_day": day.isoformat(),
            "shift": shift,
            "chips": chips_json(chips),
            "value_cents": chips.value,
            "supervisor": count.supervisor,
            "dealer": count.dealer,
        },
        moment,
    )
    return _count_record(row)


def sign_count(
    session: Session, *, table_id: str, count_id: int, signer: str, now: datetime | None = None
) -> CountRecord:
    """The dealer the count names signs it: the second signature; chained as ``count.signed``.
    Refused: the supervisor who entered it (``same-person``) or anyone but the named dealer
    (``not-that-person``), a count signed already."""
    lock_table(session, table_id=table_id)
    row = session.get(AccountingCount, count_id)
    if row is None or row.table_id != table_id:
        raise AccountingNotFoundError(f"no count {count_id} at table {table_id}")
    if row.signed_at is not None:
        raise AccountingConflictError(f"count {count_id} was signed by {row.dealer} already")
    if signer.strip().casefold() == row.supervisor.casefold():
        raise TwoPersonRefusedError(
            f"{signer} entered count {count_id}: its second signature is the dealer's, {row.dealer}",
            rule="same-person",
        )
    if signer != row.dealer:
        raise TwoPersonRefusedError(
            f"count {count_id} names {row.dealer} as its dealer: only they sign it, not {signer}",
            rule="not-that-person",
        )
    moment = _moment(now)
    if moment < row.counted_at:
        raise AccountingConflictError(f"count {count_id} cannot be signed before it was entered")
    row.signed_at = moment
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        COUNT_SIGNED,
        signer,
        {"count_id": count_id, "kind": row.kind, "gaming_day": row.gaming_day.isoformat(), "dealer": signer},
        moment,
    )
    return _count_record(row)


def counts_of(session: Session, *, table_id: str, day: date, shift: str | None) -> list[CountRecord]:
    statement = _same_period(select(AccountingCount), AccountingCount, day, shift)
    rows = session.exec(
        statement.where(AccountingCount.table_id == table_id).order_by(col(AccountingCount.id))
    )
    return [_count_record(row) for row in rows]


# --------------------------------------------------------------------------- fills and credits


def _slip_row(session: Session, table_id: str, number: int) -> AccountingSlip:
    row = session.get(AccountingSlip, number)
    if row is None or row.table_id != table_id:
        raise AccountingNotFoundError(f"no slip {number} at table {table_id}")
    return row


def request_fill_or_credit(
    session: Session,
    *,
    table_id: str,
    kind: SlipKind,
    chips: Chips,
    chip_set: ChipSet,
    requested_by: str,
    now: datetime | None = None,
) -> SlipRecord:
    """A new slip, numbered by the store (unique at the casino: the store's key); chained as
    ``slip.requested``. Refused: no chips, a denomination not in ``chip_set`` (ChipError)."""
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    # the core's checks before anything is written (the number is the store's, given at insert)
    checked = request_slip(
        kind, number=1, table_id=table_id, chips=chips, at=moment, by=requested_by, chip_set=chip_set
    )
    row = AccountingSlip(
        table_id=table_id,
        kind=kind.value,
        chips=json.dumps(chips_json(chips), sort_keys=True),
        value_cents=chips.value,
        requested_at=moment,
        requested_by=checked.requested_by,
    )
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        SLIP_REQUESTED,
        checked.requested_by,
        {"number": row.number, "kind": kind.value, "chips": chips_json(chips), "value_cents": chips.value},
        moment,
    )
    return _slip_record(row)


def deliver_slip(
    session: Session,
    *,
    table_id: str,
    number: int,
    runner: str,
    table_signer: str,
    now: datetime | None = None,
) -> SlipRecord:
    """The chips delivered: the runner and the table's signer sign, two people; chained as
    ``slip.delivered``. Refused (SlipError): a slip delivered or voided already; a slip whose
    void waits for a second person (AccountingConflictError)."""
    lock_table(session, table_id=table_id)
    row = _slip_row(session, table_id, number)
    record = _slip_record(row)
    if record.void_waiting:
        raise AccountingConflictError(
            f"slip {number}: a void asked by {row.void_asked_by} waits for a second person"
        )
    done = deliver(record.slip, at=_moment(now), runner=runner, table_signer=table_signer)
    assert done.delivered_at is not None
    row.delivered_at, row.runner, row.table_signer = done.delivered_at, done.runner, done.table_signer
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        SLIP_DELIVERED,
        done.table_signer or table_signer,
        {"number": number, "kind": row.kind, "runner": done.runner, "table_signer": done.table_signer},
        done.delivered_at,
    )
    return _slip_record(row)


def ask_void(
    session: Session, *, table_id: str, number: int, asked_by: str, reason: str, now: datetime | None = None
) -> SlipRecord:
    """A pit user asks to void a slip, with a reason; done when a second one confirms
    (``confirm_void``). Chained as ``slip.void-asked``. Refused: a slip voided already
    (SlipError), a void already waiting (AccountingConflictError)."""
    lock_table(session, table_id=table_id)
    row = _slip_row(session, table_id, number)
    record = _slip_record(row)
    cleaned = reason.strip() if isinstance(reason, str) else ""
    if not cleaned or len(cleaned) > REASON_MAX:
        raise InvalidFieldError(f"reason must be 1..{REASON_MAX} characters")
    if record.slip.void is not None:
        raise SlipError(f"{row.kind} slip {number} is already voided")
    if record.void_waiting:
        raise AccountingConflictError(f"slip {number}: a void asked by {row.void_asked_by} waits already")
    moment = _moment(now)
    row.void_asked_at, row.void_asked_by, row.void_reason = moment, asked_by, cleaned
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        SLIP_VOID_ASKED,
        asked_by,
        {"number": number, "kind": row.kind, "reason": cleaned},
        moment,
    )
    return _slip_record(row)


def confirm_void(
    session: Session, *, table_id: str, number: int, approved_by: str, now: datetime | None = None
) -> SlipRecord:
    """A second pit user confirms the void: the slip no longer counts; chained as
    ``slip.voided`` naming both. Refused: the person who asked (``same-person``), a slip voided
    already (SlipError), no void asked (AccountingConflictError)."""
    lock_table(session, table_id=table_id)
    row = _slip_row(session, table_id, number)
    record = _slip_record(row)
    if record.slip.void is None and row.void_asked_by is None:
        raise AccountingConflictError(f"slip {number}: no void was asked")
    if record.slip.void is None and approved_by.strip().casefold() == (row.void_asked_by or "").casefold():
        raise TwoPersonRefusedError(
            f"{approved_by} asked to void slip {number}: a second pit user confirms it", rule="same-person"
        )
    done = void_slip(
        record.slip,
        at=_moment(now),
        by=row.void_asked_by or "",
        approved_by=approved_by,
        reason=row.void_reason or "",
    )
    assert done.void is not None
    row.voided_at, row.void_approved_by = done.void.at, done.void.approved_by
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        SLIP_VOIDED,
        done.void.approved_by,
        {"number": number, "kind": row.kind, "asked_by": done.void.by, "reason": done.void.reason},
        done.void.at,
    )
    return _slip_record(row)


def get_slip(session: Session, *, table_id: str, number: int) -> SlipRecord:
    return _slip_record(_slip_row(session, table_id, number))


def slips_between(session: Session, *, table_id: str, start: datetime, end: datetime) -> list[SlipRecord]:
    """The table's slips requested or delivered in ``[start, end)``, by number."""
    rows = session.exec(
        select(AccountingSlip)
        .where(AccountingSlip.table_id == table_id)
        .where(
            ((col(AccountingSlip.requested_at) >= start) & (col(AccountingSlip.requested_at) < end))
            | ((col(AccountingSlip.delivered_at) >= start) & (col(AccountingSlip.delivered_at) < end))
        )
        .order_by(col(AccountingSlip.number))
    )
    return [_slip_record(row) for row in rows]


# --------------------------------------------------------------------------- the drop


@dataclass(frozen=True, slots=True)
class CountFileSource:
    """Where imported drop lines come from: the count room file's SHA-256, and each entry's line."""

    sha256: str
    lines: Sequence[int]


def add_drop(
    session: Session,
    *,
    table_id: str,
    entries: Sequence[DropEntry],
    entered_by: str,
    source_file: CountFileSource | None = None,
    now: datetime | None = None,
) -> list[DropRecord]:
    """Drop entries of the table (one entered by hand, or a count file's lines), all or none;
    chained as one ``drop.entered``. Refused: an entry of another table, a marker number
    already in that day's drop or twice in ``entries`` (AccountingConflictError)."""
    if not entries:
        raise InvalidFieldError("no drop entry given")
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    for entry in entries:
        if entry.table_id != table_id:
            raise AccountingConflictError(
                f"a drop entry of table {entry.table_id!r} given to table {table_id!r}"
            )
        _shift(entry.shift)
    markers = [(e.day, e.reference) for e in entries if e.kind is DropKind.MARKER]
    if len(set(markers)) != len(markers):
        raise AccountingConflictError("a marker number is given twice")
    days = {day for day, _ in markers}
    if days:
        stored = session.exec(
            select(col(AccountingDrop.gaming_day), col(AccountingDrop.reference)).where(
                AccountingDrop.table_id == table_id,
                AccountingDrop.kind == DropKind.MARKER.value,
                col(AccountingDrop.gaming_day).in_(days),
            )
        ).all()
        known = {(day, ref) for day, ref in stored}
        twice = sorted(str(ref) for day, ref in markers if (day, ref) in known)
        if twice:
            raise AccountingConflictError(f"marker(s) {', '.join(twice)} already in that day's drop")
    lines = list(source_file.lines) if source_file is not None else [None] * len(entries)
    rows = [
        AccountingDrop(
            table_id=table_id,
            gaming_day=entry.day,
            shift=entry.shift,
            kind=entry.kind.value,
            amount_cents=entry.amount,
            source=entry.source.value,
            reference=entry.reference,
            entered_by=entered_by,
            entered_at=moment,
            file_sha256=None if source_file is None else source_file.sha256,
            file_line=line,
        )
        for entry, line in zip(entries, lines, strict=True)
    ]
    session.add_all(rows)
    session.flush()
    _chained(
        session,
        table_id,
        DROP_ENTERED,
        entered_by,
        {
            "file_sha256": None if source_file is None else source_file.sha256,
            "entries": [
                {
                    "drop_id": row.id,
                    "gaming_day": row.gaming_day.isoformat(),
                    "shift": row.shift,
                    "kind": row.kind,
                    "amount_cents": row.amount_cents,
                    "source": row.source,
                    "reference": row.reference,
                    "line": row.file_line,
                }
                for row in rows
            ],
        },
        moment,
    )
    return [_drop_record(row) for row in rows]


def drop_of_day(session: Session, *, table_id: str, day: date) -> list[DropRecord]:
    rows = session.exec(
        select(AccountingDrop)
        .where(AccountingDrop.table_id == table_id, AccountingDrop.gaming_day == day)
        .order_by(col(AccountingDrop.id))
    )
    return [_drop_record(row) for row in rows]


# --------------------------------------------------------------------------- named lines


def add_line(
    session: Session,
    *,
    table_id: str,
    day: date,
    shift: str | None,
    line: NamedLine,
    now: datetime | None = None,
) -> LineRecord:
    """A named variance line (the core's ``NamedLine``: a name, signed cents, who); chained as
    ``variance-line.entered``."""
    shift = _shift(shift)
    if len(line.name) > NAME_MAX:
        raise InvalidFieldError(f"a line's name is 1..{NAME_MAX} characters")
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    row = AccountingLine(
        table_id=table_id,
        gaming_day=day,
        shift=shift,
        name=line.name,
        amount_cents=line.amount,
        entered_by=line.entered_by,
        entered_at=moment,
    )
    session.add(row)
    session.flush()
    _chained(
        session,
        table_id,
        LINE_ENTERED,
        line.entered_by,
        {
            "line_id": row.id,
            "gaming_day": day.isoformat(),
            "shift": shift,
            "name": line.name,
            "amount_cents": line.amount,
        },
        moment,
    )
    return _line_record(row)


def lines_of(session: Session, *, table_id: str, day: date, shift: str | None) -> list[LineRecord]:
    statement = _same_period(select(AccountingLine), AccountingLine, day, shift)
    rows = session.exec(statement.where(AccountingLine.table_id == table_id).order_by(col(AccountingLine.id)))
    return [_line_record(row) for row in rows]


# --------------------------------------------------------------------------- reconciled days


def record_reconciliation(
    session: Session,
    *,
    reconciliation: Reconciliation,
    account: TableAccount,
    reconciled_by: str,
    now: datetime | None = None,
) -> ReconciliationRecord:
    """Keep a reconciled period, chained as ``day.reconciled`` with every figure, the rounds
    summed and the slips counted (the drill-down); a flagged variance also raises the
    ``accounting-variance`` alert (``alert.raised``) to the pit and surveillance, in the same
    transaction."""
    table_id = reconciliation.table_id
    lock_table(session, table_id=table_id)
    moment = _moment(now)
    period = reconciliation.period
    figures = {
        "gaming_day": period.day.isoformat(),
        "shift": period.shift,
        "counted_win_cents": reconciliation.counted_win,
        "computed_result_cents": reconciliation.computed_result,
        "explained_cents": reconciliation.explained,
        "variance_cents": reconciliation.variance,
        "alert_above_cents": reconciliation.alert_above,
    }
    row = AccountingReconciliation(
        table_id=table_id,
        gaming_day=period.day,
        shift=period.shift,
        reconciled_at=moment,
        reconciled_by=reconciled_by,
        counted_win_cents=reconciliation.counted_win,
        computed_result_cents=reconciliation.computed_result,
        explained_cents=reconciliation.explained,
        variance_cents=reconciliation.variance,
        alert_above_cents=reconciliation.alert_above,
        rounds=len(reconciliation.rounds),
    )
    session.add(row)
    session.flush()
    drill_down = {"fill_slips": list(account.fill_slips), "credit_slips": list(account.credit_slips)}
    _chained(
        session,
        table_id,
        DAY_RECONCILED,
        reconciled_by,
        {
            "reconciliation_id": row.id,
            **figures,
            "drop_cents": account.drop.total,
            "opener_cents": account.opener,
            "closer_cents": account.closer,
            "fills_cents": account.fills,
            "credits_cents": account.credits,
            "lines": [{"name": line.name, "amount_cents": line.amount} for line in reconciliation.lines],
            "rounds": list(reconciliation.rounds),
            **drill_down,
        },
        moment,
    )
    if reconciliation.flagged:
        row.alert_seq = _chained(
            session,
            table_id,
            RAISED,
            reconciled_by,
            {
                "alert": VARIANCE_ALERT,
                "detail": (
                    f"gaming day {period.day.isoformat()} {period.shift or ''}: the counted win "
                    f"{reconciliation.counted_win} cents less the controller's result "
                    f"{reconciliation.computed_result} cents and the named lines "
                    f"{reconciliation.explained} cents leaves a variance of {reconciliation.variance} "
                    f"cents, above {reconciliation.alert_above}"
                ).replace("  ", " "),
                "reconciliation_id": row.id,
                **figures,
                "rounds": len(reconciliation.rounds),
                **drill_down,
            },
            moment,
        )
        session.add(row)
        session.flush()
    return _reconciliation_record(row)


def reconciliations_of(
    session: Session, *, table_id: str, day: date, shift: str | None
) -> list[ReconciliationRecord]:
    statement = _same_period(select(AccountingReconciliation), AccountingReconciliation, day, shift)
    rows = session.exec(
        statement.where(AccountingReconciliation.table_id == table_id).order_by(
            col(AccountingReconciliation.id)
        )
    )
    return [_reconciliation_record(row) for row in rows]


# --------------------------------------------------------------------------- the rounds' money


def settled_rounds(
    session: Session, *, table_id: str, start: datetime, end: datetime, by_settlement: bool = False
) -> list[SettledRound]:
    """The table's settled rounds opened in ``[start, end)`` (``by_settlement``: settled in it,
    in the order they settled, as a rating sees them) as the accounting reads them
    (accounting/facts.py): the player positions only (not the banker's row, position 1, nor the
    house's own hand against a player's bank), each position's seat from the round's
    ``banker_seat`` (game/banking.py), the player-banker's net from ``banker_result_cents``.
    ``SettledRound`` refuses a round whose money does not add up to 0 (RoundFactError), so a
    projection read wrongly is caught here, not summed."""
    r, p = Round.__table__.c, RoundPosition.__table__.c  # type: ignore[attr-defined]
    at = r.closed_at if by_settlement else r.opened_at
    rounds = session.exec(
        select(  # type: ignore[call-overload]
            r.round_id,
            r.opened_at,
            r.closed_at,
            r.house_result_cents,
            r.theoretical_win_cents,
            r.theoretical_variance,
            r.banker_seat,
            r.bank_cents,
            r.banker_result_cents,
        )
        .where(r.table_id == table_id, r.phase == "closed", at >= start, at < end)
        .order_by(at, r.round_id)
    ).all()
    if not rounds:
        return []
    seats: dict[str, list[tuple[int, int, int, int]]] = {row[0]: [] for row in rounds}
    positions = session.exec(
        select(  # type: ignore[call-overload]
            p.round_id, p.position, p.wager_cents, p.big_hand_bonus_cents, p.joker_bonus_cents, p.net_cents
        )
        .join(Round.__table__, r.round_id == p.round_id)  # type: ignore[attr-defined]
        .where(
            r.table_id == table_id,
            r.phase == "closed",
            at >= start,
            at < end,
            p.position != BANKER_POSITION,
            p.house_hand.is_(False),
        )
    ).all()
    for round_id, position, main, big_hand, joker, net in positions:
        seats[round_id].append((position, main, big_hand + joker, net))
    found = []
    for round_id, opened_at, closed_at, house, theory, variance, banker_seat, bank, banker_net in rounds:
        found.append(
            SettledRound(
                round_id=round_id,
                table_id=table_id,
                opened_at=opened_at,
                settled_at=closed_at or opened_at,
                house_result=house,
                seats=tuple(
                    sorted(
                        (
                            SeatResult(
                                seat=position
                                if banker_seat is None
                                else seat_of_position(position, banker_seat),
                                main_wager=main,
                                bonus_wager=bonus,
                                net=net,
                            )
                            for position, main, bonus, net in seats[round_id]
                        ),
                        key=lambda s: s.seat,
                    )
                ),
                bank=None if banker_seat is None else BankResult(banker_seat, bank or 0, banker_net or 0),
                theoretical_win=theory,
                theoretical_variance=variance,
            )
        )
    return found


__all__ = [
    "COUNT_ENTERED",
    "COUNT_SIGNED",
    "DAY_RECONCILED",
    "DROP_ENTERED",
    "LINE_ENTERED",
    "SLIP_DELIVERED",
    "SLIP_REQUESTED",
    "SLIP_VOIDED",
    "SLIP_VOID_ASKED",
    "VARIANCE_ALERT",
    "AccountingConflictError",
    "AccountingCount",
    "AccountingDrop",
    "AccountingLine",
    "AccountingNotFoundError",
    "AccountingReconciliation",
    "AccountingSlip",
    "CountFileSource",
    "CountRecord",
    "DropRecord",
    "LineRecord",
    "ReconciliationRecord",
    "SlipRecord",
    "add_drop",
    "add_line",
    "ask_void",
    "chips_json",
    "confirm_void",
    "counts_of",
    "deliver_slip",
    "drop_of_day",
    "enter_count",
    "get_slip",
    "lines_of",
    "reconciliations_of",
    "record_reconciliation",
    "request_fill_or_credit",
    "settled_rounds",
    "sign_count",
    "slips_between",
]
