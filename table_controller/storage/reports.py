"""The sums behind shift and day reports, from the round projections (docs/api.md, "Reports").

A round belongs to the period in which it was opened (``ix_rounds_table_opened_at``). Money is
summed over settled rounds only (a voided round, a misdeal included, returns its wagers);
rounds still running are counted as in progress. Integer cents throughout, no rounding.

Theoretical win (docs/math.md, "Theoretical win and hold"): summed over the settled rounds that
carry one; a group where none does has None (missing), never 0. The band compares the actual
result of those same rounds (``covered_house_result_cents``) with theoretical ± 1.96 sqrt(sum of
variances): ``band`` (pure) and ``band_check`` (the day so far).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from sqlalchemy import case, func, literal, null, select
from sqlalchemy.sql.expression import ColumnElement
from sqlmodel import Session

from ..accounting.band import Band, band
from .models import BANKER_POSITION, Round, RoundPosition

ROUNDS = Round.__table__  # type: ignore[attr-defined]
POSITION_ROWS = RoundPosition.__table__  # type: ignore[attr-defined]
GAME_FIELDS = (
    "game",
    "rounds",
    "settled",
    "voided",
    "in_progress",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
)
THEORY_FIELDS = (
    "theoretical_rounds",
    "covered_wagered_cents",
    "covered_house_result_cents",
    "theoretical_win_cents",
    "theoretical_variance",
)  # the last two None when no round has one
SUM_FIELDS = GAME_FIELDS[1:]  # the counts and money of any group of rounds (``sum_columns``)
DEALER_FIELDS = ("dealer", *SUM_FIELDS)
POSITION_FIELDS = (
    "position",
    "rounds",
    "wins",
    "pushes",
    "losses",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "net_cents",
)
# Who banked (docs/settlement.md, 8): the house's own result apart from the player-bankers',
# and the commission by payer (the positions; the player-bankers on their net wins).
BANKER_FIELDS = (
    "banker",
    "rounds",
    "settled",
    "house_result_cents",
    "commission_cents",
    "bank_commission_cents",
    "banker_result_cents",
    "house_hand_result_cents",
)


@dataclass(frozen=True)
class PeriodSums:
    """Per game and per player position, the counts and sums of one table's period."""

    per_game: list[
        dict[str, Any]
    ]  # GAME_FIELDS and THEORY_FIELDS, plus wins / pushes / losses of its positions
    per_position: list[dict[str, Any]]  # POSITION_FIELDS
    per_dealer: list[dict[str, Any]]  # DEALER_FIELDS and THEORY_FIELDS, plus wins / pushes / losses
    per_banker: list[dict[str, Any]] = field(default_factory=list)  # BANKER_FIELDS: house, player


def _sum(expression: ColumnElement[Any]) -> ColumnElement[int]:
    return func.coalesce(func.sum(expression), 0)


def _settled_only(column: ColumnElement[Any]) -> ColumnElement[int]:
    return _sum(case((ROUNDS.c.phase == "closed", column), else_=0))


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return _sum(case((condition, 1), else_=0))


def _theory_columns() -> tuple[ColumnElement[Any], ...]:
    """THEORY_FIELDS of settled rounds: SUM of a nullable column is NULL when every value is."""
    c = ROUNDS.c
    covered = (c.phase == "closed") & c.theoretical_win_cents.is_not(None)
    return (
        _count(covered),
        _sum(case((covered, c.wagered_cents + c.bonus_wagered_cents), else_=0)),
        _sum(case((covered, c.house_result_cents), else_=0)),
        func.sum(case((covered, c.theoretical_win_cents), else_=null())),
        func.sum(case((covered, c.theoretical_variance), else_=null())),
    )


def theory_of(values: tuple[Any, ...]) -> dict[str, Any]:
    """THEORY_FIELDS by name from the values of ``_theory_columns`` (the nullable sums kept None)."""
    return {
        name: None if value is None else int(value) for name, value in zip(THEORY_FIELDS, values, strict=True)
    }


def sum_columns() -> tuple[ColumnElement[Any], ...]:
    """SUM_FIELDS then THEORY_FIELDS of the rounds a SELECT groups (the table's reports and the
    floor's, one definition): money of settled rounds only, counts of all."""
    c = ROUNDS.c
    return (
        func.count(),
        _count(c.phase == "closed"),
        _count(c.voided),
        _count(c.closed_at.is_(None)),
        _settled_only(c.wagered_cents),
        _settled_only(c.bonus_wagered_cents),
        _settled_only(c.commission_cents),
        _settled_only(c.bonuses_paid_cents),
        _settled_only(c.house_result_cents),
        *_theory_columns(),
    )


def _grouped(
    session: Session, key: Any, in_period: tuple[Any, ...], fields: tuple[str, ...]
) -> list[dict[str, Any]]:
    """Counts, money and theoretical win of the rounds grouped by ``key`` (game or dealer)."""
    c, p = ROUNDS.c, POSITION_ROWS.c
    width = len(fields)
    lines = []
    for row in session.execute(
        select(key, *sum_columns()).where(*in_period).group_by(key).order_by(key)
    ).all():
        line = dict(zip(fields, (row[0], *map(int, row[1:width])), strict=True))
        line.update(theory_of(tuple(row[width:])))
        lines.append(line)
    outcomes = {
        name: {"wins": int(w), "pushes": int(pu), "losses": int(lo)}
        for name, w, pu, lo in session.execute(
            select(key, _count(p.outcome == "win"), _count(p.outcome == "push"), _count(p.outcome == "lose"))
            .join(POSITION_ROWS, p.round_id == c.round_id)
            .where(*in_period, c.phase == "closed")
            .group_by(key)
        ).all()
    }
    for line in lines:
        line.update(outcomes.get(line[fields[0]], {"wins": 0, "pushes": 0, "losses": 0}))
    return lines


def period_sums(session: Session, *, table_id: str, start: datetime, end: datetime) -> PeriodSums:
    """Grouped SELECTs over the rounds opened in ``[start, end)``: per game, per dealer, per position."""
    c, p = ROUNDS.c, POSITION_ROWS.c
    in_period = (c.table_id == table_id, c.opened_at >= start, c.opened_at < end)
    per_game = _grouped(session, c.game, in_period, GAME_FIELDS)
    per_dealer = _grouped(session, c.dealer, in_period, DEALER_FIELDS)
    per_position = [
        dict(zip(POSITION_FIELDS, map(int, row), strict=True))
        for row in session.execute(
            select(
                p.position,
                func.count(),
                _count(p.outcome == "win"),
                _count(p.outcome == "push"),
                _count(p.outcome == "lose"),
                _sum(p.wager_cents),
                _sum(p.big_hand_bonus_cents + p.joker_bonus_cents),
                _sum(p.commission_cents),
                _sum(p.bonus_paid_cents),
                _sum(p.net_cents),
            )
            .join(ROUNDS, p.round_id == c.round_id)
            .where(*in_period, c.phase == "closed", p.position != BANKER_POSITION, p.house_hand.is_(False))
            .group_by(p.position)
            .order_by(p.position)
        ).all()
    ]
    return PeriodSums(per_game, per_position, per_dealer, _per_banker(session, in_period))


def _per_banker(session: Session, in_period: tuple[Any, ...]) -> list[dict[str, Any]]:
    """BANKER_FIELDS of the rounds the house banked and of those players banked."""
    c = ROUNDS.c
    banker = case((c.banker_seat.is_(None), literal("house")), else_=literal("player"))
    rows = session.execute(
        select(
            banker,
            func.count(),
            _count(c.phase == "closed"),
            _settled_only(c.house_result_cents),
            _settled_only(c.commission_cents),
            _settled_only(func.coalesce(c.bank_commission_cents, 0)),
            _settled_only(func.coalesce(c.banker_result_cents, 0)),
            _settled_only(func.coalesce(c.house_hand_result_cents, 0)),
        )
        .where(*in_period)
        .group_by(banker)
        .order_by(banker)
    ).all()
    return [dict(zip(BANKER_FIELDS, (row[0], *map(int, row[1:])), strict=True)) for row in rows]


# --- the band of the actual result around the theoretical win ----------------------------------


def band_of(line: dict[str, Any]) -> Band | None:
    """The band of a grouped line (THEORY_FIELDS); None when no round carries a theoretical win."""
    if line.get("theoretical_win_cents") is None:
        return None
    return band(
        rounds=line["theoretical_rounds"],
        actual_cents=line["covered_house_result_cents"],
        theoretical_cents=line["theoretical_win_cents"],
        variance=line["theoretical_variance"] or 0,
    )


def band_in(session: Session, *, table_id: str, start: datetime, end: datetime) -> Band | None:
    """The table's band over the rounds opened in ``[start, end)`` (one SELECT)."""
    c = ROUNDS.c
    row = session.execute(
        select(literal(1), *_theory_columns()).where(
            c.table_id == table_id, c.opened_at >= start, c.opened_at < end
        )
    ).one()
    return band_of(theory_of(tuple(row[1:])))


def today_bounds(zone: tzinfo, now: datetime | None = None) -> tuple[datetime, datetime]:
    """[start, end) in UTC of the day that ``now`` (default: this moment) falls on in ``zone``."""
    local = (now or datetime.now(UTC)).astimezone(zone)
    day: date = local.date()
    start = datetime.combine(day, time(), zone)
    end = datetime.combine(day + timedelta(days=1), time(), zone)
    return start.astimezone(UTC), end.astimezone(UTC)


def band_check(session: Session, *, table_id: str, zone: tzinfo, now: datetime | None = None) -> Band | None:
    """Today (in ``zone``) so far: the band of the actual result around the theoretical win.
    ``result.outside`` says whether the day is outside its 95% band; None when no round of the
    day carries a theoretical win yet."""
    start, end = today_bounds(zone, now)
    return band_in(session, table_id=table_id, start=start, end=end)


__all__ = [
    "SUM_FIELDS",
    "THEORY_FIELDS",
    "Band",
    "PeriodSums",
    "band",
    "band_check",
    "band_in",
    "band_of",
    "period_sums",
    "sum_columns",
    "theory_of",
    "today_bounds",
]
