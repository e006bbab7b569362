"""A pit's floor at a casino's pace, and what each unit of its work costs (docs/floor.md, Speed).

    .venv/bin/python -m benchmarks.bench_floor [--minutes 10] [--scale 1.0]
        [--tables 50] [--terminals 200] [--rounds-per-minute 100] [--floor-rate 10]

The run (docs/floor.md, "A pit at a casino's pace"): 50 tables dealing 100 rounds a minute in
all (a round every 30 s at each table: four times a real pit's 25-30 hands an hour), 200
terminals each holding its pit's floor stream and loading one table's page every 2 s (``GET
/api/table`` at that table's own API, as the table page polls), 10 floor requests a second in
all (the pit's overview, its open alerts, a table's history, in turn), for 10 minutes,
everything on this machine. ``--scale F`` multiplies tables, terminals, rounds a minute and
floor requests together (each table's pace stays); ``--minutes`` shortens the run. A quick try:
``--scale 0.2 --minutes 2``.

It prints, with the goals beside them:

- **the load**: p99 of every request (goal < 100 ms) and of stream delivery (the event's
  ``created_at``, stamped in its commit's transaction, to its arrival at the terminal; goal
  < 500 ms); one table's round commit under load against the same table alone (the probe,
  ``t01``, in a process of its own, as a daemon: the wall time of its service commands per
  round, medians; goal <= 2x); every round settled once (each table's own count, the store's
  closed rounds and its chained ``round.settled``, none twice) and every stream event delivered
  once (per terminal and table, from the store's heads); each process's memory slope after the
  first 2 minutes (RSS from ``/proc`` every ``--sample-seconds``, a least-squares line; goal
  < 1 MiB/min).
- **the cost of each unit of work**, CPU seconds (``/proc`` or ``time.thread_time``, never wall
  time: the machine is shared, and CPU is what a unit of work takes from it), each against a
  baseline measured in the same run, before the load starts (goal <= 3x each):
  - a settled round through the service (the probe's dealing thread, its commands: the round
    machine, the game core, the record check while playing, one durable commit per step) against
    the bare durable commits it makes: the same events appended with the same payloads and the
    same projected columns written, one transaction per step, every value known;
  - a ``GET /api/table`` of the probe's API, and a floor overview (``GET /api/floor/tables``),
    against an empty FastAPI endpoint (``/bench/empty``, added to the same app) on the same
    server: the server process's CPU over blocks of sequential requests, interleaved;
  - a stream event per subscriber: the floor's CPU while the probe deals with
    ``--unit-subscribers`` streams on its pit, less the same dealing with none, per event
    delivered to each, against writing the same bytes (the SSE chunks as received) to as many
    sockets (``sendall``, this thread's CPU);
  - PostgreSQL transactions per settled round, alone and under load (all, and those that wrote:
    the server's next transaction id), with the transactions of one page load and one floor
    overview (``pg_stat_database``, less the idle rate of heartbeats measured first).
- **where the CPU went** under load: each kind of process (tables, floor, terminals,
  PostgreSQL: the server and every backend, the ended ones too) in CPU seconds a minute,
  against what the unit costs predict for the load dealt (the capacity model, docs/floor.md).

What is real and what is simulated
----------------------------------
- **PostgreSQL**: real, one server and one database; by default a server of the benchmark's
  own (``initdb``, ``pg_ctl``; ``max_connections`` sized for the tables' pools), or
  ``--postgres-url`` (a database of its own, dropped after). Commits are durable.
- **Tables**: each a real ``TableService`` on its own engine with its own table API served by
  uvicorn over HTTP, registered on the floor with its heartbeat, as the daemon runs it. The
  rounds are real (every command through the service); the devices and people are simulated:
  dice drawn and piles dealt from a shuffled deck in-process, wagers and players' settings by
  the auto-dealer, the dealer setting by the house way. ``--tables-per-host`` tables share a
  process (the probe has its own).
- **The floor**: the real ``table-controller floor`` command (``benchmarks/floor_probe.py``
  adds only the empty endpoint to its app), ``--floor-workers`` processes.
- **Terminals**: async httpx clients in ``--terminal-procs`` processes, one client each;
  terminal *i* watches table *i mod tables* and holds its pit's floor stream (resumed from its
  last id if it drops), signed in as its pit's pit user.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

GOAL_REQUEST_P99_MS = 100.0
GOAL_STREAM_P99_MS = 500.0
GOAL_COMMIT_RATIO = 2.0
GOAL_UNIT_RATIO = 3.0
GOAL_MEMORY_MIB_PER_MIN = 1.0
MEMORY_FROM_MINUTES = 2.0  # the memory slope is taken after the first two minutes of load
PROBE = "t01"
BARE = "-bare"  # the bare commits' table: the probe's id and this
WARM_UP_ROUNDS = 2
HISTOGRAM_MS = 60_000  # stream latencies are counted in 0.1 ms bins up to a minute
EMPTY = "/bench/empty"
TICK = os.sysconf("SC_CLK_TCK")


def _quiet_logs() -> None:
    """Warnings and errors only: 50 tables' info lines would be the benchmark's own load."""
    import logging

    import structlog

    logging.basicConfig(level=logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def rss_mib(pid: int) -> float | None:
    """The resident memory of process ``pid`` in MiB (``/proc``), None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int, *, ended_children: bool = False) -> float | None:
    """Process ``pid``'s CPU seconds (user and system, every thread; ``/proc``), with those of
    its ended children when asked (a server's backends that came and went); None when gone."""
    fields = _stat(pid)
    if fields is None:
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    if ended_children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / TICK


def thread_cpu_seconds(pid: int) -> float:
    """Process ``pid``'s CPU seconds to the nanosecond: the sum of its live threads' run time
    (``/proc/PID/task/*/schedstat``), for the short windows of a unit's cost (``/proc/PID/stat``
    counts in 10 ms ticks). A thread that ends in the window takes its time with it: the
    servers measured keep their threads."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


def server_cpu(postmaster: int) -> float:
    """PostgreSQL's CPU seconds so far: the postmaster, its ended backends, its live ones."""
    total = cpu_seconds(postmaster, ended_children=True) or 0.0
    return total + sum(cpu_seconds(pid) or 0.0 for pid in children(postmaster))


# --------------------------------------------------------------------------- PostgreSQL


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    raise SystemExit(f"no {name}: install PostgreSQL's server binaries, or give --postgres-url")


@contextmanager
def own_postgres(folder: Path, max_connections: int) -> Iterator[str]:
    """A PostgreSQL server of the benchmark's own in ``folder`` (run as the ``postgres`` user
    when we are root: the server refuses root); yields its URL, stops it after."""
    data = folder / "pgdata"
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(folder, "postgres")
    port = _free_port()
    subprocess.run(
        [*as_user, _pg_bin("initdb"), "-D", str(data), "--auth=trust", "-U", "postgres", "-E", "UTF8"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
        " -c shared_buffers=256MB"
    )
    pg_ctl = _pg_bin("pg_ctl")
    subprocess.run(
        [*as_user, pg_ctl, "-D", str(data), "-l", str(folder / "server.log"), "-w", "-o", options, "start"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-w", "-m", "fast", "stop"],
            check=False,
            stdout=subprocess.DEVNULL,
        )


@contextmanager
def bench_database(server_url: str) -> Iterator[str]:
    """A database of its own on the server, migrated; dropped after."""
    from sqlalchemy.engine import make_url

    from table_controller.storage import make_engine, upgrade_to_head

    name = f"bench_floor_{uuid.uuid4().hex[:10]}"
    admin = make_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    try:
        engine = make_engine(url)
        upgrade_to_head(engine)
        engine.dispose()
        yield url
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def postmaster_pid(folder: Path) -> int | None:
    """The benchmark's own server's postmaster (its ``postmaster.pid``), None if unknown."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((folder / "pgdata" / "postmaster.pid").read_text().split()[0])
    return None


def pg_counts(url: str) -> tuple[int, int]:
    """(transactions ended in the database so far, the server's next transaction id): the
    second moves only with transactions that wrote (a read takes no id)."""
    from sqlalchemy import text

    from table_controller.storage import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            ended = connection.execute(
                text(
                    "SELECT xact_commit + xact_rollback FROM pg_stat_database"
                    " WHERE datname = current_database()"
                )
            ).scalar_one()
            next_xid = connection.execute(text("SELECT pg_snapshot_xmax(pg_current_snapshot())")).scalar_one()
    finally:
        engine.dispose()
    return int(ended), int(str(next_xid))


STATS_FLUSH_SECONDS = 11.0  # an idle backend reports its transactions to pg_stat_database within 10 s


# --------------------------------------------------------------------------- a table (in a host)


class DealingTable:
    """One table as its daemon runs it, with the devices and people simulated (module docstring)."""

    def __init__(self, table_id: str, pit: str, url: str, folder: Path, seed: int) -> None:
        from table_controller.api import create_app
        from table_controller.settings import AutoDealerSettings, TableSettings
        from table_controller.storage import make_engine
        from table_controller.table.autodealer import AutoDealer
        from table_controller.table.service import TableService

        self.table_id = table_id
        self.engine = make_engine(url)
        self.settings = TableSettings(table_id=table_id, data_dir=folder / table_id, pit=pit)
        self.service = TableService(self.settings, self.engine)
        self.service.resume()
        self.service.register_on_floor()
        self.app = add_empty_endpoint(create_app(self.settings, self.service, self.engine))
        self.dealer = AutoDealer(AutoDealerSettings(seed=seed), self.settings.game, self.settings.limits)
        self.rng = random.Random(seed)
        self.settled = 0
        self.failures: list[str] = []

    def play_round(self) -> tuple[float, float, str]:
        """One round start to settlement; returns the wall and CPU seconds (this thread's) spent
        in the service's commands, and the round's id."""
        from table_controller.game.cards import codes
        from table_controller.round.events import DiceRolled, PilesDealt
        from table_controller.round.phases import Phase

        service, dealer = self.service, self.dealer
        spent, cpu = 0.0, 0.0

        def timed(call: Any, *args: Any, **kwargs: Any) -> Any:
            nonlocal spent, cpu
            began, began_cpu = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent += time.perf_counter() - began
                cpu += time.thread_time() - began_cpu

        wagers = dealer.wagers(service.next_round_number())
        state = timed(service.open_round, wagers, actor=dealer.actor)
        faces = (self.rng.randint(1, 6), self.rng.randint(1, 6), self.rng.randint(1, 6))
        state = timed(
            service.record_dice, DiceRolled(faces=faces, source="shaker", actor="device:dice-shaker")
        )
        deck = codes(self.settings.game.deck())
        self.rng.shuffle(deck)
        piles = [deck[7 * n : 7 * n + 7] for n in range(7)]
        state = timed(service.record_deal, PilesDealt(piles=piles, unused=deck[49:], actor="device:shuffler"))
        while not state.phase.is_final:
            if state.phase is Phase.PLAYERS_SETTING:
                position = dealer.next_position(state)
                rules = service.round_rules
                assert position is not None and rules is not None
                decision = dealer.player_setting(state, position, rules)
                state = timed(service.set_player, position, decision.high, decision.low, actor=dealer.actor)
            elif state.phase is Phase.DEALER_SETTING:
                high, low = dealer.dealer_setting(state)
                state = timed(service.set_dealer, high, low, actor=dealer.actor)
            elif state.phase is Phase.SETTLING:
                state = timed(service.settle)
            else:
                raise RuntimeError(f"{self.table_id}: round {state.round_id} stuck in {state.phase.value}")
        if state.phase is Phase.CLOSED:
            self.settled += 1
        return spent, cpu, state.round_id

    def deal(
        self, stop: threading.Event, pace: float, samples: list[tuple[float, float]], first_delay: float
    ) -> None:
        """Rounds one after another, one started every ``pace`` seconds, until ``stop``; the
        round in progress is finished first."""
        if stop.wait(first_delay):
            return
        while not stop.is_set():
            began = time.monotonic()
            try:
                spent, cpu, _ = self.play_round()
                samples.append((spent, cpu))
            except Exception as error:  # counted and shown; the table deals on, as the daemon would
                self.failures.append(f"{type(error).__name__}: {error}"[:300])
                if len(self.failures) > 20:
                    return
            stop.wait(max(0.0, pace - (time.monotonic() - began)))


def add_empty_endpoint(app: Any) -> Any:
    """``GET /bench/empty`` answering ``{}`` on ``app``, first among its routes (before any
    mount): the baseline of a request's cost on that server."""

    async def empty() -> dict[str, str]:
        return {}

    app.add_api_route(EMPTY, empty, methods=["GET"], include_in_schema=False)
    app.router.routes.insert(0, app.router.routes.pop())
    return app


def bare_round(engine: Any, table_id: str, round_id: str) -> float:
    """The bare durable commits of a settled round: its round events appended again (same
    kinds, actors, payloads) to a table of their own, each in its own transaction with the
    projected columns that step writes, every value read beforehand from the round as stored
    (nothing judged, parsed or ranked). Returns this thread's CPU seconds for them."""
    from table_controller.game.cards import Game
    from table_controller.round.events import ROUND_EVENT_KINDS
    from table_controller.storage import (
        RoundCreate,
        RoundPositionCreate,
        RoundPositionUpdate,
        RoundUpdate,
        add_positions,
        append_event,
        create_round,
        get_positions,
        get_round,
        list_events,
        read_snapshot,
        unit_of_work,
        update_positions,
        update_round,
    )

    from .bench_round import DEAL_FIELDS, ROUND_FIELDS, SETTING_FIELDS, SETTLE_FIELDS, pick

    with read_snapshot(engine) as session:
        stored = [
            e
            for e in list_events(session, table_id=table_id, round_id=round_id)
            if e.kind in ROUND_EVENT_KINDS
        ]
        final = get_round(session, round_id=round_id)
        seats = {seat.position: seat for seat in get_positions(session, round_id=round_id)}
    steps = []
    players = sum(1 for e in stored if e.kind == "player.set")
    seen = 0
    for event in stored[1:]:
        payload = json.loads(event.payload)
        if event.kind == "dice.rolled":
            phase = "dealing"
            changes: dict[str, Any] = pick(
                final, ("die_1", "die_2", "die_3", "dice_source", "start_position")
            )
            positions: dict[int, dict[str, Any]] = {}
        elif event.kind == "piles.dealt":
            phase, changes = "players-setting", {"house_way_rule_id": final.house_way_rule_id}
            positions = {p: pick(s, DEAL_FIELDS) for p, s in seats.items() if s.cards}
        elif event.kind == "player.set":
            seen += 1
            phase, changes = ("players-setting" if seen < players else "dealer-setting"), {}
            positions = {payload["position"]: pick(seats[payload["position"]], SETTING_FIELDS)}
        elif event.kind in ("dealer.set", "dealer.override"):
            phase, changes = "settling", {}
            positions = {1: {**pick(seats[1], SETTING_FIELDS), "override": seats[1].override}}
        else:
            phase, changes = final.phase, pick(final, ROUND_FIELDS[3:])
            positions = {p: pick(s, SETTLE_FIELDS) for p, s in seats.items()}
        steps.append((event, payload, phase, changes, positions))
    opening = json.loads(stored[0].payload)
    began = time.thread_time()
    with unit_of_work(engine) as session:
        row = create_round(
            session,
            data=RoundCreate(
                table_id=table_id + BARE,
                game=Game(final.game),
                dealer=final.dealer,
                phase="open",
                opened_at=final.opened_at,
            ),
        )
        append_event(
            session,
            table_id=table_id + BARE,
            round_id=row.round_id,
            kind=stored[0].kind,
            actor=stored[0].actor,
            payload=opening,
        )
        add_positions(
            session,
            round_id=row.round_id,
            seats=[RoundPositionCreate(position=p, wager_cents=s.wager_cents) for p, s in seats.items()],
        )
        update_round(session, round_id=row.round_id, changes=RoundUpdate(wagered_cents=final.wagered_cents))
    for event, payload, phase, changes, positions in steps:
        with unit_of_work(engine) as session:
            append_event(
                session,
                table_id=table_id + BARE,
                round_id=row.round_id,
                kind=event.kind,
                actor=event.actor,
                payload=payload,
            )
            if positions:
                update_positions(
                    session,
                    round_id=row.round_id,
                    changes={p: RoundPositionUpdate(**values) for p, values in positions.items()},
                )
            update_round(session, round_id=row.round_id, changes=RoundUpdate(phase=phase, **changes))
    return time.thread_time() - began


def host_main(
    url: str,
    tables: list[tuple[str, str]],
    folder: str,
    pace: float,
    heartbeat: float,
    commands: Any,
    answers: Any,
) -> None:
    """A process holding some tables: each with its API served over HTTP; deals on command."""
    _quiet_logs()
    from table_controller.api.server import serving
    from table_controller.daemon.run import start_floor_heartbeat

    with ExitStack() as stack:
        dealing: list[DealingTable] = []
        bases = {}
        for table_id, pit in tables:
            table = DealingTable(table_id, pit, url, Path(folder), seed=int(table_id[1:]))
            stack.callback(table.engine.dispose)
            bases[table_id] = stack.enter_context(serving(table.app))
            stack.callback(start_floor_heartbeat(table.service, heartbeat))
            dealing.append(table)
        answers.put(("ready", os.getpid(), bases))
        stop = threading.Event()
        threads: list[threading.Thread] = []
        samples: dict[str, list[tuple[float, float]]] = {t.table_id: [] for t in dealing}
        while True:
            command = commands.get()
            if command[0] == "alone":  # the first table deals alone at its pace: warm-up, then timed
                table, rounds = dealing[0], command[1]
                walls, cpus, ids = [], [], []
                for n in range(WARM_UP_ROUNDS + rounds):
                    began = time.monotonic()
                    spent, cpu, round_id = table.play_round()
                    if n >= WARM_UP_ROUNDS:
                        walls.append(spent)
                        cpus.append(cpu)
                        ids.append(round_id)
                    time.sleep(max(0.0, min(pace, 3.0) - (time.monotonic() - began)))
                answers.put(("alone", walls, cpus, ids))
            elif command[0] == "bare":  # the bare commits of those rounds
                table = dealing[0]
                answers.put(("bare", [bare_round(table.engine, table.table_id, r) for r in command[1]]))
            elif command[0] == "burst":  # rounds back to back, for the stream's unit cost
                for _ in range(command[1]):
                    dealing[0].play_round()
                answers.put(("burst",))
            elif command[0] == "go":
                for table in dealing:
                    thread = threading.Thread(
                        target=table.deal,
                        args=(stop, pace, samples[table.table_id], random.uniform(0, pace)),
                        name=f"deal-{table.table_id}",
                    )
                    thread.start()
                    threads.append(thread)
            elif command[0] == "stop":
                stop.set()
                for thread in threads:
                    thread.join(120)
                answers.put(
                    (
                        "done",
                        {t.table_id: (t.settled, samples[t.table_id], t.failures) for t in dealing},
                    )
                )
            elif command[0] == "exit":
                return


@contextmanager
def floor_service(url: str, workers: int, log_file: Path) -> Iterator[tuple[str, dict[int, str]]]:
    """``table-controller floor --workers N`` as the floor is run (with the empty endpoint:
    benchmarks/floor_probe.py), its log (warnings up) in ``log_file``; yields its URL and its
    serving processes (pid -> name: the workers, or the floor itself with one)."""
    with log_file.open("w") as log:
        command = ["floor", "--db-url", url, "--port", "0", "--workers", str(workers)]
        floor = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.floor_probe", *command],
            env={**os.environ, "FLOOR_LOG_LEVEL": "WARNING", "FLOOR_LOG_FORMAT": "json"},
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
    try:
        printed = floor.stdout.readline().strip() if floor.stdout else ""
        if not printed.startswith("floor listening on "):
            raise RuntimeError(f"the floor did not start: {printed!r}\n{log_file.read_text()[-2000:]}")
        serving_pids = {floor.pid: "floor"}
        if workers > 1:
            deadline = time.monotonic() + 60
            while len(found := _worker_pids(floor.pid)) < workers:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the floor's workers did not start:\n{log_file.read_text()[-2000:]}")
                time.sleep(0.1)
            serving_pids = {pid: f"floor worker {n}" for n, pid in enumerate(sorted(found))}
        yield printed.removeprefix("floor listening on "), serving_pids
    finally:
        floor.terminate()
        try:
            floor.wait(60)
        except subprocess.TimeoutExpired:
            floor.kill()
            floor.wait()


def _worker_pids(parent: int) -> set[int]:
    """The floor's workers: its children but multiprocessing's resource tracker (``/proc``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if ppid == parent and b"resource_tracker" not in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
    return found


# --------------------------------------------------------------------------- terminals


class Figures:
    """One terminal process's measurements, sent back whole."""

    def __init__(self) -> None:
        self.requests: dict[str, list[float]] = defaultdict(list)  # endpoint -> seconds
        self.errors: dict[str, int] = defaultdict(int)
        self.first_errors: list[str] = []
        self.delivery: dict[str, np.ndarray] = {}  # stream kind -> counts in 0.1 ms bins; last: beyond
        self.received: dict[tuple[int, str, str], list[int]] = defaultdict(list)  # (terminal, kind, table)
        self.retried: dict[str, int] = defaultdict(int)  # a GET sent again on a connection closed under it
        self.resumed = 0  # streams resumed from their last id after a drop
        self.lost = 0  # gaps: events before the last one received that never arrived
        self.late = 0  # events after the last one received, not arrived by the end of the drain
        self.doubled = 0
        self.streams_checked = 0
        self.lost_examples: list[str] = []

    def error(self, what: str, detail: str) -> None:
        self.errors[what] += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(f"{what}: {detail}"[:300])


async def _get_once(client: Any, figures: Figures, name: str, url: str, counter: Any) -> None:
    import httpx

    began = time.perf_counter()
    try:
        try:
            answer = await client.get(url)
        except httpx.RemoteProtocolError:  # the server closed the idle connection as we sent: again
            figures.retried[name] += 1
            answer = await client.get(url)
        elapsed = time.perf_counter() - began
        if answer.status_code == 200:
            figures.requests[name].append(elapsed)
        else:
            figures.error(name, f"{answer.status_code} {answer.text[:200]}")
    except Exception as error:
        figures.error(name, f"{type(error).__name__}: {error}")
    with counter.get_lock():
        counter.value += 1


async def _page(
    client: Any, figures: Figures, url: str, every: float, stop: asyncio.Event, counter: Any
) -> None:
    """A table's page: its state every ``every`` seconds, as the page polls."""
    await asyncio.sleep(random.uniform(0, every))
    while not stop.is_set():
        began = time.perf_counter()
        await _get_once(client, figures, "table page", url, counter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, every - (time.perf_counter() - began)))


async def _floor_requests(
    clients: dict[str, Any],
    figures: Figures,
    floor: str,
    pit_tables: dict[str, list[str]],
    rate: float,
    stop: asyncio.Event,
    counter: Any,
) -> None:
    """``rate`` floor requests a second, each on its own schedule (a slow answer does not slow
    the next): a pit's overview, its open alerts, a table's history, in turn, pits in turn."""
    if rate <= 0:
        return
    kinds = ("floor tables", "floor alerts", "floor history")
    pits = sorted(clients)
    pending: set[asyncio.Task[None]] = set()
    n = 0
    await asyncio.sleep(random.uniform(0, 1 / rate))
    next_at = time.perf_counter()
    while not stop.is_set():
        pit, kind = pits[n % len(pits)], kinds[(n // len(pits)) % len(kinds)]
        table = random.choice(pit_tables[pit])
        path = {
            "floor tables": f"/api/floor/tables?pit={pit}",
            "floor alerts": f"/api/floor/alerts?pit={pit}",
            "floor history": f"/api/floor/tables/{table}/rounds?limit=20",
        }[kind]
        task = asyncio.create_task(_get_once(clients[pit], figures, kind, f"{floor}{path}", counter))
        pending.add(task)
        task.add_done_callback(pending.discard)
        n += 1
        next_at += 1 / rate
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, next_at - time.perf_counter()))
    await asyncio.gather(*pending, return_exceptions=True)


async def _follow(
    client: Any,
    figures: Figures,
    key: tuple[int, str],
    url: str,
    connected: asyncio.Event,
    done: asyncio.Event,
    heads: dict[str, int],
    tables: set[str],
    counter: Any,
) -> None:
    """Hold a stream; note each event's table and seq, and its delivery latency when it was
    written after the stream connected. A stream that drops is resumed from its last id
    (``Last-Event-ID``), as a terminal does: that is the protocol by which nothing is lost.
    Ends when every table's final head has arrived (or when cancelled)."""
    terminal, kind = key
    since = time.time()
    last_id: str | None = None
    while True:
        headers = {} if last_id is None else {"Last-Event-ID": last_id}
        try:
            async with client.stream("GET", url, headers=headers) as answer:
                if answer.status_code != 200:
                    figures.error(f"{kind} stream", f"{answer.status_code}")
                    connected.set()
                    return
                connected.set()
                async for line in answer.aiter_lines():
                    if line.startswith("id: "):
                        last_id = line[4:]
                        continue
                    if not line.startswith("data: "):
                        continue
                    now = time.time()
                    data = json.loads(line[6:])
                    table_id = data.get("table_id") or next(iter(tables))
                    figures.received[(terminal, kind, table_id)].append(int(data["seq"]))
                    created = datetime.fromisoformat(data["created_at"]).timestamp()
                    if created >= since:
                        histogram = figures.delivery.get(kind)
                        if histogram is None:
                            histogram = figures.delivery[kind] = np.zeros(
                                HISTOGRAM_MS * 10 + 1, dtype=np.int64
                            )
                        histogram[max(0, min(int((now - created) * 10_000), len(histogram) - 1))] += 1
                    with counter.get_lock():
                        counter.value += 1
                    if done.is_set() and all(
                        (figures.received.get((terminal, kind, t)) or [0])[-1] >= heads.get(t, 0)
                        for t in tables
                    ):
                        return
        except Exception as error:  # dropped: counted, then resumed from the last id
            figures.error(f"{kind} stream dropped", f"{type(error).__name__}: {error}")
        connected.set()
        figures.resumed += 1
        await asyncio.sleep(0.5)


async def _terminals(
    specs: list[dict[str, Any]],
    options: dict[str, Any],
    commands: Any,
    answers: Any,
    counters: Any,
) -> Figures:
    import httpx

    figures = Figures()
    stop, done = asyncio.Event(), asyncio.Event()
    heads: dict[str, int] = {}
    clients = [
        httpx.AsyncClient(headers={"Authorization": f"Bearer {spec['token']}"}, timeout=60) for spec in specs
    ]
    pollers, followers, connected = [], [], []
    for client, spec in zip(clients, specs, strict=True):
        pollers.append(
            _page(client, figures, f"{spec['table_url']}/api/table", options["page"], stop, counters[0])
        )
        ready = asyncio.Event()
        connected.append(ready)
        pit_tables = set(spec["pit_tables"])
        after = ",".join(f"{t}:0" for t in sorted(pit_tables))
        followers.append(
            _follow(
                client,
                figures,
                (spec["terminal"], "floor"),
                f"{spec['floor_url']}/api/floor/stream?pit={spec['pit']}&after={after}",
                ready,
                done,
                heads,
                pit_tables,
                counters[1],
            )
        )
    floor_clients = {
        pit: httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        for pit, token in options["tokens"].items()
    }
    pollers.append(
        _floor_requests(
            floor_clients,
            figures,
            options["floor_url"],
            options["pit_tables"],
            options["floor_rate"],
            stop,
            counters[0],
        )
    )
    stream_tasks = [asyncio.create_task(f) for f in followers]
    for ready in connected:
        await asyncio.wait_for(ready.wait(), 120)
    answers.put(("connected", len(connected)))
    loop = asyncio.get_running_loop()
    command = await loop.run_in_executor(None, commands.get)
    assert command[0] == "poll"
    poll_tasks = [asyncio.create_task(p) for p in pollers]
    command = await loop.run_in_executor(None, commands.get)  # ("finish", heads)
    stop.set()
    await asyncio.gather(*poll_tasks)
    heads.update(command[1])
    done.set()

    def complete() -> bool:
        return all(
            (figures.received.get((spec["terminal"], "floor", t)) or [0])[-1] >= heads.get(t, 0)
            for spec in specs
            for t in spec["pit_tables"]
        )

    drain_until = time.monotonic() + options["drain"]  # then what has not arrived is lost
    while not complete() and time.monotonic() < drain_until:
        await asyncio.sleep(0.2)
    for task in stream_tasks:
        task.cancel()
    await asyncio.gather(*stream_tasks, return_exceptions=True)
    for client in [*clients, *floor_clients.values()]:
        await client.aclose()
    for spec in specs:
        for table_id in spec["pit_tables"]:
            got = figures.received.pop((spec["terminal"], "floor", table_id), [])
            figures.streams_checked += 1
            last = max(got, default=0)
            wanted = set(range(1, min(last, heads.get(table_id, 0)) + 1))
            missing = wanted - set(got)
            figures.lost += len(missing)
            figures.late += max(0, heads.get(table_id, 0) - last)
            figures.doubled += len(got) - len(set(got))
            if missing and len(figures.lost_examples) < 5:
                figures.lost_examples.append(
                    f"terminal {spec['terminal']} floor stream, table {table_id}: {len(missing)}"
                    f" of {len(wanted)} missing (first {min(missing)}), last received {last}"
                )
    return figures


def terminals_main(
    specs: list[dict[str, Any]],
    options: dict[str, Any],
    commands: Any,
    answers: Any,
    counters: Any,
) -> None:
    _quiet_logs()
    figures = asyncio.run(_terminals(specs, options, commands, answers, counters))
    answers.put(("figures", figures))


# --------------------------------------------------------------------------- the cost of a unit of work


def request_cpu(
    pid: int, token: str, urls: dict[str, str], requests: int, block: int = 50
) -> dict[str, float]:
    """CPU seconds of the server process ``pid`` per request, for each of ``urls``: blocks of
    ``block`` sequential requests, the kinds interleaved block by block (the machine's other
    work then weighs on each alike)."""
    import httpx

    spent = dict.fromkeys(urls, 0.0)
    counted = dict.fromkeys(urls, 0)
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        for url in urls.values():  # warm: connections, caches
            for _ in range(5):
                client.get(url).raise_for_status()
        for _ in range(max(1, requests // block)):
            for name, url in urls.items():
                began = thread_cpu_seconds(pid)
                for _ in range(block):
                    client.get(url).raise_for_status()
                spent[name] += thread_cpu_seconds(pid) - began
                counted[name] += block
    return {name: spent[name] / counted[name] for name in urls}


def request_transactions(url: str, token: str, target: str, requests: int, idle_per_second: float) -> float:
    """PostgreSQL transactions per request of ``target``, less the idle rate."""
    import httpx

    before, _ = pg_counts(url)
    began = time.monotonic()
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        for _ in range(requests):
            client.get(target).raise_for_status()
    time.sleep(STATS_FLUSH_SECONDS)
    after, _ = pg_counts(url)
    return max(0.0, (after - before - 1 - idle_per_second * (time.monotonic() - began))) / requests


class Subscribers:
    """``count`` floor streams of one pit held by threads of this process, counting the events
    each receives; the first keeps each event's bytes as they came (``chunks``)."""

    def __init__(self, stream_url: str, token: str, count: int) -> None:
        import httpx

        self.received = [0] * count
        self.chunks: list[bytes] = []
        self.clients = [
            httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=httpx.Timeout(60, read=None))
            for _ in range(count)
        ]
        self.ready = [threading.Event() for _ in range(count)]
        self.threads = [
            threading.Thread(target=self._hold, args=(n, stream_url), daemon=True, name=f"subscriber-{n}")
            for n in range(count)
        ]
        for thread in self.threads:
            thread.start()
        for ready in self.ready:
            ready.wait(60)

    def _hold(self, n: int, url: str) -> None:
        lines: list[str] = []
        with contextlib.suppress(Exception), self.clients[n].stream("GET", url) as answer:
            self.ready[n].set()
            for line in answer.iter_lines():
                if line.startswith("data: "):
                    self.received[n] += 1
                if n == 0:
                    if line:
                        lines.append(line)
                    elif lines:
                        self.chunks.append(("\n".join(lines) + "\n\n").encode())
                        lines = []
        self.ready[n].set()

    def wait_for(self, events: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while min(self.received) < events and time.monotonic() < deadline:
            time.sleep(0.1)

    def close(self) -> None:
        for client in self.clients:
            client.close()
        for thread in self.threads:
            thread.join(5)


def socket_write_cpu(chunks: list[bytes], sockets: int, writes: int = 20_000) -> float:
    """This thread's CPU seconds to write one of ``chunks`` to one socket (``sendall`` to each
    of ``sockets`` socket pairs in turn, the chunks over and over up to ``writes``), a thread
    reading the other ends meanwhile."""
    import selectors

    pairs = [socket.socketpair() for _ in range(sockets)]
    done = threading.Event()

    def drain() -> None:
        selector = selectors.DefaultSelector()
        for _, reader in pairs:
            selector.register(reader, selectors.EVENT_READ)
        while not done.is_set():
            for key, _ in selector.select(0.1):
                key.fileobj.recv(1 << 16)  # type: ignore[union-attr]

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    rounds = max(1, writes // max(1, len(chunks) * sockets))
    began = time.thread_time()
    for _ in range(rounds):
        for chunk in chunks:
            for writer, _ in pairs:
                writer.sendall(chunk)
    spent = time.thread_time() - began
    done.set()
    reader.join(5)
    for writer, other in pairs:
        writer.close()
        other.close()
    return spent / (rounds * len(chunks) * sockets)


# --------------------------------------------------------------------------- the run


def _store_counts(url: str) -> tuple[dict[str, int], dict[str, int], int, dict[str, int]]:
    """Per table: settled rounds in the projection, chained ``round.settled`` events, rounds
    settled more than once (all tables), and the chain's head seq."""
    from sqlalchemy import text

    from table_controller.storage import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            rounds: dict[str, int] = dict(
                connection.execute(
                    text("SELECT table_id, count(*) FROM rounds WHERE phase = 'closed' GROUP BY table_id")
                ).all()
            )
            settled: dict[str, int] = dict(
                connection.execute(
                    text(
                        "SELECT table_id, count(*) FROM events WHERE kind = 'round.settled' GROUP BY table_id"
                    )
                ).all()
            )
            twice = connection.execute(
                text(
                    "SELECT count(*) FROM (SELECT round_id FROM events WHERE kind = 'round.settled'"
                    " GROUP BY round_id HAVING count(*) > 1) AS twice"
                )
            ).scalar_one()
            heads: dict[str, int] = dict(
                connection.execute(text("SELECT table_id, last_seq FROM chain_heads")).all()
            )
    finally:
        engine.dispose()
    return rounds, settled, int(twice), heads


def _settled_now(url: str) -> int:
    from sqlalchemy import text

    from table_controller.storage import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    text(
                        f"SELECT count(*) FROM rounds WHERE phase = 'closed' AND table_id NOT LIKE '%{BARE}'"
                    )
                ).scalar_one()
            )
    finally:
        engine.dispose()


def _percentiles_ms(samples: list[float]) -> tuple[float, float]:
    values = np.asarray(samples, dtype=np.float64) * 1e3
    return float(np.percentile(values, 50)), float(np.percentile(values, 99))


def _histogram_percentiles_ms(histogram: np.ndarray) -> tuple[float, float, int]:
    total = int(histogram.sum())
    if total == 0:
        return float("nan"), float("nan"), 0
    cumulative = np.cumsum(histogram)
    p50 = int(np.searchsorted(cumulative, 0.50 * total))
    p99 = int(np.searchsorted(cumulative, 0.99 * total))
    return p50 / 10, p99 / 10, total


def _get(answers: Any, kind: str, timeout: float, processes: list[Any]) -> tuple[Any, ...]:
    """The next answer of ``kind`` (an answer of another kind is an error in the run); a child
    process that died stops the run at once rather than at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = answers.get(timeout=1.0)
            break
        except queue.Empty:
            dead = [p.name for p in processes if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(
                    f"waiting for {kind!r}: process(es) {dead} died (their stderr is above)"
                ) from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {kind!r} in {timeout:.0f} s") from None
    if answer[0] != kind:
        raise RuntimeError(f"expected {kind!r}, got {answer[0]!r}")
    return tuple(answer)


def _slope_mib_per_min(samples: list[tuple[float, float]], from_minutes: float) -> float | None:
    """The least-squares slope (MiB a minute) of (minutes, MiB) samples at or after ``from_minutes``."""
    kept = [(t, m) for t, m in samples if t >= from_minutes]
    if len(kept) < 3:
        return None
    t, m = np.array(kept).T
    return float(np.polyfit(t, m, 1)[0])


def run(args: argparse.Namespace) -> int:
    from table_controller.storage import add_user, make_engine, unit_of_work

    context = multiprocessing.get_context("spawn")
    table_ids = [f"t{n:02d}" for n in range(1, args.tables + 1)]
    pits = {t: f"pit-{(n % args.pits) + 1}" for n, t in enumerate(table_ids)}
    pace = args.tables * 60 / args.rounds_per_minute  # each table starts a round this often
    processes: list[Any] = []
    began_at = time.monotonic()
    units: dict[str, Any] = {"pace": pace}

    def say(text: str) -> None:
        print(f"[{time.monotonic() - began_at:6.0f} s] {text}", flush=True)

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_floor_")))
        if args.postgres_url:
            server = args.postgres_url
        else:
            server = stack.enter_context(own_postgres(folder, max_connections=20 * args.tables + 100))
        postmaster = None if args.postgres_url else postmaster_pid(folder)
        url = stack.enter_context(bench_database(server))
        say(f"PostgreSQL ready ({'own server' if not args.postgres_url else server})")
        engine = make_engine(url)
        with unit_of_work(engine) as session:  # a pit user per pit: the floor shows a pit user their pit
            tokens = {
                pit: add_user(session, name=f"bench-{pit}", role="pit", pit=pit)
                for pit in sorted(set(pits.values()))
            }
        engine.dispose()

        def stop_processes() -> None:
            for process in processes:
                process.join(15)
                if process.is_alive():
                    process.terminate()  # our own child, by its handle
                    process.join(5)

        stack.callback(stop_processes)

        # the tables: the probe alone in its process, the others grouped
        groups = [[PROBE]] + [
            table_ids[1:][n : n + args.tables_per_host]
            for n in range(0, args.tables - 1, args.tables_per_host)
        ]
        hosts = []
        answers = context.Queue()
        for group in groups:
            commands = context.Queue()
            process = context.Process(
                target=host_main,
                args=(url, [(t, pits[t]) for t in group], str(folder), pace, 5.0, commands, answers),
                name=f"tables-{group[0]}",
            )
            process.start()
            processes.append(process)
            hosts.append(commands)

        def exit_hosts() -> None:
            for commands in hosts:
                commands.put(("exit",))

        stack.callback(exit_hosts)
        bases: dict[str, str] = {}
        host_pids: dict[int, str] = {}
        for _ in groups:
            _, pid, found = _get(answers, "ready", 600, processes)
            bases.update(found)
            host_pids[pid] = ",".join(found)
        probe_pid = next(pid for pid, names in host_pids.items() if names == PROBE)
        say(f"{args.tables} tables serving in {len(groups)} processes, a round every {pace:.0f} s at each")

        floor_url, floor_pids = stack.enter_context(
            floor_service(url, args.floor_workers, folder / "floor.log")
        )
        floor_pid = next(iter(floor_pids))
        say(f"floor serving at {floor_url} in {len(floor_pids)} process(es)")

        # ---- the costs of a unit of work, nothing else dealing and no terminal
        time.sleep(STATS_FLUSH_SECONDS)
        idle_pids = [*host_pids, floor_pid]
        idle_cpu = {pid: cpu_seconds(pid) or 0.0 for pid in idle_pids}
        idle_pg = server_cpu(postmaster) if postmaster else None
        idle_began, (idle_tx, idle_xid) = time.monotonic(), pg_counts(url)
        time.sleep(args.idle_seconds)
        idle_end, idle_end_xid = pg_counts(url)
        idle_minutes = (time.monotonic() - idle_began) / 60
        units["idle_cpu_per_minute"] = {
            "tables": sum((cpu_seconds(pid) or 0.0) - idle_cpu[pid] for pid in host_pids) / idle_minutes,
            "floor": ((cpu_seconds(floor_pid) or 0.0) - idle_cpu[floor_pid]) / idle_minutes,
            "PostgreSQL": None
            if idle_pg is None or postmaster is None
            else (server_cpu(postmaster) - idle_pg) / idle_minutes,
        }
        idle_per_second = (idle_end - idle_tx - 1) / (time.monotonic() - idle_began)
        idle_writes_per_second = (idle_end_xid - idle_xid) / (time.monotonic() - idle_began)
        units["idle_tx_per_second"] = idle_per_second
        units["idle_writes_per_second"] = idle_writes_per_second
        say(f"idle: {idle_per_second:.1f} PostgreSQL transactions a second (the tables' heartbeats)")

        tx_before, xid_before = pg_counts(url)
        alone_began = time.monotonic()
        hosts[0].put(("alone", args.alone_rounds))
        _, alone, alone_cpu, alone_ids = _get(
            answers, "alone", 120 + 60 * (args.alone_rounds + WARM_UP_ROUNDS), processes
        )
        time.sleep(STATS_FLUSH_SECONDS)
        tx_after, xid_after = pg_counts(url)
        rounds_dealt = args.alone_rounds + WARM_UP_ROUNDS
        units["alone_tx_per_round"] = (
            tx_after - tx_before - 1 - idle_per_second * (time.monotonic() - alone_began)
        ) / rounds_dealt
        units["alone_writes_per_round"] = (
            xid_after - xid_before - idle_writes_per_second * (time.monotonic() - alone_began)
        ) / rounds_dealt
        hosts[0].put(("bare", alone_ids))
        units["bare_cpu"] = _get(answers, "bare", 600, processes)[1]
        say(
            f"{PROBE} alone: {len(alone)} rounds, median commit {np.median(alone) * 1e3:.1f} ms,"
            f" CPU {np.median(alone_cpu) * 1e3:.1f} ms a round against"
            f" {np.median(units['bare_cpu']) * 1e3:.1f} ms"
            " for its bare commits"
        )

        probe_pit = pits[PROBE]
        units["requests"] = request_cpu(
            probe_pid,
            tokens[probe_pit],
            {"table page": f"{bases[PROBE]}/api/table", "empty (table)": f"{bases[PROBE]}{EMPTY}"},
            args.unit_requests,
        )
        units["requests"].update(
            request_cpu(
                floor_pid,
                tokens[probe_pit],
                {
                    "floor overview": f"{floor_url}/api/floor/tables?pit={probe_pit}",
                    "empty (floor)": f"{floor_url}{EMPTY}",
                },
                args.unit_requests,
            )
        )
        units["page_tx"] = request_transactions(
            url, tokens[probe_pit], f"{bases[PROBE]}/api/table", args.unit_requests * 2, idle_per_second
        )
        units["overview_tx"] = request_transactions(
            url,
            tokens[probe_pit],
            f"{floor_url}/api/floor/tables?pit={probe_pit}",
            args.unit_requests * 2,
            idle_per_second,
        )
        say(
            "CPU a request: "
            + ", ".join(f"{name} {cost * 1e3:.2f} ms" for name, cost in units["requests"].items())
            + f"; PostgreSQL transactions: {units['page_tx']:.2f} a page,"
            + f" {units['overview_tx']:.2f} an overview"
        )

        stream_url = f"{floor_url}/api/floor/stream?pit={probe_pit}"
        heads_before = _store_counts(url)[3].get(PROBE, 0)
        floor_before = thread_cpu_seconds(floor_pid)
        hosts[0].put(("burst", args.unit_rounds))
        _get(answers, "burst", 600, processes)
        time.sleep(2.0)
        without = thread_cpu_seconds(floor_pid) - floor_before
        events_without = _store_counts(url)[3].get(PROBE, 0) - heads_before
        subscribers = Subscribers(stream_url, tokens[probe_pit], args.unit_subscribers)
        heads_before = _store_counts(url)[3].get(PROBE, 0)
        time.sleep(1.0)
        floor_before = thread_cpu_seconds(floor_pid)
        hosts[0].put(("burst", args.unit_rounds))
        _get(answers, "burst", 600, processes)
        events = _store_counts(url)[3].get(PROBE, 0) - heads_before
        subscribers.wait_for(events, 60)
        time.sleep(1.0)
        with_subscribers = thread_cpu_seconds(floor_pid) - floor_before
        delivered = sum(subscribers.received)
        subscribers.close()
        chunks = subscribers.chunks or [b"data: {}\n\n"]
        units["stream"] = {
            "events": events,
            "events_without": events_without,
            "subscribers": args.unit_subscribers,
            "delivered": delivered,
            "floor_cpu_with": with_subscribers,
            "floor_cpu_without": without,
            "per_delivery": (with_subscribers - without * events / max(1, events_without))
            / max(1, delivered),
            "socket": socket_write_cpu(chunks, args.unit_subscribers),
            "bytes": sum(len(c) for c in chunks) / len(chunks),
        }
        say(
            f"stream: {events} events to {args.unit_subscribers} subscribers ({delivered} delivered),"
            f" the floor's CPU {with_subscribers:.2f} s with them,"
            f" {without:.2f} s with none for {events_without}"
        )

        # ---- the load
        specs = []
        for n in range(args.terminals):
            table = table_ids[n % args.tables]
            specs.append(
                {
                    "terminal": n,
                    "table": table,
                    "table_url": bases[table],
                    "floor_url": floor_url,
                    "pit": pits[table],
                    "token": tokens[pits[table]],
                    "pit_tables": [t for t in table_ids if pits[t] == pits[table]],
                }
            )
        pit_tables = {pit: [t for t in table_ids if pits[t] == pit] for pit in tokens}
        counters = (context.Value("q", 0), context.Value("q", 0))
        terminal_commands = []
        terminal_pids: dict[int, str] = {}
        for n in range(args.terminal_procs):
            options = {
                "page": args.page_seconds,
                "drain": args.drain_seconds,
                "floor_rate": args.floor_rate / args.terminal_procs,
                "floor_url": floor_url,
                "tokens": tokens,
                "pit_tables": pit_tables,
            }
            commands = context.Queue()
            process = context.Process(
                target=terminals_main,
                args=(specs[n :: args.terminal_procs], options, commands, answers, counters),
                name=f"terminals-{n}",
            )
            process.start()
            processes.append(process)
            terminal_commands.append(commands)
            assert process.pid is not None
            terminal_pids[process.pid] = f"terminals {n}"
        streams = sum(_get(answers, "connected", 300, processes)[1] for _ in terminal_commands)
        say(f"{args.terminals} terminals in {args.terminal_procs} processes, {streams} streams held")

        pids = {pid: f"tables {names}" for pid, names in host_pids.items()}
        pids.update(floor_pids)
        pids.update(terminal_pids)
        memory: dict[int, list[tuple[float, float]]] = {pid: [] for pid in pids}
        cpu_start = {pid: cpu_seconds(pid) or 0.0 for pid in pids}
        pg_cpu_start = server_cpu(postmaster) if postmaster else None
        settled_before = _settled_now(url)
        tx_before, xid_before = pg_counts(url)
        for commands in terminal_commands:
            commands.put(("poll",))
        for commands in hosts:
            commands.put(("go",))
        load_began = time.monotonic()
        deadline = load_began + args.minutes * 60
        next_progress = load_began + args.progress
        say(f"dealing on {args.tables} tables for {args.minutes:g} min")
        while time.monotonic() < deadline:
            time.sleep(min(args.sample_seconds, max(0.0, deadline - time.monotonic())))
            minutes = (time.monotonic() - load_began) / 60
            for pid in pids:
                rss = rss_mib(pid)
                if rss is not None:
                    memory[pid].append((minutes, rss))
            if time.monotonic() >= next_progress or time.monotonic() >= deadline:
                next_progress += args.progress
                settled = _settled_now(url) - settled_before
                total = sum(m[-1][1] for m in memory.values() if m)
                say(
                    f"{settled} rounds settled ({settled / minutes:.0f}/min), {counters[0].value} requests,"
                    f" {counters[1].value} stream events received, memory of all processes {total:.0f} MiB"
                )
        load_seconds = time.monotonic() - load_began
        cpu_end = {pid: cpu_seconds(pid) or 0.0 for pid in pids}
        pg_cpu_end = server_cpu(postmaster) if postmaster else None
        tx_after, xid_after = pg_counts(url)
        requests_sent = counters[0].value
        for commands in hosts:
            commands.put(("stop",))
        results: dict[str, tuple[int, list[tuple[float, float]], list[str]]] = {}
        for _ in hosts:
            results.update(_get(answers, "done", 300, processes)[1])
        settled_load = _settled_now(url) - settled_before
        say("dealing stopped; streams draining")
        rounds, chained, twice, heads = _store_counts(url)
        for commands in terminal_commands:
            commands.put(("finish", {t: heads.get(t, 0) for t in table_ids}))
        figures = [_get(answers, "figures", 300, processes)[1] for _ in terminal_commands]

    load = {
        "minutes": load_seconds / 60,
        "settled": settled_load,
        "tx": tx_after - tx_before,
        "writes": xid_after - xid_before,
        "requests": requests_sent,
        "cpu": {pid: cpu_end[pid] - cpu_start[pid] for pid in pids},
        "pg_cpu": None if pg_cpu_start is None or pg_cpu_end is None else pg_cpu_end - pg_cpu_start,
    }
    report(args, results, alone, alone_cpu, units, load, rounds, chained, twice, figures, pids, memory)
    return 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def report(
    args: argparse.Namespace,
    results: dict[str, tuple[int, list[tuple[float, float]], list[str]]],
    alone: list[float],
    alone_cpu: list[float],
    units: dict[str, Any],
    load: dict[str, Any],
    rounds: dict[str, int],
    chained: dict[str, int],
    twice: int,
    figures: list[Figures],
    pids: dict[int, str],
    memory: dict[int, list[tuple[float, float]]],
) -> None:
    """The figures, with the goals beside them."""
    minutes = load["minutes"]
    settled = load["settled"]
    print(
        f"\n=== the floor at a casino's pace: {args.tables} tables"
        f" ({args.rounds_per_minute:g} rounds a minute"
        f" asked), {args.terminals} terminals (a page every {args.page_seconds:g} s, a floor stream each),"
        f" {args.floor_rate:g} floor requests a second, {minutes:.1f} min,"
        f" {args.floor_workers} floor process(es) ==="
    )
    print(f"rounds settled under load: {settled} ({settled / minutes:.1f} a minute)")

    own = {t: r[0] for t, r in results.items()}
    mismatched = [
        f"{t}: table {own[t]}, store {rounds.get(t, 0)}, chained {chained.get(t, 0)}"
        for t in sorted(own)
        if not own[t] == rounds.get(t, 0) == chained.get(t, 0)
    ]
    ok = not mismatched and twice == 0
    print(
        f"every round settled once: {'yes' if ok else 'NO'} ({sum(own.values())} settled by the tables,"
        f" {sum(rounds.get(t, 0) for t in own)} in the store, {sum(chained.get(t, 0) for t in own)} chained;"
        f" {twice} settled twice)"
    )
    for mismatch in mismatched[:10]:
        print(f"  {mismatch}")
    failures = [f"{t}: {f}" for t, r in results.items() for f in r[2]]
    if failures:
        print(f"rounds that failed: {len(failures)}; first: {failures[:3]}")

    lost = sum(f.lost for f in figures)
    doubled = sum(f.doubled for f in figures)
    late = sum(f.late for f in figures)
    checked = sum(f.streams_checked for f in figures)
    print(
        f"every stream event delivered once: {'yes' if not lost and not doubled and not late else 'NO'}"
        f" ({checked} (terminal, table) streams checked against the store's heads: {lost} lost,"
        f" {doubled} doubled, {late} not delivered by the end of the drain;"
        f" {sum(f.resumed for f in figures)} streams resumed after a drop)"
    )
    for f in figures:
        for example in f.lost_examples:
            print(f"  {example}")
    retried = {name: sum(f.retried.get(name, 0) for f in figures) for f in figures for name in f.retried}
    if retried:
        print(f"requests sent again on a connection the server had closed: {retried}")

    print(
        f"\n{'requests':24} {'count':>8} {'errors':>7} {'p50 ms':>8} {'p99 ms':>8}"
        f"  goal p99 < {GOAL_REQUEST_P99_MS:g} ms (streams < {GOAL_STREAM_P99_MS:g} ms)"
    )
    requests: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for f in figures:
        for name, samples in f.requests.items():
            requests[name].extend(samples)
        for name, count in f.errors.items():
            errors[name] += count
    for name in sorted(set(requests) | {e for e in errors if "stream" not in e}):
        samples = requests.get(name, [])
        p50, p99 = _percentiles_ms(samples) if samples else (float("nan"), float("nan"))
        verdict = "met" if samples and p99 < GOAL_REQUEST_P99_MS else "NOT met"
        print(f"{name:24} {len(samples):8} {errors.get(name, 0):7} {p50:8.1f} {p99:8.1f}  {verdict}")
    stream_errors = {name: n for name, n in errors.items() if "stream" in name}
    for kind in sorted({kind for f in figures for kind in f.delivery}):
        histogram = np.sum([f.delivery[kind] for f in figures if kind in f.delivery], axis=0)
        p50, p99, count = _histogram_percentiles_ms(histogram)
        verdict = "met" if p99 < GOAL_STREAM_P99_MS else "NOT met"
        print(
            f"{kind + ' stream delivery':24} {count:8} {sum(stream_errors.values()):7}"
            f" {p50:8.1f} {p99:8.1f}  {verdict}"
        )
    for f in figures:
        for first in f.first_errors:
            print(f"  error: {first}")

    under_load = results.get(PROBE, (0, [], []))[1]
    if alone and under_load:
        loaded_wall = [w for w, _ in under_load]
        loaded_cpu = [c for _, c in under_load]
        alone_median, loaded_median = float(np.median(alone)), float(np.median(loaded_wall))
        ratio = loaded_median / alone_median
        print(
            f"\nround commit of {PROBE} (its commands' wall time a round, median): alone {_ms(alone_median)}"
            f" ({len(alone)} rounds), under load {_ms(loaded_median)} ({len(loaded_wall)} rounds,"
            f" p99 {_ms(float(np.percentile(loaded_wall, 99)))}): {ratio:.2f}x"
            f"  goal <= {GOAL_COMMIT_RATIO:g}x: {'met' if ratio <= GOAL_COMMIT_RATIO else 'NOT met'}"
        )
        print(
            f"  its CPU a round (its dealing thread): alone {_ms(float(np.median(alone_cpu)))},"
            f" under load {_ms(float(np.median(loaded_cpu)))}"
        )

    print(
        f"\nmemory slope after the first {MEMORY_FROM_MINUTES:g} min (RSS, least squares),"
        f" goal < {GOAL_MEMORY_MIB_PER_MIN:g} MiB/min:"
    )
    worst = 0.0
    for pid, name in pids.items():
        rss = memory.get(pid, [])
        start = min(MEMORY_FROM_MINUTES, minutes / 2)
        slope = _slope_mib_per_min(rss, start)
        if slope is None:
            continue
        worst = max(worst, slope)
        rss_first, rss_last = rss[0][1], rss[-1][1]
        print(
            f"  {name:34} {rss_first:7.1f} -> {rss_last:7.1f} MiB,"
            f" {slope:+6.2f} MiB/min (after {start:.1f} min)"
        )
    print(f"  worst {worst:+.2f} MiB/min: {'met' if worst < GOAL_MEMORY_MIB_PER_MIN else 'NOT met'}")

    # ---- the costs of a unit of work
    print(
        f"\n{'the cost of a unit of work (CPU)':58} {'unit':>10} {'baseline':>10} {'ratio':>7}"
        f"  goal <= {GOAL_UNIT_RATIO:g}x"
    )

    def line(what: str, unit: float, base: float) -> float:
        ratio = unit / base if base > 0 else float("inf")
        verdict = "met" if ratio <= GOAL_UNIT_RATIO else "NOT met"
        print(f"{what:58} {unit * 1e3:8.3f}ms {base * 1e3:8.3f}ms {ratio:6.2f}x  {verdict}")
        return ratio

    bare = float(np.median(units["bare_cpu"]))
    line("settled round through the service / its bare commits", float(np.median(alone_cpu)), bare)
    costs = units["requests"]
    line("GET /api/table / empty endpoint (the table's server)", costs["table page"], costs["empty (table)"])
    line(
        "floor overview / empty endpoint (the floor's server)",
        costs["floor overview"],
        costs["empty (floor)"],
    )
    stream = units["stream"]
    line("stream event per subscriber / the same bytes to a socket", stream["per_delivery"], stream["socket"])
    print(
        f"  (stream: {stream['events']} events of {PROBE} to {stream['subscribers']} subscribers,"
        f" {stream['delivered']}"
        f" delivered, {stream['bytes']:.0f} bytes an event; the floor's CPU {stream['floor_cpu_with']:.2f} s,"
        f" {stream['floor_cpu_without']:.2f} s for {stream['events_without']} events with no subscriber,"
        " subtracted)"
    )
    writes = load["writes"]
    print(
        f"PostgreSQL transactions: a round alone {units['alone_tx_per_round']:.1f}"
        f" ({units['alone_writes_per_round']:.1f} wrote);"
        f" a page {units['page_tx']:.2f}, a floor overview {units['overview_tx']:.2f};"
        f" idle (the tables' heartbeats and whatever else runs while nothing deals)"
        f" {units['idle_tx_per_second']:.1f} a second, {units['idle_writes_per_second']:.1f} of them writes"
    )
    if settled:
        idle_writes = units["idle_writes_per_second"] * minutes * 60
        print(
            f"  under load: {load['tx']} in {minutes:.1f} min ({load['tx'] / (minutes * 60):.0f} a second),"
            f" {load['tx'] / settled:.1f} per settled round, of which {writes / settled:.1f} wrote and"
            f" {(load['tx'] - writes) / settled:.1f} only read; less the idle writes,"
            f" {(writes - idle_writes) / settled:.1f} writes per settled round"
        )

    # ---- where the CPU went, and what the unit costs predict
    by_kind: dict[str, float] = defaultdict(float)
    for pid, spent in load["cpu"].items():
        name = pids[pid]
        kind = (
            "floor"
            if name.startswith("floor")
            else "terminals (the load generator)"
            if name.startswith("terminals")
            else "tables"
        )
        by_kind[kind] += spent
    if load["pg_cpu"] is not None:
        by_kind["PostgreSQL"] = load["pg_cpu"]
    idle = units["idle_cpu_per_minute"]
    print(f"\nCPU under load, seconds a minute (2 cores give {2 * 60:g}), and idle before the load:")
    for kind, spent in sorted(by_kind.items()):
        before = idle.get(kind)
        print(f"  {kind:34} {spent / minutes:7.1f}" + ("" if before is None else f"   idle {before:5.1f}"))
    print(f"  {'all measured':34} {sum(by_kind.values()) / minutes:7.1f}")
    probe = next((spent for pid, spent in load["cpu"].items() if pids[pid] == f"tables {PROBE}"), None)
    if probe is not None:
        print(
            f"  of the tables, {PROBE}'s own process (one table, {args.terminals // args.tables} terminals'"
            f" pages): {probe / minutes:.2f}"
        )
    pages = len(requests.get("table page", []))
    floor_requests = sum(len(requests.get(k, [])) for k in ("floor tables", "floor alerts", "floor history"))
    delivered = sum(int(np.sum(f.delivery[k])) for f in figures for k in f.delivery)
    predicted_tables = (settled * float(np.median(alone_cpu)) + pages * costs["table page"]) / minutes
    predicted_floor = (
        floor_requests * costs["floor overview"] + delivered * stream["per_delivery"]
    ) / minutes
    print(
        f"  the unit costs predict (a minute): tables {predicted_tables:.1f} s"
        f" ({settled / minutes:.0f} rounds, {pages / minutes:.0f} pages), floor {predicted_floor:.1f} s"
        f" ({floor_requests / minutes:.0f} requests"
        f" at an overview's cost, {delivered / minutes:.0f} stream deliveries)"
    )
    if load["pg_cpu"] is not None and load["tx"]:
        print(f"  PostgreSQL: {_ms(load['pg_cpu'] / load['tx'])} of CPU a transaction under load")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of load")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiplies tables, terminals, rounds a minute and floor requests",
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--terminals", type=int, default=200)
    parser.add_argument("--rounds-per-minute", type=float, default=100.0, help="all tables together")
    parser.add_argument(
        "--floor-rate", type=float, default=10.0, help="floor requests a second, all terminals"
    )
    parser.add_argument("--page-seconds", type=float, default=2.0, help="a terminal loads its table's state")
    parser.add_argument("--pits", type=int, default=5)
    parser.add_argument("--alone-rounds", type=int, default=15, help="the probe's rounds dealt alone")
    parser.add_argument("--unit-requests", type=int, default=400, help="requests of each kind for their CPU")
    parser.add_argument("--unit-subscribers", type=int, default=20, help="streams held for an event's CPU")
    parser.add_argument("--unit-rounds", type=int, default=8, help="rounds dealt for an event's CPU")
    parser.add_argument("--idle-seconds", type=float, default=30.0, help="to measure PostgreSQL's idle rate")
    parser.add_argument("--floor-workers", type=int, default=1, help="the floor's processes (its --workers)")
    parser.add_argument("--tables-per-host", type=int, default=5, help="tables per process (the probe's: 1)")
    parser.add_argument("--terminal-procs", type=int, default=2)
    parser.add_argument("--progress", type=float, default=60.0, help="seconds between progress lines")
    parser.add_argument("--sample-seconds", type=float, default=10.0, help="seconds between memory samples")
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=120.0,
        help="after dealing stops, how long streams may catch up",
    )
    parser.add_argument("--postgres-url", help="an existing server (default: one of the benchmark's own)")
    args = parser.parse_args(argv)
    if args.scale != 1.0:
        args.tables = max(2, round(args.tables * args.scale))
        args.terminals = max(1, round(args.terminals * args.scale))
        args.rounds_per_minute *= args.scale
        args.floor_rate *= args.scale
        args.pits = max(1, min(args.pits, args.tables // 2))
    if min(args.tables, args.terminals, args.pits, args.tables_per_host, args.floor_workers) < 1:
        parser.error("--tables, --terminals, --pits, --tables-per-host, --floor-workers: at least 1")
    if args.tables < 2:
        parser.error("--tables: at least 2 (the probe and one more)")
    args.terminal_procs = max(1, min(args.terminal_procs, args.terminals))
    _quiet_logs()
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
