"""The table's dealers: signing in to the box (relieving the dealer on it), signing out, and
the pace of the gaming day (docs/dealers.md).

Each command is one transaction through storage/dealers.py (``desk_command``): a refusal leaves
nothing written and is logged (``dealer.refused``). ``day_pace`` reads the gaming day's stints
and hands (settled rounds by the dealer each recorded) in one read snapshot and puts them
together with the accounting core's ``pace`` (accounting/dealers.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..accounting.dealers import TablePace, pace
from ..accounting.gaming_day import GamingDayCalendar, Period
from ..settings import TableSettings
from ..storage import dealers as store
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
    return DayPace(
        table_id=desk.table_id,
        period=period,
        now=moment,
        on_box=store.on_box(session, table_id=desk.table_id),
        stints=stints,
        pace=found,
    )


__all__ = ["DayPace", "DealerDesk", "day_pace", "sign_in", "sign_out"]
