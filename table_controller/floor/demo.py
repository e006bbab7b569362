"""A demo floor in one command (``table-controller floor demo``; docs/floor.md, "A demo floor
in one command"): N simulated tables, each a ``table-controller run --simulate`` daemon of its
own on a free port, registered to one store with its pit, and the floor service on that store,
with one pit user per pit created (or re-keyed) for the demo.

Nothing here plays, registers or serves: the children are the very commands a pit runs by hand
(``run`` and ``floor``), so the demo shows what a real floor does. This process only plans the
tables, makes the pit users, starts the children and stops them: SIGINT or SIGTERM sends SIGTERM
to each (the tables end their round as at any stop), one still running ``STOP_GRACE`` seconds
later is killed. Each child runs in a session of its own (a Ctrl-C at the terminal reaches this
process only, which stops them in order) and, on Linux, dies with this process
(``PR_SET_PDEATHSIG``), so a demo killed outright leaves no table behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

import structlog

from ..api.sessions import read_or_make_secret
from ..daemon.children import PR_SET_PDEATHSIG
from ..storage import open_store, redacted, unit_of_work
from ..storage.users import Role, UserExistsError, add_user, rotate_token

log = structlog.get_logger()

TABLE_PREFIX: Final = "demo-"
PIT_PREFIX: Final = "pit-"
STOP_GRACE: Final = 15.0  # seconds a child has to stop after SIGTERM before it is killed
FLOOR_START_TIMEOUT: Final = 60.0  # seconds for the floor to print its URL
MAX_TABLES: Final = 50
SESSION_KEY_FILE: Final = "session.key"  # in --data-dir: the floor's and every table's browser-session key


class DemoError(Exception):
    """The demo cannot start: a bad plan, a store that cannot be opened, a floor that never said
    where it listens."""


@dataclass(frozen=True, slots=True)
class DemoTable:
    """One table of the demo: its id, its pit and the port its own pages are served on."""

    table_id: str
    pit: str
    port: int
    host: str = "127.0.0.1"

    @property
    def api_url(self) -> str:
        return f"http://{self.host}:{self.port}"


def plan_tables(tables: int, pits: int, ports: list[int], host: str = "127.0.0.1") -> list[DemoTable]:
    """``tables`` tables ``demo-1``..``demo-N`` in ``pits`` pits ``pit-1``..``pit-P``, in
    consecutive runs as a floor is laid out (6 tables in 2 pits: demo-1..3 in pit-1, demo-4..6
    in pit-2; when they do not divide evenly the first pits get one more), on ``ports`` in order."""
    if not 1 <= tables <= MAX_TABLES:
        raise DemoError(f"--tables {tables}: a demo floor has 1..{MAX_TABLES} tables")
    if not 1 <= pits <= tables:
        raise DemoError(f"--pits {pits}: 1..{tables} (every pit has at least one table)")
    if len(ports) != tables:
        raise DemoError(f"{len(ports)} ports for {tables} tables")
    return [
        DemoTable(f"{TABLE_PREFIX}{i + 1}", f"{PIT_PREFIX}{i * pits // tables + 1}", port, host)
        for i, port in enumerate(ports)
    ]


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """``count`` distinct ports free on ``host`` now: all bound at once, then released for the
    tables to bind (another program could take one meanwhile: that table then exits 2 naming the
    port, and the demo stops)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:
            sock.bind((host, 0))
        return [sock.getsockname()[1] for sock in sockets]


def pit_user_name(pit: str) -> str:
    return f"{TABLE_PREFIX}{pit}"  # demo-pit-1


def demo_pit_users(db_url: str, pits: list[str]) -> dict[str, str]:
    """One pit user per pit, ``demo-pit-N`` kept to pit ``pit-N``, and their tokens (a user left
    by an earlier demo on this store is re-keyed: its old token stops). Migrates the store first,
    once, so that the tables starting together do not race to migrate it."""
    engine = open_store(db_url)
    tokens: dict[str, str] = {}
    try:
        with unit_of_work(engine) as session:
            for pit in pits:
                name = pit_user_name(pit)
                try:
                    with session.begin_nested():
                        tokens[name] = add_user(session, name=name, role=Role.PIT, pit=pit)
                except UserExistsError:
                    tokens[name] = rotate_token(session, name=name)
    finally:
        engine.dispose()
    return tokens


def _dies_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks Linux to SIGTERM the child when this process dies (the C
    library looked up here, not in the forked child, where only the prctl call is safe)."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    if not name:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    return lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    """A child process of the demo and what it is (``demo-1``, ``floor``)."""

    name: str
    process: subprocess.Popen[str]


class DemoFloor:
    """The demo's children: the tables of ``plan`` and the floor, all on ``db_url``."""

    def __init__(
        self,
        *,
        db_url: str,
        plan: list[DemoTable],
        data_dir: Path,
        floor_port: int,
        host: str = "127.0.0.1",
        rounds: int | None = None,
        seed: int | None = None,
        step_delay: float | None = None,
        config: Path | None = None,
    ) -> None:
        self.db_url, self.plan, self.data_dir = db_url, plan, data_dir
        self.floor_port, self.host = floor_port, host
        self.rounds, self.seed, self.step_delay, self.config = rounds, seed, step_delay, config
        self.children: list[Child] = []
        self.stopping = threading.Event()
        # one browser-session key for the floor and every table: a person signed in at the floor
        # opens each table's own pages from its link without signing in again (the cookie is
        # per host, not per port, and each process checks it with this key: api/sessions.py)
        self.session_key = data_dir / SESSION_KEY_FILE
        self._preexec = _dies_with_parent()

    def _start(self, name: str, args: list[str], env: dict[str, str], out: IO[str] | int) -> Child:
        log_path = self.data_dir / f"{name}.log"
        with log_path.open("a") as errors:
            process = subprocess.Popen(
                [sys.executable, "-m", "table_controller", *args],
                env={**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=errors,
                text=True,
                start_new_session=True,  # a Ctrl-C reaches the demo only, which stops each in turn
                preexec_fn=self._preexec,  # prctl only: its library was found before the fork
            )
        child = Child(name, process)
        self.children.append(child)
        log.info("floor_demo.child_started", child=name, pid=process.pid, log_file=str(log_path))
        return child

    def start_tables(self) -> None:
        """Each table's ``run --simulate`` daemon, its output in ``DATA_DIR/TABLE.log``. The
        session key is made by the demo itself, before any child could race to make it."""
        read_or_make_secret(self.session_key)
        for index, table in enumerate(self.plan):
            args = ["run", "--simulate", "--db-url", self.db_url]
            args += ["--data-dir", str(self.data_dir / table.table_id)]
            args += ["--host", table.host, "--port", str(table.port)]
            if self.config is not None:
                args += ["--config", str(self.config)]
            if self.rounds is not None:
                args += ["--rounds", str(self.rounds)]
            if self.seed is not None:
                args += ["--seed", str(self.seed + index)]
            if self.step_delay is not None:
                args += ["--step-delay", str(self.step_delay)]
            env = {
                "TABLE_TABLE_ID": table.table_id,
                "TABLE_PIT": table.pit,
                "TABLE_API_URL": table.api_url,
                "TABLE_HTTP__SESSION_SECRET_FILE": str(self.session_key),
            }
            with (self.data_dir / f"{table.table_id}.log").open("a") as out:
                self._start(table.table_id, args, env, out)

    def start_floor(self) -> str:
        """The floor service; returns the URL it printed once its port was bound."""
        read_or_make_secret(self.session_key)
        args = ["floor", "--db-url", self.db_url, "--host", self.host, "--port", str(self.floor_port)]
        env = {"FLOOR_HTTP__SESSION_SECRET_FILE": str(self.session_key)}
        child = self._start("floor", args, env, subprocess.PIPE)
        assert child.process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        stdout = child.process.stdout

        def read() -> None:  # the floor prints one line; read to the end so its pipe never fills
            for line in stdout:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + FLOOR_START_TIMEOUT
        while time.monotonic() < deadline and not self.stopping.is_set():
            with contextlib.suppress(queue.Empty):
                line = lines.get(timeout=0.1).strip()
                if line.startswith("floor listening on "):
                    return line.removeprefix("floor listening on ")
            if child.process.poll() is not None and lines.empty():
                raise DemoError(
                    f"the floor exited ({child.process.returncode}) before listening: see "
                    f"{self.data_dir / 'floor.log'}"
                )
        raise DemoError(f"the floor did not say where it listens within {FLOOR_START_TIMEOUT:.0f} s")

    def watch(self) -> int:
        """Wait for a stop (0), every table done with its rounds (0), or a child that fails (1)."""
        while not self.stopping.wait(0.2):
            for child in self.children:
                code = child.process.poll()
                if code is None or (code == 0 and child.name != "floor"):
                    continue
                log.error("floor_demo.child_exited", child=child.name, exit_code=code)
                return 1
            tables = [child for child in self.children if child.name != "floor"]
            if tables and all(child.process.poll() == 0 for child in tables):
                log.info("floor_demo.tables_done", rounds=self.rounds)
                return 0
        return 0

    def stop(self) -> None:
        """SIGTERM every child still running, then wait; kill one still running ``STOP_GRACE``
        seconds later. The tables first, so the floor sees them leave."""
        order = sorted(self.children, key=lambda child: child.name == "floor")  # stable: the floor last
        for child in order:
            if child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for child in order:
            try:
                child.process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
                log.error("floor_demo.child_killed", child=child.name, pid=child.process.pid)
            log.info("floor_demo.child_ended", child=child.name, exit_code=child.process.returncode)


@contextlib.contextmanager
def stop_on_signals(demo: DemoFloor) -> Iterator[None]:
    """SIGINT and SIGTERM ask the demo to stop (its children are stopped by ``demo.stop``)."""

    def asked(signum: int, _frame: object) -> None:
        log.info("floor_demo.stop_requested", signal=signal.Signals(signum).name)
        demo.stopping.set()

    previous = {signum: signal.signal(signum, asked) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def describe(plan: list[DemoTable], db_url: str) -> list[str]:
    """The demo's layout in lines for the operator: which table is in which pit, on which port."""
    lines = [f"demo floor: {len(plan)} tables on {redacted(db_url)}"]
    for pit in sorted({table.pit for table in plan}, key=lambda name: int(name.removeprefix(PIT_PREFIX))):
        tables = ", ".join(f"{t.table_id} ({t.api_url})" for t in plan if t.pit == pit)
        lines.append(f"  {pit}: {tables}")
    return lines


__all__ = [
    "MAX_TABLES",
    "STOP_GRACE",
    "DemoError",
    "DemoFloor",
    "DemoTable",
    "demo_pit_users",
    "describe",
    "free_ports",
    "pit_user_name",
    "plan_tables",
    "stop_on_signals",
]
