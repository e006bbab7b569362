"""The daemon and the simulators as real processes, for the tests that kill them
(test_sigkill.py, test_sigkill_table_state.py): the daemon's JSON log lines read as they come,
the simulators' operator commands on their standard input, and the store read by the test.

The daemon is ``table-controller run``'s own entry point in a process of its own, forked from
a server that has already imported the controller (``multiprocessing``'s forkserver, one per
test worker), so each of the chains' two dozen starts does not pay the imports again (about a
second of CPU each). The process is as real as a spawned one: its own PID, killed by SIGKILL,
nothing shared with the test but the store it writes; it does not inherit the test's state
because the server forked for it never ran a test.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from sqlalchemy import text

from table_controller.storage import make_engine

REPO = Path(__file__).resolve().parents[2]
STEP_DELAY = "0.2"
PILE_INTERVAL = "0.12"


def alive(pid: int) -> bool:
    """Whether process ``pid`` is running (Linux /proc): neither gone nor a zombie."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


def python(*args: str, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=REPO, **options)


@dataclass
class Simulators:
    """Both devices as processes of the test, each on a pty."""

    processes: list[subprocess.Popen] = field(default_factory=list)
    ports: dict[str, str] = field(default_factory=dict)

    def start(self, log_dir: Path, shuffler_args: tuple[str, ...] = ()) -> Simulators:
        for name, args in (("shuffler", ["--pile-interval", PILE_INTERVAL, *shuffler_args]), ("dice", [])):
            with (log_dir / f"sim-{name}.log").open("w") as log:
                process = python(
                    "-m",
                    "simulators",
                    name,
                    "--pty",
                    "--seed",
                    "21",
                    *args,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                )
            self.processes.append(process)
            self.ports[name] = process.stdout.readline().strip()
            assert self.ports[name].startswith("/dev/"), f"{name} simulator printed {self.ports[name]!r}"
        return self

    def operate(self, index: int, command: str) -> None:
        """A hand on the machine: a command on the simulator's standard input (``open-door``...)."""
        stdin = self.processes[index].stdin
        stdin.write(command + "\n")
        stdin.flush()

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()


# what the forkserver imports once: the command line and everything ``run`` imports on its way
PRELOAD = [
    "table_controller.cli.main",
    "table_controller.daemon.run",
    "table_controller.api.app",
    "alembic.command",
]


def _forkserver() -> multiprocessing.context.ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _run_cli(
    argv: list[str], env: dict[str, str], cwd: str, stderr_path: str, stdout_path: str = os.devnull
) -> None:
    """The forked child: the environment, the working folder and the standard streams a spawned
    ``python -m table_controller ...`` would have, then the command line's own ``main``."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    null = os.open(os.devnull, os.O_RDWR)
    out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.argv = ["table-controller", *argv]
    from table_controller.cli.main import main

    main()


class Daemon:
    """``table-controller run`` as a process whose JSON log lines the test reads as they come."""

    def __init__(
        self,
        store: list[str],
        ports: dict[str, str],
        log_path: Path,
        rounds: int = 1,
        env: Mapping[str, str] | None = None,
        *,
        simulate: bool = False,
    ) -> None:
        """``env``: more of the daemon's environment. ``simulate``: ``run --simulate``, the
        simulators the daemon's own children (they die and start again with it, as ``ports``
        then are not used); else the devices at ``ports``."""
        env = {**os.environ, **(env or {}), "TABLE_LOG_FORMAT": "json"}
        argv = ["run", "--rounds", str(rounds), "--auto-dealer", "--seed", "9", "--step-delay", STEP_DELAY]
        if simulate:
            env["TABLE_SIMULATOR__PILE_INTERVAL"] = PILE_INTERVAL
            argv.append("--simulate")
        else:
            env.update({"TABLE_SHUFFLER__URL": ports["shuffler"], "TABLE_DICE__URL": ports["dice"]})
        self.log_path = log_path
        self._stderr = log_path.with_suffix(".stderr")
        self._stderr.touch()
        self.process = _forkserver().Process(
            target=_run_cli, args=([*argv, *store], env, str(REPO), str(self._stderr)), name="daemon"
        )
        self.process.start()
        self.lines: list[dict] = []
        self._queue: queue.Queue[dict | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="daemon-log", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Follow the daemon's standard error as it writes it, until it has exited."""
        with self._stderr.open() as stderr, self.log_path.open("a") as log:
            partial = ""
            while True:
                # whether the sentinel is readable, not ``is_alive()``: a forkserver child's
                # ``poll`` is not thread-safe, and one run alongside the test's ``join`` can read
                # the exit status the other just took, find the pipe empty and report 255
                exited = bool(wait([self.process.sentinel], 0))
                chunk = stderr.read()
                partial += chunk
                *whole, partial = partial.split("\n")
                for raw in whole:
                    log.write(raw + "\n")
                    if raw.startswith("{"):
                        line = json.loads(raw)
                        self.lines.append(line)
                        self._queue.put(line)
                if exited and not chunk:
                    break
                if not chunk:
                    time.sleep(0.01)
        self._queue.put(None)

    def _exit_code(self, timeout: float) -> int | None:
        self.process.join(timeout)
        return self.process.exitcode

    def wait_for(self, wanted: Callable[[dict], bool], timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"the daemon exited ({self._exit_code(10)}) first; see {self.log_path}")
            if wanted(line):
                return line
        raise AssertionError(f"no such log line within {timeout} s; see {self.log_path}")

    def kill(self) -> None:
        assert self.process.pid is not None
        os.kill(self.process.pid, signal.SIGKILL)
        # a process in an uninterruptible write (SQLite's fsync on a loaded machine) dies when
        # the write returns: its death is waited for, not timed
        code = self._exit_code(60)
        assert code == -signal.SIGKILL, f"the daemon's exit code after SIGKILL: {code}; see {self.log_path}"
        self._reader.join(5)
        self.process.close()

    def finish(self, timeout: float = 60) -> int:
        code = self._exit_code(timeout)
        assert code is not None, f"the daemon is still running after {timeout} s; see {self.log_path}"
        self._reader.join(5)
        self.process.close()
        return code


def event_is(name: str, **fields) -> Callable[[dict], bool]:
    return lambda line: line.get("event") == name and all(line.get(k) == v for k, v in fields.items())


class Store:
    """The daemon's store, read by the test: a data folder (SQLite) or a PostgreSQL schema."""

    def __init__(self, args: list[str], url: str) -> None:
        self.args, self.url = args, url

    def rows(self, sql: str) -> list[tuple]:
        engine = make_engine(self.url)
        try:
            with engine.connect() as connection:
                return [tuple(row) for row in connection.execute(text(sql))]
        finally:
            engine.dispose()

    def events(self, kind: str, round_id: str | None = None) -> list[dict]:
        """The stored events of a kind, in chain order; of one round with ``round_id``."""
        of_round = "" if round_id is None else f" AND round_id = '{round_id}'"
        sql = f"SELECT payload FROM events WHERE kind = '{kind}'{of_round} ORDER BY seq"
        return [json.loads(payload) for (payload,) in self.rows(sql)]
