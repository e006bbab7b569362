"""Heavy analysis off the API's thread pool (docs/api.md, "The table's math"): the par sheet and
the simulated house edge run as jobs on one worker thread of their own, never in the thread
pool that answers ``GET /api/table`` and every other request.

- An answer computed once is kept (per configuration and budget, the newest ``KEEP`` answers)
  and served at once.
- Otherwise the request queues a job (the same question asked again joins the job already
  queued) and waits for it a little (``ANSWER_WAIT``, on the event loop, no pool thread held);
  a job not done by then is answered 202 with its status URL, which the caller polls.
- Bounds: at most ``PER_CALLER`` jobs waiting or running per person, at most ``QUEUE`` in all
  (429 past either, with ``Retry-After``); the budget of one job is bounded by its endpoint.
- Cancellation: a job whose caller stopped asking about it for ``ABANDON_AFTER`` seconds (the
  caller went away) is cancelled, as is every job when the API stops (``close``); a running
  simulation gives up between chunks. The worker is a daemon thread: a stop never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import structlog

log = structlog.get_logger()

ANSWER_WAIT = 1.0  # seconds a request waits for its job before answering 202 with the status URL
PER_CALLER = 2  # jobs waiting or running per person
QUEUE = 8  # jobs waiting or running in all
ABANDON_AFTER = 30.0  # seconds without a request about a job before it is cancelled
KEEP = 32  # answers kept (the newest)
FORGET_AFTER = 600.0  # seconds a finished job's status stays readable

Progress = Callable[[int], None]  # a job reports rounds done; it raises Cancelled when it must stop


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Cancelled(Exception):
    """The job was cancelled (abandoned by its caller, or the API stops): raised inside it."""


class TooManyJobs(Exception):
    """The caller (or the API as a whole) has as many jobs waiting as it may."""


@dataclass
class Job:
    """One computation and what its caller can read about it."""

    id: str
    key: str
    caller: str
    what: str
    work: Callable[[Progress], dict[str, Any]]
    total: int = 0  # rounds, for a simulation (0: not counted)
    state: JobState = JobState.QUEUED
    done: int = 0
    error: str | None = None
    asked_at: float = 0.0
    finished_at: float | None = None
    future: Future[dict[str, Any] | None] = field(default_factory=Future)  # None: not done

    @property
    def active(self) -> bool:
        return self.state in (JobState.QUEUED, JobState.RUNNING)

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "job": self.id,
            "what": self.what,
            "state": self.state.value,
            "status_url": f"/api/analysis/jobs/{self.id}",
            "rounds_done": self.done,
            "rounds": self.total,
        }
        if self.state is JobState.DONE:
            body["result"] = self.future.result() or {}
        if self.error is not None:
            body["error"] = self.error
        return body


class AnalysisJobs:
    """The jobs of one API: a queue, one worker thread, the answers kept."""

    def __init__(
        self,
        *,
        per_caller: int = PER_CALLER,
        limit: int = QUEUE,
        abandon_after: float = ABANDON_AFTER,
        keep: int = KEEP,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_caller, self.limit, self.abandon_after, self.keep = per_caller, limit, abandon_after, keep
        self.clock = clock
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._by_key: dict[str, Job] = {}  # the active job of each question
        self.answers: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._queue: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="analysis-jobs", daemon=True)
        self._worker.start()

    # -- asking --------------------------------------------------------------------------------

    def ask(
        self, key: str, caller: str, what: str, work: Callable[[Progress], dict[str, Any]], total: int = 0
    ) -> dict[str, Any] | Job:
        """The kept answer to ``key``, or the job computing it (queued now if none is)."""
        with self._lock:
            if self._closed:
                raise Cancelled("the API is stopping")
            self._forget_old()
            if key in self.answers:
                self.answers.move_to_end(key)
                return self.answers[key]
            job = self._by_key.get(key)
            if job is not None:
                job.asked_at = self.clock()
                return job
            active = [j for j in self._jobs.values() if j.active]
            mine = [j for j in active if j.caller == caller]
            if len(mine) >= self.per_caller:
                raise TooManyJobs(
                    f"{caller} has {len(mine)} analysis jobs waiting or running (at most {self.per_caller}): "
                    "wait for them (their status URLs say when they are done)"
                )
            if len(active) >= self.limit:
                raise TooManyJobs(
                    f"{len(active)} analysis jobs are waiting or running (at most {self.limit})"
                )
            job = Job(secrets.token_hex(8), key, caller, what, work, total, asked_at=self.clock())
            self._jobs[job.id] = job
            self._by_key[key] = job
        log.info("analysis.job_queued", job=job.id, what=what, caller=caller, waiting=len(active))
        self._queue.put(job)
        return job

    def job(self, job_id: str) -> Job | None:
        """A job by id (its caller is asking about it: it is not abandoned)."""
        with self._lock:
            found = self._jobs.get(job_id)
            if found is not None:
                found.asked_at = self.clock()
            return found

    async def wait(self, job: Job, seconds: float = ANSWER_WAIT) -> bool:
        """Wait up to ``seconds`` for ``job`` on the event loop (no thread held); True when it ended."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(job.future)), seconds)
        return job.future.done()

    def close(self) -> None:
        """The API stops: every job is cancelled (a running one between two chunks)."""
        with self._lock:
            self._closed = True
            for job in self._jobs.values():
                if job.state is JobState.QUEUED:
                    self._end(job, JobState.CANCELLED, "the API stopped")
        self._queue.put(None)

    # -- the worker ----------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._lock:
                if job.state is not JobState.QUEUED:
                    continue
                if self.clock() - job.asked_at > self.abandon_after:  # its caller left while it waited
                    self._end(job, JobState.CANCELLED, "nobody asked about it while it waited")
                    continue
                job.state = JobState.RUNNING
            started = self.clock()
            try:
                answer = job.work(functools.partial(self._progress, job))
            except Cancelled as why:
                with self._lock:
                    self._end(job, JobState.CANCELLED, str(why))
                log.info(
                    "analysis.job_cancelled", job=job.id, what=job.what, why=str(why), rounds_done=job.done
                )
                continue
            except Exception as error:  # a failed computation is the job's answer, never the worker's end
                log.exception("analysis.job_failed", job=job.id, what=job.what)
                with self._lock:
                    self._end(job, JobState.FAILED, f"{type(error).__name__}: {error}")
                continue
            with self._lock:
                self.answers[job.key] = answer
                while len(self.answers) > self.keep:
                    self.answers.popitem(last=False)
                self._end(job, JobState.DONE, None, answer)
            log.info("analysis.job_done", job=job.id, what=job.what, seconds=round(self.clock() - started, 3))

    def _progress(self, job: Job, rounds: int) -> None:
        """Between two chunks: count them, and stop a job that must stop."""
        job.done += rounds
        if self._closed:
            raise Cancelled("the API stopped")
        if self.clock() - job.asked_at > self.abandon_after:
            raise Cancelled(f"nobody asked about it for {self.abandon_after:g} s: its caller went away")

    def _end(
        self, job: Job, state: JobState, error: str | None, answer: dict[str, Any] | None = None
    ) -> None:
        job.state, job.error, job.finished_at = state, error, self.clock()
        if self._by_key.get(job.key) is job:
            del self._by_key[job.key]
        job.future.set_result(answer if state is JobState.DONE else None)

    def _forget_old(self) -> None:
        now = self.clock()
        old = [j.id for j in self._jobs.values() if j.finished_at and now - j.finished_at > FORGET_AFTER]
        for job_id in old:
            del self._jobs[job_id]


__all__ = ["AnalysisJobs", "Cancelled", "Job", "JobState", "TooManyJobs"]
