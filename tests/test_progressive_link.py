"""A progressive pool linked across tables, its meters on the floor's PostgreSQL
(table/progressive_link.py; docs/progressive.md, "A pool linked across tables").

Each table keeps its rounds in its own store (SQLite here) and reaches the pool through
``link_db_url``, the floor's PostgreSQL. Every amount is worked out by hand from
config/progressive/fortune-progressive.toml: a $1 wager puts 15 cents on the jackpot and 0.2
cents on its reserve (carried in 1/10,000 cents); base and reset $10,000; the natural 7-card
straight flush wins the whole meter; a meter hit of $500 or more is held for the pit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from table_controller.game.progressive import (
    LevelParams,
    PaymentError,
    PoolClosedError,
    PoolOpenError,
    TwoPersonRuleError,
)
from table_controller.game.progressive_paytable import load_progressive_paytable
from table_controller.record.check import check_record
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import ProgressiveSettings, TableSettings
from table_controller.storage import list_events, make_engine, sqlite_url
from table_controller.storage.engine import sqlite_path
from table_controller.storage.progressive import pool_chain
from table_controller.storage.session import read_snapshot, unit_of_work
from table_controller.table.progressive_link import LinkDownError, LinkedPoolKeeper, NotLinkableError
from table_controller.table.service import TableRefused, TableService

from .round.tables import deal

pytestmark = pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)

POOL = "floor-1"
BASE = 1_000_000  # $10,000: the jackpot's base and reset
TOP_HANDS = {
    1: "2c 3d 5h 7c 9d Jh Kc",  # the dealer: king high
    3: "8s 9s Ts Js Qs Ks As",  # the natural 7-card straight flush: the whole meter
    4: "2d 3h 5d 6c 8c Td Qh",  # nothing
}
WAGERS_T1 = {3: Wager(main=1000, progressive=100), 4: Wager(main=1000, progressive=100)}
WAGERS_T2 = {3: Wager(main=1000, progressive=100)}
NOTHING = {1: "2c 3d 5h 7c 9d Jh Kc", 3: "2d 3h 5d 6c 8c Td Qh"}  # no line of the pay table


def linked_settings(table_id: str, link_url: str, *, window: float = 0.01, paytable: str | None = None):
    progressive = {"enabled": True, "pool_id": POOL, "link_db_url": link_url}
    progressive["simultaneous_window_seconds"] = window
    if paytable is not None:
        progressive["paytable"] = paytable
    return TableSettings(table_id=table_id, progressive=progressive)


def to_settle(service: TableService, hands: dict[int, str]) -> None:
    """Dice, deal and every hand set by the house way: the round is ready to settle."""
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))  # the first pile to position 3
    piles, unused = deal(hands, start=3)
    state = service.record_deal(PilesDealt(piles=piles, unused=unused))
    rules = service.round_rules
    for position in sorted(state.wagers):
        setting = rules.house_way_setting(state.hands[position])
        service.set_player(position, [c.code for c in setting.high], [c.code for c in setting.low], actor="d")
    required = service.round.required.setting
    service.set_dealer([c.code for c in required.high], [c.code for c in required.low], actor="d")


@pytest.fixture
def link_url(engine) -> str:
    """The floor's PostgreSQL (a schema of its own, migrated to head) as a table's link_db_url."""
    return engine.url.render_as_string(hide_password=False)


@pytest.fixture
def stores(tmp_path: Path, sqlite_template: Path):
    """Each table's own store: a SQLite file migrated to head, by table id."""
    made = {}

    def store(table_id: str):
        if table_id not in made:
            folder = tmp_path / table_id
            folder.mkdir()
            url = sqlite_url(folder)
            shutil.copyfile(sqlite_template, sqlite_path(url))
            made[table_id] = make_engine(url)
        return made[table_id]

    yield store
    for engine in made.values():
        engine.dispose()


@pytest.fixture
def started(stores, link_url):
    services = []

    def start(table_id: str, **settings) -> TableService:
        service = TableService(linked_settings(table_id, link_url, **settings), stores(table_id))
        service.resume()
        services.append(service)
        return service

    yield start
    for service in services:
        if isinstance(service.pool, LinkedPoolKeeper):
            service.pool.engine.dispose()


def _pool_events(engine, kinds=None):
    with read_snapshot(engine) as session:
        events = list_events(session, table_id=pool_chain(POOL))
    return [(e.kind, e.payload_data()) for e in events if kinds is None or e.kind in kinds]


def _alerts(service: TableService, kind: str) -> list[dict]:
    """The alerts of ``kind`` the table raised, from its chain."""
    with read_snapshot(service.recorder.engine) as session:
        events = list_events(session, table_id=service.table_id)
    return [
        e.payload_data() for e in events if e.kind == "alert.raised" and e.payload_data()["alert"] == kind
    ]


def _verified(engine) -> None:
    with read_snapshot(engine) as session:
        report = check_record(session)
    assert report.ok, report.describe()


def _shared_paytable(tmp_path: Path) -> str:
    source = ProgressiveSettings(enabled=True).file.read_text()
    assert 'simultaneous = "in-order"' in source
    path = tmp_path / "shared.toml"
    path.write_text(source.replace('simultaneous = "in-order"', 'simultaneous = "shared"'))
    return str(path)


def _two_top_hits(started, **settings):
    """t1 (two $1 wagers) and t2 (one) deal a natural 7-card straight flush at position 3; t2's
    hit is claimed while t1's waits for hits at other tables: one batch, t1's first."""
    t1, t2 = started("t1", **settings), started("t2", **settings)
    t1.open_round(WAGERS_T1, actor="dealer-ann")
    t2.open_round(WAGERS_T2, actor="dealer-bo")
    to_settle(t1, TOP_HANDS)
    to_settle(t2, TOP_HANDS)
    t2.pool._sleep = lambda _s: None  # t2 resolves at once, with t1's claim
    t1.pool._sleep = lambda _s: t2.settle()  # t2 settles while t1 waits
    t1.settle()
    return t1, t2


def test_two_top_hits_at_two_linked_tables_are_paid_in_order_at_the_current_meter(engine, started):
    t1, t2 = _two_top_hits(started)
    # three wagers: 10,000.00 + 3 x 0.15 = 1,000,045 cents; the reserve 3 x 0.2 = 0.6 cent: 0
    [batch] = [payload for kind, payload in _pool_events(engine, ["progressive.hits"])]
    first, second = batch["hits"]
    assert batch["rule"] == "in-order"
    assert (first["claim"]["table_id"], first["order"], first["amount"]) == ("t1", 1, 1_000_045)
    assert first["meter_after"] == BASE  # reseeded at the moment of the hit, by the house
    assert (second["claim"]["table_id"], second["order"], second["amount"]) == ("t2", 2, BASE)
    assert first["claim"]["sequence"] < second["claim"]["sequence"]  # the claims' order, recorded
    pool = t1.pool.refresh()
    jackpot = pool.meters["jackpot"]
    assert (jackpot.meter, jackpot.locked, jackpot.seeded, jackpot.hits) == (BASE, 2_000_045, 2 * BASE, 2)
    assert [(h.table_id, h.position, h.amount, h.held) for h in pool.pending] == [
        ("t1", 3, 1_000_045, True),
        ("t2", 3, BASE, True),
    ]
    # each table was told of its own held hit
    assert [a["hit_id"] for a in _alerts(t1, "progressive-hit-pending")] == [1]
    assert [a["hit_id"] for a in _alerts(t2, "progressive-hit-pending")] == [2]
    _verified(engine)


def test_two_top_hits_at_two_linked_tables_share_the_meter_the_odd_cent_to_the_first(
    engine, started, tmp_path
):
    _two_top_hits(started, paytable=_shared_paytable(tmp_path))
    [batch] = [payload for kind, payload in _pool_events(engine, ["progressive.hits"])]
    first, second = batch["hits"]
    assert batch["rule"] == "shared"
    # 1,000,045 / 2 = 500,022 and one odd cent, to the earlier claim
    assert [(h["claim"]["table_id"], h["order"], h["amount"]) for h in batch["hits"]] == [
        ("t1", 1, 500_023),
        ("t2", 2, 500_022),
    ]
    assert (first["meter_before"], second["meter_before"]) == (1_000_045, BASE)
    assert (first["seeded"], second["seeded"]) == (BASE, 0)
    _verified(engine)


def _child(mode: str, store_url: str, link_url: str) -> int:
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.progressive_link_child", mode, store_url, link_url],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    return done.returncode


def test_a_sigkill_between_the_claim_and_its_resolution_pays_the_hit_once(engine, stores, link_url, started):
    store = stores("t1")
    assert _child("claimed", str(store.url), link_url) == -signal.SIGKILL
    assert [k for k, _ in _pool_events(engine, ["progressive.claimed", "progressive.hits"])] == [
        "progressive.claimed"
    ]
    again = started("t1")  # the restart finds the round ready to settle, its claim chained
    assert again.round.phase.value == "dealer-set" or not again.round.phase.is_final
    again.settle()
    kinds = [k for k, _ in _pool_events(engine, ["progressive.claimed", "progressive.hits"])]
    assert kinds == ["progressive.claimed", "progressive.hits"]  # claimed once, resolved once
    [hit] = again.pool.refresh().pending
    assert (hit.amount, hit.held) == (1_000_030, True)  # two wagers: 10,000.00 + 2 x 0.15
    _verified(engine)


def test_a_sigkill_inside_the_payment_writes_nothing_and_the_hit_is_paid_once(
    engine, stores, link_url, started
):
    store = stores("t1")
    assert _child("paying", str(store.url), link_url) == -signal.SIGKILL
    assert not _pool_events(engine, ["progressive.payment"])  # the payment's transaction died whole
    again = started("t1")
    [hit] = again.pool.refresh().pending
    assert (hit.hit_id, hit.amount) == (1, 1_000_030)
    again.pay_hit(1, actor="pit-bob", verified_by="surv-carol")
    with pytest.raises(PaymentError, match="not pending"):
        started("t2").pool.pay(1, actor="pit-dan", verified_by="surv-carol")  # at another table too
    [payment] = [p for _, p in _pool_events(engine, ["progressive.payment"])]
    assert (payment["amount"], payment["paid_by"]) == (1_000_030, "pit-bob")
    jackpot = again.pool.refresh().meters["jackpot"]
    assert (jackpot.meter, jackpot.locked, jackpot.paid) == (BASE, 0, 1_000_030)
    _verified(engine)


class Proxy:
    """A TCP relay on the loopback to the floor's PostgreSQL: stopped, the link is down (every
    connection through it cut); started again on the same port, it is back."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._server: socket.socket | None = None
        self._conns: list[socket.socket] = []

    def start(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(16)
        self.port = server.getsockname()[1]
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        assert self._server is not None
        with contextlib.suppress(OSError):  # wakes the accepting thread: no new connection
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        for conn in self._conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            except OSError:
                pass
        self._conns.clear()


@pytest.fixture
def proxy(link_url):
    from sqlalchemy.engine import make_url

    url = make_url(link_url)
    relay = Proxy((url.host or "127.0.0.1", url.port or 5432))
    relay.start()
    yield relay, url.set(port=relay.port).render_as_string(hide_password=False)
    relay.stop()


def test_the_link_down_closes_the_progressive_at_the_table_the_base_game_plays_on_and_it_reopens(
    engine, stores, proxy
):
    relay, through = proxy
    service = TableService(linked_settings("t1", through), stores("t1"))
    service.resume()
    assert service.progressive_closed is None
    service.open_round(WAGERS_T2, actor="dealer-ann")  # a progressive wager accepted, link up

    relay.stop()  # the floor's store unreachable from this table
    to_settle(service, NOTHING)  # the dice: the pool takes nothing, the wager is returned
    assert service.round.wagers[3].progressive == 0
    assert service.settle().result.side is None  # the base game settled, no progressive collected
    assert "link to the progressive pool is down" in service.progressive_closed
    alerts = _alerts(service, "progressive-link-down")
    assert len(alerts) == 1 and "base game plays on" in alerts[0]["detail"]
    with pytest.raises(TableRefused, match=r"progressive is closed \(PRG-35\).*link"):
        service.open_round(WAGERS_T2, actor="dealer-ann")
    assert service.check_progressive_link() is False
    service.open_round({3: Wager(main=1000)}, actor="dealer-ann")  # the base game plays on
    to_settle(service, NOTHING)
    service.settle()
    with read_snapshot(stores("t1")) as session:
        returned = [e.payload_data() for e in list_events(session, table_id="t1") if e.kind == "wager.side"]
    assert [(r["position"], r["progressive"], r["actor"]) for r in returned] == [(3, 0, "system")]

    relay.start()  # the link is back on the same port
    assert service.check_progressive_link() is True
    assert service.progressive_closed is None
    with read_snapshot(stores("t1")) as session:
        assert [e.kind for e in list_events(session, table_id="t1") if e.kind.startswith("progressive.")] == [
            "progressive.link-up"
        ]
    service.open_round(WAGERS_T2, actor="dealer-ann")
    to_settle(service, NOTHING)
    service.settle()
    jackpot = service.pool.refresh().meters["jackpot"]
    assert (jackpot.meter, jackpot.in_meter) == (BASE + 15, 1)  # only the wager after the link came back
    service.pool.engine.dispose()
    _verified(engine)


def test_contributions_from_many_tables_at_once_lose_no_increment(engine, link_url):
    table = load_progressive_paytable(ProgressiveSettings(enabled=True).file)
    tables, rounds = 12, 8
    keepers = []
    for n in range(tables):
        keeper = LinkedPoolKeeper(
            make_engine(link_url), pool_id=POOL, table=table, table_id=f"t{n:02}", paytable_sha256="a" * 64
        )
        keepers.append(keeper)
    barrier = threading.Barrier(tables)
    failures: list[BaseException] = []

    def deal_rounds(keeper: LinkedPoolKeeper) -> None:
        try:
            barrier.wait()
            keeper.load()  # every table starts at once: the pool is created once
            for r in range(rounds):
                keeper.contributions({3: 100, 5: 100}, round_id=f"{keeper.table_id}-r{r}")
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=deal_rounds, args=(k,)) for k in keepers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures
    wagers = tables * rounds * 2  # 192 $1 wagers
    jackpot = keepers[0].refresh().meters["jackpot"]
    # 192 x 15 cents = 2,880 cents; 192 x 0.2 = 38.4 cents: 38 on the reserve, 0.4 cent carried
    assert (jackpot.meter, jackpot.in_meter, jackpot.contributed) == (BASE + 2_880, 192, 2_880)
    assert (jackpot.reserve, jackpot.reserve_carry) == (38, 4_000)
    assert len(_pool_events(engine, ["progressive.contribution"])) == wagers
    assert len(_pool_events(engine, ["progressive.created"])) == 1
    assert len(_pool_events(engine, ["progressive.table-joined"])) == tables
    assert keepers[0].replayed() == keepers[0].refresh()
    # a round that contributed already adds nothing (a table retrying after a failure)
    keepers[0].contributions({3: 100, 5: 100}, round_id="t00-r0")
    assert keepers[0].refresh().meters["jackpot"].in_meter == 192
    for keeper in keepers:
        keeper.engine.dispose()
    _verified(engine)


def test_tables_of_a_pool_share_its_progressive_table_and_each_is_named(engine, started, tmp_path):
    t1 = started("t1")
    t2 = started("t2")
    other = started("t3", paytable=_shared_paytable(tmp_path))  # another table: refused (PRG-46)
    assert "PRG-46" in (other.progressive_closed or "")
    with pytest.raises(TableRefused, match="PRG-35"):
        other.open_round(WAGERS_T2, actor="dealer-cy")
    joined = [p["table_id"] for k, p in _pool_events(engine, ["progressive.table-joined"])]
    assert joined == ["t1", "t2"]
    [refusal] = [p for k, p in _pool_events(engine, ["progressive.refused"])]
    assert (refusal["rule"], refusal["table_id"]) == ("same-progressive-table", "t3")
    assert t1.pool.meters()["tables"] == ["t1", "t2"]
    # a table that has not joined cannot claim a hit on the pool (PRG-33)
    stranger = LinkedPoolKeeper(
        t2.pool.engine,
        pool_id=POOL,
        table=t2.pool.table,
        table_id="t9",
        paytable_sha256=t2.pool.paytable_sha256,
    )
    stranger.refresh()
    with unit_of_work(stranger.engine) as session, pytest.raises(NotLinkableError, match="PRG-33"):
        stranger._member(session)
    _verified(engine)


def test_parameters_change_only_while_the_pool_is_closed_by_two_people_and_refusals_are_chained(
    engine, started
):
    t1, t2 = started("t1"), started("t2")
    jackpot = t1.pool.pool.params["jackpot"]
    faster = LevelParams(**{**_params(jackpot), "increment_bp": 1_600})
    with pytest.raises(PoolOpenError, match="PRG-04"):
        t1.pool.change_parameters(faster, requested_by="pit-ann", approved_by="pit-bob")
    t1.pool.set_status(False, reason="new rate", actor="pit-ann")
    # closed for every table: t2's next progressive wager is refused at the dice and returned
    t2.pool.refresh()
    assert "is closed" in (t2.progressive_closed or "")
    with pytest.raises(TwoPersonRuleError):
        t1.pool.change_parameters(faster, requested_by="pit-ann", approved_by=" PIT-ANN ")
    t1.pool.change_parameters(faster, requested_by="pit-ann", approved_by="pit-bob")
    t1.pool.set_status(True, reason="new rate in force", actor="pit-bob")
    refusals = [p["rule"] for k, p in _pool_events(engine, ["progressive.refused"])]
    assert refusals == ["parameters", "two-person"]
    [change] = [p for k, p in _pool_events(engine, ["progressive.parameters"])]
    assert (change["after"]["increment_bp"], change["requested_by"]) == (1_600, "pit-ann")
    t2.open_round(WAGERS_T2, actor="dealer-bo")
    to_settle(t2, NOTHING)
    t2.settle()
    assert t2.pool.refresh().meters["jackpot"].meter == BASE + 16  # 16% of $1 now
    _verified(engine)


def _params(level: LevelParams) -> dict:
    return {name: getattr(level, name) for name in level.__slots__}


def test_a_closed_pool_returns_the_rounds_progressive_wagers_at_the_dice(engine, started):
    t1 = started("t1")
    t1.open_round(WAGERS_T2, actor="dealer-ann")
    t1.pool.set_status(False, reason="parameters", actor="pit-ann")  # another terminal closed it
    with pytest.raises(PoolClosedError):
        t1.pool.contributions({3: 100}, round_id="probe")
    to_settle(t1, NOTHING)
    assert t1.round.wagers[3].progressive == 0  # returned: the round collects none of it
    assert _alerts(t1, "progressive-contribution-refused")
    assert t1.pool.refresh().meters["jackpot"].in_meter == 0


def test_a_voided_rounds_contributions_stay_on_the_meter_funded_by_the_house(engine, started):
    t1 = started("t1")
    t1.open_round(WAGERS_T1, actor="dealer-ann")
    t1.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))  # two wagers contribute 2 x 15 cents
    t1.void("pit-bob", "the shuffler jammed")
    jackpot = t1.pool.refresh().meters["jackpot"]
    assert (jackpot.meter, jackpot.in_meter) == (BASE + 30, 2)  # a meter never goes down (PRG-29)
    [note] = [p for k, p in _pool_events(engine, ["progressive.round-voided"])]
    # 2 x 15 cents on the meter, 2 x 0.2 cents (0 whole cents) on the reserve
    assert note == {"table_id": "t1", "wagers_returned": {"3": 100, "4": 100}, "house_funded": 30}
    _verified(engine)


def test_the_link_down_at_start_leaves_the_progressive_closed_until_it_answers(engine, stores, proxy):
    relay, through = proxy
    relay.stop()
    service = TableService(linked_settings("t1", through), stores("t1"))
    service.resume()  # the base game starts all the same
    assert "link to the progressive pool is down" in (service.progressive_closed or "")
    with pytest.raises(LinkDownError):
        service.pool.refresh()
    relay.start()
    assert service.check_progressive_link() is True
    assert service.progressive_closed is None
    service.pool.engine.dispose()


def test_audit_verify_names_a_forged_linked_meter(engine, started):
    t1 = started("t1")
    t1.open_round(WAGERS_T2, actor="dealer-ann")
    to_settle(t1, NOTHING)
    t1.settle()
    with unit_of_work(engine) as session:
        session.execute(
            text("UPDATE progressive_pools SET state = replace(state, :a, :b) WHERE pool_id = :p"),
            {"a": f'"meter":{BASE + 15}', "b": f'"meter":{BASE + 99_915}', "p": POOL},
        )
    with read_snapshot(engine) as session:
        report = check_record(session)
    assert not report.ok
    assert f"progressive pool {POOL}" in report.describe()


def test_a_meter_hit_with_the_link_down_refuses_the_settle_until_it_is_back(engine, stores, proxy):
    relay, through = proxy
    service = TableService(linked_settings("t1", through), stores("t1"))
    service.resume()
    service.open_round(WAGERS_T1, actor="dealer-ann")
    to_settle(service, TOP_HANDS)  # two wagers contributed: 1,000,030 cents on the meter
    relay.stop()
    with pytest.raises(TableRefused, match="meter hit cannot be claimed"):
        service.settle()
    assert [a["alert"] for a in _alerts(service, "progressive-hit-unclaimed")] == [
        "progressive-hit-unclaimed"
    ]
    assert not service.round.phase.is_final  # the round waits, nothing settled
    relay.start()
    service.settle()
    [hit] = service.pool.refresh().pending
    assert (hit.table_id, hit.amount) == ("t1", 1_000_030)
    assert len(_pool_events(engine, ["progressive.claimed"])) == 1
    service.pool.engine.dispose()
    _verified(engine)


def test_a_pool_state_that_does_not_agree_with_its_chain_is_refused_nothing_written(engine, started):
    from table_controller.storage.errors import ChainHeadMismatchError

    t1 = started("t1")
    with unit_of_work(engine) as session:
        session.execute(
            text("UPDATE progressive_pools SET last_seq = last_seq + 1 WHERE pool_id = :p"), {"p": POOL}
        )
    before = len(_pool_events(engine))
    with pytest.raises(ChainHeadMismatchError, match="its state is at seq"):
        t1.pool.contributions({3: 100}, round_id="t1-9")
    assert len(_pool_events(engine)) == before


def test_a_pool_that_is_not_made_and_a_state_that_does_not_read_are_refused(engine, link_url):
    from table_controller.game.progressive import ProgressiveError
    from table_controller.game.progressive_state import meters_pool, pool_from_dict
    from table_controller.storage.progressive import PoolChangedError, pool_step

    with pytest.raises(PoolChangedError, match="not made yet"):
        pool_step(
            engine,
            pool_id="nowhere",
            build=lambda locked: None,
            actor="system",
            round_id="t1-1",
            done_kind="x.y",
        )
    for bad in ({}, {"name": "p", "levels": {"jackpot": {"params": {}, "meters": {}}}}):
        with pytest.raises(ProgressiveError, match="does not read"):
            pool_from_dict(bad)
        with pytest.raises(ProgressiveError, match="does not read"):
            meters_pool(bad)
    with pytest.raises(ValueError, match="link_db_url"):
        ProgressiveSettings(enabled=True, link_db_url="sqlite:///floor.db")


def test_the_tables_meter_displays_follow_the_linked_pool_on_the_floors_store(engine, started):
    from table_controller.api.app import create_app

    t1 = started("t1")
    app = create_app(t1.settings, t1, t1.recorder.engine)
    assert app.state.pool_feeds.engine is t1.pool.engine  # not the table's own store
