"""The table's accounting desk: the pit's commands on the day's money and the day's figures, on
top of the record (docs/accounting.md, "Storage, API and pages").

Each command is one transaction (``unit_of_work``): the accounting core checks the input, the
store (storage/accounting.py) writes the projection row and its chained event; a refusal leaves
nothing written, is logged (``accounting.refused``) and, when a two-person rule refused it,
chained as ``two-person.refused`` (approvals.refuse), as the approvals do. ``day_accounting``
puts the day together: the signed opener and closer, the slips, the drop and the named lines
(accounting/win.py's ``account_table``), the theoretical win and its band from the settled
rounds, and the reconciliation of the counted win with the controller's computed result
(accounting/reconcile.py). ``reconcile_day`` keeps it, chained, and raises the variance alert.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Any, TypeVar

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..accounting.chips import Chips, ChipSet, CountKind
from ..accounting.count_file import parse_count_file
from ..accounting.drop import DropEntry, DropKind, DropSource
from ..accounting.errors import AccountingError
from ..accounting.facts import SettledRound
from ..accounting.gaming_day import GamingDayCalendar, Period, ShiftStart
from ..accounting.reconcile import NamedLine, Reconciliation, reconcile
from ..accounting.slips import SlipKind
from ..accounting.win import TableAccount, Theory, account_table, theory_of
from ..settings import TableSettings
from ..storage import accounting as store
from ..storage.approvals import TwoPersonRefusedError
from ..storage.errors import InvalidFieldError, StorageError, is_outage
from ..storage.session import unit_of_work

log = structlog.get_logger()
T = TypeVar("T")
SHIFT_NAMES = ("day", "swing", "grave")  # three shifts of 8 hours from the gaming day's start


def calendar_of(settings: TableSettings) -> GamingDayCalendar:
    """The gaming day of the table: ``accounting.gaming_day_starts`` in its ``time_zone``, three
    shifts of 8 hours from it (06:00: day 06:00, swing 14:00, grave 22:00)."""
    return calendar_from(settings.time_zone, settings.accounting.gaming_day_starts)


def calendar_from(time_zone: str, gaming_day_starts: str) -> GamingDayCalendar:
    """The gaming day starting at ``gaming_day_starts`` (``HH:MM``, local) in ``time_zone``, with
    three shifts of 8 hours from it: the table's (``calendar_of``) and the floor's reports'."""
    hours, minutes = (int(part) for part in gaming_day_starts.split(":"))
    start = time(hours, minutes)
    first = datetime.combine(date(2000, 1, 1), start)
    shifts = tuple(
        ShiftStart(name, (first + timedelta(hours=8 * index)).time())
        for index, name in enumerate(SHIFT_NAMES)
    )
    return GamingDayCalendar(zone=time_zone, day_start=start, shifts=shifts)


@dataclass(frozen=True, slots=True)
class Desk:
    """What the commands need of the table's settings, built once."""

    table_id: str
    pit: str | None
    calendar: GamingDayCalendar
    chip_set: ChipSet
    alert_above: int

    @classmethod
    def of(cls, settings: TableSettings) -> Desk:
        return cls(
            table_id=settings.table_id,
            pit=settings.pit,
            calendar=calendar_of(settings),
            chip_set=ChipSet(tuple(settings.accounting.denominations)),
            alert_above=settings.accounting.alert_above_cents,
        )

    def period(self, day: date, shift: str | None) -> Period:
        """The gaming day, or one of its shifts (an unknown shift: GamingDayConfigError)."""
        return self.calendar.day_period(day) if shift is None else self.calendar.shift_period(day, shift)

    def today(self, now: datetime) -> date:
        return self.calendar.gaming_day_of(now)


def desk_command(
    engine: Engine,
    table_id: str,
    desk: str,
    what: str,
    actor: str,
    work: Callable[[Session], T],
    *,
    passed_on: tuple[type[Exception], ...] = (),
    **data: Any,
) -> T:
    """``work`` in one transaction for a desk of the table (``accounting``, ``rating``): done is
    logged as ``DESK.WHAT``; a refusal of the core or the store is logged as ``DESK.refused`` and
    raised, nothing written; an outage, and the errors ``passed_on`` (the caller's to tell), are
    raised as they are."""
    try:
        with unit_of_work(engine) as session:
            done = work(session)
    except (AccountingError, StorageError) as error:
        if isinstance(error, passed_on) or (isinstance(error, StorageError) and is_outage(error)):
            raise
        log.warning(
            f"{desk}.refused",
            what=what,
            actor=actor,
            table_id=table_id,
            error=type(error).__name__,
            detail=str(error),
            **data,
        )
        raise
    log.info(f"{desk}.{what}", actor=actor, table_id=table_id, **data)
    return done


def _command(
    engine: Engine, desk: Desk, what: str, actor: str, work: Callable[[Session], T], **data: Any
) -> T:
    """``desk_command`` for the accounting; a two-person refusal is chained as well (approvals)."""
    from .approvals import refuse  # the approvals' module holds the service: imported when used

    try:
        return desk_command(
            engine, desk.table_id, "accounting", what, actor, work, passed_on=(TwoPersonRefusedError,), **data
        )
    except TwoPersonRefusedError as error:
        raise refuse(
            engine, desk.table_id, actor=actor, error=error, round_id=None, what=what, **data
        ) from None


# --------------------------------------------------------------------------- commands


def enter_count(
    engine: Engine,
    desk: Desk,
    *,
    kind: CountKind,
    day: date,
    shift: str | None,
    chips: dict[int, int],
    supervisor: str,
    dealer: str,
) -> store.CountRecord:
    """The pit supervisor enters an opener or closer naming the dealer who signs it next."""
    desk.period(day, shift)  # an unknown shift is refused before anything
    return _command(
        engine,
        desk,
        "count_entered",
        supervisor,
        lambda session: store.enter_count(
            session,
            table_id=desk.table_id,
            kind=kind,
            day=day,
            shift=shift,
            chips=Chips.of(chips),
            chip_set=desk.chip_set,
            supervisor=supervisor,
            dealer=dealer,
        ),
        kind=kind.value,
        gaming_day=day.isoformat(),
    )


def sign_count(engine: Engine, desk: Desk, *, count_id: int, signer: str) -> store.CountRecord:
    return _command(
        engine,
        desk,
        "count_signed",
        signer,
        lambda session: store.sign_count(session, table_id=desk.table_id, count_id=count_id, signer=signer),
        count_id=count_id,
    )


def request_slip(
    engine: Engine, desk: Desk, *, kind: SlipKind, chips: dict[int, int], requested_by: str
) -> store.SlipRecord:
    return _command(
        engine,
        desk,
        "slip_requested",
        requested_by,
        lambda session: store.request_fill_or_credit(
            session,
            table_id=desk.table_id,
            kind=kind,
            chips=Chips.of(chips),
            chip_set=desk.chip_set,
            requested_by=requested_by,
        ),
        kind=kind.value,
    )


def deliver_slip(
    engine: Engine, desk: Desk, *, number: int, runner: str, table_signer: str
) -> store.SlipRecord:
    return _command(
        engine,
        desk,
        "slip_delivered",
        table_signer,
        lambda session: store.deliver_slip(
            session, table_id=desk.table_id, number=number, runner=runner, table_signer=table_signer
        ),
        number=number,
    )


def ask_void(engine: Engine, desk: Desk, *, number: int, asked_by: str, reason: str) -> store.SlipRecord:
    return _command(
        engine,
        desk,
        "slip_void_asked",
        asked_by,
        lambda session: store.ask_void(
            session, table_id=desk.table_id, number=number, asked_by=asked_by, reason=reason
        ),
        number=number,
    )


def confirm_void(engine: Engine, desk: Desk, *, number: int, approved_by: str) -> store.SlipRecord:
    return _command(
        engine,
        desk,
        "slip_voided",
        approved_by,
        lambda session: store.confirm_void(
            session, table_id=desk.table_id, number=number, approved_by=approved_by
        ),
        number=number,
    )


def enter_drop(
    engine: Engine,
    desk: Desk,
    *,
    day: date,
    shift: str | None,
    kind: DropKind,
    amount: int,
    reference: str | None,
    entered_by: str,
) -> list[store.DropRecord]:
    """A drop amount entered from the soft count, or a marker recorded when issued at the table."""
    desk.period(day, shift)
    entry = DropEntry(
        table_id=desk.table_id,
        day=day,
        shift=shift,
        kind=kind,
        amount=amount,
        source=DropSource.TABLE if kind is DropKind.MARKER else DropSource.SOFT_COUNT,
        reference=reference,
    )
    return _command(
        engine,
        desk,
        "drop_entered",
        entered_by,
        lambda session: store.add_drop(
            session, table_id=desk.table_id, entries=[entry], entered_by=entered_by
        ),
        gaming_day=day.isoformat(),
        kind=kind.value,
        amount_cents=amount,
    )


@dataclass(frozen=True, slots=True)
class Imported:
    """A count room file imported: its SHA-256, this table's entries, the lines of other tables."""

    sha256: str
    entries: list[store.DropRecord]
    other_tables: int


def import_count_file(engine: Engine, desk: Desk, *, text: str, entered_by: str) -> Imported:
    """The count room's CSV file (accounting/count_file.py): taken whole or refused whole
    (CountFileError names every bad line); this table's lines are kept, with the file's
    SHA-256 and each line's number; a file with none of them is refused."""
    entries = parse_count_file(text, shifts=[s.name for s in desk.calendar.shifts])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    numbered = [(line, entry) for line, entry in _numbered(text, entries) if entry.table_id == desk.table_id]
    if not numbered:
        raise InvalidFieldError(f"the count room file has no line of table {desk.table_id}")
    source = store.CountFileSource(digest, [line for line, _ in numbered])
    kept = [replace(entry, source=DropSource.COUNT_FILE) for _, entry in numbered]
    records = _command(
        engine,
        desk,
        "count_file_imported",
        entered_by,
        lambda session: store.add_drop(
            session, table_id=desk.table_id, entries=kept, entered_by=entered_by, source_file=source
        ),
        file_sha256=digest,
        lines=len(kept),
    )
    return Imported(digest, records, len(entries) - len(numbered))


def _numbered(text: str, entries: tuple[DropEntry, ...]) -> list[tuple[int, DropEntry]]:
    """Each entry with its line number in the file (the header is line 1; empty lines skipped,
    as parse_count_file skips them)."""
    lines = [n for n, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1) if line.strip()][
        1:
    ]
    if len(lines) != len(entries):  # a quoted field across lines: the numbers are the entries' order
        return list(enumerate(entries, start=2))
    return list(zip(lines, entries, strict=True))


def enter_line(
    engine: Engine, desk: Desk, *, day: date, shift: str | None, name: str, amount: int, entered_by: str
) -> store.LineRecord:
    """A named variance line: money the counted win holds that no round does (+ the tray or the
    drop gained, - it lost), from the house's side."""
    desk.period(day, shift)
    line = NamedLine(name=name, amount=amount, entered_by=entered_by)
    return _command(
        engine,
        desk,
        "line_entered",
        entered_by,
        lambda session: store.add_line(session, table_id=desk.table_id, day=day, shift=shift, line=line),
        gaming_day=day.isoformat(),
        amount_cents=amount,
    )


# --------------------------------------------------------------------------- the day's figures


@dataclass(frozen=True, slots=True)
class DayAccounting:
    """A table's gaming day (or shift) as the pit reads it. ``account`` and ``reconciliation``
    are None until the period has a signed opener and a signed closer (``missing`` says what)."""

    table_id: str
    period: Period
    counts: list[store.CountRecord]
    slips: list[store.SlipRecord]
    drop: list[store.DropRecord]
    lines: list[store.LineRecord]
    rounds: list[SettledRound]
    account: TableAccount | None
    theory: Theory
    reconciliation: Reconciliation | None
    reconciled: list[store.ReconciliationRecord]
    missing: list[str]


def _signed(counts: list[store.CountRecord], kind: CountKind) -> store.CountRecord | None:
    return next((c for c in counts if c.kind is kind and c.signed_at is not None), None)


def day_accounting(session: Session, desk: Desk, *, day: date, shift: str | None) -> DayAccounting:
    """Put the period together from the store (one read snapshot)."""
    period = desk.period(day, shift)
    counts = store.counts_of(session, table_id=desk.table_id, day=day, shift=shift)
    slips = store.slips_between(session, table_id=desk.table_id, start=period.start, end=period.end)
    drop = store.drop_of_day(session, table_id=desk.table_id, day=day)
    lines = store.lines_of(session, table_id=desk.table_id, day=day, shift=shift)
    rounds = store.settled_rounds(session, table_id=desk.table_id, start=period.start, end=period.end)
    opener, closer = _signed(counts, CountKind.OPENER), _signed(counts, CountKind.CLOSER)
    missing = [
        kind.value
        for kind, count in ((CountKind.OPENER, opener), (CountKind.CLOSER, closer))
        if count is None
    ]
    account = reconciliation = None
    if opener is not None and closer is not None:
        account = account_table(
            table_id=desk.table_id,
            pit=desk.pit,
            period=period,
            opener=opener.inventory(desk.chip_set),
            closer=closer.inventory(desk.chip_set),
            slips=[record.slip for record in slips],
            drop=[record.entry for record in drop],
        )
        reconciliation = reconcile(
            account, rounds, [record.line for record in lines], period=period, alert_above=desk.alert_above
        )
    drop_total = account.drop.total if account is not None else 0
    return DayAccounting(
        table_id=desk.table_id,
        period=period,
        counts=counts,
        slips=slips,
        drop=drop,
        lines=lines,
        rounds=rounds,
        account=account,
        theory=theory_of(rounds, drop=drop_total),
        reconciliation=reconciliation,
        reconciled=store.reconciliations_of(session, table_id=desk.table_id, day=day, shift=shift),
        missing=missing,
    )


def reconcile_day(
    engine: Engine, desk: Desk, *, day: date, shift: str | None, reconciled_by: str
) -> tuple[DayAccounting, store.ReconciliationRecord]:
    """Reconcile the period now and keep it, chained; a variance above ``alert_above`` raises
    the ``accounting-variance`` alert. Refused while the opener or the closer is not signed."""

    def work(session: Session) -> tuple[DayAccounting, store.ReconciliationRecord]:
        store_lock(session)
        found = day_accounting(session, desk, day=day, shift=shift)
        if found.account is None or found.reconciliation is None:
            raise store.AccountingConflictError(
                f"{day.isoformat()} {shift or 'day'} cannot be reconciled yet: no signed "
                + " and no signed ".join(found.missing)
            )
        kept = store.record_reconciliation(
            session, reconciliation=found.reconciliation, account=found.account, reconciled_by=reconciled_by
        )
        kept_all = store.reconciliations_of(session, table_id=desk.table_id, day=day, shift=shift)
        return replace(found, reconciled=kept_all), kept

    def store_lock(session: Session) -> None:
        from ..storage.audit import lock_table

        lock_table(session, table_id=desk.table_id)  # the figures read and kept under one lock

    found, kept = _command(engine, desk, "day_reconciled", reconciled_by, work, gaming_day=day.isoformat())
    if kept.alert_seq is not None:
        log.warning(
            "accounting.variance_alert",
            table_id=desk.table_id,
            gaming_day=day.isoformat(),
            variance_cents=kept.variance,
            alert_seq=kept.alert_seq,
        )
    return found, kept


__all__ = [
    "DayAccounting",
    "Desk",
    "Imported",
    "ask_void",
    "calendar_from",
    "calendar_of",
    "confirm_void",
    "day_accounting",
    "deliver_slip",
    "enter_count",
    "enter_drop",
    "enter_line",
    "import_count_file",
    "reconcile_day",
    "request_slip",
    "sign_count",
]
