"""A progressive pool in the store: its chain and its meters' projection, keyed by the pool's
id (docs/progressive.md, "The pool at the table").

Every record of the pool (a contribution, a batch of hits, a payment, a status change, an
adjustment) is an event of the pool's own chain, ``progressive.<pool id>``, appended in the
transaction of the step that made it (the round's ``dice.rolled`` for contributions, its
``round.settled`` for hits), and the ``progressive_pools`` row is the pool's state after it
(game/progressive_state.py), a projection ``audit verify`` re-derives from the chain. A
stand-alone pool has one table writing it; a linked pool on the floor's store (a later step)
keys the same chain and row by its id, and ``expect`` (the chain's seq the writer's copy was
derived at) refuses a write made from a stale copy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import BigInteger, Text
from sqlmodel import Field, Session, SQLModel, col, select

from .audit import append_event, list_events, lock_table
from .chain import TABLE_ID_MAX
from .errors import StorageError
from .models import Event, UTCDateTime

POOL_CHAIN_PREFIX: Final = "progressive."
POOL_ID_MAX: Final = TABLE_ID_MAX - len(POOL_CHAIN_PREFIX)


class PoolChangedError(StorageError):
    """The pool's chain moved on since the writer's copy was derived (another writer)."""


class ProgressivePool(SQLModel, table=True):
    """The ``progressive_pools`` projection: one row per pool, its state after its last event."""

    __tablename__ = "progressive_pools"

    pool_id: str = Field(primary_key=True, max_length=POOL_ID_MAX)
    open: bool = False
    last_seq: int = Field(default=0, sa_type=BigInteger)  # the pool chain's seq this state is at
    state: str = Field(sa_type=Text)  # JSON: game/progressive_state.pool_as_dict
    updated_at: datetime = Field(sa_type=UTCDateTime)


def pool_chain(pool_id: str) -> str:
    """The chain of a pool's events."""
    return POOL_CHAIN_PREFIX + pool_id


def is_pool_chain(chain: str) -> bool:
    return chain.startswith(POOL_CHAIN_PREFIX)


def pool_events(session: Session, *, pool_id: str) -> list[tuple[int, str, str, dict[str, Any]]]:
    """The pool's chain in order: (seq, kind, actor, payload)."""
    return [
        (event.seq, event.kind, event.actor, event.payload_data())
        for event in list_events(session, table_id=pool_chain(pool_id))
    ]


def stored_pool(session: Session, *, pool_id: str) -> ProgressivePool | None:
    return session.get(ProgressivePool, pool_id)


def pool_ids(session: Session) -> list[str]:
    return list(session.exec(select(ProgressivePool.pool_id).order_by(ProgressivePool.pool_id)))


def append_pool_events(
    session: Session,
    *,
    pool_id: str,
    events: Sequence[tuple[str, Mapping[str, Any]]],
    state: Mapping[str, Any] | None,
    actor: str,
    expect: int,
    round_id: str | None = None,
) -> int:
    """Append ``(kind, payload)`` events to the pool's chain and, when ``state`` is given, write
    the pool's state after them, in the caller's transaction; returns the chain's new seq.
    ``expect``: the seq the caller's copy of the pool is at (0: a new pool), else
    PoolChangedError and nothing is written."""
    row = lock_pool(session, pool_id=pool_id)
    at = 0 if row is None else row.last_seq
    if at != expect:
        raise PoolChangedError(f"pool {pool_id}: its chain is at seq {at}, the writer's copy at {expect}")
    seq = at
    for kind, payload in events:
        seq = append_event(
            session, table_id=pool_chain(pool_id), round_id=round_id, kind=kind, actor=actor, payload=payload
        ).seq
    if state is not None:
        now = datetime.now(UTC)
        text = json.dumps(state, sort_keys=True, separators=(",", ":"))
        if row is None:
            row = ProgressivePool(pool_id=pool_id, state=text, updated_at=now)
        row.open, row.state, row.last_seq, row.updated_at = bool(state["open"]), text, seq, now
        session.add(row)
    elif row is not None:
        row.last_seq = seq
        session.add(row)
    session.flush()
    return seq


# -- a linked pool (table/progressive_link.py): every writer under the pool row's lock ----------


def lock_pool(session: Session, *, pool_id: str) -> ProgressivePool | None:
    """The pool's row, locked for the rest of the transaction: the tables of a linked pool take
    turns on it, so each step starts from the state the last one left and no increment is lost.
    The pool chain's head is locked first (made if need be), then the row (``SELECT ... FOR
    UPDATE``): every writer of a pool takes the two in this order (its chain's appends take the
    head again), so two never wait on each other crosswise, and two tables starting at once
    create the pool once: the second waits, then finds the row. None when it has no row yet."""
    lock_table(session, table_id=pool_chain(pool_id))
    return session.get(ProgressivePool, pool_id, with_for_update=True, populate_existing=True)


def pool_state(row: ProgressivePool) -> dict[str, Any]:
    """The pool's state as its row keeps it (JSON data: game/progressive_state.pool_as_dict)."""
    state: dict[str, Any] = json.loads(row.state)
    return state


def write_locked_pool(
    session: Session,
    *,
    pool_id: str,
    row: ProgressivePool | None,
    events: Sequence[tuple[str, Mapping[str, Any]]],
    state: Mapping[str, Any],
    actor: str,
    round_id: str | None = None,
) -> list[int]:
    """Append the events to the pool's chain and write its state after them, in the caller's
    transaction, with the row ``lock_pool`` gave (None: the pool is new); the events' seqs."""
    seqs = [
        append_event(
            session, table_id=pool_chain(pool_id), round_id=round_id, kind=kind, actor=actor, payload=payload
        ).seq
        for kind, payload in events
    ]
    now = datetime.now(UTC)
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    if row is None:
        row = ProgressivePool(pool_id=pool_id, state=text, updated_at=now)
    row.open, row.state, row.updated_at = bool(state["open"]), text, now
    if seqs:
        row.last_seq = seqs[-1]
    session.add(row)
    session.flush()
    return seqs


def pool_events_of(
    session: Session,
    *,
    pool_id: str,
    kinds: Sequence[str],
    round_id: str | None = None,
    after_seq: int = 0,
) -> list[tuple[int, str, str, dict[str, Any]]]:
    """The pool chain's events of ``kinds`` (of one round, after a seq), in order: (seq, kind,
    actor, payload). Read through the events' (table, kind, seq) and (round, seq) indexes."""
    statement = select(Event).where(
        Event.table_id == pool_chain(pool_id), col(Event.kind).in_(list(kinds)), Event.seq > after_seq
    )
    if round_id is not None:
        statement = statement.where(Event.round_id == round_id)
    rows = session.exec(statement.order_by(col(Event.seq)))
    return [(row.seq, row.kind, row.actor, json.loads(row.payload)) for row in rows]


def last_pool_event_seq(session: Session, *, pool_id: str, kind: str) -> int:
    """The seq of the pool chain's newest event of ``kind``, 0 when there is none."""
    row = session.exec(
        select(Event.seq)
        .where(Event.table_id == pool_chain(pool_id), Event.kind == kind)
        .order_by(col(Event.seq).desc())
        .limit(1)
    ).first()
    return 0 if row is None else int(row)


__all__ = [
    "POOL_CHAIN_PREFIX",
    "PoolChangedError",
    "ProgressivePool",
    "append_pool_events",
    "is_pool_chain",
    "last_pool_event_seq",
    "lock_pool",
    "pool_chain",
    "pool_events",
    "pool_events_of",
    "pool_ids",
    "pool_state",
    "stored_pool",
    "write_locked_pool",
]
