"""The table's dealers: signing in to the box (relieving the dealer on it), signing out, and
the pace of the gaming day (docs/dealers.md).

Each command is one transaction through storage/dealers.py (``desk_command``): a refusal leaves
nothing written and is logged (``dealer.refused``). ``day_pace`` reads the gaming day's stints
and hands (settled rounds by the dealer each recorded) in one read snapshot and puts them
together with the accounting core's ``pace`` (accounting/dealers.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..accounting.dealers import TablePace, pace
from ..accounting.gaming_day import GamingDayCalendar, Period
from ..settings import TableSettings
from ..storage import dealers as store
from ..storage.audit import head_of_chain
from .accounting import calendar_of, desk_command


@dataclass(frozen=True, slots=True)
class DealerDesk:
    """What the dealers' commands need of the table's settings, built once."""

    table_id: str
    calendar: GamingDayCalendar

    @classmethod
    def of(cls, settings: TableSettings) -> DealerDesk:
        return cls(table_id=settings.table_id, calendar=calendar_of(settings))

    def today(self, now: datetime) -> date:
        return self.calendar.gaming_day_of(now)


def sign_in(
    engine: Engine, desk: DealerDesk, *, dealer: str, by: str
) -> tuple[store.StintRecord, store.StintRecord | None]:
    """``dealer`` signs in to the box, relieving the dealer on it (the push)."""
    return desk_command(
        engine,
        desk.table_id,
        "dealer",
        "signed_in",
        by,
        lambda session: store.sign_in(session, table_id=desk.table_id, dealer=dealer, by=by),
        dealer=dealer,
    )


def sign_out(engine: Engine, desk: DealerDesk, *, by: str) -> store.StintRecord:
    """The dealer on the box leaves it, nobody relieving them."""
    return desk_command(
        engine,
        desk.table_id,
        "dealer",
        "signed_out",
        by,
        lambda session: store.sign_out(session, table_id=desk.table_id, by=by),
    )


@dataclass(frozen=True, slots=True)
class DayPace:
    """A gaming day's dealers at the table: the dealer on the box now, the day's stints and the
    pace (each dealer's and the table's hands per hour) up to ``now``."""

    table_id: str
    period: Period
    now: datetime
    on_box: store.StintRecord | None
    stints: list[store.StintRecord]
    pace: TablePace


def day_pace(
    session: Session, desk: DealerDesk, *, day: date | None = None, now: datetime | None = None
) -> DayPace:
    """The gaming day ``day`` (default: the one now) up to ``now``, or to its end if it is over."""
    moment = now or datetime.now(UTC)
    period = desk.calendar.day_period(day if day is not None else desk.today(moment))
    until = min(moment, period.end)
    stints = store.stints_between(session, table_id=desk.table_id, start=period.start, end=until)
    hands = store.hands_by_dealer(session, table_id=desk.table_id, start=period.start, end=until)
    found = pace([record.stint for record in stints], hands, start=period.start, end=max(until, period.start))
    # the open stint is on the box now; it lies in a period that reaches now (one read fewer)
    box = next((r for r in stints if r.stint.end is None), None) if until == moment else None
    return DayPace(
        table_id=desk.table_id,
        period=period,
        now=moment,
        on_box=box if until == moment else store.on_box(session, table_id=desk.table_id),
        stints=stints,
        pace=found,
    )


class DayPaceReader:
    """``day_pace`` for today, read from the store again only when the table's chain moved or
    the gaming day turned: every stint and every settled round is written with an event of the
    table's chain (storage/dealers.py, record/recorder.py), so an unchanged chain head means
    unchanged stints and hands. The pace itself is computed for ``now`` each time (it runs with
    the clock). One per table's API: every terminal polls ``GET /api/table``
    (benchmarks/bench_dealers.py)."""

    def __init__(self, desk: DealerDesk) -> None:
        self.desk = desk
        self._kept: tuple[int, date, DayPace] | None = None
        self._lock = threading.Lock()

    def read(self, session: Session, *, now: datetime | None = None) -> DayPace:
        moment = now or datetime.now(UTC)
        day = self.desk.today(moment)
        head = head_of_chain(session, table_id=self.desk.table_id)
        seq = 0 if head is None else head.last_seq
        with self._lock:
            kept = self._kept
        if kept is None or kept[:2] != (seq, day):
            found = day_pace(session, self.desk, day=day, now=moment)
            with self._lock:
                self._kept = (seq, day, found)
            return found
        found = kept[2]
        until = min(moment, found.period.end)
        again = pace(
            [record.stint for record in found.stints],
            {p.dealer: p.hands for p in found.pace.dealers if p.dealer is not None and p.hands},
            start=found.period.start,
            end=max(until, found.period.start),
        )
        return replace(found, now=moment, pace=again)


__all__ = ["DayPace", "DayPaceReader", "DealerDesk", "day_pace", "sign_in", "sign_out"]
