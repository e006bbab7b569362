"""What one idle table costs PostgreSQL: transactions a second (all, and those that wrote) with
nothing dealt, as its parts are started one by one (docs/floor.md, Speed).

    .venv/bin/python -m benchmarks.bench_idle_table [--seconds 30]

On a PostgreSQL server of its own (bench_floor.own_postgres): nothing but the benchmark's own
look at the counters; a ``TableService`` registered on the floor; its API served over HTTP (no
client); its floor heartbeat every 5 s, as the daemon beats. Each figure is the rate over
``--seconds`` after the counters settle (``pg_stat_database``, bench_floor.pg_counts).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_floor import (
    STATS_FLUSH_SECONDS,
    DealingTable,
    _quiet_logs,
    bench_database,
    own_postgres,
    pg_counts,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="each rate's window")
    args = parser.parse_args(argv)
    _quiet_logs()
    from table_controller.api.server import serving
    from table_controller.daemon.run import start_floor_heartbeat

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_idle_")))
        url = stack.enter_context(bench_database(stack.enter_context(own_postgres(folder, 100))))

        def rate(what: str) -> None:
            time.sleep(STATS_FLUSH_SECONDS)
            (ended, xid), began = pg_counts(url), time.monotonic()
            time.sleep(args.seconds)
            ended_after, xid_after = pg_counts(url)
            seconds = time.monotonic() - began
            print(
                f"{what:44} {(ended_after - ended - 1) / seconds:6.2f} transactions a second,"
                f" {(xid_after - xid) / seconds:5.2f} of them writes"
            )

        rate("nothing (the counters' own look)")
        table = DealingTable("t01", "pit-1", url, folder, seed=1)
        stack.callback(table.engine.dispose)
        rate("a table's service, registered")
        stack.enter_context(serving(table.app))
        rate("and its API served")
        stack.callback(start_floor_heartbeat(table.service, 5.0))
        rate("and its floor heartbeat every 5 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
