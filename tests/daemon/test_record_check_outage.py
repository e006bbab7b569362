"""The store going away during the record check, under a playing table (docs/round-lifecycle.md,
"When things go wrong"): at the start's check and at the check while playing, the table waits
for the store, shows why, and deals again by itself once the store answers: no record-broken
finding, no pit action, no restart. PostgreSQL goes away through the cuttable TCP proxy (its
connections cut, new ones refused); SQLite's store fails every statement as a locked or
vanished file does (in WAL mode another process's lock never stops a reader, so the failure is
injected where the driver reports it)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy.engine import make_url

from table_controller.storage import make_engine, sqlite_url, upgrade_to_head
from table_controller.table.stops import StopKind, why_not_dealing

from ..db_fixtures import _admin
from ..test_record_check_outage import StoreSwitch
from .rig import alerts, build, devices, running, until
from .test_store_outage import CuttableProxy, _settled_once


@contextmanager
def _store(backend: str, tmp_path, postgres_url_of: Callable[[], str]) -> Iterator[tuple]:
    """An engine, and (cut, restore) that take its database away and bring it back."""
    if backend == "sqlite":
        engine = make_engine(sqlite_url(tmp_path), busy_timeout_ms=100)
        switch = StoreSwitch(engine)
        try:
            upgrade_to_head(engine)
            yield engine, lambda: setattr(switch, "down", True), lambda: setattr(switch, "down", False)
        finally:
            switch.close()
            engine.dispose()
        return
    postgres_url = postgres_url_of()
    schema = f"test_{uuid.uuid4().hex[:16]}"
    _admin(postgres_url, f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url)
    proxy = CuttableProxy((url.host or "127.0.0.1", url.port or 5432))
    proxied = url.set(host="127.0.0.1", port=proxy.port).update_query_dict(
        {"options": f"-csearch_path={schema}"}
    )
    engine = make_engine(proxied.render_as_string(hide_password=False))
    try:
        upgrade_to_head(engine)
        yield engine, proxy.cut, proxy.restore
    finally:
        engine.dispose()
        proxy.close()
        _admin(postgres_url, f'DROP SCHEMA "{schema}" CASCADE')


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("when", ["start", "while-playing"])
async def test_the_store_going_away_during_the_record_check_stops_play_until_it_answers_then_it_deals(
    backend, when, tmp_path, request
):
    with _store(backend, tmp_path, lambda: request.getfixturevalue("postgres_url")) as (engine, cut, restore):
        devs = devices()
        try:
            audit = {"check_every_rounds": 2} if when == "while-playing" else {}
            table = build(engine, devs, audit=audit)
            service = table.service
            real, checks = service.record.check, []

            def check(*, full: bool):
                checks.append(full)
                first = (when == "start" and len(checks) == 1) or (
                    when == "while-playing" and len(checks) == 2
                )
                if first:
                    cut()  # the database stops as the check begins (once)
                return real(full=full)

            service.record.check = check  # type: ignore[method-assign]
            async with running(table):
                await until(lambda: service.outage is not None, timeout=15)
                settled = table.conductor.settled
                await asyncio.sleep(0.5)
                assert service.record_broken is None  # an outage, not a finding
                assert [s.kind for s in why_not_dealing(service)] == [
                    StopKind.STORE_OUTAGE,
                    StopKind.RECORD_CHECK_PENDING,
                ]
                assert table.conductor.settled <= settled + 1  # play stopped (a step in flight may land)
                restore()
                await until(lambda: table.conductor.settled >= settled + 2, timeout=20)
                assert service.record_broken is None and service.record_check_pending is None
            assert checks.count(when == "start") >= 2  # the interrupted check ran again
            found = [a["alert"] for a in alerts(engine)]
            assert "record-broken" not in found and "store-unavailable" in found
            _settled_once(engine)
        finally:
            devs.close()
