"""A read served from the replica says how far behind it is (docs/floor-replica.md, "How lag is shown").

When the API reads from a replica (``read_db_url``: ``Store.read``), every answer that used it
carries

- ``X-Read-From: replica``;
- ``X-Read-Lag-Seconds``: seconds behind the primary, ``0.0`` when caught up, ``unknown`` when
  the replica cannot say (``storage/replica.py``);
- ``X-Read-Behind``: ``true`` beyond ``read_lag_warn_seconds`` (or unknown), else ``false``.

An answer with none of them was read from the primary: commands, and who a token belongs to,
always are. Which answers used the replica is known exactly: a connection of the read engine
taken while serving the request marks it (an engine event, in the request's context, which the
thread pool carries to the worker thread). The lag is sampled at most once a second
(``LagSampler``), whatever the number of requests. ``install_read_lag`` does all of it for an
app, a table's (api/app.py) or the floor's; the sampler is on ``app.state.read_lag`` for a
body that shows the lag (``GET /api/table``'s ``read_lag``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import structlog
from fastapi import FastAPI
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders

from ..storage.replica import UNKNOWN, ReplicaStatus, replica_status
from .models.table import ReadLagPublic

READ_FROM = "X-Read-From"
READ_LAG_SECONDS = "X-Read-Lag-Seconds"
READ_BEHIND = "X-Read-Behind"
SAMPLE_EVERY_SECONDS = 1.0

log = structlog.get_logger()


class _Served:
    """What one request read from; set by the engine event, read by the middleware."""

    __slots__ = ("replica",)

    def __init__(self) -> None:
        self.replica = False


_served: ContextVar[_Served | None] = ContextVar("table_controller_read_served", default=None)


def _mark_replica_read(_connection: Connection) -> None:
    served = _served.get()
    if served is not None:
        served.replica = True


class LagSampler:
    """The replica's status, sampled at most once every ``every`` seconds (``replica_status``);
    a replica that does not answer is UNKNOWN (behind), logged, never an error of its own."""

    def __init__(
        self,
        read_engine: Engine,
        primary_engine: Engine,
        *,
        warn_seconds: float,
        every: float = SAMPLE_EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.read_engine = read_engine
        self.primary_engine = primary_engine
        self.warn_seconds = warn_seconds
        self.every = every
        self._clock = clock
        self._lock = threading.Lock()  # one sample at a time, from whichever worker thread
        self._status: ReplicaStatus | None = None
        self._sampled_at = 0.0

    def _fresh(self) -> ReplicaStatus | None:
        status = self._status
        if status is not None and self._clock() - self._sampled_at < self.every:
            return status
        return None

    def sample(self) -> ReplicaStatus:
        """The status, sampled now unless a sample younger than ``every`` is kept (blocking)."""
        with self._lock:
            status = self._fresh()
            if status is None:
                try:
                    status = replica_status(self.read_engine, self.primary_engine)
                except SQLAlchemyError as error:
                    log.warning("read_lag.unavailable", error=str(error).splitlines()[0])
                    status = UNKNOWN
                self._status, self._sampled_at = status, self._clock()
            return status

    async def status(self) -> ReplicaStatus:
        """As :meth:`sample`; the thread pool only when a new sample is due."""
        status = self._fresh()
        return status if status is not None else await run_in_threadpool(self.sample)

    def headers(self, status: ReplicaStatus) -> dict[str, str]:
        lag = "unknown" if status.lag_seconds is None else f"{status.lag_seconds:.1f}"
        behind = "true" if status.behind(self.warn_seconds) else "false"
        return {READ_FROM: "replica", READ_LAG_SECONDS: lag, READ_BEHIND: behind}

    def public(self, status: ReplicaStatus) -> ReadLagPublic:
        return ReadLagPublic(
            lag_seconds=status.lag_seconds,
            lag_bytes=status.lag_bytes,
            paused=status.paused,
            behind=status.behind(self.warn_seconds),
            warn_seconds=self.warn_seconds,
            words=lag_words(status),
        )


def lag_words(status: ReplicaStatus) -> str:
    """The lag in words, for a banner."""
    if status.lag_seconds is None:
        words = "read from a replica that cannot say how far behind the primary it is"
    elif status.lag_seconds == 0:
        words = "read from a replica that is caught up with the primary"
    else:
        words = f"read from a replica {status.lag_seconds:.1f} s behind the primary"
    return f"{words} (its replay is paused)" if status.paused else words


class ReadLag:
    """Plain ASGI middleware (as security_headers.py): the lag headers on an answer that read
    from the replica, written into its ``http.response.start``."""

    def __init__(self, app: Any, *, sampler: LagSampler) -> None:
        self.app = app
        self.sampler = sampler

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        served = _Served()
        token = _served.set(served)

        async def send_with_lag(message: Any) -> None:
            if message["type"] == "http.response.start" and served.replica:
                MutableHeaders(scope=message).update(self.sampler.headers(await self.sampler.status()))
            await send(message)

        try:
            await self.app(scope, receive, send_with_lag)
        finally:
            _served.reset(token)


def install_read_lag(
    app: FastAPI, engine: Engine, read_engine: Engine | None, *, warn_seconds: float
) -> None:
    """Lag headers on ``app``'s answers read from ``read_engine`` (when it is a replica, not
    ``engine`` itself), and the sampler on ``app.state.read_lag`` (None without a replica).
    Once per app: a second call changes nothing."""
    if getattr(app.state, "read_lag", None) is not None:
        return
    if read_engine is None or read_engine is engine:
        app.state.read_lag = None
        return
    if not event.contains(read_engine, "engine_connect", _mark_replica_read):
        event.listen(read_engine, "engine_connect", _mark_replica_read)
    app.state.read_lag = LagSampler(read_engine, engine, warn_seconds=warn_seconds)
    app.add_middleware(ReadLag, sampler=app.state.read_lag)


__all__ = [
    "READ_BEHIND",
    "READ_FROM",
    "READ_LAG_SECONDS",
    "LagSampler",
    "ReadLag",
    "install_read_lag",
    "lag_words",
]
