"""The record's rows exactly as stored, for the whole check of the record (record_check.py).

The rest of storage answers with the Public models; the check compares the chain with the rows
themselves (the table models: ``Round``, ``RoundPosition``, ``User``, ``Evidence``), whatever an
edit behind the store's back left in them. Nothing here writes.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select
from sqlmodel import Session, col

from .models import Round, RoundPosition
from .rules_store import Evidence
from .users import User


def round_projections(
    session: Session, *, table_id: str | None = None, round_ids: list[str] | None = None
) -> tuple[dict[str, Round], dict[str, dict[int, RoundPosition]]]:
    """The ``rounds`` rows by round id, and the ``round_positions`` rows by round id then
    position: every round, or the table's (``table_id``), or only ``round_ids``."""
    rounds_query = select(Round)
    positions_query = select(RoundPosition)
    if round_ids is not None:  # the newest rounds only (the check while playing): not the whole table
        rounds_query = rounds_query.where(col(Round.round_id).in_(round_ids))
        positions_query = positions_query.where(col(RoundPosition.round_id).in_(round_ids))
    if table_id is not None:
        rounds_query = rounds_query.where(col(Round.table_id) == table_id)
        positions_query = positions_query.join(
            Round, col(Round.round_id) == col(RoundPosition.round_id)
        ).where(col(Round.table_id) == table_id)
    rounds = {row.round_id: row for row in session.execute(rounds_query).scalars()}
    positions: dict[str, dict[int, RoundPosition]] = defaultdict(dict)
    for row in session.execute(positions_query).scalars():
        positions[row.round_id][row.position] = row
    return rounds, positions


def user_rows(session: Session) -> list[User]:
    """Every row of the ``users`` table, in no promised order."""
    return list(session.execute(select(User)).scalars())


def evidence_rows(session: Session) -> list[Evidence]:
    """Every stored rules content (the ``evidence`` table's rows), in no promised order."""
    return list(session.execute(select(Evidence)).scalars())


__all__ = ["evidence_rows", "round_projections", "user_rows"]
