"""Closed ratings pushed to the casino's player-tracking system, and the table's rating worker
(docs/accounting.md, "The push to player tracking"; docs/api.md, "Ratings").

A closed rating (and each adjustment of one) is a row of ``rating_outbox``, written in the
transaction that closed it (storage/ratings.py), so a rating is never lost: the push reads the
due rows and POSTs each one's JSON to ``ratings.push_url`` with the header ``Idempotency-Key``
(the rating id and its number of adjustments), so the receiver keeps each version once however
often it is sent. A 2xx answer marks the row delivered; anything else (an error status, a
refused connection, a timeout) keeps it, with the error, for a retry after
``push_retry_seconds``, doubled each attempt up to ``push_retry_max_seconds``.

The worker runs beside the API in the daemon's event loop: every ``sweep_seconds`` it folds the
seats (table_ratings.sweep: idle ends) and pushes what is due, each in a worker thread, so a
slow or absent receiver never holds a round; a failure of either is logged and tried again at
the next tick.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import httpx
import structlog
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool

from ..settings import RatingsSettings
from ..storage import ratings as store
from ..storage.session import read_snapshot, unit_of_work
from . import ratings as table_ratings

log = structlog.get_logger()


class Pushed(NamedTuple):
    """What one push pass did: rows delivered, rows that failed (kept for a retry)."""

    delivered: int
    failed: int


def retry_in(settings: RatingsSettings, attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failure: the first wait doubled each time, capped."""
    seconds = min(settings.push_retry_seconds * 2 ** max(attempts - 1, 0), settings.push_retry_max_seconds)
    return timedelta(seconds=seconds)


def push_due(
    engine: Engine,
    settings: RatingsSettings,
    *,
    now: datetime | None = None,
    client: httpx.Client | None = None,
    limit: int = 20,
) -> Pushed:
    """POST each due outbox row to ``settings.push_url`` once; nothing when no URL is set."""
    if settings.push_url is None:
        return Pushed(0, 0)
    moment = now or datetime.now(UTC)
    with read_snapshot(engine) as session:
        due = store.due_pushes(session, now=moment, limit=limit)
    if not due:
        return Pushed(0, 0)
    own = client is None
    http = client or httpx.Client(timeout=settings.push_timeout_seconds)
    delivered = failed = 0
    try:
        for item in due:
            error = _post(http, settings.push_url, item)
            with unit_of_work(engine) as session:
                if error is None:
                    store.push_done(session, item_id=item.id, at=moment)
                else:
                    store.push_failed(
                        session,
                        item_id=item.id,
                        at=moment,
                        error=error,
                        retry_in=retry_in(settings, item.attempts + 1),
                    )
            if error is None:
                delivered += 1
                log.info("rating.pushed", rating_id=item.rating_id, idempotency_key=item.idempotency_key)
            else:
                failed += 1
                log.warning(
                    "rating.push_failed",
                    rating_id=item.rating_id,
                    idempotency_key=item.idempotency_key,
                    attempts=item.attempts + 1,
                    detail=error,
                )
    finally:
        if own:
            http.close()
    return Pushed(delivered, failed)


def _post(http: httpx.Client, url: str, item: store.OutboxItem) -> str | None:
    """None when the receiver took it (2xx), else why not."""
    try:
        answer = http.post(url, json=item.payload, headers={"Idempotency-Key": item.idempotency_key})
    except httpx.HTTPError as error:
        return f"{type(error).__name__}: {error}"
    if 200 <= answer.status_code < 300:
        return None
    return f"HTTP {answer.status_code}"


class RatingWorker:
    """The table's rating worker: sweep and push every ``sweep_seconds`` (this module's docstring)."""

    def __init__(self, engine: Engine, desk: table_ratings.RatingDesk, settings: RatingsSettings) -> None:
        self.engine, self.desk, self.settings = engine, desk, settings
        self._task: asyncio.Task[None] | None = None

    async def tick(self) -> None:
        try:
            await run_in_threadpool(table_ratings.sweep, self.engine, self.desk)
        except Exception as error:
            log.warning(
                "rating.sweep_failed",
                table_id=self.desk.table_id,
                error=type(error).__name__,
                detail=str(error),
            )
        try:
            await run_in_threadpool(push_due, self.engine, self.settings)
        except Exception as error:
            log.warning("rating.push_loop_failed", error=type(error).__name__, detail=str(error))

    async def _run(self) -> None:
        while True:  # the first tick after one interval: an app started and stopped at once does nothing
            await asyncio.sleep(self.settings.sweep_seconds)
            await self.tick()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Started for an app's life (its lifespan), stopped at its end."""
        self._task = asyncio.create_task(self._run(), name=f"ratings-{self.desk.table_id}")
        try:
            yield
        finally:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


__all__ = ["Pushed", "RatingWorker", "push_due", "retry_in"]
