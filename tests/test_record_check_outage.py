"""A database outage during the record check is an outage, never a finding
(docs/round-lifecycle.md, "When things go wrong"): the check at start, the check while playing
and the one an opening is due are each retried when the store answers, opening a round while it
is away is the typed 503, and the table says why it does not deal (``table/stops.py``). On
SQLite and PostgreSQL: the store goes away as the check begins, every statement then failing as
the driver reports a server that stopped (SQLAlchemy's OperationalError), until it is back."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from table_controller.round.events import Wager
from table_controller.settings import AuditSettings, TableSettings
from table_controller.storage import list_events, verify_chain
from table_controller.storage.session import read_snapshot
from table_controller.table.service import StoreOutage, TableRefused, TableService
from table_controller.table.stops import ClearedBy, StopKind, why_not_dealing

from .api.conftest import make_api

WAGERS = {3: Wager(main=2500)}


class StoreSwitch:
    """The store going away and coming back: while ``down`` every statement on the engine fails
    as it does when the server stops. ``on_check`` takes it down as the record check begins."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.down = False
        event.listen(engine, "before_cursor_execute", self._statement)

    def _statement(self, conn, cursor, statement, parameters, context, executemany) -> None:
        if self.down:
            raise OperationalError(statement, parameters, ConnectionRefusedError("the database is down"))

    def on_check(self, service: TableService, monkeypatch: pytest.MonkeyPatch) -> None:
        real = service.record.check

        def check(*, full: bool):
            self.down = True
            return real(full=full)

        monkeypatch.setattr(service.record, "check", check)

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)


@pytest.fixture
def switch(engine):
    found = StoreSwitch(engine)
    yield found
    found.close()


def settings(**audit) -> TableSettings:
    return TableSettings(table_id="t1", audit=AuditSettings(**audit))


def alerts(engine) -> list[str]:
    with read_snapshot(engine) as session:
        return [
            json.loads(e.payload)["alert"]
            for e in list_events(session, table_id="t1")
            if e.kind == "alert.raised"
        ]


def kinds(service: TableService) -> list[StopKind]:
    return [stop.kind for stop in why_not_dealing(service)]


def test_an_outage_during_the_start_check_is_an_outage_and_the_check_runs_when_the_store_is_back(
    engine, switch, monkeypatch
):
    service = TableService(settings(), engine)
    with monkeypatch.context() as patch:
        switch.on_check(service, patch)
        with pytest.raises(StoreOutage):
            service.resume()  # the start cannot finish while the store is away: the conductor waits
    assert service.record_broken is None  # not a finding
    assert service.outage is not None and service.record_check_pending is not None
    assert kinds(service) == [StopKind.STORE_OUTAGE, StopKind.RECORD_CHECK_PENDING]
    assert {stop.cleared_by for stop in why_not_dealing(service)} == {ClearedBy.AUTOMATIC}
    with pytest.raises(StoreOutage, match="the store is unavailable"):  # the API's 503
        service.open_round(WAGERS, actor="dealer-ann")
    assert service.retry_store() is False  # still away: still owed
    switch.down = False
    assert service.retry_store() is True
    assert (service.outage, service.record_check_pending, service.record_broken) == (None, None, None)
    assert service.resume() is None
    assert kinds(service) == []
    assert service.open_round(WAGERS, actor="dealer-ann").round_id == "t1-1"
    found = alerts(engine)
    assert "record-broken" not in found and "store-unavailable" in found
    with read_snapshot(engine) as session:
        assert verify_chain(session).ok


def test_an_outage_during_the_check_an_opening_is_due_answers_503_and_the_next_opening_deals(
    engine, switch, monkeypatch
):
    service = TableService(settings(check_every_rounds=2), engine)
    service.resume()
    service.open_round(WAGERS, actor="dealer-ann")
    service.void("pit-bob", "a round before the check")
    with monkeypatch.context() as patch:
        switch.on_check(service, patch)
        with pytest.raises(StoreOutage):  # was TableRefused "the record is broken" (a 409)
            service.open_round(WAGERS, actor="dealer-ann")
    assert service.record_broken is None and service.record_check_pending == "the check while playing"
    assert kinds(service) == [StopKind.STORE_OUTAGE, StopKind.RECORD_CHECK_PENDING]
    switch.down = False
    assert service.retry_store() is True and service.record_check_pending is None
    assert service.open_round(WAGERS, actor="dealer-ann").round_id == "t1-2"
    assert "record-broken" not in alerts(engine)


def test_a_record_that_cannot_be_read_for_another_reason_is_still_a_finding(engine, monkeypatch):
    """Only the store going away is an outage: a record the check cannot make sense of stops play."""
    service = TableService(settings(), engine)

    def unreadable(*, full: bool):
        raise ValueError("a payload that is not JSON")

    monkeypatch.setattr(service.record, "check", unreadable)
    service.resume()
    assert service.outage is None and service.record_broken is not None
    assert kinds(service) == [StopKind.RECORD_BROKEN]
    [stop] = why_not_dealing(service)
    assert stop.cleared_by is ClearedBy.PIT and "override" in stop.clears
    with pytest.raises(TableRefused, match="the record is broken"):
        service.open_round(WAGERS, actor="dealer-ann")


def test_the_table_says_why_it_does_not_deal_through_the_api(engine, switch, monkeypatch):
    for api in make_api(engine, settings(check_every_rounds=1)):
        service = api.service
        service.resume()
        assert api.get("/api/table").json()["not_dealing"] == []
        with monkeypatch.context() as patch:
            switch.on_check(service, patch)
            opened = api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}})
            assert opened.status_code == 503, opened.text  # was 409 "the record is broken"
            assert opened.json()["error"] == "store-unavailable"
            shown = api.get("/api/table")  # the token remembered, the alerts as last read
            assert shown.status_code == 200, shown.text
            stops = shown.json()["not_dealing"]
            assert [s["kind"] for s in stops] == ["store-outage", "record-check-pending"]
            assert all(s["cleared_by"] == "automatic" for s in stops)
        switch.down = False
        assert service.retry_store() is True
        assert api.get("/api/table").json()["not_dealing"] == []
        assert api.post("/api/round", "dealer", json={"wagers": {"3": {"main": 2500}}}).status_code == 201
        api.post("/api/table/close")
        [closed] = api.get("/api/table").json()["not_dealing"]
        assert (closed["kind"], closed["cleared_by"]) == ("closed", "pit")
