"""The API on a big table: round history and round detail against bare SQL, and the live stream
to many terminals (docs/api.md, Tests and benchmark).

    .venv/bin/python -m benchmarks.bench_api [--backend sqlite|postgresql|both] [--rounds 1000000]
        [--terminals 100] [--events 200] [--postgres-url URL]

All figures of one backend come from the same run, on one store (SQLite in a temporary folder;
PostgreSQL in a schema of its own in the database at ``--postgres-url``, dropped at the end):

1. ``--rounds`` rounds are bulk-inserted into the ``rounds`` and ``round_positions``
   projections (the banker and 1..6 playing positions each, real seven-card piles from a
   shuffled deck; categories, outcomes and money are drawn at random with plausible weights:
   this measures queries, not the game), then a few rounds are played through the table
   service so that their detail has events. SQLite gets no ANALYZE (the daemon runs none);
   PostgreSQL gets one, as its autovacuum would have done on a table a year old.
2. Each history query is timed three ways: the bare SQL (the DB driver alone, sqlite3 or
   psycopg: the statement the API builds, rows fetched, after the lookups it makes first: a
   time range's first and last round numbers, a rare hand category's rounds); the API's own query function
   (``history_page``: the same SQL plus the Public models); and the whole HTTP request through
   uvicorn (token check, one read snapshot, JSON), from a keep-alive ``http.client``
   connection (the leanest client: its own cost is not the API's). Goals: fn/SQL at most 3x;
   the HTTP request at most 1.5 ms above the empty FastAPI endpoint of step 4 (median);
   ``HTTP-fn-empty`` is what the HTTP layer adds beyond the function (token, snapshot, JSON).
3. The round detail likewise: its four SELECTs in bare SQL (the round, its positions, its
   events, the rules its opening pinned by hash), ``round_detail``, and HTTP.
4. The HTTP floor, for reading the HTTP ratios: one keep-alive exchange with a server that
   answers a fixed byte string (no framework, no work), and one with an empty FastAPI endpoint
   on uvicorn (as the API runs): what any request costs before the API does anything.
5. The live stream (SQLite run only): ``--terminals`` connections follow ``/api/stream``;
   ``--events`` events are written to the chain; the time from each write to its arrival at
   every terminal is reported (p50, p99, max) with the total delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import structlog
from fastapi import FastAPI, Response
from sqlalchemy.dialects import postgresql as postgresql_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Engine, make_url

from table_controller.api import create_app
from table_controller.api.history import history_page, round_detail
from table_controller.api.server import serving
from table_controller.game.cards import Game, codes
from table_controller.game.deal import pile_positions, start_position
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import TableSettings
from table_controller.storage import (
    add_user,
    head_of_chain,
    make_engine,
    open_store,
    sqlite_url,
    unit_of_work,
    upgrade_to_head,
)
from table_controller.storage.engine import apply_postgres_session_settings
from table_controller.storage.history import HistoryFilter, history_statement
from table_controller.storage.models import PositionOutcome
from table_controller.storage.session import read_snapshot
from table_controller.table.service import TableService

TABLE = "t1"
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEALERS = [f"dealer-{n:02d}" for n in range(20)]
RULES = [
    "high-card.second-and-fourth",
    "one-pair.pair-behind",
    "two-pair.split",
    "two-pair.both-behind",
    "three-of-a-kind.behind",
    "straight.behind",
    "flush.behind",
    "full-house.split",
]
HIGH = [
    ("high-card", 30),
    ("one-pair", 45),
    ("two-pair", 15),
    ("three-of-a-kind", 4),
    ("straight", 3),
    ("flush", 2),
    ("full-house", 1),
]
RARE_HIGH = ["four-of-a-kind", "straight-flush", "royal-flush", "five-aces"]
SEVEN = [("nothing", 90), ("flush", 5), ("full-house", 4), ("four-of-a-kind", 1)]
ROUND_COLUMNS = (
    "round_id",
    "number",
    "table_id",
    "game",
    "dealer",
    "phase",
    "opened_at",
    "closed_at",
    "voided",
    "misdeal",
    "void_reason",
    "die_1",
    "die_2",
    "die_3",
    "dice_source",
    "start_position",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
    "house_way_rule_id",
    "override",
    "house_way_required",
)
POSITION_COLUMNS = (
    "round_id",
    "position",
    "wager_cents",
    "big_hand_bonus_cents",
    "joker_bonus_cents",
    "cards",
    "high",
    "low",
    "high_category",
    "low_category",
    "seven_card_category",
    "house_way_rule_id",
    "fouled",
    "outcome",
    "win_cents",
    "commission_cents",
    "bonus_paid_cents",
    "net_cents",
    "override",
)


def _weighted(pairs: list[tuple[str, int]]) -> Callable[[random.Random], str]:
    labels = [label for label, _ in pairs]
    weights = [weight for _, weight in pairs]
    return lambda rng: rng.choices(labels, weights)[0]


def _sqlite_time(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


Rows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]
BATCH = 20_000


def batches(rounds: int, start: datetime, seed: int = 5) -> Iterator[Rows]:
    """The projection rows of ``rounds`` rounds a year long from ``start``, by batches of rounds
    (times are aware UTC datetimes)."""
    rng = random.Random(seed)
    deck = codes(Game.STANDARD.deck())
    high = _weighted(HIGH)
    seven = _weighted(SEVEN)
    step = timedelta(days=365) / max(rounds, 1)
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
        hands = {pos: shuffled[7 * k : 7 * k + 7] for k, pos in enumerate(pile_positions(first))}
        wagered = commission = house = 0
        rows = [(1, 0, None, None, None, None)]
        for pos in playing:
            wager = rng.choice((500, 1000, 2500, 5000, 10000))
            wagered += wager
            if voided:
                rows.append((pos, wager, None, None, None, None))
                continue
            outcome = rng.choices(("win", "push", "lose"), (30, 40, 30))[0]
            win = wager if outcome == "win" else 0
            fee = (wager * 5 + 99) // 100 if outcome == "win" else 0
            net = win - fee if outcome == "win" else (-wager if outcome == "lose" else 0)
            commission += fee
            house -= net
            rows.append((pos, wager, outcome, win, fee, net))
        batch_rounds.append(
            (
                round_id,
                number,
                TABLE,
                "standard",
                rng.choice(DEALERS),
                "void" if voided else "closed",
                opened,
                opened + timedelta(seconds=50),
                voided,
                misdeal,
                ("misdeal: duplicate card" if misdeal else "pit: late wager") if voided else None,
                dice[0],
                dice[1],
                dice[2],
                "shaker",
                first,
                wagered,
                0,
                commission,
                0,
                house,
                None if misdeal else rule,
                override,
                None if misdeal else _required(rule, hands[1]),
            )
        )
        for pos, wager, outcome, win, fee, net in rows:
            cards = None if misdeal else hands[pos]
            category = None if voided else rng.choice(RARE_HIGH) if rng.random() < 0.0005 else high(rng)
            batch_positions.append(
                (
                    round_id,
                    pos,
                    wager,
                    0,
                    0,
                    " ".join(cards) if cards else None,
                    " ".join(cards[:5]) if cards and not voided else None,
                    " ".join(cards[5:]) if cards and not voided else None,
                    category,
                    rng.choice(("high-card", "pair")) if category else None,
                    seven(rng) if cards else None,
                    rule if pos == 1 and not misdeal else None,
                    False,
                    outcome,
                    win or 0,
                    fee or 0,
                    0,
                    net or 0,
                    override and pos == 1,
                )
            )
        if len(batch_rounds) >= BATCH:
            yield batch_rounds, batch_positions
            batch_rounds, batch_positions = [], []
    if batch_rounds:
        yield batch_rounds, batch_positions


def _required(rule: str, banker: list[str]) -> str:
    """A kept required setting of the size the recorder writes (its content is not checked here)."""
    return json.dumps(
        {
            "way": "house-way-002",
            "rule_id": rule,
            "rule_words": f"{rule} | the table's own words",
            "high": banker[:5],
            "low": banker[5:],
        },
        sort_keys=True,
        separators=(",", ":"),
    )


_TIMES = (ROUND_COLUMNS.index("opened_at"), ROUND_COLUMNS.index("closed_at"))


def load_sqlite(path: Path, rounds: int, start: datetime) -> None:
    """Bulk-insert into the SQLite file (times as the text the store keeps)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA synchronous=OFF")
    round_sql = (
        f"INSERT INTO rounds ({', '.join(ROUND_COLUMNS)}) VALUES ({', '.join('?' * len(ROUND_COLUMNS))})"
    )
    position_sql = (
        f"INSERT INTO round_positions ({', '.join(POSITION_COLUMNS)})"
        f" VALUES ({', '.join('?' * len(POSITION_COLUMNS))})"
    )
    for round_rows, position_rows in batches(rounds, start):
        db.executemany(
            round_sql,
            [tuple(_sqlite_time(v) if i in _TIMES else v for i, v in enumerate(row)) for row in round_rows],
        )
        db.executemany(position_sql, position_rows)
        db.commit()
    db.close()


def load_postgres(engine: Engine, rounds: int, start: datetime) -> None:
    """Bulk-copy into the PostgreSQL schema (COPY), then ANALYZE."""
    raw = engine.raw_connection()
    try:
        dbapi = raw.driver_connection
        with dbapi.cursor() as cursor:
            for round_rows, position_rows in batches(rounds, start):
                with cursor.copy(f"COPY rounds ({', '.join(ROUND_COLUMNS)}) FROM STDIN") as copy:
                    for row in round_rows:
                        copy.write_row(row)
                with cursor.copy(f"COPY round_positions ({', '.join(POSITION_COLUMNS)}) FROM STDIN") as copy:
                    for row in position_rows:
                        copy.write_row(row)
                dbapi.commit()
        dbapi.autocommit = True
        with dbapi.cursor() as cursor:
            cursor.execute("ANALYZE rounds")
            cursor.execute("ANALYZE round_positions")
    finally:
        raw.close()


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


class Bare:
    """The DB driver alone (sqlite3 or psycopg, autocommit): the baseline "bare SQL"."""

    def __init__(self, engine: Engine, sqlite_file: Path | None) -> None:
        self.sqlite = sqlite_file is not None
        if sqlite_file is not None:
            self.connection: Any = sqlite3.connect(sqlite_file)
        else:
            import psycopg

            url = engine.url.set(drivername="postgresql")
            self.connection = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
            apply_postgres_session_settings(self.connection)  # as the API's own connections

    def compiled(self, statement: Any, params: dict[str, Any]) -> tuple[str, Any]:
        """The SQL text and parameters of a statement as the API runs it."""
        dialect = sqlite_dialect.dialect() if self.sqlite else postgresql_dialect.psycopg.dialect()
        state = statement.compile(dialect=dialect).construct_expanded_state(params)
        if self.sqlite:
            return state.statement, [
                _sqlite_time(v) if isinstance(v, datetime) else v
                for v in (state.parameters[name] for name in state.positiontup)
            ]
        return state.statement, dict(state.parameters)

    def placeholders(self, sql: str) -> str:
        return sql if self.sqlite else sql.replace("?", "%s")

    def fetch(self, sql: str, params: Any) -> list[Any]:
        if self.sqlite:
            return self.connection.execute(sql, params).fetchall()
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def close(self) -> None:
        self.connection.close()


class Terminal:
    """A keep-alive HTTP/1.1 connection, as a terminal holds one (``http.client``: the leanest
    client, so that the figure is the API's, not the client library's)."""

    def __init__(self, base: str, token: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str, params: dict[str, Any] | None = None) -> bytes:
        url = path if not params else f"{path}?{httpx.QueryParams(params)}"
        try:
            self.connection.request("GET", url, headers=self.headers)
            answer = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # the server closed the idle keep-alive connection (uvicorn: after 5 s, as while a slow
            # query was timed through the function): connect again, as a terminal does
            self.connection.close()
            self.connection.request("GET", url, headers=self.headers)
            answer = self.connection.getresponse()
        body = answer.read()
        if answer.status != 200:
            raise RuntimeError(f"GET {url}: {answer.status} {body[:300]!r}")
        return body

    def close(self) -> None:
        self.connection.close()


def history_cases(
    first: datetime, rounds: int
) -> list[tuple[str, dict[str, Any], HistoryFilter, int | None]]:
    mid = first + timedelta(days=180)
    return [
        ("newest page", {}, HistoryFilter(), None),
        ("deep page (cursor)", {"cursor": rounds // 2}, HistoryFilter(), rounds // 2),
        ("dealer", {"dealer": "dealer-07"}, HistoryFilter(dealer="dealer-07"), None),
        ("voided", {"voided": "true"}, HistoryFilter(voided=True), None),
        ("override", {"override": "true"}, HistoryFilter(override=True), None),
        (
            "position 4 lost",
            {"position": 4, "outcome": "lose"},
            HistoryFilter(position=4, outcome=PositionOutcome.LOSE),
            None,
        ),
        ("card As at position 3", {"card": "As", "position": 3}, HistoryFilter(card="As", position=3), None),
        (
            "one week in mid-year",
            {"opened_from": mid.isoformat(), "opened_to": (mid + timedelta(days=7)).isoformat()},
            HistoryFilter(opened_from=mid, opened_to=mid + timedelta(days=7)),
            None,
        ),
        (
            "high hand four of a kind (rare)",
            {"high_category": "four-of-a-kind"},
            HistoryFilter(high_category="four-of-a-kind"),
            None,
        ),
    ]


async def follow_stream(
    base: str, token: str, terminals: int, events: int, write: Callable[[int], None]
) -> tuple[list[float], int]:
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


_FIXED_ANSWER = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1\r\n\r\nx"


@contextmanager
def bare_http_server() -> Iterator[str]:
    """An asyncio server answering every request with a fixed byte string: no framework, no work."""
    ready: list[tuple[asyncio.AbstractEventLoop, asyncio.Server]] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(_FIXED_ANSWER)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        ready.append((asyncio.get_running_loop(), server))
        async with server:
            with contextlib.suppress(asyncio.CancelledError):
                await server.serve_forever()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), name="bare-http", daemon=True)
    thread.start()
    while not ready:
        time.sleep(0.01)
    loop, server = ready[0]
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        loop.call_soon_threadsafe(server.close)
        thread.join(5)


def http_floor(token: str, repeat: int) -> tuple[float, float]:
    """Median seconds of one keep-alive HTTP exchange that does no work: with no framework at all
    (a fixed answer), and through FastAPI + uvicorn as the API runs them (an empty endpoint)."""
    floor_app = FastAPI()

    @floor_app.get("/empty")
    async def empty() -> Response:
        return Response(b"x", media_type="text/plain")

    results = []
    for server in (bare_http_server(), serving(floor_app)):
        with server as base:
            terminal = Terminal(base, token)
            try:
                results.append(timed(lambda terminal=terminal: terminal.get("/empty"), repeat))
            finally:
                terminal.close()
    return results[0], results[1]


GOAL_FN_RATIO = 3.0  # the API's function at most 3x the same query in bare SQL
GOAL_HTTP_ABOVE_EMPTY_MS = 1.5  # an HTTP request at most 1.5 ms above an empty FastAPI endpoint


def bench_queries(
    engine: Engine,
    bare: Bare,
    terminal: Terminal,
    first: datetime,
    rounds: int,
    round_id: str,
    repeat: int,
    empty_endpoint: float,
) -> None:
    """History pages and one round's detail: bare SQL, the API's function, the HTTP request
    (and the request's time above the empty FastAPI endpoint measured in the same run)."""
    print(f"\nround history, page of 50 ({repeat} runs each, median ms)")
    header = f"{'query':34} {'bare SQL':>9} {'API fn':>9} {'HTTP':>9} {'fn/SQL':>7} {'HTTP/SQL':>9}"
    print(f"{header} {'HTTP-empty':>11} {'HTTP-fn-empty':>14}")
    worst_ratio, worst_above, worst_layer = 0.0, 0.0, 0.0
    for name, params, where, cursor in history_cases(first, rounds):
        with read_snapshot(engine) as session:
            query = history_statement(session, TABLE, where, newest_first=True, cursor=cursor, limit=50)
            assert query is not None
            sql, values = bare.compiled(query.statement, query.params)
            # the lookups the API made first (a time range's round numbers, a rare hand's rounds)
            # are part of the same query: the bare SQL runs them too
            lookups = [bare.compiled(statement, params) for statement, params in query.lookups]
            base = timed(
                lambda sql=sql, values=values, lookups=lookups: [
                    bare.fetch(*lookup) for lookup in [*lookups, (sql, values)]
                ],
                repeat,
            )
            function = timed(
                lambda where=where, cursor=cursor: history_page(
                    session, TABLE, where, cursor=cursor, limit=50
                ),
                repeat,
            )
            count = len(bare.fetch(sql, values))
            if query.ordered:
                assert [row[0] for row in bare.fetch(sql, values)][:50] == [
                    r.round_id for r in history_page(session, TABLE, where, cursor=cursor, limit=50)[0]
                ]
        http = timed(lambda params=params: terminal.get("/api/rounds", {**params, "limit": 50}), repeat)
        above, layer = (http - empty_endpoint) * 1e3, (http - function - empty_endpoint) * 1e3
        worst_ratio, worst_above = max(worst_ratio, function / base), max(worst_above, above)
        worst_layer = max(worst_layer, layer)
        print(
            f"{name:34} {base * 1e3:9.2f} {function * 1e3:9.2f} {http * 1e3:9.2f}"
            f" {function / base:7.1f} {http / base:9.1f} {above:11.2f} {layer:14.2f}"
            f"   ({count - 1 if count > 50 else count} rows)"
        )

    print(f"\nround detail ({repeat} runs each, median ms)")
    detail_sql = [
        (bare.placeholders("SELECT * FROM rounds WHERE round_id = ?"), [round_id]),
        (bare.placeholders("SELECT * FROM round_positions WHERE round_id = ? ORDER BY position"), [round_id]),
        (
            bare.placeholders("SELECT * FROM events WHERE round_id = ? AND table_id = ? ORDER BY seq"),
            [round_id, TABLE],
        ),
    ]
    # the detail also checks the rules its opening pinned against their stored content (one
    # SELECT of the evidence by hash: api/history.py _trusted), so the bare SQL reads them too
    with read_snapshot(engine) as session:
        pins = sorted(round_detail(session, TABLE, round_id).rules_version.values())
    marks = ", ".join("?" for _ in pins)
    evidence = f"SELECT sha256, kind, name, content FROM evidence WHERE sha256 IN ({marks})"
    detail_sql.append((bare.placeholders(evidence), pins))
    base = timed(lambda: [bare.fetch(q, p) for q, p in detail_sql], repeat)
    with read_snapshot(engine) as session:
        function = timed(lambda: round_detail(session, TABLE, round_id), repeat)
    http = timed(lambda: terminal.get(f"/api/rounds/{round_id}"), repeat)
    above, layer = (http - empty_endpoint) * 1e3, (http - function - empty_endpoint) * 1e3
    worst_ratio, worst_above = max(worst_ratio, function / base), max(worst_above, above)
    worst_layer = max(worst_layer, layer)
    print(
        f"{'round ' + round_id:34} {base * 1e3:9.2f} {function * 1e3:9.2f} {http * 1e3:9.2f}"
        f" {function / base:7.1f} {http / base:9.1f} {above:11.2f} {layer:14.2f}"
    )
    ratio_met = "met" if worst_ratio <= GOAL_FN_RATIO else "NOT met"
    above_met = "met" if worst_above <= GOAL_HTTP_ABOVE_EMPTY_MS else "NOT met"
    print(
        f"\nworst fn/SQL {worst_ratio:.1f}x (goal <= {GOAL_FN_RATIO:.0f}x: {ratio_met});"
        f" worst HTTP above the empty endpoint {worst_above:.2f} ms"
        f" (goal <= {GOAL_HTTP_ABOVE_EMPTY_MS} ms: {above_met}); of which the HTTP layer's own"
        f" (HTTP - fn - empty) at most {worst_layer:.2f} ms"
    )


def bench_stream(
    engine: Any, service: TableService, base: str, token: str, terminals: int, events: int
) -> None:
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
    print(
        f"delivered {delivered:,} of {terminals * events:,} in {elapsed:.1f} s;"
        f" write-to-terminal latency p50 {statistics.median(latencies) * 1e3:.0f} ms,"
        f" p99 {latencies[int(len(latencies) * 0.99) - 1] * 1e3:.0f} ms, max {latencies[-1] * 1e3:.0f} ms"
    )


@contextmanager
def postgres_schema(url: str) -> Iterator[Engine]:
    """An engine on a schema of its own in the database at ``url`` (migrated), dropped after."""
    schema = f"bench_api_{uuid.uuid4().hex[:12]}"
    admin = make_engine(url)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    engine = make_engine(
        make_url(url)
        .update_query_dict({"options": f"-csearch_path={schema}"})
        .render_as_string(hide_password=False)
    )
    try:
        upgrade_to_head(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def run_backend(backend: str, args: argparse.Namespace, folder: Path) -> None:
    print(f"\n=== {backend} ===")
    rounds = 0 if args.stream_only else args.rounds
    start = datetime.now(UTC) - timedelta(days=365)
    with postgres_schema(args.postgres_url) if backend == "postgresql" else _sqlite_store(folder) as engine:
        began = time.perf_counter()
        if backend == "postgresql":
            load_postgres(engine, rounds, start)
        else:
            load_sqlite(folder / "table.sqlite3", rounds, start)
        print(f"generated {rounds:,} rounds in {time.perf_counter() - began:.1f} s")
        settings = TableSettings(table_id=TABLE, data_dir=folder)
        service = TableService(settings, engine)
        played = play_rounds(service, 5)
        with unit_of_work(engine) as session:
            token = add_user(session, name="cy", role="surveillance")
        app = create_app(settings, service, engine)
        bare = Bare(engine, folder / "table.sqlite3" if backend == "sqlite" else None)
        with serving(app) as base:
            terminal = Terminal(base, token)
            try:
                if not args.stream_only:
                    raw_http, empty_endpoint = http_floor(token, max(args.repeat, 100))
                    print(
                        f"\nHTTP floor (keep-alive, median ms): a fixed answer with no framework"
                        f" {raw_http * 1e3:.2f}; an empty FastAPI endpoint {empty_endpoint * 1e3:.2f}"
                    )
                    bench_queries(
                        engine, bare, terminal, start, rounds, played[-1], args.repeat, empty_endpoint
                    )
                if backend == "sqlite" and args.terminals:
                    bench_stream(engine, service, base, token, args.terminals, args.events)
            finally:
                terminal.close()
                bare.close()


@contextmanager
def _sqlite_store(folder: Path) -> Iterator[Engine]:
    engine = open_store(sqlite_url(folder))
    try:
        yield engine
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--terminals", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--stream-only", action="store_true", help="no stored rounds; only the live stream")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    for backend in backends:
        with tempfile.TemporaryDirectory() as folder:
            run_backend(backend, args, Path(folder))


if __name__ == "__main__":
    main()
