"""A table on in-process simulators: the production drivers and conductor, the simulated devices.

The shuffler is reached by its ``simshuffler://<name>`` URL and the dice shaker through its
pyusb backend, exactly as configuration reaches real devices (docs/design.md, "Devices as
configuration"); the simulators outlive the drivers, as machines outlive a controller that
restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from drivers.dice_shaker.driver import DiceShakerDriver
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from simulators.device_link import DeviceLinkConfig
from simulators.dice_shaker import DiceShakerSimulator
from simulators.shuffler.simulator import ShufflerSimulator
from table_controller.conductor import (
    Conductor,
    RngDice,
    ShakerAdapter,
    ShufflerAdapter,
    recent_device_events,
)
from table_controller.game.cards import Game
from table_controller.settings import AutoDealerSettings, TableSettings
from table_controller.storage import list_events, read_snapshot
from table_controller.table.autodealer import AutoDealer
from table_controller.table.service import TableService

TABLE = "t1"
# Fast timings, except that a link is lost only after 2 s of silence: a journal commit that
# takes longer than a few heartbeats on a loaded machine (fsync) must not look like a pulled cable.
# The host no longer counts its own commit as silence and keeps sending heartbeats meanwhile
# (link.md 6); the margin stays for a loaded machine, where a thread may wait long for the GIL.
HOST_LINK = LinkConfig(
    heartbeat_interval=0.05,
    loss_after_heartbeats=40,
    ack_timeout=0.25,
    hello_timeout=0.1,
    backoff_initial=0.02,
    backoff_max=0.2,
    poll_interval=0.005,
    stale_frame_after=0.1,
)
DEVICE_LINK = DeviceLinkConfig(ack_timeout=0.25, loss_after_heartbeats=40, stale_frame_after=0.1)


@dataclass
class Devices:
    """The simulated machines of one table (they live across controller restarts)."""

    shuffler: ShufflerSimulator
    shaker: DiceShakerSimulator | None
    backend: Any = None

    def close(self) -> None:
        self.shuffler.stop()
        if self.shaker is not None:
            self.shaker.close()


def devices(
    game: Game = Game.STANDARD,
    *,
    shuffler_faults=(),
    shaker_faults=(),
    seed: int = 7,
    rng_dice: bool = False,
    pile_interval: float = 0.0,
    shake_duration: float = 0.0,
) -> Devices:
    shuffler = ShufflerSimulator(
        seed=seed,
        faults=list(shuffler_faults),
        jokers=game.jokers,
        pile_interval=pile_interval,
        link_config=DEVICE_LINK,
    ).start()
    if rng_dice:
        return Devices(shuffler, None)
    shaker = DiceShakerSimulator(
        seed=seed, faults=list(shaker_faults), link_config=DEVICE_LINK, shake_duration=shake_duration
    )
    return Devices(shuffler, shaker, shaker.usb_backend())


@dataclass
class Table:
    service: TableService
    conductor: Conductor
    stop: asyncio.Event
    engine: Any
    task: asyncio.Task | None = None
    settled: int | None = None


def build(
    engine,
    devs: Devices,
    *,
    game: Game = Game.STANDARD,
    auto: bool = True,
    seed: int = 11,
    step_delay: float = 0.0,
    **settings: Any,
) -> Table:
    """A service and a conductor on ``engine`` for the simulated ``devs`` (not started)."""
    table_settings = TableSettings(
        table_id=TABLE, game=game, auto_dealer=AutoDealerSettings(enabled=auto, seed=seed), **settings
    )
    service = TableService(table_settings, engine)
    stop = asyncio.Event()
    known = recent_device_events(engine, TABLE)
    shuffler = ShufflerAdapter(
        service,
        lambda journal: ShufflerDriver.from_url(
            devs.shuffler.url, url_packages=("simulators.shuffler",), link_config=HOST_LINK, journal=journal
        ),
        stop=stop,
        known=known,
        deck_size=game.deck_size,
        retry_interval=0.05,
        answer_timeout=5.0,
    )
    if devs.shaker is None:
        dice = RngDice()
    else:
        dice = ShakerAdapter(
            service,
            lambda journal: DiceShakerDriver.over_usb(
                backend=devs.backend, link_config=HOST_LINK, journal=journal
            ),
            stop=stop,
            known=known,
            roll_timeout=5.0,
            retry_interval=0.05,
        )
    auto_dealer = AutoDealer(table_settings.auto_dealer, game, table_settings.limits) if auto else None
    conductor = Conductor(service, shuffler, dice, stop=stop, auto_dealer=auto_dealer, step_delay=step_delay)
    return Table(service, conductor, stop, engine)


async def play(table: Table, rounds: int, timeout: float = 20.0) -> int:
    """Run the conductor until ``rounds`` rounds are settled."""
    return await asyncio.wait_for(table.conductor.run(rounds), timeout)


@contextlib.asynccontextmanager
async def running(table: Table, rounds: int | None = None) -> AsyncIterator[Table]:
    """The conductor running in a task; stopped (and awaited) when the block ends."""
    table.task = asyncio.create_task(table.conductor.run(rounds), name="conductor")
    try:
        yield table
    finally:
        table.stop.set()
        table.settled = await asyncio.wait_for(table.task, 10)


async def until(condition, timeout: float = 10.0, interval: float = 0.01) -> None:
    """Wait until ``condition()`` is true (AssertionError after ``timeout``)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(interval)


def events(engine, kind: str | None = None, round_id: str | None = None) -> list[tuple[str, dict]]:
    """(kind, payload) of the table's stored events, in chain order."""
    with read_snapshot(engine) as session:
        stored = list_events(session, table_id=TABLE, round_id=round_id)
    found = [(e.kind, json.loads(e.payload)) for e in stored]
    return [(k, p) for k, p in found if kind is None or k == kind or k.startswith(kind + ".")]


def round_row(engine, round_id: str):
    from table_controller.storage import get_round

    with read_snapshot(engine) as session:
        return get_round(session, round_id=round_id)


def positions(engine, round_id: str) -> dict[int, Any]:
    from table_controller.storage import get_positions

    with read_snapshot(engine) as session:
        return {row.position: row for row in get_positions(session, round_id=round_id)}


def alerts(engine, round_id: str | None = None) -> list[dict]:
    return [payload for _, payload in events(engine, "alert.raised", round_id)]


def replayed(engine, round_id: str):
    """The round's state rebuilt from its stored events (what an auditor replays)."""
    from table_controller.round.events import ROUND_EVENT_KINDS, event_from_payload
    from table_controller.round.machine import replay
    from table_controller.table.service import rules_for

    stored = [event_from_payload(p) for k, p in events(engine, round_id=round_id) if k in ROUND_EVENT_KINDS]
    return replay(stored, rules_for)


async def crash(table: Table) -> None:
    """Stop the conductor where it stands (the task is cancelled; nothing is finished for it).

    Cancelled again until it is done: Python 3.11's ``asyncio.wait_for`` swallows a cancel that
    arrives just as the awaited future completes (fixed in 3.12).
    """
    task = table.task
    assert task is not None
    deadline = asyncio.get_running_loop().time() + 10
    while not task.done():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the conductor did not stop")
        task.cancel()
        await asyncio.wait({task}, timeout=0.05)
    if not task.cancelled() and task.exception() is not None:
        raise task.exception()


def phase_of(table: Table) -> str | None:
    state = table.service.round
    return state.phase.value if state is not None else None
