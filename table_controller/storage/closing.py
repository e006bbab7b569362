"""The sums behind the accounting in the day and shift reports, for any number of tables in a
fixed number of grouped SELECTs (docs/accounting.md, "The day in the reports").

For each table of a gaming day (or one of its shifts): the signed opener and closer, the fills
and credits delivered in the period and not voided, the drop of the day (of the shift: its
entries), the named lines of the period, and the settled rounds opened in the period: their
house result (the controller's computed result) and the theoretical win and variance of those
that carry one (reports.py's ``_theory_columns``, the reports' one definition). The same rules
as a table's own day (table/accounting.py's ``day_accounting``, accounting/win.py's
``account_table``), summed in the query rather than read row by row: a test holds the two to
the same figures. Integer cents; the figures are built by accounting/closing.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.sql.expression import ColumnElement
from sqlmodel import Session

from ..accounting.chips import CountKind
from ..accounting.closing import DayFigures, table_figures
from ..accounting.drop import DropKind
from ..accounting.ratings import Rating
from ..accounting.slips import SlipKind
from .accounting import AccountingCount, AccountingDrop, AccountingLine, AccountingSlip
from .models import BANKER_POSITION
from .ratings import RatingRow
from .reports import POSITION_ROWS, ROUNDS, _count, _settled_only, _theory_columns, theory_of

COUNTS = AccountingCount.__table__  # type: ignore[attr-defined]
SLIPS = AccountingSlip.__table__  # type: ignore[attr-defined]
DROP = AccountingDrop.__table__  # type: ignore[attr-defined]
LINES = AccountingLine.__table__  # type: ignore[attr-defined]


def _of_period(table: Any, day: date, shift: str | None) -> tuple[Any, ...]:
    """The rows kept for (day, shift): the day's own (shift NULL) or that shift's."""
    c = table.c
    return (c.gaming_day == day, c.shift.is_(None) if shift is None else c.shift == shift)


def closing_figures(
    session: Session,
    *,
    table_ids: Iterable[str],
    day: date,
    shift: str | None,
    start: datetime,
    end: datetime,
) -> dict[str, DayFigures]:
    """Each table's ``DayFigures`` of gaming day ``day`` (or its ``shift``) whose instants are
    ``[start, end)``: five grouped SELECTs whatever the number of tables."""
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    counts: dict[tuple[str, str], int] = {}
    for table_id, kind, value in session.execute(
        select(COUNTS.c.table_id, COUNTS.c.kind, COUNTS.c.value_cents)
        .where(COUNTS.c.table_id.in_(ids), *_of_period(COUNTS, day, shift), COUNTS.c.signed_at.is_not(None))
        .order_by(COUNTS.c.id)
    ).all():
        counts.setdefault((table_id, kind), int(value))  # one count of a kind: the store refuses a second
    slips: dict[tuple[str, str], int] = {
        (table_id, kind): int(total)
        for table_id, kind, total in session.execute(
            select(SLIPS.c.table_id, SLIPS.c.kind, func.sum(SLIPS.c.value_cents))
            .where(
                SLIPS.c.table_id.in_(ids),
                SLIPS.c.delivered_at >= start,
                SLIPS.c.delivered_at < end,
                SLIPS.c.voided_at.is_(None),
            )
            .group_by(SLIPS.c.table_id, SLIPS.c.kind)
        ).all()
    }
    drop_where = [DROP.c.table_id.in_(ids), DROP.c.gaming_day == day]
    if shift is not None:  # a shift's drop is its own entries; the day's, every entry of the day
        drop_where.append(DROP.c.shift == shift)
    drop: dict[tuple[str, str], int] = {
        (table_id, kind): int(total)
        for table_id, kind, total in session.execute(
            select(DROP.c.table_id, DROP.c.kind, func.sum(DROP.c.amount_cents))
            .where(*drop_where)
            .group_by(DROP.c.table_id, DROP.c.kind)
        ).all()
    }
    lines: dict[str, int] = {
        table_id: int(total)
        for table_id, total in session.execute(
            select(LINES.c.table_id, func.sum(LINES.c.amount_cents))
            .where(LINES.c.table_id.in_(ids), *_of_period(LINES, day, shift))
            .group_by(LINES.c.table_id)
        ).all()
    }
    r = ROUNDS.c
    rounds: dict[str, tuple[int, int, dict[str, Any]]] = {}
    for row in session.execute(
        select(
            r.table_id,
            _count(r.phase == "closed"),
            _settled_only(r.house_result_cents),
            *_theory_columns(),
        )
        .where(r.table_id.in_(ids), r.opened_at >= start, r.opened_at < end)
        .group_by(r.table_id)
    ).all():
        rounds[row[0]] = (int(row[1]), int(row[2]), theory_of(tuple(row[3:])))
    found = {}
    for table_id in ids:
        settled, computed, theory = rounds.get(table_id, (0, 0, theory_of((0, 0, 0, None, None))))
        found[table_id] = table_figures(
            table_id,
            opener=counts.get((table_id, CountKind.OPENER.value)),
            closer=counts.get((table_id, CountKind.CLOSER.value)),
            fills=slips.get((table_id, SlipKind.FILL.value), 0),
            credits=slips.get((table_id, SlipKind.CREDIT.value), 0),
            drop_cash=drop.get((table_id, DropKind.CASH.value), 0),
            drop_markers=drop.get((table_id, DropKind.MARKER.value), 0),
            explained=lines.get(table_id, 0),
            settled_rounds=settled,
            computed_result=computed,
            theoretical_rounds=theory["theoretical_rounds"],
            covered_result=theory["covered_house_result_cents"],
            theoretical_win=theory["theoretical_win_cents"],
            theoretical_variance=theory["theoretical_variance"],
        )
    return found


# --- the ratings computed again from the record ---------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingFromRounds:
    """A rating's figures computed from the settled rounds its seat played in its window
    (start to end; an open rating: to its last activity), in the query: the rounds, the main
    and bonus wagers, the actual win (minus the seat's nets) and the theoretical win (each
    round's split among its seats by wagers, largest remainder, as accounting/ratings.py's
    ``apportion``), and how many of those rounds carried one; the rounds it banked and the
    bank's actual win (minus the player-banker's net, ``banker_result_cents``)."""

    rounds: int = 0
    main_wagered: int = 0
    bonus_wagered: int = 0
    actual_win: int = 0
    theoretical_win: int = 0
    theoretical_rounds: int = 0
    banks: int = 0
    bank_actual_win: int = 0

    def matches(self, rating: Rating) -> bool:
        """The rating's recorded figures (before any adjustment) are these."""
        return (
            self.rounds,
            self.main_wagered,
            self.bonus_wagered,
            self.actual_win,
            self.theoretical_win,
            self.theoretical_rounds,
            self.banks,
            self.bank_actual_win,
        ) == (
            rating.rounds,
            rating.main_wagered,
            rating.bonus_wagered,
            rating.actual_win,
            rating.theoretical_win,
            rating.theoretical_rounds,
            rating.banks,
            rating.bank_actual_win,
        )


def _floor_mod(a: ColumnElement[Any], b: ColumnElement[Any]) -> ColumnElement[Any]:
    """``a mod b`` as Python's ``%`` for ``b > 0`` (SQL's ``%`` keeps the dividend's sign)."""
    return ((a % b) + b) % b


def ratings_from_rounds(
    session: Session, *, table_ids: Iterable[str], start: datetime, end: datetime
) -> dict[str, RatingFromRounds]:
    """Each rating of ``table_ids`` started in ``[start, end)`` computed again from the rounds,
    in one SELECT aggregating in the query: the settled rounds' player positions (a
    player-banked round's positions turned into seats, game/banking.py's ``seat_of_position``),
    each round's theoretical win split among its seats by window functions (floor of
    theoretical x wager / all wagers, the cents left to the largest remainders, ties to the
    lower seat), joined to the rating holding that seat when the round settled; and one more
    for the rounds each rating's seat banked."""
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    r, p, g = ROUNDS.c, POSITION_ROWS.c, RatingRow.__table__.c  # type: ignore[attr-defined]
    of_day = (g.table_id.in_(ids), g.started_at >= start, g.started_at < end)
    until = func.coalesce(g.ended_at, g.last_at)
    # the ratings are joined as the table itself (not a CTE), so its (table_id, ...) index finds a
    # round's rating: a CTE would be scanned once per seat row
    first, last = (
        select(func.min(g.started_at)).where(*of_day).scalar_subquery(),
        select(func.max(until)).where(*of_day).scalar_subquery(),
    )
    bonus = p.big_hand_bonus_cents + p.joker_bonus_cents
    seat = case((r.banker_seat.is_(None), p.position), else_=(r.banker_seat + p.position - 2) % 7 + 1)
    seats = (
        select(
            r.round_id,
            r.table_id,
            r.closed_at,
            r.theoretical_win_cents.label("theory"),
            seat.label("seat"),
            p.wager_cents.label("main"),
            bonus.label("bonus"),
            p.net_cents.label("net"),
            func.sum(p.wager_cents + bonus).over(partition_by=r.round_id).label("whole"),
        )
        .join(POSITION_ROWS, p.round_id == r.round_id)
        .where(
            r.table_id.in_(ids),
            r.phase == "closed",
            r.closed_at >= first,
            r.closed_at <= last,
            p.position != BANKER_POSITION,
            p.house_hand.is_(False),
        )
        .cte("day_seats")
    )
    s = seats.c
    product = s.theory * (s.main + s.bonus)
    has_share = s.theory.is_not(None) & (s.whole > 0)
    remainder = case((has_share, _floor_mod(product, s.whole)), else_=0)
    # exact: product - (product mod whole) is a multiple of whole, so the division never rounds
    base = case((has_share, (product - _floor_mod(product, s.whole)) // s.whole), else_=0)
    split = select(
        s.round_id,
        s.table_id,
        s.closed_at,
        s.seat,
        s.main,
        s.bonus,
        s.net,
        s.theory,
        base.label("base"),
        func.sum(base).over(partition_by=s.round_id).label("based"),
        func.row_number().over(partition_by=s.round_id, order_by=(remainder.desc(), s.seat)).label("place"),
    ).cte("day_split")
    t = split.c
    share = t.base + case((t.theory.is_not(None) & (t.place <= t.theory - t.based), 1), else_=0)
    rows = session.execute(
        select(
            g.rating_id,
            func.count(),
            func.sum(t.main),
            func.sum(t.bonus),
            -func.sum(t.net),
            func.sum(share),
            _count(t.theory.is_not(None)),
        )
        .select_from(split)
        .join(
            RatingRow.__table__,  # type: ignore[attr-defined]
            (g.table_id == t.table_id)
            & (g.seat == t.seat)
            & (t.closed_at >= g.started_at)
            & (t.closed_at <= until),
        )
        .where(*of_day)
        .group_by(g.rating_id)
    ).all()
    found = {row[0]: RatingFromRounds(*(int(value or 0) for value in row[1:])) for row in rows}
    on_seat = (g.table_id == r.table_id) & (g.seat == r.banker_seat)
    in_window = (r.closed_at >= g.started_at) & (r.closed_at <= until)
    for rating_id, banks, bank_win in session.execute(
        select(g.rating_id, func.count(), -func.sum(func.coalesce(r.banker_result_cents, 0)))
        .select_from(ROUNDS)
        .join(RatingRow.__table__, on_seat & in_window)  # type: ignore[attr-defined]
        .where(*of_day, r.table_id.in_(ids), r.phase == "closed", r.banker_seat.is_not(None))
        .group_by(g.rating_id)
    ).all():
        found[rating_id] = replace(
            found.get(rating_id, RatingFromRounds()), banks=int(banks), bank_actual_win=int(bank_win or 0)
        )
    return found


__all__ = ["RatingFromRounds", "closing_figures", "ratings_from_rounds"]
