"""The record's rows exactly as stored, for the whole check of the record (record/check.py).

The rest of storage answers with the Public models; the check compares the chain with the rows
themselves (the table models: ``Round``, ``RoundPosition``, ``User``, ``Evidence``), whatever an
edit behind the store's back left in them. Nothing here writes.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import Text, select, type_coerce
from sqlmodel import Session, SQLModel, col

from .audit import stored_time_text
from .models import Round, RoundPosition, UTCDateTime
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


def unreadable_times(session: Session) -> list[tuple[str, str, str, str]]:
    """(table, row key, column, stored text) of every stored time outside ``events`` that is not
    a time the store writes (SQLite keeps times as text: ``YYYY-MM-DD HH:MM:SS.ffffff``, UTC).

    A forged text (a zone, a suffix) would stop every ORM read of its row; the whole check of
    the record names it here instead, by its table and key (docs/audit-chain.md, "Strict
    verification"). ``events`` rows are named by the chain's own walk (audit.verify_chain).
    On PostgreSQL a ``timestamptz`` holds no text: nothing to find."""
    if session.get_bind().dialect.name != "sqlite":
        return []
    found: list[tuple[str, str, str, str]] = []
    for table in sorted(SQLModel.metadata.tables.values(), key=lambda t: t.name):
        times = [c for c in table.columns if isinstance(c.type, UTCDateTime)]
        if table.name == "events" or not times:
            continue
        keys = list(table.primary_key.columns)
        raw = [type_coerce(c, Text).label(c.name) for c in times]
        for row in session.execute(select(*keys, *raw)):
            key = "/".join(str(value) for value in row[: len(keys)])
            for column, text in zip(times, row[len(keys) :], strict=True):
                if text is None:
                    continue
                try:
                    stored_time_text(text)
                except ValueError:
                    found.append((table.name, key, column.name, str(text)))
    return found


__all__ = ["evidence_rows", "round_projections", "unreadable_times", "user_rows"]
