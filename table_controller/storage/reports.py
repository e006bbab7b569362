"""The sums behind shift and day reports, from the round projections (docs/api.md, "Reports").

A round belongs to the period in which it was opened (``ix_rounds_table_opened_at``). Money is
summed over settled rounds only (a voided round, a misdeal included, returns its wagers);
rounds still running are counted as in progress. Integer cents throughout, no rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlmodel import Session

from .models import BANKER_POSITION, Round, RoundPosition

ROUNDS = Round.__table__  # type: ignore[attr-defined]
POSITIONS = RoundPosition.__table__  # type: ignore[attr-defined]
GAME_FIELDS = ("game", "rounds", "settled", "voided", "in_progress", "wagered_cents", "bonus_wagered_cents",
               "commission_cents", "bonuses_paid_cents", "house_result_cents")
POSITION_FIELDS = ("position", "rounds", "wins", "pushes", "losses", "wagered_cents", "bonus_wagered_cents",
                   "commission_cents", "bonuses_paid_cents", "net_cents")


@dataclass(frozen=True)
class PeriodSums:
    """Per game and per player position, the counts and sums of one table's period."""

    per_game: list[dict[str, Any]]  # GAME_FIELDS, plus wins / pushes / losses of its positions
    per_position: list[dict[str, Any]]  # POSITION_FIELDS


def _sum(expression: object) -> object:
    return func.coalesce(func.sum(expression), 0)


def _settled_only(column: object) -> object:
    return _sum(case((ROUNDS.c.phase == "closed", column), else_=0))


def _count(condition: object) -> object:
    return _sum(case((condition, 1), else_=0))


def period_sums(session: Session, *, table_id: str, start: datetime, end: datetime) -> PeriodSums:
    """Three grouped SELECTs over the rounds opened in ``[start, end)``."""
    c, p = ROUNDS.c, POSITIONS.c
    in_period = (c.table_id == table_id, c.opened_at >= start, c.opened_at < end)
    per_game = [dict(zip(GAME_FIELDS, (row[0], *map(int, row[1:])))) for row in session.execute(
        select(
            c.game, func.count(), _count(c.phase == "closed"), _count(c.voided), _count(c.closed_at.is_(None)),
            _settled_only(c.wagered_cents), _settled_only(c.bonus_wagered_cents), _settled_only(c.commission_cents),
            _settled_only(c.bonuses_paid_cents), _settled_only(c.house_result_cents),
        ).where(*in_period).group_by(c.game).order_by(c.game)
    ).all()]
    outcomes = {
        game: {"wins": int(w), "pushes": int(pu), "losses": int(lo)} for game, w, pu, lo in session.execute(
            select(c.game, _count(p.outcome == "win"), _count(p.outcome == "push"), _count(p.outcome == "loss"))
            .join(POSITIONS, p.round_id == c.round_id).where(*in_period, c.phase == "closed").group_by(c.game)
        ).all()
    }
    for line in per_game:
        line.update(outcomes.get(line["game"], {"wins": 0, "pushes": 0, "losses": 0}))
    per_position = [dict(zip(POSITION_FIELDS, map(int, row))) for row in session.execute(
        select(
            p.position, func.count(), _count(p.outcome == "win"), _count(p.outcome == "push"),
            _count(p.outcome == "loss"), _sum(p.wager_cents), _sum(p.big_hand_bonus_cents + p.joker_bonus_cents),
            _sum(p.commission_cents), _sum(p.bonus_paid_cents), _sum(p.net_cents),
        ).join(ROUNDS, p.round_id == c.round_id)
        .where(*in_period, c.phase == "closed", p.position != BANKER_POSITION)
        .group_by(p.position).order_by(p.position)
    ).all()]
    return PeriodSums(per_game, per_position)


__all__ = ["PeriodSums", "period_sums"]
