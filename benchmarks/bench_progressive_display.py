"""How soon a change of a progressive pool reaches its displays (docs/progressive.md, "The meter
page"; PRG-26: on the displays within 30 s), against the table's own live stream in the same run.

    .venv/bin/python -m benchmarks.bench_progressive_display [--displays 20] [--terminals 20] [--rounds 60]

A table with the example progressive on SQLite in a temporary folder, served by uvicorn.
``--displays`` connections follow ``GET /api/progressive/t1/stream`` (the meter page's feed)
and ``--terminals`` follow ``GET /api/stream`` (the pit's: the baseline). Each of ``--rounds``
rounds opens with three $1 progressive wagers and rolls the dice: one transaction chains the
table's ``dice.rolled`` and the pool's three contributions. For each round the time from just
before that write to the arrival of ``dice.rolled`` at each terminal (baseline) and of the first
display frame at or past the contributions' seq at each display is taken; p50, p99 and max of
each are printed, and the ratio of the medians.

Two runs: the writer in the server's process, whose commit wakes the hubs at once (``poked``);
and a writer the hubs are not told of (the service on another engine on the same file, as
another process or a linked table would be), which each hub finds at its next poll
(``polled``, every 0.1 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import structlog

from table_controller.api import create_app
from table_controller.api.server import serving
from table_controller.round.events import DiceRolled, Wager
from table_controller.settings import TableSettings
from table_controller.storage import add_user, open_store, sqlite_url, unit_of_work
from table_controller.storage.floor import chain_heads
from table_controller.storage.progressive import pool_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

TABLE = "t1"
POOL = pool_chain(TABLE)
WAGERS = {p: Wager(main=1000, progressive=100) for p in (3, 4, 5)}


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    """p50, p99 (the nearest rank) and max."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(math.ceil(len(ordered) * 0.99) - 1, 0)], ordered[-1]


class _Connected:
    """Counts the followers connected; ``all`` is set when every one is."""

    def __init__(self, expected: int) -> None:
        self.expected, self.count, self.all = expected, 0, asyncio.Event()

    def one(self) -> None:
        self.count += 1
        if self.count == self.expected:
            self.all.set()


async def _follow(
    base: str, token: str, path: str, arrivals: list[tuple[int, float]], connected: _Connected
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(timeout=None) as client,
        client.stream("GET", f"{base}{path}", headers=headers) as answer,
    ):
        connected.one()
        async for line in answer.aiter_lines():
            if line.startswith("id: "):
                arrivals.append((int(line[4:]), time.perf_counter()))


def run(
    folder: Path, displays: int, terminals: int, rounds: int, poked: bool
) -> tuple[list[float], list[float]]:
    settings = TableSettings(table_id=TABLE, data_dir=folder, progressive={"enabled": True})
    engine = open_store(sqlite_url(folder))
    writer_engine = engine if poked else open_store(sqlite_url(folder))  # another engine: no poke
    service = TableService(settings, writer_engine)
    service.resume()
    with unit_of_work(engine) as session:
        token = add_user(session, name=f"cy{int(poked)}", role="surveillance")
    app = create_app(settings, service, engine, poll_interval=0.1)
    writes: list[tuple[float, int, int]] = []  # (time, the table's dice.rolled seq, the pool's seq)
    display_arrivals: list[list[tuple[int, float]]] = [[] for _ in range(displays)]
    table_arrivals: list[list[tuple[int, float]]] = [[] for _ in range(terminals)]

    def write() -> None:
        time.sleep(0.5)  # every follower waits on its hub
        for _ in range(rounds):
            service.open_round(WAGERS, actor="dealer-ann")
            began = time.perf_counter()
            service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
            with read_snapshot(writer_engine) as session:
                heads = chain_heads(session, chains=[TABLE, POOL])
            writes.append((began, heads[TABLE], heads[POOL]))
            service.void("pit-bob", "benchmark")
            time.sleep(0.02)
        time.sleep(1.0)  # the last frames arrive

    async def main(base: str) -> None:
        connected = _Connected(displays + terminals)
        tasks = [
            asyncio.create_task(_follow(base, token, f"/api/progressive/{TABLE}/stream", a, connected))
            for a in display_arrivals
        ] + [asyncio.create_task(_follow(base, token, "/api/stream", a, connected)) for a in table_arrivals]
        await asyncio.wait_for(connected.all.wait(), 60)
        await asyncio.to_thread(write)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    with serving(app) as base:
        asyncio.run(main(base))
    engine.dispose()
    if writer_engine is not engine:
        writer_engine.dispose()
    baseline, shown = [], []
    for began, table_seq, pool_seq in writes:
        for arrivals in table_arrivals:
            baseline += [at - began for seq, at in arrivals if seq == table_seq]
        for arrivals in display_arrivals:
            first = next((at for seq, at in arrivals if seq >= pool_seq), None)
            if first is not None:
                shown.append(first - began)
    expected = rounds * displays
    if len(shown) != expected:
        print(f"  (displays saw {len(shown)} of {expected} changes)")
    return baseline, shown


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--displays", type=int, default=20)
    parser.add_argument("--terminals", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    figures = {}
    for poked in (True, False):
        with tempfile.TemporaryDirectory() as folder:
            baseline, shown = run(Path(folder), args.displays, args.terminals, args.rounds, poked)
        name = "poked" if poked else "polled"
        b50, b99, bmax = _quantiles(baseline)
        d50, d99, dmax = _quantiles(shown)
        figures[name] = {
            "baseline_ms": [b50 * 1e3, b99 * 1e3, bmax * 1e3],
            "display_ms": [d50 * 1e3, d99 * 1e3, dmax * 1e3],
        }
        ms = " ms, ".join
        print(f"{name}: {args.rounds} rounds, {args.displays} displays, {args.terminals} terminals")
        base_ms, shown_ms = (ms(f"{v * 1e3:.1f}" for v in q) for q in ((b50, b99, bmax), (d50, d99, dmax)))
        print(f"  the table's stream (baseline): p50, p99, max {base_ms} ms")
        print(f"  the pool's displays:           p50, p99, max {shown_ms} ms")
        print(f"  ratio of the medians {d50 / b50:.2f}x; PRG-26's bound 30 s is {30 / dmax:,.0f}x the worst")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
