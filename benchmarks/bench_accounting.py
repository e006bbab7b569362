"""Closing a gaming day: 50 tables x 700 rounds, the day's accounting and ratings computed from
the record, against the same figures by bare SQL over the same data (docs/accounting.md, "Speed").

Run: ``python -m benchmarks.bench_accounting`` (``--tables --rounds --repeats --seed``;
``--postgres-url postgresql+psycopg://postgres@127.0.0.1:5432/test`` runs it on PostgreSQL, in a
schema of its own dropped after; the default is a SQLite file in a temporary folder). A run
takes under a minute, most of it writing the day.

The day, written before timing through the schema's own migrations: every table's 700 settled
rounds (1 to 6 seats each, a bonus wager now and then, 9 in 10 rounds carrying a theoretical
win, 1 in 20 banked by a player at a free seat) with their positions (the banker's row too, as
the recorder writes it; a player-banked round's counted from the banker), a signed opener and
closer, a fill, a credit, a cash and a marker drop, a named line, and a closed rating for
every seat, its figures folded by the accounting core's ``RatingBuilder`` from the same rounds.
The closer is chosen so that every table's variance is 0: a run checks that it is.

What is timed, interleaved, the best of ``--repeats`` kept. On SQLite the database works in this
process, so the time is the process's CPU time (``time.process_time``), steadier than wall time
on a shared machine; on PostgreSQL the server works in its own process, so it is wall time. The
ratio of two figures measured side by side in the same run is what counts:

- **close**: the reports' own code (api/reports.py's ``accounting_section``): the five grouped
  SELECTs of storage/closing.py's ``closing_figures``, the day's ratings, and each rating
  computed again from the rounds in the query (``ratings_from_rounds``), the figures built by
  the pure core (win, hold, theoretical hold and band, variance) into the report's models, per
  table, per pit and in total.
- **bare SQL**: hand-written SQL over the DB-API connection computing the same figures: the
  same sums per table, the ratings' rows, and every rating again from the rounds with the same
  window functions, and its banks; rows returned as tuples, nothing built. The figures of both
  are compared.
- **read the rounds**: the bare SQL that only reads the day's rounds and positions (every row
  fetched), the issue's first baseline.
- **fold** (with ``--fold``): the path before this benchmark's work, each table's settled rounds
  read into ``SettledRound`` facts (storage/accounting.py's ``settled_rounds``) and folded
  by ``RatingBuilder``, then ``account_table`` and ``reconcile``: what the 24x of the first
  measurement came from.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import insert, text
from sqlalchemy.engine import Engine, make_url

from table_controller.accounting.chips import Chips, ChipSet, CountKind, InventoryCount
from table_controller.accounting.drop import DropEntry, DropKind, DropSource
from table_controller.accounting.facts import BankResult, SeatResult, SettledRound
from table_controller.accounting.ratings import RatingBuilder, SeatTaken, TableClosed
from table_controller.accounting.reconcile import reconcile
from table_controller.accounting.win import account_table
from table_controller.api.models.reports import AccountingSection
from table_controller.api.reports import accounting_section
from table_controller.storage.accounting import (
    AccountingCount,
    AccountingDrop,
    AccountingLine,
    AccountingSlip,
    settled_rounds,
)
from table_controller.storage.engine import make_engine
from table_controller.storage.migrate import upgrade_to_head
from table_controller.storage.models import Round, RoundPosition
from table_controller.storage.ratings import RatingRow
from table_controller.storage.session import read_snapshot
from table_controller.table.accounting import calendar_from

CALENDAR = calendar_from("UTC", "06:00")
DAY = datetime(2026, 12, 3).date()
PERIOD = CALENDAR.day_period(DAY)
OPENER = 10_000_000
DROP_CASH, DROP_MARKER, FILL, CREDIT, TIPS = 1_000_000, 200_000, 50_000, 20_000, -500


def _rounds_of(t: int, rounds: int, rng: random.Random) -> list[SettledRound]:
    found = []
    for r in range(rounds):
        seats = []
        for seat in sorted(rng.sample(range(2, 8), rng.randint(1, 6))):
            main = rng.randrange(500, 50_000, 500)
            bonus = rng.choice((0, 0, 0, 500))
            net = rng.choice((-main, 0, main - main // 20)) - bonus
            seats.append(SeatResult(seat, main, bonus, net))
        opened = PERIOD.start + timedelta(seconds=60 * r + 30)
        theory = rng.randint(0, 500) if rng.random() < 0.9 else None
        free = [seat for seat in range(2, 8) if seat not in {s.seat for s in seats}]
        bank = None
        house = -sum(s.net for s in seats)
        if free and rng.random() < 0.05:  # a player banks: the house keeps a cut, the bank the rest
            cut = rng.randint(0, 200)
            bank = BankResult(
                rng.choice(free), sum(s.wagered for s in seats), -sum(s.net for s in seats) - cut
            )
            house = cut
        found.append(
            SettledRound(
                round_id=f"t{t:02d}-{r + 1}",
                table_id=f"t{t:02d}",
                opened_at=opened,
                settled_at=opened + timedelta(seconds=20),
                house_result=house,
                seats=tuple(seats),
                bank=bank,
                theoretical_win=theory,
                theoretical_variance=None if theory is None else theory * 1_000,
            )
        )
    return found


def _position(seat: int, fact: SettledRound) -> int:
    """The seat's position in the round: counted from the banker (game/banking.py's
    ``seat_of_position`` the other way round); the seat itself when the house banks."""
    return seat if fact.bank is None else (seat - fact.bank.seat) % 7 + 1


def write_day(engine: Engine, tables: int, rounds: int, seed: int) -> dict[str, str | None]:
    """The day's rows (see the module's docstring); returns the tables and their pits."""
    rng = random.Random(seed)
    pits: dict[str, str | None] = {}
    with engine.begin() as connection:
        for t in range(tables):
            table_id = f"t{t:02d}"
            pits[table_id] = f"pit-{t // 10}"
            facts = _rounds_of(t, rounds, rng)
            connection.execute(
                insert(Round.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "round_id": f.round_id,
                        "number": n + 1,
                        "table_id": table_id,
                        "game": "standard",
                        "dealer": "ann",
                        "phase": "closed",
                        "opened_at": f.opened_at,
                        "closed_at": f.settled_at,
                        "wagered_cents": sum(s.main_wager for s in f.seats),
                        "bonus_wagered_cents": sum(s.bonus_wager for s in f.seats),
                        "house_result_cents": f.house_result,
                        "theoretical_win_cents": f.theoretical_win,
                        "theoretical_variance": f.theoretical_variance,
                        "banker_seat": None if f.bank is None else f.bank.seat,
                        "bank_cents": None if f.bank is None else f.bank.amount,
                        "banker_result_cents": None if f.bank is None else f.bank.banker_net,
                    }
                    for n, f in enumerate(facts)
                ],
            )
            connection.execute(
                insert(RoundPosition.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "round_id": f.round_id,
                        "position": position,
                        "house_hand": False,
                        "wager_cents": main,
                        "big_hand_bonus_cents": bonus,
                        "joker_bonus_cents": 0,
                        "net_cents": net,
                    }
                    for f in facts
                    for position, main, bonus, net in (
                        (1, 0, 0, 0),  # the banker's row, as the recorder writes it
                        *((_position(s.seat, f), s.main_wager, s.bonus_wager, s.net) for s in f.seats),
                    )
                ],
            )
            builder = RatingBuilder(table_id, idle_after=timedelta(hours=24))
            for seat in range(2, 8):
                builder.feed(SeatTaken(PERIOD.start, seat, f"P-{t}-{seat}"))
            closed = []
            for fact in facts:
                closed += builder.feed(fact)
            closed += builder.feed(TableClosed(facts[-1].settled_at + timedelta(minutes=1)))
            connection.execute(
                insert(RatingRow.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "rating_id": rating.rating_id,
                        "table_id": table_id,
                        "player": rating.player,
                        "seat": rating.seat,
                        "gaming_day": DAY,
                        "started_at": rating.start,
                        "started_by": "ann",
                        "last_at": rating.end,
                        "ended_at": rating.end,
                        "end_reason": rating.end_reason.value if rating.end_reason else None,
                        "ended_by": "system:ratings",
                        "seated": False,
                        "rounds": rating.rounds,
                        "main_wagered_cents": rating.main_wagered,
                        "bonus_wagered_cents": rating.bonus_wagered,
                        "actual_win_cents": rating.actual_win,
                        "theoretical_win_cents": rating.theoretical_win,
                        "theoretical_rounds": rating.theoretical_rounds,
                        "banks": rating.banks,
                        "bank_actual_win_cents": rating.bank_actual_win,
                        "round_ids": json.dumps(list(rating.round_ids)),
                    }
                    for rating in closed
                ],
            )
            computed = sum(f.house_result for f in facts)
            win = computed + TIPS  # variance 0: the counted win is the rounds' and the tips
            drop = DROP_CASH + DROP_MARKER
            closer = OPENER + win - drop - CREDIT + FILL
            at = PERIOD.start + timedelta(minutes=1)
            connection.execute(
                insert(AccountingCount.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "table_id": table_id,
                        "kind": kind,
                        "gaming_day": DAY,
                        "shift": None,
                        "counted_at": at,
                        "chips": json.dumps({"1": value}),
                        "value_cents": value,
                        "supervisor": "pia",
                        "dealer": "ann",
                        "signed_at": at,
                    }
                    for kind, value in (("opener", OPENER), ("closer", closer))
                ],
            )
            connection.execute(
                insert(AccountingSlip.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "table_id": table_id,
                        "kind": kind,
                        "chips": json.dumps({"1": value}),
                        "value_cents": value,
                        "requested_at": at,
                        "requested_by": "pia",
                        "delivered_at": at,
                        "runner": "rex",
                        "table_signer": "ann",
                    }
                    for kind, value in (("fill", FILL), ("credit", CREDIT))
                ],
            )
            connection.execute(
                insert(AccountingDrop.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "table_id": table_id,
                        "gaming_day": DAY,
                        "shift": None,
                        "kind": kind,
                        "amount_cents": amount,
                        "source": "soft-count",
                        "reference": reference,
                        "entered_by": "pia",
                        "entered_at": at,
                    }
                    for kind, amount, reference in (
                        ("cash", DROP_CASH, None),
                        ("marker", DROP_MARKER, f"M-{t}"),
                    )
                ],
            )
            connection.execute(
                insert(AccountingLine.__table__),  # type: ignore[attr-defined]
                [
                    {
                        "table_id": table_id,
                        "gaming_day": DAY,
                        "shift": None,
                        "name": "tips",
                        "amount_cents": TIPS,
                        "entered_by": "pia",
                        "entered_at": at,
                    }
                ],
            )
    return pits


# --------------------------------------------------------------------------- the timed passes


def close(engine: Engine, pits: dict[str, str | None]) -> AccountingSection:
    with read_snapshot(engine) as session:
        return accounting_section(session, tables=pits, period=PERIOD, alert_above=0)


BARE_TABLES = """
SELECT t.table_id,
  (SELECT value_cents FROM accounting_counts c WHERE c.table_id = t.table_id AND c.gaming_day = :day
     AND c.shift IS NULL AND c.kind = 'opener' AND c.signed_at IS NOT NULL),
  (SELECT value_cents FROM accounting_counts c WHERE c.table_id = t.table_id AND c.gaming_day = :day
     AND c.shift IS NULL AND c.kind = 'closer' AND c.signed_at IS NOT NULL),
  (SELECT COALESCE(SUM(CASE WHEN kind = 'fill' THEN value_cents ELSE 0 END), 0)
     FROM accounting_slips s WHERE s.table_id = t.table_id AND s.delivered_at >= :start
     AND s.delivered_at < :end AND s.voided_at IS NULL),
  (SELECT COALESCE(SUM(CASE WHEN kind = 'credit' THEN value_cents ELSE 0 END), 0)
     FROM accounting_slips s WHERE s.table_id = t.table_id AND s.delivered_at >= :start
     AND s.delivered_at < :end AND s.voided_at IS NULL),
  (SELECT COALESCE(SUM(amount_cents), 0) FROM accounting_drop d
     WHERE d.table_id = t.table_id AND d.gaming_day = :day),
  (SELECT COALESCE(SUM(amount_cents), 0) FROM accounting_lines l WHERE l.table_id = t.table_id
     AND l.gaming_day = :day AND l.shift IS NULL),
  t.settled, t.computed, t.theory, t.variance
FROM (
  SELECT table_id, COUNT(*) AS settled, SUM(house_result_cents) AS computed,
         SUM(theoretical_win_cents) AS theory, SUM(theoretical_variance) AS variance
  FROM rounds WHERE table_id IN ({ids}) AND phase = 'closed' AND opened_at >= :start AND opened_at < :end
  GROUP BY table_id
) t ORDER BY t.table_id
"""

BARE_RATINGS = """
WITH g AS (
  SELECT rating_id, table_id, seat, started_at, COALESCE(ended_at, last_at) AS until, rounds,
         main_wagered_cents, bonus_wagered_cents, actual_win_cents, theoretical_win_cents,
         theoretical_rounds
  FROM ratings WHERE table_id IN ({ids}) AND started_at >= :start AND started_at < :end
), s AS (
  SELECT r.round_id, r.table_id, r.closed_at, r.theoretical_win_cents AS theory,
         CASE WHEN r.banker_seat IS NULL THEN p.position
              ELSE (r.banker_seat + p.position - 2) % 7 + 1 END AS seat,
         p.wager_cents AS main, p.big_hand_bonus_cents + p.joker_bonus_cents AS bonus, p.net_cents AS net,
         SUM(p.wager_cents + p.big_hand_bonus_cents + p.joker_bonus_cents)
           OVER (PARTITION BY r.round_id) AS whole
  FROM rounds r JOIN round_positions p ON p.round_id = r.round_id
  WHERE r.table_id IN ({ids}) AND r.phase = 'closed' AND r.closed_at >= :start
    AND p.position != 1 AND p.house_hand = false
), b AS (
  SELECT s.*, CASE WHEN theory IS NOT NULL AND whole > 0
    THEN (theory * (main + bonus) - (((theory * (main + bonus)) % whole) + whole) % whole) / whole
    ELSE 0 END AS base,
    CASE WHEN theory IS NOT NULL AND whole > 0
    THEN (((theory * (main + bonus)) % whole) + whole) % whole ELSE 0 END AS rem
  FROM s
), k AS (
  SELECT b.*, SUM(base) OVER (PARTITION BY round_id) AS based,
         ROW_NUMBER() OVER (PARTITION BY round_id ORDER BY rem DESC, seat) AS place
  FROM b
)
SELECT g.rating_id, g.rounds, g.main_wagered_cents, g.bonus_wagered_cents, g.actual_win_cents,
       g.theoretical_win_cents, g.theoretical_rounds,
       COUNT(*), SUM(k.main), SUM(k.bonus), -SUM(k.net),
       SUM(k.base + CASE WHEN k.theory IS NOT NULL AND k.place <= k.theory - k.based THEN 1 ELSE 0 END),
       SUM(CASE WHEN k.theory IS NOT NULL THEN 1 ELSE 0 END)
FROM g JOIN k ON k.table_id = g.table_id AND k.seat = g.seat AND k.closed_at >= g.started_at
  AND k.closed_at <= g.until
GROUP BY g.rating_id, g.rounds, g.main_wagered_cents, g.bonus_wagered_cents, g.actual_win_cents,
         g.theoretical_win_cents, g.theoretical_rounds
ORDER BY g.rating_id
"""

BARE_BANKS = """
SELECT g.rating_id, COUNT(*), -SUM(COALESCE(r.banker_result_cents, 0))
FROM rounds r JOIN ratings g ON g.table_id = r.table_id AND g.seat = r.banker_seat
  AND r.closed_at >= g.started_at AND r.closed_at <= COALESCE(g.ended_at, g.last_at)
WHERE g.table_id IN ({ids}) AND g.started_at >= :start AND g.started_at < :end
  AND r.phase = 'closed' AND r.banker_seat IS NOT NULL
GROUP BY g.rating_id
"""

READ_ROUNDS = """
SELECT r.round_id, r.table_id, r.opened_at, r.closed_at, r.house_result_cents,
       r.theoretical_win_cents,
       r.theoretical_variance, r.banker_seat, p.position, p.wager_cents, p.big_hand_bonus_cents,
       p.joker_bonus_cents, p.net_cents
FROM rounds r JOIN round_positions p ON p.round_id = r.round_id
WHERE r.table_id IN ({ids}) AND r.phase = 'closed' AND r.opened_at >= :start AND r.opened_at < :end
"""


def _bare(engine: Engine, sql: str, pits: dict[str, str | None]) -> list[tuple[Any, ...]]:
    """``sql`` over the DB-API connection, every row fetched as a tuple."""
    ids = ", ".join(f"'{table_id}'" for table_id in sorted(pits))  # the benchmark's own ids
    sqlite = engine.dialect.name == "sqlite"
    params: dict[str, Any] = {"day": DAY, "start": PERIOD.start, "end": PERIOD.end}
    if sqlite:  # the stored form of the UTCDateTime columns (storage/models.py)
        params = {
            "day": DAY.isoformat(),
            "start": PERIOD.start.strftime("%Y-%m-%d %H:%M:%S.%f"),
            "end": PERIOD.end.strftime("%Y-%m-%d %H:%M:%S.%f"),
        }
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text(sql.format(ids=ids)), params).all()]


def bare_sql(
    engine: Engine, pits: dict[str, str | None]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    return (
        _bare(engine, BARE_TABLES, pits),
        _bare(engine, BARE_RATINGS, pits),
        _bare(engine, BARE_BANKS, pits),
    )


def read_rounds(engine: Engine, pits: dict[str, str | None]) -> list[tuple[Any, ...]]:
    return _bare(engine, READ_ROUNDS, pits)


def fold(engine: Engine, pits: dict[str, str | None]) -> int:
    """The path before: facts per round, the fold, account_table and reconcile per table."""
    chips = ChipSet((1,))
    closed = 0
    with read_snapshot(engine) as session:
        for table_id in sorted(pits):
            facts = settled_rounds(session, table_id=table_id, start=PERIOD.start, end=PERIOD.end)
            builder = RatingBuilder(table_id, idle_after=timedelta(hours=24))
            for seat in range(2, 8):
                builder.feed(SeatTaken(PERIOD.start, seat, f"P-{seat}"))
            for fact in facts:
                closed += len(builder.feed(fact))
            closed += len(builder.feed(TableClosed(facts[-1].settled_at + timedelta(minutes=1))))

            def count(kind: CountKind, value: int, table_id: str = table_id) -> InventoryCount:
                return InventoryCount(
                    kind, table_id, DAY, None, PERIOD.start, Chips.of({1: value}), "pia", "ann", chips
                )

            account = account_table(
                table_id=table_id,
                pit=pits[table_id],
                period=PERIOD,
                opener=count(CountKind.OPENER, OPENER),
                closer=count(CountKind.CLOSER, OPENER),
                slips=(),
                drop=[DropEntry(table_id, DAY, None, DropKind.CASH, 0, DropSource.SOFT_COUNT)],
            )
            reconcile(account, facts, period=PERIOD)
    return closed


def check(section: AccountingSection, bare: tuple[list[tuple[Any, ...]], ...]) -> None:
    """The close's figures are the bare SQL's, every variance is 0, every rating matches (its
    banks too: some seat banked somewhere)."""
    tables, ratings, banks = bare
    assert banks, "no rating banked a round: the banks go unchecked"
    lines = {line.table_id: line for line in section.lines if line.scope == "table"}
    for table_id, opener, closer, fills, credits, drop, lines_sum, settled, computed, theory, _ in tables:
        line = lines[table_id]
        assert (line.opener_cents, line.closer_cents, line.fills_cents, line.credits_cents) == (
            opener,
            closer,
            fills,
            credits,
        )
        assert (line.drop_cents, line.explained_cents, line.settled_rounds) == (drop, lines_sum, settled)
        assert (line.computed_result_cents, line.theoretical_win_cents) == (computed, theory)
        assert line.variance_cents == 0, (table_id, line.variance_cents)
    assert len(section.ratings) == len(ratings) and all(r.matches_rounds for r in section.ratings)
    for row in ratings:
        assert row[1:7] == row[7:13], row  # stored == from the rounds, by the bare SQL too


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=700)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--fold", action="store_true", help="time the path before too (slow)")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory(prefix="bench-accounting-")
    schema = None
    admin = None
    if args.postgres_url:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = make_engine(args.postgres_url)
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(args.postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
        engine = make_engine(url.render_as_string(hide_password=False))
    else:
        engine = make_engine(f"sqlite:///{folder.name}/day.db")
    try:
        upgrade_to_head(engine)
        started = time.perf_counter()
        pits = write_day(engine, args.tables, args.rounds, args.seed)
        print(f"wrote the day in {time.perf_counter() - started:.1f} s ({engine.dialect.name})")
        runs: dict[str, Callable[[], Any]] = {
            "close": lambda: close(engine, pits),
            "bare SQL": lambda: bare_sql(engine, pits),
            "read the rounds": lambda: read_rounds(engine, pits),
        }
        if args.fold:
            runs["fold"] = lambda: fold(engine, pits)
        check(close(engine, pits), bare_sql(engine, pits))  # and a warm cache for both
        clock = time.process_time if engine.dialect.name == "sqlite" else time.perf_counter
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(args.repeats):
            for name, run in runs.items():
                start = clock()
                run()
                best[name] = min(best[name], clock() - start)
        total = args.tables * args.rounds
        what = "CPU" if clock is time.process_time else "wall"
        print(
            f"{args.tables} tables x {args.rounds} rounds = {total:,} rounds, best of {args.repeats}, {what}"
        )
        for name, seconds in best.items():
            print(f"  {name:<16}: {seconds * 1000:8.1f} ms = {seconds / total * 1e6:6.2f} us/round")
        print(f"  ratio close / bare SQL:        {best['close'] / best['bare SQL']:.2f} (goal <= 3)")
        print(f"  ratio close / read the rounds: {best['close'] / best['read the rounds']:.2f}")
        if args.fold:
            print(f"  ratio fold / bare SQL:         {best['fold'] / best['bare SQL']:.2f}")
        print(f"  (run at {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)")
    finally:
        engine.dispose()
        if admin is not None and schema is not None:
            with admin.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
        folder.cleanup()


if __name__ == "__main__":
    main()
