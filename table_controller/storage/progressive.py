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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Final

import psycopg
from sqlalchemy import BigInteger, Text, bindparam
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from .audit import append_event, list_events, lock_table
from .chain import (
    TABLE_ID_MAX,
    ChainLink,
    canonical_payload,
    check_actor,
    check_kind,
    check_round_id,
    format_timestamp,
)
from .errors import ChainConflictError, ChainHeadMismatchError, StorageError, StoreUnavailableError
from .models import ChainHead, Event, UTCDateTime

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


_POOLS = ProgressivePool.__table__  # type: ignore[attr-defined]
_HEADS = ChainHead.__table__  # type: ignore[attr-defined]
_LOCK_POOL_AND_HEAD = (
    select(_POOLS.c.pool_id)
    .select_from(_POOLS.join(_HEADS, _HEADS.c.table_id == bindparam("chain")))
    .where(_POOLS.c.pool_id == bindparam("pool"))
    .with_for_update(of=[_POOLS, _HEADS])
)


def lock_pool(session: Session, *, pool_id: str) -> ProgressivePool | None:
    """The pool's row, locked for the rest of the transaction: the tables of a linked pool take
    turns on it, so each step starts from the state the last one left and no increment is lost.
    The row and its chain's head are locked by one statement, the same for every writer of a
    pool (``pool_step`` too), so two writers never wait on each other crosswise. A pool not
    made yet: its chain's head is locked (made if need be) and the row read again, so two
    tables starting at once create it once. None when it has no row yet."""
    chain = pool_chain(pool_id)
    locked = session.execute(_LOCK_POOL_AND_HEAD, {"chain": chain, "pool": pool_id}).first()
    if locked is None:
        lock_table(session, table_id=chain)
    return session.get(ProgressivePool, pool_id, populate_existing=True)


# The hot path of a linked pool (``pool_step``): one statement locks the pool's row and its
# chain's head and reads both (and whether the round did this step already); one pipelined
# batch appends the events, moves the head, writes the state and commits. Written for
# PostgreSQL (psycopg's pipeline): the linked pool lives on the floor's PostgreSQL.
# The round's events are found by the round's index (a MATERIALIZED CTE: the planner would
# otherwise scan the pool chain's every contribution by the (table, kind) index, a cost that
# grows with the chain).
_STEP_LOCK = """
WITH of_round AS MATERIALIZED (SELECT e.table_id, e.kind FROM events e WHERE e.round_id = %(round)s)
SELECT p.last_seq, p.state, h.last_seq, h.last_hash,
       EXISTS (SELECT 1 FROM of_round r WHERE r.table_id = %(chain)s AND r.kind = %(done_kind)s) AS done
FROM progressive_pools p JOIN chain_heads h ON h.table_id = %(chain)s
WHERE p.pool_id = %(pool)s
FOR UPDATE OF p, h
"""
_STEP_EVENT = """
INSERT INTO events (table_id, seq, round_id, kind, actor, created_at, prev_hash, payload, hash)
VALUES (%(table_id)s, %(seq)s, %(round_id)s, %(kind)s, %(actor)s, %(at)s, %(prev_hash)s,
        %(payload)s, %(hash)s)
"""
_STEP_HEAD = """
UPDATE chain_heads SET last_seq = %(seq)s, last_hash = %(hash)s, updated_at = %(at)s
WHERE table_id = %(chain)s
"""
_STEP_POOL = """
UPDATE progressive_pools SET open = %(open)s, state = %(state)s, last_seq = %(seq)s, updated_at = %(at)s
WHERE pool_id = %(pool)s
"""


@dataclass(frozen=True, slots=True)
class LockedPool:
    """What ``pool_step`` read under the lock: the chain's seq the state is at, the state's
    JSON text, and whether the round already chained an event of ``done_kind``."""

    seq: int
    state: str
    done: bool


PoolBuild = Callable[[LockedPool], tuple[Sequence[tuple[str, Mapping[str, Any]]], Mapping[str, Any]] | None]


def pool_step(
    engine: Engine,
    *,
    pool_id: str,
    build: PoolBuild,
    actor: str,
    round_id: str,
    done_kind: str,
) -> list[int]:
    """One step of a linked pool in one transaction of two round trips to the server: the
    lock and read, then (after ``build`` worked out the step from what was read, pure) the
    events appended to the pool's chain, hashed as ``append_event`` hashes them, the head
    moved and the state written, committed. ``build`` returns the events and the state after
    them, or None to write nothing. The events' seqs; PoolChangedError when the pool has no
    row; the driver's errors (an outage) as they come, nothing written."""
    check_actor(actor)
    check_round_id(round_id)
    try:
        return _pool_step(engine, pool_id, build, actor, round_id, done_kind)
    except psycopg.OperationalError as error:  # the raw driver's: the store away, as is_outage reads it
        raise StoreUnavailableError(f"{type(error).__name__}: {error}") from error
    except psycopg.IntegrityError as error:
        raise ChainConflictError(f"pool {pool_id}: another writer stored the same seq ({error})") from error


def _pool_step(
    engine: Engine, pool_id: str, build: PoolBuild, actor: str, round_id: str, done_kind: str
) -> list[int]:
    chain = pool_chain(pool_id)
    raw = engine.raw_connection()
    try:
        connection = raw.driver_connection
        assert connection is not None
        try:
            with connection.pipeline(), connection.cursor() as cursor:
                cursor.execute(
                    _STEP_LOCK, {"round": round_id, "chain": chain, "done_kind": done_kind, "pool": pool_id}
                )
                found = cursor.fetchone()
                if found is None:
                    raise PoolChangedError(f"pool {pool_id} has no row on this store: it is not made yet")
                pool_seq, state, head_seq, head_hash, done = found
                if pool_seq != head_seq:
                    raise ChainHeadMismatchError(
                        f"pool {pool_id}: its state is at seq {pool_seq}, its chain at {head_seq}"
                    )
                made = build(LockedPool(seq=pool_seq, state=state, done=bool(done)))
                if made is None or not made[0]:
                    connection.rollback()
                    return []
                events, after = made
                moment = datetime.now(UTC)  # taken once the lock is ours, as append_event does
                stamp = format_timestamp(moment)
                seq, prev, rows = head_seq, head_hash, []
                for kind, payload in events:
                    seq += 1
                    text = canonical_payload(payload)
                    link = ChainLink(chain, seq, round_id, check_kind(kind), actor, stamp, prev, text)
                    prev = link.digest()
                    rows.append({**asdict(link), "at": moment, "hash": prev})
                cursor.executemany(_STEP_EVENT, rows)
                cursor.execute(_STEP_HEAD, {"seq": seq, "hash": prev, "at": moment, "chain": chain})
                cursor.execute(
                    _STEP_POOL,
                    {
                        "open": bool(after["open"]),
                        "state": json.dumps(after, sort_keys=True, separators=(",", ":")),
                        "seq": seq,
                        "at": moment,
                        "pool": pool_id,
                    },
                )
                connection.commit()
        except BaseException:
            if not connection.closed:
                connection.rollback()
            raise
        return [row["seq"] for row in rows]
    finally:
        raw.close()


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
    "LockedPool",
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
    "pool_step",
    "stored_pool",
    "write_locked_pool",
]
