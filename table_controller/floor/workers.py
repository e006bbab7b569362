"""Serving the floor, in one process or in several on one socket (docs/floor.md, "More than one
process").

The floor's event loop is one thread: it parses every request and writes every stream. At 50
tables that thread, not the store, is what the terminals wait for (docs/floor.md, Speed).
``workers`` > 1 runs that many floor processes on the socket the parent bound, and the kernel
hands each new connection to one of them. Each worker is a whole floor (``serve_floor``): its
own engines, event hub, open-alert cache and token cache. Which worker answers changes nothing a
terminal sees: every answer is read from the store, and a stream's position names each table's
last seq (floor/hub.py), so a stream resumed on another worker goes on where it stopped.

``Workers`` only supervises. It spawns the workers (a fresh interpreter each: no engine, thread or
lock is inherited), replaces one that dies, stops them all on SIGINT or SIGTERM, and gives up
(exit 1) when they keep dying. A worker dies with its parent (Linux: ``PR_SET_PDEATHSIG``), so
no floor process outlives a supervisor killed by SIGKILL.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from typing import Any

import structlog

from ..api.server import listen, make_server
from ..daemon.children import die_with_parent
from ..logs import configure_logging
from ..storage import make_engine, open_read_store
from .app import create_floor_app
from .settings import FloorSettings

log = structlog.get_logger()

EXIT_STOPPED = 0
EXIT_FAILING = 1
DEATHS_ALLOWED = 5  # workers dying within DEATH_WINDOW before the floor gives up
DEATH_WINDOW = 60.0  # seconds
STOP_WAIT = 15.0  # seconds a worker has to end its streams and connections before SIGKILL
PARENT_CHECK = 1.0  # seconds between a worker's looks at whether its parent is still there
LOOK_EVERY = 0.2  # seconds between the supervisor's looks at its workers and its stop flag


def floor_url(settings: FloorSettings, sock: socket.socket) -> str:
    """Where the terminals reach the floor on ``sock`` (its port, when ``port`` was 0)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if settings.http.tls_certfile else 'http'}://{shown}:{port}"


def serve_floor(settings: FloorSettings, sock: socket.socket, *, parent: int | None = None) -> None:
    """Serve the floor on the bound ``sock``, on engines of its own (the store already migrated by
    the command), until SIGINT or SIGTERM (or, with ``parent``, until that process is gone): the
    one process of ``workers = 1``, and each worker's body."""
    engine = make_engine(settings.db_url)
    read_engine = None if settings.read_db_url is None else open_read_store(settings.read_db_url)
    try:
        server = make_server(
            create_floor_app(settings, engine, read_engine),
            host=settings.host,
            port=settings.port,
            edge=settings.http,
        )

        def stop(_signum: int, _frame: Any) -> None:  # the server leaves signals to its owner: here
            server.should_exit = True

        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, stop)
        if parent is not None:
            threading.Thread(target=_stop_when_orphaned, args=(server, parent), daemon=True).start()
        server.run(sockets=[sock])
    finally:
        engine.dispose()
        if read_engine is not None:
            read_engine.dispose()


def _stop_when_orphaned(server: Any, parent: int) -> None:  # pragma: no cover - runs in a worker
    """Where PR_SET_PDEATHSIG is not (or the parent died before the worker asked for it)."""
    while not server.should_exit:
        if os.getppid() != parent:
            log.warning("floor.worker_orphaned", parent=parent)
            server.should_exit = True
            return
        time.sleep(PARENT_CHECK)


def floor_worker(  # pragma: no cover - runs in a worker
    values: dict[str, Any], sock: socket.socket, number: int, parent: int
) -> None:
    """One worker process: a whole floor on the supervisor's socket, with the supervisor's settings
    (``values``: a ``FloorSettings`` dump)."""
    if sys.platform.startswith("linux"):
        die_with_parent()
    settings = FloorSettings(**values)
    configure_logging(settings.log_format, settings.log_level)
    structlog.contextvars.bind_contextvars(worker=number)
    log.info("floor.worker_started", pid=os.getpid())
    try:
        serve_floor(settings, sock, parent=parent)
    finally:
        log.info("floor.worker_stopped", pid=os.getpid())


class Workers:
    """``count`` processes running ``target(*args, number, parent_pid)``, kept at ``count`` until
    asked to stop; ``run`` returns the supervisor's exit status."""

    def __init__(
        self,
        count: int,
        target: Callable[..., None],
        args: tuple[Any, ...],
        *,
        deaths_allowed: int = DEATHS_ALLOWED,
        stop_wait: float = STOP_WAIT,
    ) -> None:
        if count < 1:
            raise ValueError(f"workers must be at least 1, not {count}")
        self.count = count
        self.deaths_allowed = deaths_allowed
        self.stop_wait = stop_wait
        self.target = target
        self.args = args
        self.processes: dict[int, BaseProcess] = {}  # number -> process
        self.deaths: deque[float] = deque()
        self.stopping = False
        self._context = multiprocessing.get_context("spawn")

    def _start(self, number: int) -> None:
        process = self._context.Process(
            target=self.target,
            args=(*self.args, number, os.getpid()),
            name=f"floor-worker-{number}",
        )
        process.start()
        self.processes[number] = process

    def stop(self, _signum: int | None = None, _frame: Any = None) -> None:
        """Ask ``run`` to stop the workers and return (the SIGINT and SIGTERM handler)."""
        self.stopping = True

    def run(self) -> int:
        previous = {number: signal.signal(number, self.stop) for number in (signal.SIGINT, signal.SIGTERM)}
        try:
            for number in range(self.count):
                self._start(number)
            log.info("floor.workers_started", pids=[p.pid for p in self.processes.values()])
            while not self.stopping:
                sentinels = [process.sentinel for process in self.processes.values()]
                multiprocessing.connection.wait(sentinels, timeout=LOOK_EVERY)
                if not self.stopping and not self._replace_the_dead():
                    return EXIT_FAILING
            return EXIT_STOPPED
        finally:
            self._stop_all()
            for number, handler in previous.items():
                signal.signal(number, handler)

    def _replace_the_dead(self) -> bool:
        """Start a new worker for each that exited; False when too many died too fast."""
        now = time.monotonic()
        for number, process in list(self.processes.items()):
            if process.exitcode is None:
                continue
            process.join()
            self.deaths.append(now)
            while self.deaths and now - self.deaths[0] > DEATH_WINDOW:
                self.deaths.popleft()
            if len(self.deaths) > self.deaths_allowed:
                log.error(
                    "floor.workers_failing",
                    deaths=len(self.deaths),
                    window_seconds=DEATH_WINDOW,
                    last_exitcode=process.exitcode,
                )
                del self.processes[number]
                return False
            log.error("floor.worker_died", worker=number, pid=process.pid, exitcode=process.exitcode)
            self._start(number)
            log.info("floor.worker_replaced", worker=number, pid=self.processes[number].pid)
        return True

    def _stop_all(self) -> None:
        """SIGTERM to every worker (each ends its streams, then its connections), SIGKILL to one
        still running ``stop_wait`` seconds later."""
        for process in self.processes.values():
            if process.exitcode is None:
                process.terminate()
        deadline = time.monotonic() + self.stop_wait
        for number, process in self.processes.items():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                log.error("floor.worker_killed", worker=number, pid=process.pid, after_seconds=self.stop_wait)
                process.kill()
                process.join()
            log.info("floor.worker_ended", worker=number, pid=process.pid, exitcode=process.exitcode)
        self.processes.clear()


__all__ = [
    "DEATHS_ALLOWED",
    "EXIT_FAILING",
    "EXIT_STOPPED",
    "Workers",
    "floor_url",
    "floor_worker",
    "listen",
    "serve_floor",
]
