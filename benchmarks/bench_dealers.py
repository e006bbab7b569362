"""What the dealer on the box and the day's hands per hour add to ``GET /api/table``
(docs/dealers.md), on a SQLite store holding a gaming day of ``--rounds`` settled rounds dealt
by ``--dealers`` dealers pushed every ``--push`` rounds.

Run: ``python -m benchmarks.bench_dealers`` (``--rounds --dealers --push --repeats``). Seconds.

What is timed, each in a read snapshot of the same store, interleaved, the median of
``--repeats`` kept (wall time: the store is a file):

- **bare SQL**: the grouped count of the day's settled rounds by dealer, with the sqlite3 driver
  alone (the statement ``hands_by_dealer`` builds), rows fetched;
- **day_pace**: ``table/dealers.py``'s ``day_pace``: the dealer on the box, the day's stints,
  the hands by dealer and the pure ``pace``;
- **kept pace**: ``DayPaceReader.read`` while the table's chain has not moved (what a poll between
  two events costs): the chain head's one row read, the pace computed again for now;
- **table**: ``api/views.py``'s ``table_state``, what ``GET /api/table`` built before the dealer
  line; **table + dealer**: the same and ``DayPaceReader.read``, what it builds now.

Printed: day_pace / bare SQL, kept pace / day_pace and (table + dealer) / table, all from this run.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_controller.api.views import table_state
from table_controller.settings import TableSettings
from table_controller.storage import (
    RoundCreate,
    RoundUpdate,
    add_user,
    create_round,
    make_engine,
    read_snapshot,
    sqlite_path,
    sqlite_url,
    unit_of_work,
    update_round,
    upgrade_to_head,
)
from table_controller.storage import dealers as store
from table_controller.storage.users import Role
from table_controller.table.dealers import DayPaceReader, DealerDesk, day_pace
from table_controller.table.service import TableService

TABLE = "B-1"


def fill(engine, rounds: int, dealers: int, push: int, start: datetime) -> None:
    names = [f"dealer-{n}" for n in range(dealers)]
    with unit_of_work(engine) as session:
        for name in names:
            add_user(session, name=name, role="dealer")
    at = start
    for first in range(0, rounds, push):
        dealer = names[(first // push) % dealers]
        with unit_of_work(engine) as session:
            store.sign_in(session, table_id=TABLE, dealer=dealer, by=dealer, now=at)
            for _ in range(min(push, rounds - first)):
                made = create_round(
                    session,
                    data=RoundCreate(
                        table_id=TABLE, game="standard", dealer=dealer, phase="open", opened_at=at
                    ),
                )
                update_round(
                    session,
                    round_id=made.round_id,
                    changes=RoundUpdate(phase="closed", closed_at=at + timedelta(seconds=50)),
                )
                at += timedelta(seconds=60)


def timed(work: Callable[[], object]) -> float:
    began = time.perf_counter()
    work()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=700)
    parser.add_argument("--dealers", type=int, default=4)
    parser.add_argument("--push", type=int, default=30, help="rounds between two pushes")
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    settings = TableSettings(table_id=TABLE, time_zone="UTC")
    desk = DealerDesk.of(settings)
    now = datetime.now(UTC)
    period = desk.calendar.day_period(desk.today(now))
    with tempfile.TemporaryDirectory() as folder:
        url = sqlite_url(Path(folder))
        engine = make_engine(url)
        upgrade_to_head(engine)
        start = max(period.start, now - timedelta(minutes=args.rounds + 1))
        fill(engine, args.rounds, args.dealers, args.push, start)
        service = TableService(settings, engine)
        service.resume()
        raw = sqlite3.connect(str(sqlite_path(url)))
        sql = (
            "SELECT dealer, count(*) FROM rounds WHERE table_id = ? AND phase = 'closed'"
            " AND opened_at >= ? AND opened_at < ? GROUP BY dealer"
        )
        bounds = (TABLE, period.start.isoformat(sep=" "), period.end.isoformat(sep=" "))

        def bare() -> None:
            raw.execute(sql, bounds).fetchall()

        def pace_only() -> None:
            with read_snapshot(engine) as session:
                day_pace(session, desk, now=now)

        def table_only() -> None:
            with read_snapshot(engine) as session:
                table_state(service, session, Role.PIT)

        reader = DayPaceReader(desk)

        def kept() -> None:
            with read_snapshot(engine) as session:
                reader.read(session, now=now)

        def table_and_dealer() -> None:
            with read_snapshot(engine) as session:
                table_state(service, session, Role.PIT)
                reader.read(session, now=now)

        with read_snapshot(engine) as session:
            found = day_pace(session, desk, now=now)
        assert found.pace.table.hands == args.rounds, found.pace.table
        works = {
            "bare SQL": bare,
            "day_pace": pace_only,
            "kept pace": kept,
            "table": table_only,
            "table + dealer": table_and_dealer,
        }
        times: dict[str, list[float]] = {name: [] for name in works}
        for _ in range(args.repeats):
            for name, work in works.items():
                times[name].append(timed(work))
        raw.close()
        engine.dispose()
    median = {name: statistics.median(found) for name, found in times.items()}
    print(f"{args.rounds} settled rounds, {args.dealers} dealers pushed every {args.push} rounds")
    print(f"  (the median of {args.repeats} of each)")
    for name, seconds in median.items():
        print(f"  {name:<15}: {seconds * 1e3:8.3f} ms")
    print(f"  ratio day_pace / bare SQL: {median['day_pace'] / median['bare SQL']:.1f}")
    print(f"  ratio kept pace / day_pace: {median['kept pace'] / median['day_pace']:.2f}")
    print(f"  ratio (table + dealer) / table: {median['table + dealer'] / median['table']:.2f}")
    print(f"  (run at {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)")


if __name__ == "__main__":
    main()
