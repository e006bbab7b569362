"""Shift and day reports from the round projections (docs/api.md).

A round belongs to the period in which it was opened (``ix_rounds_table_opened_at``). Money is
summed over settled rounds only (a voided round, a misdeal included, returns its wagers);
rounds still running are counted as in progress. Integer cents throughout, no rounding.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime

from sqlalchemy import case, func, select
from sqlmodel import Session

from ..storage.models import Round, RoundPosition
from .models.reports import CSV_COLUMNS, ReportLine, ReportPublic

ROUNDS = Round.__table__  # type: ignore[attr-defined]
POSITIONS = RoundPosition.__table__  # type: ignore[attr-defined]


def _sum(expression: object) -> object:
    return func.coalesce(func.sum(expression), 0)


def _settled_only(column: object) -> object:
    return _sum(case((ROUNDS.c.phase == "closed", column), else_=0))


def report(session: Session, *, table_id: str, kind: str, start: datetime, end: datetime,
           time_zone: str) -> ReportPublic:
    c, p = ROUNDS.c, POSITIONS.c
    in_period = (c.table_id == table_id, c.opened_at >= start, c.opened_at < end)
    per_game_rows = session.execute(
        select(
            c.game,
            func.count(),
            _sum(case((c.phase == "closed", 1), else_=0)),
            _sum(case((c.voided, 1), else_=0)),
            _sum(case((c.closed_at.is_(None), 1), else_=0)),
            _settled_only(c.wagered_cents),
            _settled_only(c.bonus_wagered_cents),
            _settled_only(c.commission_cents),
            _settled_only(c.bonuses_paid_cents),
            _settled_only(c.house_result_cents),
        ).where(*in_period).group_by(c.game).order_by(c.game)
    ).all()
    outcome_counts = {
        game: (int(w), int(pu), int(lo)) for game, w, pu, lo in session.execute(
            select(
                c.game,
                _sum(case((p.outcome == "win", 1), else_=0)),
                _sum(case((p.outcome == "push", 1), else_=0)),
                _sum(case((p.outcome == "loss", 1), else_=0)),
            ).join(POSITIONS, p.round_id == c.round_id).where(*in_period, c.phase == "closed").group_by(c.game)
        ).all()
    }
    per_game = []
    for game, rounds, settled, voided, running, wagered, bonus, commission, bonuses, house in per_game_rows:
        wins, pushes, losses = outcome_counts.get(game, (0, 0, 0))
        per_game.append(ReportLine(
            scope="game", game=game, rounds=int(rounds), settled=int(settled), voided=int(voided),
            in_progress=int(running), wins=wins, pushes=pushes, losses=losses, wagered_cents=int(wagered),
            bonus_wagered_cents=int(bonus), commission_cents=int(commission), bonuses_paid_cents=int(bonuses),
            house_result_cents=int(house)))
    per_position = []
    for position, played, w, pu, lo, wagered, bonus, commission, bonuses, net in session.execute(
        select(
            p.position,
            func.count(),
            _sum(case((p.outcome == "win", 1), else_=0)),
            _sum(case((p.outcome == "push", 1), else_=0)),
            _sum(case((p.outcome == "loss", 1), else_=0)),
            _sum(p.wager_cents),
            _sum(p.big_hand_bonus_cents + p.joker_bonus_cents),
            _sum(p.commission_cents),
            _sum(p.bonus_paid_cents),
            _sum(p.net_cents),
        ).join(ROUNDS, p.round_id == c.round_id)
        .where(*in_period, c.phase == "closed", p.position != 1)
        .group_by(p.position).order_by(p.position)
    ).all():
        per_position.append(ReportLine(
            scope="position", position=int(position), rounds=int(played), settled=int(played), voided=0,
            in_progress=0, wins=int(w), pushes=int(pu), losses=int(lo), wagered_cents=int(wagered),
            bonus_wagered_cents=int(bonus), commission_cents=int(commission), bonuses_paid_cents=int(bonuses),
            house_result_cents=-int(net)))
    fields = ("rounds", "settled", "voided", "in_progress", "wins", "pushes", "losses", "wagered_cents",
              "bonus_wagered_cents", "commission_cents", "bonuses_paid_cents", "house_result_cents")
    total = ReportLine(scope="total", **{name: sum(getattr(line, name) for line in per_game) for name in fields})
    return ReportPublic(table_id=table_id, kind=kind, start=start, end=end, time_zone=time_zone,  # type: ignore[arg-type]
                        total=total, per_game=per_game, per_position=per_position)


def report_csv(found: ReportPublic) -> str:
    """The report as CSV: one header line, then the total, each game, each position."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in (found.total, *found.per_game, *found.per_position):
        values = line.model_dump()
        writer.writerow(["" if values[name] is None else values[name] for name in CSV_COLUMNS])
    return out.getvalue()
