"""Reads of a progressive pool's chain for its displays and its reports (docs/progressive.md,
"The meter page", "The day's reconciliation"): the events of the pool's chain up to a moment,
and those of some kinds after a seq. The chain and its projection are written by
storage/progressive.py alone; nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session, col, select

from .models import Event, EventPublic
from .progressive import pool_chain


def pool_chain_until(session: Session, *, pool_id: str, before: datetime) -> list[EventPublic]:
    """The pool's chain in order, every event written before ``before`` (an aware time): what a
    day's reconciliation walks, from the pool's creation to the day's end."""
    statement = (
        select(Event)
        .where(col(Event.table_id) == pool_chain(pool_id), col(Event.created_at) < before)
        .order_by(col(Event.seq))
    )
    return [EventPublic.model_validate(row, from_attributes=True) for row in session.exec(statement)]


def pool_events_of_kinds(
    session: Session, *, pool_id: str, kinds: Iterable[str], after_seq: int = 0
) -> list[EventPublic]:
    """The pool chain's events of ``kinds`` after ``after_seq``, in order (read off the
    ``(table_id, kind, seq)`` index): the hits and payments a display keeps up with."""
    statement = (
        select(Event)
        .where(
            col(Event.table_id) == pool_chain(pool_id),
            col(Event.kind).in_(list(kinds)),
            col(Event.seq) > after_seq,
        )
        .order_by(col(Event.seq))
    )
    return [EventPublic.model_validate(row, from_attributes=True) for row in session.exec(statement)]


__all__ = ["pool_chain_until", "pool_events_of_kinds"]
