"""``table-controller round void`` from the console, in a process of its own, while the daemon
plays (docs/round-lifecycle.md, "When things go wrong"): the daemon notices within its look
every second and the round ends void, as a void through the API leaves it; a held round is
freed, the pit's void is refused as any void of a void round (never "round is held"), no alert is
repeated, and play goes on without a restart."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from table_controller.round.events import Wager
from table_controller.round.machine import TransitionRefused
from table_controller.storage import add_user, unit_of_work
from table_controller.table.stops import why_not_dealing

from .processes import REPO
from .rig import alerts, build, devices, phase_of, round_row, running, until


async def _console_void(engine, reason: str, token: str) -> tuple[int, str]:
    """``table-controller round void`` as its own process (the event loop, and so the daemon's
    conductor, goes on meanwhile), acting as bob with bob's token (the console proves the
    person, docs/audit-chain.md): its exit status and standard error."""
    url = engine.url.render_as_string(hide_password=False)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *["-m", "table_controller", "round", "void", "--reason", reason, "--as", "bob", "--db-url", url],
        cwd=REPO,
        env={**os.environ, "TABLE_TABLE_ID": "t1", "TABLE_API_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, stderr.decode()


def _pit_user(engine) -> str:
    """bob, a pit user: his API token."""
    with unit_of_work(engine) as session:
        return add_user(session, name="bob", role="pit")


async def test_a_console_void_of_a_held_round_frees_it_and_the_auto_dealer_plays_on(engine, monkeypatch):
    token = _pit_user(engine)
    devs = devices()
    try:
        table = build(engine, devs)
        service = table.service

        def broken(*args, **kwargs):
            raise RuntimeError("the auto-dealer lost its way")

        monkeypatch.setattr(table.conductor.auto_dealer, "player_setting", broken)
        async with running(table):
            await until(lambda: service.held is not None)
            round_id = service.round.round_id
            monkeypatch.undo()
            code, stderr = await _console_void(engine, "held round, voided from the console", token)
            assert code == 0, stderr
            await until(lambda: table.conductor.voided == 1, timeout=10)  # noticed without a restart
            assert service.held is None or service.round.round_id != round_id
            await until(lambda: table.conductor.settled >= 1, timeout=15)
        row = round_row(engine, round_id)
        assert (row.phase, row.void_reason) == ("void", "held round, voided from the console")
        found = [a["alert"] for a in alerts(engine)]
        assert found.count("round.held") == 1 and found.count("void") == 1
    finally:
        devs.close()


async def test_a_console_void_of_a_round_waiting_for_the_dealer_ends_it_here(engine):
    token = _pit_user(engine)
    devs = devices()
    try:
        table = build(engine, devs, auto=False)  # dealt by the devices, set by a person
        service = table.service
        async with running(table):
            service.open_round({3: Wager(main=2500)}, "dealer-ann")
            await until(lambda: phase_of(table) == "players-setting", timeout=15)
            code, stderr = await _console_void(engine, "voided from the console", token)
            assert code == 0, stderr
            await until(lambda: phase_of(table) == "void", timeout=5)  # its look every second
            assert why_not_dealing(service) == ()
            with pytest.raises(TransitionRefused, match="not allowed in this phase"):  # the pit's, late
                service.void("pit-cy", "the pit's void through the API")  # never "round is held"
            opened = service.open_round({3: Wager(main=2500)}, "dealer-ann")
            assert opened.round_id == "t1-2"
            await until(lambda: phase_of(table) == "players-setting", timeout=15)  # dealt: play goes on
        assert [a["alert"] for a in alerts(engine)] == ["void"]
    finally:
        devs.close()
