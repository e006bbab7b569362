"""What a pool's displays show, and the live feed that keeps them current (docs/progressive.md,
"The meter page"; docs/api.md, "Progressive displays").

The **display view** of a pool is its projection (the ``progressive_pools`` row: the pool's
state after the last event of its chain, whichever table or process wrote it) laid out for a
sign: per level the meter, reset and limit, the cumulative paid meter and, apart, what the
system paid and what an attendant paid (PRG-13); the hits pending payment ("PENDING",
PRG-28); the last hits with their table, seat, amount and the new amount (PRG-11, PRG-25), each
with the time of the hit and, once paid, who paid it. Times and payers are not in the
projection: ``PoolLog`` keeps them up from the chain's ``progressive.hits`` and
``progressive.payment`` events, reading only the events after the last one it has seen.

The **feed** follows the pool's own chain with the table's event hub (api/stream.py, an
``EventHub`` on ``progressive.<pool id>``): a commit in this process wakes it at once, a write
from elsewhere within one poll; each change is one frame of the whole view, so a display that
drops and comes back is current at its first frame (PRG-26: on the displays within 30 s, here
within a poll of a tenth of a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import structlog
from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..game.progressive_state import record_kind
from ..storage.progressive import pool_chain, stored_pool
from ..storage.progressive_reads import pool_events_of_kinds
from .stream import EventHub

log = structlog.get_logger()
HITS, PAYMENT = record_kind("hits"), record_kind("payment")
T = TypeVar("T")
FEED_BUFFER = 64  # the feed sends views, not events: the hub's buffer only needs to wake it


@dataclass(frozen=True, slots=True)
class _Payment:
    at: datetime
    paid_by: str
    verified_by: str


@dataclass
class PoolLog:
    """A pool's hits and payments as read from its chain so far (module docstring); ``system``
    is the payer's name of a hit the table paid itself (table/progressive_pool.SYSTEM)."""

    pool_id: str
    system: str
    seq: int = 0
    hit_at: dict[int, datetime] = field(default_factory=dict)
    payments: dict[int, _Payment] = field(default_factory=dict)
    by_system: dict[str, int] = field(default_factory=dict)
    by_attendant: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def update(self, session: Session) -> None:
        """Read the hits and payments written since the last call (in the caller's snapshot)."""
        with self._lock:
            for event in pool_events_of_kinds(
                session, pool_id=self.pool_id, kinds=(HITS, PAYMENT), after_seq=self.seq
            ):
                try:
                    self._read(event.kind, event.payload_data(), event.created_at)
                except (KeyError, TypeError, ValueError) as error:  # a forged row: the display goes on
                    log.warning(
                        "progressive.display_unreadable",
                        pool_id=self.pool_id,
                        seq=event.seq,
                        error=str(error),
                    )
                self.seq = event.seq

    def _read(self, kind: str, payload: dict[str, Any], at: datetime) -> None:
        if kind == HITS:
            made = {int(hit["hit_id"]): at for hit in payload["hits"]}
            self.hit_at.update(made)
            return
        level, amount, payer = str(payload["level"]), int(payload["amount"]), str(payload["paid_by"])
        hit_id, verified_by = int(payload["hit_id"]), str(payload.get("verified_by", ""))
        split = self.by_system if payer == self.system else self.by_attendant
        split[level] = split.get(level, 0) + amount
        self.payments[hit_id] = _Payment(at, payer, verified_by)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def display_view(session: Session, log: PoolLog) -> dict[str, Any] | None:
    """The pool's display view (module docstring), or None when the pool has no row yet."""
    row = stored_pool(session, pool_id=log.pool_id)
    if row is None:
        return None
    log.update(session)
    state = json.loads(row.state)
    pending = {int(hit["hit_id"]) for hit in state.get("pending", [])}
    levels = []
    for name, level in state["levels"].items():
        params, meters = level["params"], level["meters"]
        levels.append(
            {
                "level": name,
                "meter": meters["meter"],
                "reset": params["reset"],
                "base": params["base"],
                "limit": params.get("limit"),
                "overflow": meters.get("overflow", 0),
                "hits": meters.get("hits", 0),
                "locked": meters.get("locked", 0),
                "paid": meters.get("paid", 0),
                "paid_by_system": log.by_system.get(name, 0),
                "paid_by_attendant": log.by_attendant.get(name, 0),
            }
        )
    recent = []
    for hit in reversed(state.get("recent_hits", [])):  # the newest first
        hit_id = int(hit["hit_id"])
        claim = hit["claim"]
        paid = log.payments.get(hit_id)
        recent.append(
            {
                "hit_id": hit_id,
                "at": _iso(log.hit_at.get(hit_id)),
                "table_id": claim["table_id"],
                "position": claim["position"],
                "level": claim["level"],
                "line": claim.get("line", ""),
                "amount": hit["amount"],
                "meter_after": hit["meter_after"],
                "held": hit.get("held", False),
                "pending": hit_id in pending,
                "paid_at": _iso(None if paid is None else paid.at),
                "paid_by": None if paid is None else paid.paid_by,
            }
        )
    return {
        "pool_id": log.pool_id,
        "name": state.get("name", ""),
        "seq": row.last_seq,
        "open": bool(state.get("open")),
        "levels": levels,
        "pending": [
            {
                "hit_id": int(hit["hit_id"]),
                "level": hit["level"],
                "amount": hit["amount"],
                "table_id": hit["table_id"],
                "position": hit["position"],
                "held": hit.get("held", False),
                "at": _iso(log.hit_at.get(int(hit["hit_id"]))),
            }
            for hit in state.get("pending", [])
        ],
        "recent_hits": recent,
    }


class PoolFeeds:
    """Each pool's hub and log, made when a display first asks for the pool and kept for the
    app's life (its lifespan stops the hubs), and the pool's latest frame, shared by its displays."""

    def __init__(self, engine: Engine, *, poll_interval: float, system: str) -> None:
        self.engine = engine
        self.poll_interval = poll_interval
        self.system = system
        self._hubs: dict[str, EventHub] = {}
        self._logs: dict[str, PoolLog] = {}
        self._starting = asyncio.Lock()
        self._latest: dict[str, tuple[int, Any]] = {}  # pool -> (the head read at, what was read)
        self._reading: dict[str, asyncio.Lock] = {}

    def log(self, pool_id: str) -> PoolLog:
        found = self._logs.get(pool_id)
        if found is None:
            found = self._logs.setdefault(pool_id, PoolLog(pool_id, self.system))
        return found

    async def hub(self, pool_id: str) -> EventHub:
        async with self._starting:
            found = self._hubs.get(pool_id)
            if found is None:
                found = EventHub(
                    self.engine,
                    pool_chain(pool_id),
                    poll_interval=self.poll_interval,
                    buffer_size=FEED_BUFFER,
                )
                await found.start()
                self._hubs[pool_id] = found
            return found

    async def latest(self, pool_id: str, head: int, read: Callable[[], Awaitable[T | None]]) -> T | None:
        """What ``read()`` gives for the pool at the hub's ``head`` or later: read once for every
        display that a change wakes (twenty signs of one pool make one read of the store, and
        its frame is made once), not once each."""
        lock = self._reading.setdefault(pool_id, asyncio.Lock())
        async with lock:
            cached = self._latest.get(pool_id)
            if cached is not None and cached[0] >= head:
                return cached[1]
            found = await read()
            self._latest[pool_id] = (head, found)
            return found

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        try:
            yield
        finally:
            hubs, self._hubs = list(self._hubs.values()), {}
            for hub in hubs:
                await hub.stop()


__all__ = ["PoolFeeds", "PoolLog", "display_view"]
