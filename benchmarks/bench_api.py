"""The API on a big table: round history and round detail against bare SQL, and the live stream
to many terminals (issue 5, Tests and benchmark).

    .venv/bin/python -m benchmarks.bench_api [--rounds 1000000] [--terminals 100] [--events 200]

All figures come from the same run, on one SQLite store in a temporary folder:

1. ``--rounds`` rounds are bulk-inserted into the ``rounds`` and ``round_positions``
   projections (the banker and 1..6 playing positions each, real seven-card piles from a
   shuffled deck; categories, outcomes and money are drawn at random with plausible weights:
   this measures queries, not the game), then a few rounds are played through the table
   service so that their detail has events. No ANALYZE is run (the daemon does not either).
2. Each history query is timed three ways: the bare SQL (sqlite3, the statement the API
   builds, rows fetched); the API's own query function (``history_page``: the same SQL plus
   the Public models); and the whole HTTP request through uvicorn (token check, JSON).
   The ratio API/SQL is the figure the issue asks for (goal: at most 3x).
3. The round detail likewise: its three SELECTs in bare SQL, ``round_detail``, and HTTP.
4. The live stream: ``--terminals`` connections follow ``/api/stream``; ``--events`` events are
   written to the chain; the time from each write to its arrival at every terminal is
   reported (p50, p99, max) with the total delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402
import structlog  # noqa: E402
from sqlalchemy.dialects import sqlite as sqlite_dialect  # noqa: E402

from table_controller.api import create_app  # noqa: E402
from table_controller.api.history import HistoryFilter, history_page, history_statement, round_detail  # noqa: E402
from table_controller.api.server import serving  # noqa: E402
from table_controller.game.cards import Game, codes  # noqa: E402
from table_controller.game.deal import pile_positions, start_position  # noqa: E402
from table_controller.round.events import DiceRolled, PilesDealt, Wager  # noqa: E402
from table_controller.service import TableService  # noqa: E402
from table_controller.settings import TableSettings  # noqa: E402
from table_controller.storage import add_user, head_of_chain, open_store, sqlite_url, unit_of_work  # noqa: E402
from table_controller.storage.models import PositionOutcome  # noqa: E402
from table_controller.storage.session import read_snapshot  # noqa: E402

TABLE = "t1"
DEALERS = [f"dealer-{n:02d}" for n in range(20)]
RULES = ["high-card.second-and-fourth", "one-pair.pair-behind", "two-pair.split", "two-pair.both-behind",
         "three-of-a-kind.behind", "straight.behind", "flush.behind", "full-house.split"]
HIGH = [("high-card", 30), ("one-pair", 45), ("two-pair", 15), ("three-of-a-kind", 4), ("straight", 3),
        ("flush", 2), ("full-house", 1)]
RARE_HIGH = ["four-of-a-kind", "straight-flush", "royal-flush", "five-aces"]
SEVEN = [("nothing", 90), ("flush", 5), ("full-house", 4), ("four-of-a-kind", 1)]
ROUND_COLUMNS = ("round_id", "number", "table_id", "game", "dealer", "phase", "opened_at", "closed_at", "voided",
                 "misdeal", "void_reason", "die_1", "die_2", "die_3", "dice_source", "start_position",
                 "wagered_cents", "bonus_wagered_cents", "commission_cents", "bonuses_paid_cents",
                 "house_result_cents", "house_way_rule_id", "override")
POSITION_COLUMNS = ("round_id", "position", "wager_cents", "big_hand_bonus_cents", "joker_bonus_cents", "cards",
                    "high", "low", "high_category", "low_category", "seven_card_category", "house_way_rule_id",
                    "fouled", "outcome", "win_cents", "commission_cents", "bonus_paid_cents", "net_cents", "override")


def _weighted(pairs: list[tuple[str, int]]) -> Callable[[random.Random], str]:
    labels = [label for label, _ in pairs]
    weights = [weight for _, weight in pairs]
    return lambda rng: rng.choices(labels, weights)[0]


def _sqlite_time(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def generate(path: Path, rounds: int, seed: int = 5) -> datetime:
    """Bulk-insert ``rounds`` rounds into the projections; returns the first round's time."""
    rng = random.Random(seed)
    deck = codes(Game.STANDARD.deck())
    high = _weighted(HIGH)
    seven = _weighted(SEVEN)
    start = datetime.now(UTC) - timedelta(days=365)
    step = timedelta(days=365) / max(rounds, 1)
    db = sqlite3.connect(path)
    db.execute("PRAGMA synchronous=OFF")
    round_sql = f"INSERT INTO rounds ({', '.join(ROUND_COLUMNS)}) VALUES ({', '.join('?' * len(ROUND_COLUMNS))})"
    position_sql = (f"INSERT INTO round_positions ({', '.join(POSITION_COLUMNS)})"
                    f" VALUES ({', '.join('?' * len(POSITION_COLUMNS))})")
    batch_rounds: list[tuple[Any, ...]] = []
    batch_positions: list[tuple[Any, ...]] = []
    for number in range(1, rounds + 1):
        round_id = f"{TABLE}-{number}"
        opened = start + step * (number - 1)
        dice = (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
        first = start_position(dice)
        roll = rng.random()
        misdeal = roll < 0.003
        voided = misdeal or roll < 0.01
        override = not voided and roll > 0.995
        playing = sorted(rng.sample(range(2, 8), rng.randint(1, 6)))
        rule = rng.choice(RULES)
        shuffled = deck[:]
        rng.shuffle(shuffled)
        hands = {pos: shuffled[7 * k: 7 * k + 7] for k, pos in enumerate(pile_positions(first))}
        wagered = commission = house = 0
        rows = [(1, 0, None, None, None, None)]
        for pos in playing:
            wager = rng.choice((500, 1000, 2500, 5000, 10000))
            wagered += wager
            if voided:
                rows.append((pos, wager, None, None, None, None))
                continue
            outcome = rng.choices(("win", "push", "loss"), (30, 40, 30))[0]
            win = wager if outcome == "win" else 0
            fee = (wager * 5 + 99) // 100 if outcome == "win" else 0
            net = win - fee if outcome == "win" else (-wager if outcome == "loss" else 0)
            commission += fee
            house -= net
            rows.append((pos, wager, outcome, win, fee, net))
        batch_rounds.append((
            round_id, number, TABLE, "standard", rng.choice(DEALERS), "void" if voided else "closed",
            _sqlite_time(opened), _sqlite_time(opened + timedelta(seconds=50)), voided, misdeal,
            ("misdeal: duplicate card" if misdeal else "pit: late wager") if voided else None,
            dice[0], dice[1], dice[2], "shaker", first, wagered, 0, commission, 0, house,
            None if misdeal else rule, override,
        ))
        for pos, wager, outcome, win, fee, net in rows:
            cards = None if misdeal else hands[pos]
            category = None if voided else rng.choice(RARE_HIGH) if rng.random() < 0.0005 else high(rng)
            batch_positions.append((
                round_id, pos, wager, 0, 0, " ".join(cards) if cards else None,
                " ".join(cards[:5]) if cards and not voided else None,
                " ".join(cards[5:]) if cards and not voided else None,
                category, rng.choice(("high-card", "pair")) if category else None,
                seven(rng) if cards else None, rule if pos == 1 and not misdeal else None,
                False, outcome, win or 0, fee or 0, 0, net or 0, override and pos == 1,
            ))
        if len(batch_rounds) >= 20_000:
            db.executemany(round_sql, batch_rounds)
            db.executemany(position_sql, batch_positions)
            db.commit()
            batch_rounds.clear()
            batch_positions.clear()
    db.executemany(round_sql, batch_rounds)
    db.executemany(position_sql, batch_positions)
    # the chain head: the table's next rounds are numbered after these
    db.commit()
    db.close()
    return start


def play_rounds(service: TableService, count: int) -> list[str]:
    """Real rounds through the table service (their detail has events), each settled."""
    from tests.round.tables import BANKER, POSITION_3, POSITION_5, deal

    played = []
    for _ in range(count):
        state = service.open_round({3: Wager(main=2500), 5: Wager(main=1000)}, actor="dealer-00")
        service.record_dice(DiceRolled(faces=(1, 1, 1), source="shaker", actor="device:dice-shaker"))
        piles, unused = deal({1: BANKER, 3: POSITION_3, 5: POSITION_5}, start=3)
        service.record_deal(PilesDealt(piles=piles, unused=unused, actor="device:shuffler"))
        service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-00")
        service.set_player(5, ["Kc", "8d", "6s", "4h", "3c"], ["Qh", "Jd"], actor="dealer-00")
        service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-00")
        service.settle()
        played.append(state.round_id)
    return played


def timed(call: Callable[[], Any], repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    call()
    samples = []
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        samples.append(time.perf_counter() - began)
    return statistics.median(samples)


def compiled(statement: Any) -> tuple[str, list[Any]]:
    """The SQL text and parameters the API runs, for sqlite3 (datetimes in the stored text form)."""
    sql = statement.compile(dialect=sqlite_dialect.dialect(), compile_kwargs={"render_postcompile": True})
    params = []
    for name in sql.positiontup:
        value = sql.params[name]
        params.append(_sqlite_time(value) if isinstance(value, datetime) else value)
    return str(sql), params


def history_cases(first: datetime, rounds: int) -> list[tuple[str, dict[str, Any], HistoryFilter, int | None]]:
    mid = first + timedelta(days=180)
    return [
        ("newest page", {}, HistoryFilter(), None),
        ("deep page (cursor)", {"cursor": rounds // 2}, HistoryFilter(), rounds // 2),
        ("dealer", {"dealer": "dealer-07"}, HistoryFilter(dealer="dealer-07"), None),
        ("voided", {"voided": "true"}, HistoryFilter(voided=True), None),
        ("override", {"override": "true"}, HistoryFilter(override=True), None),
        ("position 4 lost", {"position": 4, "outcome": "loss"},
         HistoryFilter(position=4, outcome=PositionOutcome.LOSS), None),
        ("card As at position 3", {"card": "As", "position": 3}, HistoryFilter(card="As", position=3), None),
        ("one week in mid-year", {"opened_from": mid.isoformat(), "opened_to": (mid + timedelta(days=7)).isoformat()},
         HistoryFilter(opened_from=mid, opened_to=mid + timedelta(days=7)), None),
        ("high hand four of a kind (rare)", {"high_category": "four-of-a-kind"},
         HistoryFilter(high_category="four-of-a-kind"), None),
    ]


async def follow_stream(base: str, token: str, terminals: int, events: int,
                        write: Callable[[int], None]) -> tuple[list[float], int]:
    """``terminals`` followers; ``events`` writes; latency of every delivery, and the count."""
    written: dict[int, float] = {}
    latencies: list[float] = []
    delivered = 0
    ready = asyncio.Event()
    connected = 0
    limits = httpx.Limits(max_connections=terminals + 10)

    async def terminal(client: httpx.AsyncClient) -> None:
        nonlocal delivered, connected
        headers = {"Authorization": f"Bearer {token}"}
        async with client.stream("GET", f"{base}/api/stream", headers=headers) as answer:
            connected += 1
            if connected == terminals:
                ready.set()
            got = 0
            async for line in answer.aiter_lines():
                if line.startswith("id: "):
                    seq = int(line[4:])
                    if seq not in written:
                        continue  # the marker event written before the timed ones
                    latencies.append(time.perf_counter() - written[seq])
                    delivered += 1
                    got += 1
                    if got == events:
                        return

    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        tasks = [asyncio.create_task(terminal(client)) for _ in range(terminals)]
        await asyncio.wait_for(ready.wait(), 60)
        await asyncio.sleep(0.5)  # every terminal is waiting on the hub

        def writer() -> None:
            first = write(-1)  # the seq before the timed events
            for n in range(events):
                written[first + n + 1] = time.perf_counter()  # noted before the write: it may arrive at once
                write(n)
                time.sleep(0.005)

        await asyncio.to_thread(writer)
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
    return latencies, delivered


def bench_queries(engine: Any, raw: sqlite3.Connection, client: httpx.Client, first: datetime, rounds: int,
                  round_id: str, repeat: int) -> None:
    """History pages and one round's detail: bare SQL, the API's function, the HTTP request."""
    print(f"\nround history, page of 50 ({repeat} runs each, median ms)")
    print(f"{'query':34} {'bare SQL':>9} {'API fn':>9} {'HTTP':>9} {'fn/SQL':>7} {'HTTP/SQL':>9}")
    for name, params, where, cursor in history_cases(first, rounds):
        with read_snapshot(engine) as session:
            query = history_statement(session, TABLE, where, newest_first=True, cursor=cursor, limit=50)
            assert query is not None
            sql, values = compiled(query.statement)
            bare = timed(lambda: raw.execute(sql, values).fetchall(), repeat)
            function = timed(lambda: history_page(session, TABLE, where, cursor=cursor, limit=50), repeat)
            count = len(raw.execute(sql, values).fetchall())
        http = timed(lambda: client.get("/api/rounds", params={**params, "limit": 50}).raise_for_status(), repeat)
        print(f"{name:34} {bare * 1e3:9.2f} {function * 1e3:9.2f} {http * 1e3:9.2f}"
              f" {function / bare:7.1f} {http / bare:9.1f}   ({count - 1 if count > 50 else count} rows)")

    print(f"\nround detail ({repeat} runs each, median ms)")
    detail_sql = [
        ("SELECT * FROM rounds WHERE round_id = ?", [round_id]),
        ("SELECT * FROM round_positions WHERE round_id = ? ORDER BY position", [round_id]),
        ("SELECT * FROM events WHERE round_id = ? AND table_id = ? ORDER BY seq", [round_id, TABLE]),
    ]
    bare = timed(lambda: [raw.execute(q, p).fetchall() for q, p in detail_sql], repeat)
    with read_snapshot(engine) as session:
        function = timed(lambda: round_detail(session, TABLE, round_id), repeat)
    http = timed(lambda: client.get(f"/api/rounds/{round_id}").raise_for_status(), repeat)
    print(f"{'round ' + round_id:34} {bare * 1e3:9.2f} {function * 1e3:9.2f} {http * 1e3:9.2f}"
          f" {function / bare:7.1f} {http / bare:9.1f}")


def bench_stream(engine: Any, service: TableService, base: str, token: str, terminals: int, events: int) -> None:
    print(f"\nlive stream: {terminals} terminals, {events} events")

    def write(n: int) -> int:
        service.journal("shuffler", "card-read", {"n": n})
        with read_snapshot(engine) as session:
            head = head_of_chain(session, table_id=TABLE)
        assert head is not None
        return head.last_seq  # the seq of the event just written

    began = time.perf_counter()
    latencies, delivered = asyncio.run(follow_stream(base, token, terminals, events, write))
    elapsed = time.perf_counter() - began
    latencies.sort()
    print(f"delivered {delivered:,} of {terminals * events:,} in {elapsed:.1f} s;"
          f" write-to-terminal latency p50 {statistics.median(latencies) * 1e3:.0f} ms,"
          f" p99 {latencies[int(len(latencies) * 0.99) - 1] * 1e3:.0f} ms, max {latencies[-1] * 1e3:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--terminals", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--stream-only", action="store_true", help="no stored rounds; only the live stream")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))

    with tempfile.TemporaryDirectory() as folder:
        engine = open_store(sqlite_url(Path(folder)))
        began = time.perf_counter()
        rounds = 0 if args.stream_only else args.rounds
        first = generate(Path(folder) / "table.sqlite3", rounds)
        print(f"generated {rounds:,} rounds in {time.perf_counter() - began:.1f} s")
        settings = TableSettings(table_id=TABLE, data_dir=Path(folder))
        service = TableService(settings, engine)
        played = play_rounds(service, 5)
        with unit_of_work(engine) as session:
            token = add_user(session, name="cy", role="surveillance")
        app = create_app(settings, service, engine)
        raw = sqlite3.connect(Path(folder) / "table.sqlite3")
        headers = {"Authorization": f"Bearer {token}"}
        with serving(app) as base, httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            if not args.stream_only:
                bench_queries(engine, raw, client, first, rounds, played[-1], args.repeat)
            bench_stream(engine, service, base, token, args.terminals, args.events)
        raw.close()
        engine.dispose()


if __name__ == "__main__":
    main()
