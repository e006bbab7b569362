"""Meter contributions from many linked tables at once on the floor's PostgreSQL, against a bare
``UPDATE`` of one row per contribution, in the same run (docs/progressive.md, "Speed").

    .venv/bin/python -m benchmarks.bench_progressive_link [--tables 50] [--rounds 40]
        [--procs 4] [--postgres-url URL] [--repeat 2]

Each table is a ``LinkedPoolKeeper`` (table/progressive_link.py) with its own engine and one
connection, as a table daemon has; every table deals ``--rounds`` rounds back to back, each
round one $1 progressive wager: one contribution, one transaction that locks the pool's row,
checks the round did not contribute already, applies the pure core, chains the record in the
pool's chain and writes the pool's state. The tables are spread over ``--procs`` processes
(``--tables / --procs`` threads each): 50 processes would not fit two cores, and one process
would measure Python's lock instead of the database's.

The baseline, with the same processes, threads and connections: each contribution is
``UPDATE bench_meter SET meter = meter + 15, in_meter = in_meter + 1 WHERE id = 1`` in a
transaction of its own. Both sides run ``--repeat`` times, alternating (baseline first); the
figure is the best wall time of each side. Commits are durable (the server's ``fsync`` and
``synchronous_commit``). It asserts that no increment is lost on either side: the bare row's
meter is 15 cents x contributions; the pool's meter is its base + 15 cents x contributions,
its in-meter count and its chain's contribution events equal the contributions, and the pool
re-derived from its whole chain equals its row. It prints contributions per second, the p50 and
p99 latency of one contribution, and the ratio of the wall times; the goal is <= 2x.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import threading
import time
import uuid
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import structlog
from sqlalchemy import text
from sqlalchemy.engine import make_url

from table_controller.game.progressive_paytable import load_progressive_paytable
from table_controller.settings import ProgressiveSettings
from table_controller.storage import make_engine, upgrade_to_head
from table_controller.storage.progressive import pool_chain
from table_controller.table.progressive_link import LinkedPoolKeeper

GOAL_RATIO = 2.0
POOL = "bench"
WAGER = 100  # $1: 15 cents to the jackpot (config/progressive/fortune-progressive.toml)
DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _quiet() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))


def _engine(url: str):
    return make_engine(url)


def _keeper(url: str, table_id: str, pool_id: str) -> LinkedPoolKeeper:
    table = load_progressive_paytable(ProgressiveSettings(enabled=True).file)
    return LinkedPoolKeeper(
        _engine(url), pool_id=pool_id, table=table, table_id=table_id, paytable_sha256="b" * 64
    )


def _work(side: str, url: str, pool_id: str, tables: list[str], rounds: int, ready, go, out) -> None:  # type: ignore[no-untyped-def]
    """One process: a thread per table, each dealing ``rounds`` contributions once ``go`` is set;
    it puts (first start, last end, latencies) on ``out``."""
    _quiet()
    latencies: list[float] = []
    spans: list[tuple[float, float]] = []
    lock = threading.Lock()
    workers = []
    for table_id in tables:
        if side == "linked":
            keeper = _keeper(url, table_id, pool_id)
            keeper.load()

            def step(r: int, keeper: LinkedPoolKeeper = keeper) -> None:
                keeper.contributions({3: WAGER}, round_id=f"{keeper.table_id}-{r}")
        else:
            engine = _engine(url)
            with engine.connect() as connection:  # connected before the start, as the keeper is
                connection.exec_driver_sql("SELECT 1")

            def step(r: int, engine=engine) -> None:  # type: ignore[no-untyped-def]
                with engine.begin() as connection:
                    connection.exec_driver_sql(
                        "UPDATE bench_meter SET meter = meter + 15, in_meter = in_meter + 1 WHERE id = 1"
                    )

        workers.append(step)

    def run(step) -> None:  # type: ignore[no-untyped-def]
        mine = []
        go.wait()
        first = time.time()
        for r in range(rounds):
            began = time.perf_counter()
            step(r)
            mine.append(time.perf_counter() - began)
        with lock:
            latencies.extend(mine)
            spans.append((first, time.time()))

    threads = [threading.Thread(target=run, args=(step,)) for step in workers]
    for thread in threads:
        thread.start()
    ready.put(len(threads))
    for thread in threads:
        thread.join()
    out.put((min(a for a, _ in spans), max(b for _, b in spans), latencies))


def _side(
    side: str, url: str, pool_id: str, tables: int, rounds: int, procs: int
) -> tuple[float, np.ndarray]:
    """The wall time from the first contribution's start to the last one's end, every table
    connected and waiting before the start; and every contribution's latency."""
    names = [f"t{n:02}" for n in range(1, tables + 1)]
    groups = [group for group in (names[i::procs] for i in range(procs)) if group]
    ctx = multiprocessing.get_context("spawn")
    ready, go, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    processes = [
        ctx.Process(target=_work, args=(side, url, pool_id, group, rounds, ready, go, out))
        for group in groups
    ]
    for process in processes:
        process.start()
    for _ in processes:
        ready.get(timeout=600)
    go.set()
    results = [out.get(timeout=600) for _ in processes]
    for process in processes:
        process.join(60)
        if process.exitcode != 0:
            raise SystemExit(f"a {side} process failed: exit {process.exitcode}")
    wall = max(end for _, end, _ in results) - min(start for start, _, _ in results)
    return wall, np.array([latency for _, _, latencies in results for latency in latencies])


def _reset(url: str) -> None:
    """A new bare row; the linked side's pool is new in each run (``_pool_id``): the chain is
    append-only, its events are never deleted."""
    engine = _engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE IF EXISTS bench_meter")
        connection.exec_driver_sql(
            "CREATE TABLE bench_meter "
            "(id integer PRIMARY KEY, meter bigint NOT NULL, in_meter bigint NOT NULL)"
        )
        connection.exec_driver_sql("INSERT INTO bench_meter VALUES (1, 0, 0)")
    engine.dispose()


def _check(url: str, side: str, contributions: int, pool_id: str) -> None:
    """No increment lost: the figures every contribution must leave."""
    engine = _engine(url)
    try:
        if side == "bare":
            with engine.connect() as connection:
                meter, in_meter = connection.exec_driver_sql("SELECT meter, in_meter FROM bench_meter").one()
            assert (meter, in_meter) == (15 * contributions, contributions), (meter, in_meter)
            return
        keeper = _keeper(url, "check", pool_id)
        pool = keeper.refresh()
        jackpot = pool.meters["jackpot"]
        base = pool.params["jackpot"].base
        assert (jackpot.meter - base, jackpot.in_meter) == (15 * contributions, contributions), jackpot
        with engine.connect() as connection:
            chained = connection.execute(
                text("SELECT count(*) FROM events WHERE table_id = :t AND kind = 'progressive.contribution'"),
                {"t": pool_chain(pool_id)},
            ).scalar_one()
        assert chained == contributions, chained
        assert keeper.replayed() == pool, "the pool re-derived from its chain differs from its row"
        keeper.engine.dispose()
    finally:
        engine.dispose()


def _figures(contributions: int, wall: float, latencies: np.ndarray) -> str:
    return (
        f"{contributions / wall:7.0f} contributions/s, p50 {np.median(latencies) * 1e3:6.2f} ms, "
        f"p99 {np.percentile(latencies, 99) * 1e3:7.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=40, help="contributions per table")
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--postgres-url", default=DEFAULT_URL)
    args = parser.parse_args()
    _quiet()

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = _engine(args.postgres_url)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = make_url(args.postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
    url_text = url.render_as_string(hide_password=False)
    try:
        engine = _engine(url_text)
        upgrade_to_head(engine)
        with engine.connect() as connection:
            settings = {
                name: connection.exec_driver_sql(f"SHOW {name}").scalar_one()
                for name in ("fsync", "synchronous_commit", "server_version")
            }
        engine.dispose()
        contributions = args.tables * args.rounds
        best: dict[str, tuple[float, np.ndarray]] = {}
        pairs: list[float] = []
        for attempt in range(args.repeat):
            walls = {}
            for side in ("bare", "linked"):
                _reset(url_text)
                pool_id = f"{POOL}-{attempt + 1}"
                wall, latencies = _side(side, url_text, pool_id, args.tables, args.rounds, args.procs)
                _check(url_text, side, contributions, pool_id)
                print(
                    f"  run {attempt + 1} {side:6}: {wall:6.2f} s, "
                    + _figures(contributions, wall, latencies)
                )
                walls[side] = wall
                if side not in best or wall < best[side][0]:
                    best[side] = (wall, latencies)
            pairs.append(walls["linked"] / walls["bare"])
        bare, linked = best["bare"], best["linked"]
        ratio = linked[0] / bare[0]
        print(
            f"{args.tables} linked tables x {args.rounds} contributions = {contributions}, "
            f"{args.procs} processes; PostgreSQL {settings['server_version']}, fsync {settings['fsync']}, "
            f"synchronous_commit {settings['synchronous_commit']}; no increment lost on either side"
        )
        for name, (wall, latencies) in (("bare UPDATE", bare), ("linked pool", linked)):
            print(f"  {name:12}: " + _figures(contributions, wall, latencies))
        print(
            f"  ratio of each run's pair: {', '.join(f'{r:.2f}' for r in pairs)}; "
            f"median {float(np.median(pairs)):.2f}"
        )
        print(
            f"  ratio (best linked wall time / best bare wall time): {ratio:.2f}   "
            f"goal <= {GOAL_RATIO:.0f}: {'met' if ratio <= GOAL_RATIO else 'NOT met'}"
        )
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


if __name__ == "__main__":
    main()
