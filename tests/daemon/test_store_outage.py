"""The daemon rides through a store outage (docs/round-lifecycle.md, "When things go wrong"):
PostgreSQL going away under a playing table (its connections cut, new ones refused, as
``pg_ctl stop -m immediate`` does) and SQLite locked by another process. Play stops, the
table's alerts are kept until the store is back and written then, play resumes without a
restart, nothing is lost or settled twice, and the chain stays whole."""

from __future__ import annotations

import asyncio
import selectors
import socket
import sqlite3
import threading
import uuid
from collections import Counter

from sqlalchemy.engine import make_url

from table_controller.storage import (
    get_round,
    list_events,
    make_engine,
    sqlite_url,
    upgrade_to_head,
    verify_chain,
)
from table_controller.storage.session import read_snapshot

from ..db_fixtures import _admin
from .rig import alerts, build, devices, running, until


class CuttableProxy:
    """A TCP proxy to the database that can be cut (every connection closed, new ones refused)
    and restored on the same port: the database as the table sees it when its server stops."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._pairs: dict[socket.socket, socket.socket] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listen()
        self._thread = threading.Thread(target=self._run, name="db-proxy", daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        listener.setblocking(False)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            pairs, self._pairs = self._pairs, {}
        if listener is not None:
            listener.close()
        for sock in pairs:
            sock.close()

    def restore(self) -> None:
        self._listen()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.cut()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                listener = self._listener
                socks = list(self._pairs)
            readable = [s for s in [listener, *socks] if s is not None]
            try:
                with selectors.DefaultSelector() as selector:
                    for sock in readable:
                        selector.register(sock, selectors.EVENT_READ)
                    ready = selector.select(0.02) if readable else []
            except (OSError, ValueError):  # a socket closed by cut() meanwhile
                continue
            for key, _ in ready:
                sock = key.fileobj
                try:
                    if sock is listener:
                        client, _ = listener.accept()
                        server = socket.create_connection(self.target)
                        with self._lock:
                            self._pairs[client] = server
                            self._pairs[server] = client
                        continue
                    data = sock.recv(65536)
                    with self._lock:
                        other = self._pairs.get(sock)
                    if not data or other is None:
                        self._drop(sock)
                    else:
                        other.sendall(data)
                except OSError:
                    self._drop(sock)

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            other = self._pairs.pop(sock, None)
            if other is not None:
                self._pairs.pop(other, None)
        for s in (sock, other):
            if s is not None:
                s.close()


def _settled_once(engine) -> None:
    with read_snapshot(engine) as session:
        settled = Counter(
            e.round_id for e in list_events(session, table_id="t1") if e.kind == "round.settled"
        )
        assert settled and max(settled.values()) == 1
        closed = {
            r.round_id for r in [get_round(session, round_id=i) for i in settled] if r.phase == "closed"
        }
        assert closed == set(settled)
        assert verify_chain(session).ok


async def test_the_daemon_rides_through_postgres_going_away_and_coming_back(postgres_url):
    schema = f"test_{uuid.uuid4().hex[:16]}"
    _admin(postgres_url, f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url)
    proxy = CuttableProxy((url.host or "127.0.0.1", url.port or 5432))
    proxied = url.set(host="127.0.0.1", port=proxy.port).update_query_dict(
        {"options": f"-csearch_path={schema}"}
    )
    engine = make_engine(proxied.render_as_string(hide_password=False))
    devs = devices()
    try:
        upgrade_to_head(engine)
        table = build(engine, devs)
        service = table.service
        async with running(table):
            await until(lambda: table.conductor.settled >= 1, timeout=15)
            proxy.cut()
            await until(lambda: service.outage is not None, timeout=15)
            settled_in_outage = table.conductor.settled
            await asyncio.sleep(1.0)
            assert (
                table.conductor.settled <= settled_in_outage + 1
            )  # play stopped (a commit in flight may land)
            proxy.restore()
            await until(lambda: service.outage is None, timeout=15)
            await until(lambda: table.conductor.settled >= settled_in_outage + 2, timeout=20)
        outage_alerts = [a for a in alerts(engine) if a["alert"] == "store-unavailable"]
        assert len(outage_alerts) >= 1 and "did not answer" in outage_alerts[0]["detail"]
        _settled_once(engine)
    finally:
        devs.close()
        engine.dispose()
        proxy.close()
        _admin(postgres_url, f'DROP SCHEMA "{schema}" CASCADE')


async def test_the_daemon_rides_through_sqlite_locked_by_another_process(tmp_path):
    engine = make_engine(sqlite_url(tmp_path), busy_timeout_ms=100)
    devs = devices()
    try:
        upgrade_to_head(engine)
        table = build(engine, devs)
        service = table.service
        async with running(table):
            await until(lambda: table.conductor.settled >= 1, timeout=15)
            other = sqlite3.connect(tmp_path / "table.sqlite3", isolation_level=None)
            try:
                other.execute("BEGIN EXCLUSIVE")  # another process holds the file
                await until(lambda: service.outage is not None, timeout=15)
                assert "locked" in service.outage.error
                await asyncio.sleep(0.5)
            finally:
                other.execute("COMMIT")
                other.close()
            await until(lambda: service.outage is None, timeout=15)
            settled = table.conductor.settled
            await until(lambda: table.conductor.settled >= settled + 2, timeout=20)
        assert any(a["alert"] == "store-unavailable" for a in alerts(engine))
        _settled_once(engine)
    finally:
        devs.close()
        engine.dispose()
