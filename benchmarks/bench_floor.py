"""The floor at scale: many tables dealing continuously against one PostgreSQL while terminals
poll them and hold live streams (docs/floor.md).

    .venv/bin/python -m benchmarks.bench_floor --tables 50 --terminals 200 --minutes 5
        [--round-seconds 10] [--pits 5] [--streams floor|table|both|none] [--postgres-url URL]

A quick try: ``--tables 5 --terminals 20 --minutes 1 --alone-rounds 8``. It runs unattended and
prints a progress line every ``--progress`` seconds (30), then one table of figures with the
goals beside them: p99 of every terminal request under 50 ms, and a round's commit under load
at most 2x the same table's commit alone. The pace: each table starts a round every
``--round-seconds`` (10: six times a real table's pace; 50 tables, 300 rounds a minute), a
round's steps back to back.

What is real and what is simulated
----------------------------------
- **PostgreSQL**: real, one server and one database. By default the benchmark starts a server
  of its own (``initdb`` and ``pg_ctl`` of the installed PostgreSQL, in a temporary folder,
  ``max_connections`` sized for the tables: each table daemon keeps its own connection pool,
  as in production, which the shared server's 100 connections cannot hold for 50 tables);
  ``--postgres-url`` uses an existing server instead (a database of its own, dropped after).
  Commits are durable (``fsync`` and ``synchronous_commit`` as the server's defaults).
- **Tables**: each is a real ``TableService`` on its own engine with its own table API
  (``create_app``) served by uvicorn over real HTTP, registered on the floor and beating its
  heartbeat, as the daemon does (daemon/run.py). The rounds are real: every command goes through
  the service (the round machine, the game core, the audit chain and the projections, one
  durable commit per step, the record check while playing). What is simulated is the devices
  and the people: the dice are drawn at random and the seven piles dealt from a shuffled deck
  in-process (no shuffler or shaker simulator, no device link, no conductor), wagers and the
  players' settings come from the auto-dealer (table/autodealer.py), the dealer sets by the house
  way. The table's math (theoretical win) is not loaded. Tables are grouped
  ``--tables-per-host`` to a process (a "host"): 50 daemons plus 100 simulator children would
  not fit two cores; the measured table (the probe, ``t01``) has a process of its own, as a
  daemon would.
- **The floor**: the real floor service, ``table-controller floor --workers`` ``--floor-workers``
  (docs/floor.md, "More than one process"), its log in the run's folder.
- **Terminals**: ``--terminals`` async httpx clients (one client, hence one connection pool,
  each) in ``--terminal-procs`` processes. Terminal *i* belongs to table *i mod tables*: it
  polls its table's state (``GET /api/table``) every ``--poll-seconds`` and its history (``GET
  /api/rounds``) every ``--history-seconds``, and the floor's overview and alerts every
  ``--floor-seconds``; it holds the live stream of its table's pit on the floor (``--streams
  floor``, the default), of its table's own API (``table``), both, or none. Tables are spread
  over ``--pits`` pits. Every terminal signs in as the pit user of its table's pit.

What is measured
----------------
- rounds per minute, all tables, under load;
- every round settled exactly once: each table's own count of settlements against the store's
  settled rounds and its chained ``round.settled`` events (and no round settled twice);
- every stream: every event of its tables from the first up to the table's last seq, received
  once: lost and doubled events are counted per terminal and table, from the store's heads;
- the memory of every table process and of the floor (RSS from ``/proc``) when the load starts
  and when it ends;
- each terminal request's latency per endpoint (p50, p99: numpy), errors counted;
- stream delivery: the event's ``created_at`` (stamped when it is appended, inside its commit's
  transaction) to its arrival at the terminal (p50, p99), for events written after the
  terminal connected;
- the probe table's round commit latency: per round, the time spent in the service's commands
  (open, dice, deal, each setting, settle: each a durable commit), median under load against
  the median of ``--alone-rounds`` rounds the probe deals first with nothing else dealing and
  no terminals (after two warm-up rounds), in the same run.
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

GOAL_P99_MS = 50.0
GOAL_COMMIT_RATIO = 2.0
PROBE = "t01"
WARM_UP_ROUNDS = 2
HISTOGRAM_MS = 60_000  # stream latencies are counted in 0.1 ms bins up to a minute


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
        self.app = create_app(self.settings, self.service, self.engine)
        self.dealer = AutoDealer(AutoDealerSettings(seed=seed), self.settings.game, self.settings.limits)
        self.rng = random.Random(seed)
        self.settled = 0
        self.failures: list[str] = []

    def play_round(self) -> float:
        """One round start to settlement; returns the seconds spent in the service's commands."""
        from table_controller.game.cards import codes
        from table_controller.round.events import DiceRolled, PilesDealt
        from table_controller.round.phases import Phase

        service, dealer = self.service, self.dealer
        spent = 0.0

        def timed(call: Any, *args: Any, **kwargs: Any) -> Any:
            nonlocal spent
            began = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                spent += time.perf_counter() - began

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
        return spent

    def deal(self, stop: threading.Event, pace: float, samples: list[float], first_delay: float) -> None:
        """Rounds one after another, one started every ``pace`` seconds, until ``stop``; the
        round in progress is finished first."""
        if stop.wait(first_delay):
            return
        while not stop.is_set():
            began = time.monotonic()
            try:
                samples.append(self.play_round())
            except Exception as error:  # counted and shown; the table deals on, as the daemon would
                self.failures.append(f"{type(error).__name__}: {error}"[:300])
                if len(self.failures) > 20:
                    return
            stop.wait(max(0.0, pace - (time.monotonic() - began)))


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
        samples: dict[str, list[float]] = {t.table_id: [] for t in dealing}
        while True:
            command = commands.get()
            if command[0] == "alone":  # the first table deals alone: warm-up, then the timed rounds
                table, rounds = dealing[0], command[1]
                for n in range(WARM_UP_ROUNDS + rounds):
                    began = time.monotonic()
                    spent = table.play_round()
                    if n >= WARM_UP_ROUNDS:
                        samples[table.table_id].append(spent)
                    time.sleep(max(0.0, pace - (time.monotonic() - began)))
                answers.put(("alone", list(samples[table.table_id])))
                samples[table.table_id].clear()
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
    """``table-controller floor --workers N`` as the floor is run, its log (warnings up) in
    ``log_file``; yields its URL and its serving processes (pid -> name: the workers, or the
    floor itself with one)."""
    with log_file.open("w") as log:
        command = ["floor", "--db-url", url, "--port", "0", "--workers", str(workers)]
        floor = subprocess.Popen(
            [sys.executable, "-m", "table_controller", *command],
            env={**os.environ, "FLOOR_LOG_LEVEL": "WARNING", "FLOOR_LOG_FORMAT": "json"},
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
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


async def _poll(
    client: Any, figures: Figures, name: str, url: str, every: float, stop: asyncio.Event, counter: Any
) -> None:
    import httpx

    await asyncio.sleep(random.uniform(0, every))
    while not stop.is_set():
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
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, every - (time.perf_counter() - began)))


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
        table, base, floor = spec["table"], spec["table_url"], spec["floor_url"]
        pollers.append(
            _poll(client, figures, "table state", f"{base}/api/table", options["poll"], stop, counters[0])
        )
        pollers.append(
            _poll(
                client,
                figures,
                "table history",
                f"{base}/api/rounds?limit=20",
                options["history"],
                stop,
                counters[0],
            )
        )
        if floor:
            for name, path in (
                ("floor tables", f"/api/floor/tables?pit={spec['pit']}"),
                ("floor alerts", f"/api/floor/alerts?pit={spec['pit']}"),
                ("floor history", f"/api/floor/tables/{table}/rounds?limit=20"),
            ):
                pollers.append(
                    _poll(client, figures, name, f"{floor}{path}", options["floor"], stop, counters[0])
                )
        if spec["table_stream"]:
            ready = asyncio.Event()
            connected.append(ready)
            followers.append(
                _follow(
                    client,
                    figures,
                    (spec["terminal"], "table"),
                    f"{base}/api/stream?after=0",
                    ready,
                    done,
                    heads,
                    {table},
                    counters[1],
                )
            )
        if spec["floor_stream"]:
            ready = asyncio.Event()
            connected.append(ready)
            pit_tables = set(spec["pit_tables"])
            after = ",".join(f"{t}:0" for t in sorted(pit_tables))
            followers.append(
                _follow(
                    client,
                    figures,
                    (spec["terminal"], "floor"),
                    f"{floor}/api/floor/stream?pit={spec['pit']}&after={after}",
                    ready,
                    done,
                    heads,
                    pit_tables,
                    counters[1],
                )
            )
    expected = [
        (spec["terminal"], kind, tables)
        for spec in specs
        for kind, tables in (("table", [spec["table"]]), ("floor", spec["pit_tables"]))
        if spec[f"{kind}_stream"]
    ]
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
            (figures.received.get((terminal, kind, t)) or [0])[-1] >= heads.get(t, 0)
            for terminal, kind, tables in expected
            for t in tables
        )

    drain_until = time.monotonic() + options["drain"]  # then what has not arrived is lost
    while not complete() and time.monotonic() < drain_until:
        await asyncio.sleep(0.2)
    for task in stream_tasks:
        task.cancel()
    pending = stream_tasks
    await asyncio.gather(*pending, return_exceptions=True)
    for client in clients:
        await client.aclose()
    for spec in specs:
        kinds = [("table", [spec["table"]])] if spec["table_stream"] else []
        if spec["floor_stream"]:
            kinds.append(("floor", spec["pit_tables"]))
        for kind, tables in kinds:
            for table_id in tables:
                got = figures.received.pop((spec["terminal"], kind, table_id), [])
                figures.streams_checked += 1
                last = max(got, default=0)
                wanted = set(range(1, min(last, heads.get(table_id, 0)) + 1))
                missing = wanted - set(got)
                figures.lost += len(missing)
                figures.late += max(0, heads.get(table_id, 0) - last)
                figures.doubled += len(got) - len(set(got))
                if missing and len(figures.lost_examples) < 5:
                    figures.lost_examples.append(
                        f"terminal {spec['terminal']} {kind} stream, table {table_id}: {len(missing)}"
                        f" of {len(wanted)} missing (first {min(missing)}),"
                        f" last received {last}"
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
                connection.execute(text("SELECT count(*) FROM rounds WHERE phase = 'closed'")).scalar_one()
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


def run(args: argparse.Namespace) -> int:
    from table_controller.storage import add_user, make_engine, unit_of_work

    floor_ready = args.streams in ("floor", "both") or args.floor_seconds > 0
    context = multiprocessing.get_context("spawn")
    table_ids = [f"t{n:02d}" for n in range(1, args.tables + 1)]
    pits = {t: f"pit-{(n % args.pits) + 1}" for n, t in enumerate(table_ids)}
    processes: list[Any] = []
    began_at = time.monotonic()

    def say(text: str) -> None:
        print(f"[{time.monotonic() - began_at:6.0f} s] {text}", flush=True)

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_floor_")))
        if args.postgres_url:
            server = args.postgres_url
        else:
            server = stack.enter_context(own_postgres(folder, max_connections=20 * args.tables + 100))
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
                args=(
                    url,
                    [(t, pits[t]) for t in group],
                    str(folder),
                    args.round_seconds,
                    5.0,
                    commands,
                    answers,
                ),
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
        say(f"{args.tables} tables serving in {len(groups)} processes")

        floor_url = None
        floor_pids: dict[int, str] = {}
        if floor_ready:
            floor_url, floor_pids = stack.enter_context(
                floor_service(url, args.floor_workers, folder / "floor.log")
            )
            say(f"floor serving at {floor_url} in {len(floor_pids)} process(es)")

        # the probe table alone: nothing else deals, no terminal
        hosts[0].put(("alone", args.alone_rounds))
        alone_wait = 60 + (30 + args.round_seconds) * (args.alone_rounds + WARM_UP_ROUNDS)
        alone = _get(answers, "alone", alone_wait, processes)[1]
        say(f"{PROBE} alone: {len(alone)} rounds, median commit {np.median(alone) * 1e3:.1f} ms per round")

        # the terminals: streams first (from seq 0 of every table), then polling and dealing
        specs = []
        for n in range(args.terminals):
            table = table_ids[n % args.tables]
            specs.append(
                {
                    "terminal": n,
                    "table": table,
                    "table_url": bases[table],
                    "floor_url": floor_url if args.floor_seconds > 0 else None,
                    "pit": pits[table],
                    "token": tokens[pits[table]],
                    "pit_tables": [t for t in table_ids if pits[t] == pits[table]],
                    "table_stream": args.streams in ("table", "both"),
                    "floor_stream": args.streams in ("floor", "both") and floor_url is not None,
                }
            )
        options = {
            "poll": args.poll_seconds,
            "history": args.history_seconds,
            "floor": args.floor_seconds,
            "drain": args.drain_seconds,
        }
        counters = (context.Value("q", 0), context.Value("q", 0))
        terminal_commands = []
        for n in range(args.terminal_procs):
            commands = context.Queue()
            process = context.Process(
                target=terminals_main,
                args=(specs[n :: args.terminal_procs], options, commands, answers, counters),
                name=f"terminals-{n}",
            )
            process.start()
            processes.append(process)
            terminal_commands.append(commands)
        streams = sum(_get(answers, "connected", 300, processes)[1] for _ in terminal_commands)
        say(f"{args.terminals} terminals in {args.terminal_procs} processes, {streams} streams held")

        pids = {**{pid: f"tables {names}" for pid, names in host_pids.items()}}
        pids.update(floor_pids)
        memory_start = {pid: rss_mib(pid) for pid in pids}
        settled_before = _settled_now(url)
        for commands in terminal_commands:
            commands.put(("poll",))
        for commands in hosts:
            commands.put(("go",))
        load_began = time.monotonic()
        deadline = load_began + args.minutes * 60
        say(f"dealing on {args.tables} tables for {args.minutes:g} min")
        while time.monotonic() < deadline:
            time.sleep(min(args.progress, max(0.0, deadline - time.monotonic())))
            settled = _settled_now(url) - settled_before
            minutes = (time.monotonic() - load_began) / 60
            memory = sum(m for m in (rss_mib(pid) for pid in pids) if m is not None)
            say(
                f"{settled} rounds settled ({settled / minutes:.0f}/min), {counters[0].value} requests,"
                f" {counters[1].value} stream events received, memory of tables+floor {memory:.0f} MiB"
            )
        memory_end = {pid: rss_mib(pid) for pid in pids}
        load_minutes = (time.monotonic() - load_began) / 60
        for commands in hosts:
            commands.put(("stop",))
        results: dict[str, tuple[int, list[float], list[str]]] = {}
        for _ in hosts:
            results.update(_get(answers, "done", 300, processes)[1])
        settled_load = _settled_now(url) - settled_before
        say("dealing stopped; streams draining")
        rounds, chained, twice, heads = _store_counts(url)
        for commands in terminal_commands:
            commands.put(("finish", {t: heads.get(t, 0) for t in table_ids}))
        figures = [_get(answers, "figures", 300, processes)[1] for _ in terminal_commands]

    report(
        args,
        results,
        alone,
        rounds,
        chained,
        twice,
        settled_load,
        load_minutes,
        figures,
        pids,
        memory_start,
        memory_end,
    )
    return 0


def report(
    args: argparse.Namespace,
    results: dict[str, tuple[int, list[float], list[str]]],
    alone: list[float],
    rounds: dict[str, int],
    chained: dict[str, int],
    twice: int,
    settled_load: int,
    load_minutes: float,
    figures: list[Figures],
    pids: dict[int, str],
    memory_start: dict[int, float | None],
    memory_end: dict[int, float | None],
) -> None:
    """The figures, with the goals beside them."""
    print(
        f"\n=== the floor at scale: {args.tables} tables, {args.terminals} terminals,"
        f" {load_minutes:.1f} min, {args.floor_workers} floor process(es) ==="
    )
    print(f"rounds settled under load: {settled_load} ({settled_load / load_minutes:.0f} per minute)")

    own = {t: r[0] for t, r in results.items()}
    mismatched = [
        f"{t}: table {own[t]}, store {rounds.get(t, 0)}, chained {chained.get(t, 0)}"
        for t in sorted(own)
        if not own[t] == rounds.get(t, 0) == chained.get(t, 0)
    ]
    ok = not mismatched and twice == 0
    print(
        f"every round settled once: {'yes' if ok else 'NO'} ({sum(own.values())} settled by the tables,"
        f" {sum(rounds.values())} in the store, {sum(chained.values())} chained; {twice} settled twice)"
    )
    for line in mismatched[:10]:
        print(f"  {line}")
    failures = [f"{t}: {f}" for t, r in results.items() for f in r[2]]
    if failures:
        print(f"rounds that failed: {len(failures)}; first: {failures[:3]}")

    lost = sum(f.lost for f in figures)
    doubled = sum(f.doubled for f in figures)
    late = sum(f.late for f in figures)
    checked = sum(f.streams_checked for f in figures)
    print(
        f"streams: {checked} (terminal, table) streams checked against the store's heads:"
        f" {lost} events lost, {doubled} doubled"
        f" ({'none lost or doubled' if not lost and not doubled else 'NOT OK'});"
        f" {late} not yet delivered when the drain ended (behind, not lost);"
        f" {sum(f.resumed for f in figures)} streams resumed after a drop"
    )
    refused = {name: n for f in figures for name, n in f.errors.items() if "stream" in name}
    if refused:
        print(f"stream errors (each resumed from its last id unless refused): {refused}")
    retried = {name: sum(f.retried.get(name, 0) for f in figures) for f in figures for name in f.retried}
    if retried:
        print(f"requests sent again on a connection the server had closed: {retried}")
    for f in figures:
        for line in f.lost_examples:
            print(f"  {line}")

    print("memory (RSS MiB), load start -> end:")
    for pid, name in pids.items():
        start, end = memory_start.get(pid), memory_end.get(pid)
        if start is not None and end is not None:
            print(f"  {name:40} {start:8.1f} -> {end:8.1f} ({end - start:+.1f})")

    print(
        f"\n{'terminal requests':30} {'count':>8} {'errors':>7} {'p50 ms':>8} {'p99 ms':>8}"
        f"  goal p99 < {GOAL_P99_MS:g} ms"
    )
    requests: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for f in figures:
        for name, samples in f.requests.items():
            requests[name].extend(samples)
        for name, count in f.errors.items():
            errors[name] += count
    worst = 0.0
    for name in sorted(set(requests) | {e for e in errors if "stream" not in e}):  # streams: above
        samples = requests.get(name, [])
        p50, p99 = _percentiles_ms(samples) if samples else (float("nan"), float("nan"))
        worst = max(worst, p99) if samples else worst
        verdict = "met" if samples and p99 < GOAL_P99_MS else "NOT met"
        print(f"{name:30} {len(samples):8} {errors.get(name, 0):7} {p50:8.1f} {p99:8.1f}  {verdict}")
    for f in figures:
        for line in f.first_errors:
            print(f"  error: {line}")

    for kind in sorted({kind for f in figures for kind in f.delivery}):
        histogram = np.sum([f.delivery[kind] for f in figures if kind in f.delivery], axis=0)
        p50, p99, count = _histogram_percentiles_ms(histogram)
        print(
            f"{kind + ' stream delivery':30} {count:8} {'':7} {p50:8.1f} {p99:8.1f}"
            "  (event appended -> received)"
        )

    under_load = results.get(PROBE, (0, [], []))[1]
    if alone and under_load:
        alone_median, loaded_median = float(np.median(alone)), float(np.median(under_load))
        ratio = loaded_median / alone_median
        print(
            f"\nround commit of {PROBE} (its commands' time per round, median):"
            f" alone {alone_median * 1e3:.1f} ms"
            f" ({len(alone)} rounds), under load {loaded_median * 1e3:.1f} ms ({len(under_load)} rounds,"
            f" p99 {np.percentile(under_load, 99) * 1e3:.1f} ms): {ratio:.2f}x"
            f"  goal <= {GOAL_COMMIT_RATIO:g}x: {'met' if ratio <= GOAL_COMMIT_RATIO else 'NOT met'}"
        )
    print(
        f"worst request p99 {worst:.1f} ms: goal < {GOAL_P99_MS:g} ms"
        f" {'met' if worst < GOAL_P99_MS else 'NOT met'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--terminals", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--round-seconds", type=float, default=10.0, help="a table starts a round this often")
    parser.add_argument("--alone-rounds", type=int, default=15, help="the probe's rounds dealt alone")
    parser.add_argument("--pits", type=int, default=5)
    parser.add_argument("--streams", choices=("floor", "table", "both", "none"), default="floor")
    parser.add_argument("--poll-seconds", type=float, default=2.0, help="a terminal reads its table's state")
    parser.add_argument("--history-seconds", type=float, default=10.0, help="... and its table's history")
    parser.add_argument(
        "--floor-seconds",
        type=float,
        default=10.0,
        help="... and the floor's tables, alerts, history (0: none)",
    )
    parser.add_argument("--floor-workers", type=int, default=1, help="the floor's processes (its --workers)")
    parser.add_argument("--tables-per-host", type=int, default=5, help="tables per process (the probe's: 1)")
    parser.add_argument("--terminal-procs", type=int, default=2)
    parser.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=120.0,
        help="after dealing stops, how long streams may catch up",
    )
    parser.add_argument("--postgres-url", help="an existing server (default: one of the benchmark's own)")
    args = parser.parse_args(argv)
    if min(args.tables, args.terminals, args.pits, args.tables_per_host, args.floor_workers) < 1:
        parser.error("--tables, --terminals, --pits, --tables-per-host, --floor-workers: at least 1")
    args.terminal_procs = max(1, min(args.terminal_procs, args.terminals))
    _quiet_logs()
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
