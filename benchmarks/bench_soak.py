"""The soak: ``table-controller run --simulate`` playing while terminals follow it, and the
daemon's memory over time (docs/development.md, "The soak").

    .venv/bin/python -m benchmarks.bench_soak [--streams 100] [--pollers 100] [--minutes 30]
        [--warmup 5] [--poll-interval 1.0] [--step-delay 0.2] [--sample 10] [--keep DIR]

The daemon runs as its own process (a real ``run --simulate``: both simulators as its children,
the auto-dealer, SQLite in a temporary folder, the API on a free loopback port). ``--streams``
terminals follow ``GET /api/stream`` (reconnecting with ``Last-Event-ID`` when dropped) and
``--pollers`` terminals ask ``GET /api/table`` every ``--poll-interval`` seconds, half as a pit
user and half as surveillance, all over loopback. Every ``--sample`` seconds the daemon's
resident memory (VmRSS) is read from /proc. After ``--warmup`` minutes (caches filled, every
terminal connected) the growth is the least-squares slope of RSS over time, in MB per minute;
the goal is flat: under 0.5 MB/min. Also printed: RSS at the warm-up's end and at the end, rounds
settled, stream events received, polls answered (and their p50/p99), errors, and the daemon's
exit status after SIGTERM. Bounded: at most 1000 terminals and 24 hours; loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from table_controller.storage import add_user, make_engine, sqlite_url, unit_of_work, upgrade_to_head

GOAL_MB_PER_MIN = 0.5
MAX_TERMINALS = 1000
MAX_MINUTES = 24 * 60
REPO = Path(__file__).resolve().parents[1]


@dataclass
class Tally:
    events: int = 0
    reconnects: int = 0
    polls: int = 0
    poll_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


def rss_mb(pid: int) -> float | None:
    """The process's resident memory in MB (None: gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        return None
    return None


def slope_per_minute(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) samples, in MB per minute."""
    if len(samples) < 2:
        return 0.0
    xs = [t for t, _ in samples]
    ys = [m for _, m in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 0.0 if den == 0 else 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def prepare_store(folder: Path) -> dict[str, str]:
    """The daemon's SQLite store, migrated, with a pit user and a surveillance user."""
    engine = make_engine(sqlite_url(folder))
    try:
        upgrade_to_head(engine)
        with unit_of_work(engine) as session:
            return {
                "pit": add_user(session, name="soak-pit", role="pit"),
                "surveillance": add_user(session, name="soak-eye", role="surveillance"),
            }
    finally:
        engine.dispose()


def start_daemon(folder: Path, step_delay: float, seed: int) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "TABLE_LOG_FORMAT": "json", "TABLE_LOG_LEVEL": "WARNING"}
    argv = [
        sys.executable,
        "-m",
        "table_controller",
        "run",
        "--simulate",
        "--data-dir",
        str(folder),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--seed",
        str(seed),
        "--step-delay",
        str(step_delay),
    ]
    with (folder / "daemon.log").open("wb") as log:
        daemon = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    assert daemon.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = daemon.stdout.readline()
        if not line:
            break
        found = re.match(r"API listening on (\S+)", line)
        if found:
            return daemon, found.group(1)
    daemon.kill()
    daemon.wait()
    raise SystemExit(
        f"the daemon did not serve its API (exit {daemon.returncode}); see {folder / 'daemon.log'}"
    )


async def follow(client: httpx.AsyncClient, url: str, token: str, tally: Tally, stop: asyncio.Event) -> None:
    """One terminal following the live stream, reconnecting with the last id it received."""
    last: str | None = None
    while not stop.is_set():
        headers = {"Authorization": f"Bearer {token}", **({"Last-Event-ID": last} if last else {})}
        try:
            async with client.stream("GET", f"{url}/api/stream", headers=headers, timeout=None) as answer:
                if answer.status_code != 200:
                    tally.errors[f"stream {answer.status_code}"] += 1
                    await asyncio.sleep(1)
                    continue
                async for line in answer.aiter_lines():
                    if line.startswith("id:"):
                        last = line[3:].strip()
                        tally.events += 1
                    if stop.is_set():
                        return
        except (httpx.HTTPError, OSError) as error:
            if stop.is_set():
                return
            tally.errors[f"stream {type(error).__name__}"] += 1
            await asyncio.sleep(1)
        tally.reconnects += 1


async def poll(
    client: httpx.AsyncClient, url: str, token: str, every: float, tally: Tally, stop: asyncio.Event
) -> None:
    """One terminal asking for the table every ``every`` seconds."""
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        started = time.perf_counter()
        try:
            answer = await client.get(f"{url}/api/table", headers=headers, timeout=30)
            if answer.status_code == 200:
                tally.polls += 1
                tally.poll_ms.append((time.perf_counter() - started) * 1000)
            else:
                tally.errors[f"poll {answer.status_code}"] += 1
        except (httpx.HTTPError, OSError) as error:
            tally.errors[f"poll {type(error).__name__}"] += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, every - (time.perf_counter() - started)))


async def soak(args: argparse.Namespace, pid: int, url: str, tokens: dict[str, str]) -> tuple[Tally, list]:
    tally, stop = Tally(), asyncio.Event()
    limits = httpx.Limits(max_connections=args.streams + args.pollers + 10, max_keepalive_connections=None)
    samples: list[tuple[float, float]] = []
    async with httpx.AsyncClient(limits=limits) as client:
        roles = ["pit", "surveillance"]
        tasks = [
            asyncio.create_task(follow(client, url, tokens[roles[i % 2]], tally, stop))
            for i in range(args.streams)
        ]
        tasks += [
            asyncio.create_task(poll(client, url, tokens[roles[i % 2]], args.poll_interval, tally, stop))
            for i in range(args.pollers)
        ]
        started = time.monotonic()
        end = started + args.minutes * 60
        while time.monotonic() < end:
            mb = rss_mb(pid)
            if mb is None:
                print("the daemon exited during the soak", flush=True)
                break
            elapsed = time.monotonic() - started
            samples.append((elapsed, mb))
            print(
                f"  {elapsed / 60:5.1f} min  RSS {mb:7.1f} MB  events {tally.events}  polls {tally.polls}",
                flush=True,
            )
            await asyncio.sleep(min(args.sample, max(0.0, end - time.monotonic())) or 0.01)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return tally, samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=100, help="terminals following /api/stream")
    parser.add_argument("--pollers", type=int, default=100, help="terminals polling /api/table")
    parser.add_argument("--minutes", type=float, default=30.0, help="how long the soak runs")
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes left out of the growth figure")
    parser.add_argument(
        "--poll-interval", type=float, default=1.0, help="seconds between one poller's requests"
    )
    parser.add_argument("--step-delay", type=float, default=0.2, help="the daemon's pace (seconds a step)")
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep the store and the daemon's log in this folder")
    args = parser.parse_args(argv)
    if not 0 <= args.streams + args.pollers <= MAX_TERMINALS:
        parser.error(f"at most {MAX_TERMINALS} terminals in all")
    if not 0 < args.minutes <= MAX_MINUTES or not 0 <= args.warmup < args.minutes:
        parser.error(f"--minutes in (0, {MAX_MINUTES}], --warmup shorter than it")
    if args.poll_interval <= 0 or args.sample <= 0:
        parser.error("--poll-interval and --sample must be positive")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        tokens = prepare_store(folder)
        daemon, url = start_daemon(folder, args.step_delay, args.seed)
        try:
            tally, samples = asyncio.run(soak(args, daemon.pid, url, tokens))
        finally:
            daemon.send_signal(signal.SIGTERM)
            try:
                code: int | None = daemon.wait(60)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
                code = None
        engine = make_engine(sqlite_url(folder))
        try:
            with engine.connect() as connection:
                settled = connection.exec_driver_sql(
                    "SELECT count(*) FROM events WHERE kind = 'round.settled'"
                ).scalar_one()
        finally:
            engine.dispose()
    after = [(t, mb) for t, mb in samples if t >= args.warmup * 60]
    growth = slope_per_minute(after)
    polls = sorted(tally.poll_ms)
    print(
        f"\nsoak: {args.streams} stream terminals, {args.pollers} pollers every {args.poll_interval} s, "
        f"{args.minutes} min (warm-up {args.warmup} min), step delay {args.step_delay} s"
    )
    if after:
        first, last = after[0][1], after[-1][1]
        print(f"  RSS after the warm-up: {first:.1f} MB; at the end: {last:.1f} MB ({len(after)} samples)")
    print(
        f"  RSS growth after the warm-up: {growth:+.3f} MB/min (goal: under {GOAL_MB_PER_MIN} MB/min): "
        f"{'flat' if growth < GOAL_MB_PER_MIN else 'GROWING'}"
    )
    print(f"  rounds settled: {settled}   stream events: {tally.events}   reconnects: {tally.reconnects}")
    if polls:
        p50, p99 = polls[len(polls) // 2], polls[min(len(polls) - 1, int(len(polls) * 0.99))]
        print(f"  polls answered: {tally.polls}   p50 {p50:.1f} ms   p99 {p99:.1f} ms")
    print(f"  errors: {sum(tally.errors.values())}  {dict(tally.errors) or ''}")
    exit_words = code if code is not None else "still running after 60 s (killed)"
    print(f"  daemon exit status after SIGTERM: {exit_words}")
    return 0 if growth < GOAL_MB_PER_MIN and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
