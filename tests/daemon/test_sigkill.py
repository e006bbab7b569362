"""SIGKILL at every phase of a round, with real processes (docs/round-lifecycle.md, "Crash recovery").

The simulators run as their own processes (``python -m simulators ... --pty``), so the devices
outlive the daemon as real ones do. ``table-controller run`` plays against them on a temporary
data folder with a step delay; the test reads its JSON log lines, kills it with SIGKILL while
the round is in the chosen phase, starts it again on the same folder, and checks that the
round resumed in that phase, completed, was settled exactly once, that its wagers and all 53
cards are there exactly once, that the dice were not rolled again, and that ``audit verify``
finds the chain whole. The whole matrix runs on SQLite, one representative phase on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from table_controller.game.cards import Game, codes
from table_controller.storage import make_engine, sqlite_url

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
STEP_DELAY = "0.2"
PILE_INTERVAL = "0.12"
DECK = Counter(codes(Game.STANDARD.deck()))


def _python(*args: str, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=REPO, **options)


@dataclass
class Simulators:
    """Both devices as processes of the test, each on a pty."""

    processes: list[subprocess.Popen] = field(default_factory=list)
    ports: dict[str, str] = field(default_factory=dict)

    def start(self, log_dir: Path, shuffler_args: tuple[str, ...] = ()) -> Simulators:
        for name, args in (("shuffler", ["--pile-interval", PILE_INTERVAL, *shuffler_args]), ("dice", [])):
            with (log_dir / f"sim-{name}.log").open("w") as log:
                process = _python(
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


class Daemon:
    """``table-controller run`` as a process whose JSON log lines the test reads as they come."""

    def __init__(self, store: list[str], ports: dict[str, str], log_path: Path, rounds: int = 1) -> None:
        env = {
            **os.environ,
            "TABLE_SHUFFLER__URL": ports["shuffler"],
            "TABLE_DICE__URL": ports["dice"],
            "TABLE_LOG_FORMAT": "json",
        }
        self.log_path = log_path
        self.process = _python(
            "-m",
            "table_controller",
            "run",
            "--rounds",
            str(rounds),
            "--auto-dealer",
            "--seed",
            "9",
            "--step-delay",
            STEP_DELAY,
            *store,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[dict] = []
        self._queue: queue.Queue[dict | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="daemon-log", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        with self.log_path.open("a") as log:
            for raw in self.process.stderr:
                log.write(raw)
                if raw.startswith("{"):
                    line = json.loads(raw)
                    self.lines.append(line)
                    self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, wanted: Callable[[dict], bool], timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"the daemon exited ({self.process.wait()}) first; see {self.log_path}")
            if wanted(line):
                return line
        raise AssertionError(f"no such log line within {timeout} s; see {self.log_path}")

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        assert self.process.wait(10) == -signal.SIGKILL
        self._reader.join(5)
        self.process.stderr.close()

    def finish(self, timeout: float = 60) -> int:
        code = self.process.wait(timeout)
        self._reader.join(5)
        self.process.stderr.close()
        return code


def _event(name: str, **fields) -> Callable[[dict], bool]:
    return lambda line: line.get("event") == name and all(line.get(k) == v for k, v in fields.items())


KILL_POINTS = {
    # phase id: (the log line to kill at, the phase the round is in then)
    "open": (_event("round.phase", phase="open"), "open"),
    "open-roll-seen": (_event("dice.seen"), "open"),
    "dealing": (_event("round.phase", phase="dealing"), "dealing"),
    "dealing-mid-deal": (_event("deal.pile", pile=3), "dealing"),
    "players-setting": (_event("round.phase", phase="players-setting"), "players-setting"),
    "dealer-setting": (_event("round.phase", phase="dealer-setting"), "dealer-setting"),
    "settling": (_event("round.phase", phase="settling"), "settling"),
}


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

    def events(self, kind: str) -> list[dict]:
        return [
            json.loads(payload)
            for (payload,) in self.rows(f"SELECT payload FROM events WHERE kind = '{kind}' ORDER BY seq")
        ]


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    return Store(["--data-dir", str(tmp_path / "var")], sqlite_url(tmp_path / "var"))


@pytest.fixture
def postgres_store(postgres_url) -> Iterator[Store]:
    schema = f"kill_{uuid.uuid4().hex[:12]}"
    admin = make_engine(postgres_url)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = make_url(postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
        rendered = url.render_as_string(hide_password=False)
        yield Store(["--db-url", rendered], rendered)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def _kill_and_resume(store: Store, tmp_path: Path, point: str) -> None:
    trigger, phase = KILL_POINTS[point]
    sims = Simulators().start(tmp_path)
    try:
        first = Daemon(store.args, sims.ports, tmp_path / "daemon-1.log")
        try:
            first.wait_for(trigger)
        finally:
            first.kill()
        assert store.rows("SELECT round_id, phase FROM rounds") == [("table-1-1", phase)]
        rolls_before = store.events("device.dice-shaker.rolled")
        piles_before = store.events("device.shuffler.pile-dealt")

        second = Daemon(store.args, sims.ports, tmp_path / "daemon-2.log")
        assert second.finish() == 0, f"see {second.log_path}"
    finally:
        sims.stop()

    resumed = [line for line in second.lines if line["event"] == "round.resuming"]
    assert [(line["round_id"], line["phase"]) for line in resumed] == [("table-1-1", phase)]
    assert store.rows("SELECT round_id, phase, voided FROM rounds") == [("table-1-1", "closed", False)]
    assert len(store.events("round.settled")) == 1
    [opened] = store.events("round.opened")
    wagers = {int(p): w["main"] for p, w in opened["wagers"].items()}
    assert dict(store.rows("SELECT position, wager_cents FROM round_positions WHERE position > 1")) == wagers
    [dealt] = store.events("piles.dealt")
    assert Counter(c for pile in dealt["piles"] for c in pile) + Counter(dealt["unused"]) == DECK
    cards = [c for (hand,) in store.rows("SELECT cards FROM round_positions") for c in hand.split()]
    assert len(cards) == len(set(cards)) == 7 * (len(wagers) + 1)
    [rolled] = store.events("device.dice-shaker.rolled")  # one shake in all: the dice were not re-rolled
    [dice] = store.events("dice.rolled")
    assert dice["faces"] == rolled["faces"] and dice["roll_id"].endswith(f":{rolled['roll_id']}")
    if rolls_before:
        assert rolls_before == [rolled]
    piles = [p["pile"] for p in store.events("device.shuffler.pile-dealt")]
    assert piles == [1, 2, 3, 4, 5, 6, 7]  # every pile stored once, across the kill
    assert [p["cards"] for p in piles_before] == dealt["piles"][: len(piles_before)]
    deals = [c for c in store.events("device.shuffler.command") if c["command"] == "deal"]
    assert len(deals) == 1  # one deal in all
    verify = subprocess.run(
        [
            sys.executable,
            "-m",
            "table_controller",
            "audit",
            "verify",
            *(store.args if store.args[0] == "--db-url" else ["--data-dir", store.args[1]]),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verify.returncode == 0, verify.stdout
    assert verify.stdout.startswith("audit chain whole:")


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_in_each_phase_resumes_there_and_settles_once_sqlite(sqlite_store, tmp_path, point):
    _kill_and_resume(sqlite_store, tmp_path, point)


def test_sigkill_mid_deal_resumes_and_settles_once_postgresql(postgres_store, tmp_path):
    _kill_and_resume(postgres_store, tmp_path, "dealing-mid-deal")
