"""A table as a casino runs it, for the fault machine (fault_machine.py): ``table-controller run``
as a process against the simulators as processes, its store reached the way production reaches
it (PostgreSQL through a TCP proxy that can be cut, SQLite in a data folder another process can
lock), the pit's people with their tokens, the API over HTTP, the console's commands as
processes of their own, and the hands on the machines (the simulators' operator commands, a
shaker stopped dead).

Everything here does what a person or a machine at the table does; nothing reaches into the
daemon. What the test reads of the store it reads with an engine of its own (on PostgreSQL the
database directly, not through the proxy, so a cut store can still be checked).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url

from table_controller.storage import add_user, make_engine, sqlite_url, unit_of_work, upgrade_to_head

from ..live_client import live_client
from .processes import REPO, Daemon, Simulators, _forkserver, _run_cli, alive, event_is
from .test_store_outage import CuttableProxy

PIT = ("pia", "pablo", "petra")  # the pit users (the two-person rule needs two of them enabled)
EYE = "sam"  # a surveillance user: reads the table, changes nothing
HTTP_TIMEOUT = 8.0  # seconds for one API call (a store outage answers 503 well within it)


@dataclass
class Console:
    """What a console command answered: its exit status and its two streams."""

    argv: list[str]
    code: int | None
    out: str
    err: str

    def __str__(self) -> str:
        said = (self.out.strip() or self.err.strip())[:300]
        return f"`table-controller {' '.join(self.argv)}` -> {self.code}: {said}"


@dataclass
class Store:
    """The daemon's store and the test's own way into it (``url``: not through the proxy)."""

    kind: str  # "sqlite" or "postgresql"
    args: list[str]  # what ``run`` and the console are given
    url: str
    engine: Engine
    proxy: CuttableProxy | None = None
    folder: Path | None = None
    schema: str | None = None
    admin_url: str | None = None
    _lock: sqlite3.Connection | None = None
    _lock_thread: threading.Thread | None = None

    @classmethod
    def sqlite(cls, folder: Path) -> Store:
        data = folder / "var"
        data.mkdir(parents=True, exist_ok=True)
        url = sqlite_url(data)
        engine = make_engine(url)
        upgrade_to_head(engine)
        return cls("sqlite", ["--data-dir", str(data)], url, engine, folder=data)

    @classmethod
    def postgresql(cls, admin_url: str) -> Store:
        schema = f"faults_{uuid.uuid4().hex[:12]}"
        admin = make_engine(admin_url)
        try:
            with admin.begin() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        finally:
            admin.dispose()
        direct = make_url(admin_url).update_query_dict({"options": f"-csearch_path={schema}"})
        url = direct.render_as_string(hide_password=False)
        engine = make_engine(url)
        upgrade_to_head(engine)
        proxy = CuttableProxy((direct.host or "127.0.0.1", direct.port or 5432))
        proxied = direct.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
        return cls(
            "postgresql", ["--db-url", proxied], url, engine, proxy=proxy, schema=schema, admin_url=admin_url
        )

    @property
    def away(self) -> bool:
        return self._lock is not None or (self.proxy is not None and self.proxy._listener is None)

    def go_away(self) -> None:
        """PostgreSQL: every connection cut and new ones refused (its server stopped). SQLite:
        another process takes the file's write lock and keeps it."""
        if self.proxy is not None:
            self.proxy.cut()
            return
        assert self.folder is not None and self._lock is None
        other = sqlite3.connect(self.folder / "table.sqlite3", isolation_level=None, timeout=30)
        other.execute("BEGIN EXCLUSIVE")
        self._lock = other

    def flap(self, seconds: float, period: float = 0.1) -> None:
        """PostgreSQL only: cut and restored every half ``period`` for ``seconds`` (a store that
        keeps dropping): a read of a few queries (a record check) all but surely meets a cut."""
        assert self.proxy is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.proxy.cut()
            time.sleep(period / 2)
            self.proxy.restore()
            time.sleep(period / 2)

    def come_back(self) -> None:
        if self.proxy is not None:
            if self.proxy._listener is None:
                self.proxy.restore()
            return
        if self._lock is not None:
            self._lock.execute("COMMIT")
            self._lock.close()
            self._lock = None

    def rows(self, sql: str, **params: Any) -> list[tuple]:
        with self.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql), params)]

    def add_people(self) -> dict[str, str]:
        with unit_of_work(self.engine) as session:
            tokens = {name: add_user(session, name=name, role="pit") for name in PIT}
            tokens[EYE] = add_user(session, name=EYE, role="surveillance")
        return tokens

    def close(self) -> None:
        self.come_back()
        self.engine.dispose()
        if self.proxy is not None:
            self.proxy.close()
        if self.schema is not None and self.admin_url is not None:
            admin = make_engine(self.admin_url)
            try:
                with admin.begin() as connection:
                    connection.exec_driver_sql(f'DROP SCHEMA "{self.schema}" CASCADE')
            finally:
                admin.dispose()


@dataclass
class Rig:
    """One table: its store, its machines, its daemon (restarted as a supervisor would), its people."""

    store: Store
    folder: Path
    env: dict[str, str]
    sims: Simulators = field(default_factory=Simulators)
    daemon: Daemon | None = None
    url: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    starts: int = 0
    consoles: int = 0
    exits: list[tuple[int, int | None]] = field(default_factory=list)  # (start number, exit status)
    shaker_stopped: bool = False
    shaker_deaf: bool = False
    daemon_cpu: float = 0.0  # CPU seconds of the daemons that ended (``cpu``: with the running one)
    _running_cpu: float = 0.0
    client: httpx.Client = field(default_factory=lambda: live_client(timeout=HTTP_TIMEOUT))

    def begin(self) -> None:
        self.tokens = self.store.add_people()
        self.sims.start(self.folder)
        self.start()

    # -- the daemon ---------------------------------------------------------------------------

    def sample_cpu(self) -> None:
        """Read the running daemon's CPU time (kept when it ends: a reaped process has none)."""
        daemon = self.daemon
        if daemon is None or daemon.process.pid is None:
            return
        try:
            fields = Path(f"/proc/{daemon.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, IndexError, ValueError):
            return
        self._running_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def cpu(self) -> float:
        return self.daemon_cpu + self._running_cpu

    def _forget_daemon(self) -> None:
        self.daemon_cpu += self._running_cpu
        self._running_cpu = 0.0
        self.daemon = None

    def start(self) -> Daemon:
        """Start ``run`` (as a supervisor does after any exit); the API's address is read from its
        log when it is serving (``url``)."""
        assert self.daemon is None
        self.starts += 1
        self.url = None
        self.daemon = Daemon(
            self.store.args, self.sims.ports, self.folder / f"daemon-{self.starts}.log", 10**6, self.env
        )
        return self.daemon

    def api_url(self, timeout: float) -> str | None:
        """The running daemon's API, once it serves (None: not within ``timeout``, or it exited)."""
        if self.url is not None:
            return self.url
        daemon = self.daemon
        if daemon is None:
            return None
        deadline = time.monotonic() + timeout
        while True:
            found = [line for line in list(daemon.lines) if line.get("event") == "api.listening"]
            if found:
                self.url = str(found[0]["url"])
                return self.url
            if not daemon.process.is_alive() or time.monotonic() >= deadline:
                return None
            time.sleep(0.05)

    def wait_line(self, wanted, timeout: float) -> dict | None:
        """The next log line of the running daemon that ``wanted`` accepts, among those it writes
        from now on (None: none in time, or it exited)."""
        assert self.daemon is not None
        lines = self.daemon._queue
        while not lines.empty():  # what it wrote before now is not what is waited for
            if lines.get_nowait() is None:
                lines.put(None)  # it exited: so says every later wait too
                return None
        try:
            return self.daemon.wait_for(wanted, timeout)
        except AssertionError:
            return None

    def kill(self) -> int | None:
        """SIGKILL the daemon; its exit status (``-SIGKILL``, or its own if it had just exited)."""
        daemon = self.daemon
        assert daemon is not None and daemon.process.pid is not None
        self.sample_cpu()
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon.process.pid, signal.SIGKILL)
        # a process in an uninterruptible write (an fsync on a loaded machine) dies when the write
        # returns: its death is waited for, not timed
        code = daemon.finish(60)
        self.exits.append((self.starts, code))
        self._forget_daemon()
        return code

    def terminate(self, within: float) -> int | None:
        """SIGTERM and the exit status (None: still running after ``within`` s; then killed)."""
        daemon = self.daemon
        assert daemon is not None and daemon.process.pid is not None
        self.sample_cpu()
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon.process.pid, signal.SIGTERM)
        daemon.process.join(within)
        code = daemon.process.exitcode
        if code is None:
            self.kill()
            return None
        daemon.finish(5)
        self.exits.append((self.starts, code))
        self._forget_daemon()
        return code

    def exited(self) -> int | None:
        """The exit status of a daemon that ended by itself (it is then forgotten), else None."""
        daemon = self.daemon
        if daemon is None:
            return None
        self.sample_cpu()
        if daemon.process.is_alive():
            return None
        code = daemon.finish(5)
        self.exits.append((self.starts, code))
        self._forget_daemon()
        return code

    # -- the API ------------------------------------------------------------------------------

    def call(self, method: str, path: str, person: str = EYE, body: Any = None) -> httpx.Response | None:
        """One API call as ``person`` (None: the daemon is not serving or did not answer)."""
        url = self.api_url(0)
        if url is None:
            return None
        try:
            return self.client.request(
                method, url + path, json=body, headers={"Authorization": f"Bearer {self.tokens[person]}"}
            )
        except httpx.HTTPError:
            return None

    # -- the console --------------------------------------------------------------------------

    def console(self, *argv: str, person: str | None = None, timeout: float = 60.0) -> Console:
        """``table-controller ARGV`` with the daemon's store, as a process of its own; acting as
        ``person`` (``--as``) with that person's token, as the console asks (cli/round.py)."""
        self.consoles += 1
        out = self.folder / f"console-{self.consoles}.out"
        err = self.folder / f"console-{self.consoles}.err"
        acting = [] if person is None else ["--as", person]
        env = {**os.environ, **self.env}
        if person is not None:
            env["TABLE_API_TOKEN"] = self.tokens[person]
        full = [*argv, *acting, *self.store.args]
        process = _forkserver().Process(target=_run_cli, args=(full, env, str(REPO), str(err), str(out)))
        process.start()
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
        code = process.exitcode
        process.close()
        return Console(list(argv), code, _read(out), _read(err))

    # -- the machines -------------------------------------------------------------------------

    def shuffler(self, command: str) -> None:
        """A hand on the shuffler: ``jam``, ``clear-jam``, ``open-door``, ``cut 2``, ``restart``..."""
        self.sims.operate(0, command)

    def deafen_shaker(self) -> None:
        """The shaker keeps its link and takes each SHAKE, and never rolls nor refuses."""
        self.sims.operate(1, "deaf")
        self.shaker_deaf = True

    def stop_shaker(self) -> None:
        """The shaker stops dead (its process stopped): no answer, no heartbeat."""
        os.kill(self.sims.processes[1].pid, signal.SIGSTOP)
        self.shaker_stopped = True

    @property
    def shaker_silent(self) -> bool:
        return self.shaker_stopped or self.shaker_deaf

    def wake_shaker(self) -> None:
        if self.shaker_stopped:
            os.kill(self.sims.processes[1].pid, signal.SIGCONT)
            self.shaker_stopped = False
        if self.shaker_deaf:
            self.sims.operate(1, "hear")
            self.shaker_deaf = False

    def close(self) -> None:
        if self.client.is_closed:
            return
        try:
            self.wake_shaker()
            if self.daemon is not None and self.daemon.process.pid is not None:
                if alive(self.daemon.process.pid):
                    self.kill()
                else:
                    self.daemon.finish(5)
        finally:
            self.client.close()
            self.sims.stop()
            self.store.close()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


__all__ = ["EYE", "PIT", "Console", "Rig", "Store", "event_is"]
