"""The daemon holds instead of dying or looping (docs/round-lifecycle.md, "When things go wrong"):
a deck that keeps misdealing holds the table for a DECK_CHECK and the pit; a step that fails
holds its round until the pit voids it; a slow commit never stalls the event loop."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from table_controller.api import create_app
from table_controller.table.service import TableRefused

from ..api.conftest import add_people
from .rig import alerts, build, devices, events, running, until


async def test_a_deck_that_keeps_misdealing_holds_the_table_for_a_deck_check_and_the_pit(engine):
    devs = devices(shuffler_faults=["duplicated-card"])  # a Kd where the 2c should be, every deal
    try:
        table = build(engine, devs, misdeal_hold_after=2)
        service = table.service
        async with running(table):
            await until(lambda: service.hold is not None and service.hold.deck_check is not None)
            await asyncio.sleep(0.3)  # no third round opens meanwhile
            assert table.conductor.voided == 2 and len(events(engine, "round.opened")) == 2
            check = service.hold.deck_check
            assert (check.complete, check.missing, check.duplicated) == (False, ("2c",), (("Kd", 2),))
            assert [a["alert"] for a in alerts(engine)].count("table-held") == 1
            with pytest.raises(TableRefused, match=r"not clean.*missing 2c; duplicated Kd x2"):
                service.clear_hold("pit-bob")
            devs.shuffler.load_deck()  # the pit has the deck replaced
            service.request_deck_check("pit-bob")
            await until(lambda: service.hold.deck_check is not None and service.hold.deck_check.complete)
            service.clear_hold("pit-bob")
            await until(lambda: table.conductor.settled >= 1, timeout=15)
        [held] = [p for _, p in events(engine, "deck.checked")][:1]
        assert held["missing"] == ["2c"]
    finally:
        devs.close()


async def test_a_step_that_fails_holds_the_round_and_the_daemon_goes_on(engine, monkeypatch):
    devs = devices()
    try:
        table = build(engine, devs)
        service = table.service

        def broken(*args, **kwargs):
            raise RuntimeError("the auto-dealer lost its way")

        monkeypatch.setattr(table.conductor.auto_dealer, "player_setting", broken)
        async with running(table):
            await until(lambda: service.held is not None)
            assert (
                "players-setting: the auto-dealer lost its way" in service.held
                and "Error" not in service.held
            )
            assert not table.task.done()
            monkeypatch.undo()
            service.void("pit-bob", "held round: auto-dealer failure")
            await until(lambda: table.conductor.settled >= 1, timeout=15)
        assert [a["alert"] for a in alerts(engine, "t1-1")].count("round.held") == 1
    finally:
        devs.close()


async def test_a_two_second_commit_does_not_stall_the_api(engine, monkeypatch):
    devs = devices()
    try:
        table = build(engine, devs, auto=True)
        service = table.service
        real = service.recorder.record
        slow: list[float] = []

        def record(*args, **kwargs):
            if not slow:
                slow.append(time.monotonic())
                time.sleep(2.0)  # a database that takes two seconds to commit
                slow.append(time.monotonic())
            return real(*args, **kwargs)

        monkeypatch.setattr(service.recorder, "record", record)
        tokens = add_people(engine)
        app = create_app(service.settings, service, engine, poll_interval=0.02)
        transport = httpx.ASGITransport(app=app)
        async with running(table), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            await until(lambda: bool(slow))
            answered: list[float] = []  # when each answer came
            while time.monotonic() - slow[0] < 1.8:
                response = await client.get(
                    "/api/table", headers={"Authorization": f"Bearer {tokens['pit']}"}
                )
                assert response.status_code == 200
                answered.append(time.monotonic())
                await asyncio.sleep(0.05)
            await until(lambda: len(slow) == 2)
        # before: the commit ran on the event loop, so nothing was answered until it ended; the
        # answers are counted by whether they came before it ended, not timed (a busy machine
        # took a second over the first one without the API being stalled)
        assert sum(1 for at in answered if at < slow[1]) >= 3
    finally:
        devs.close()
