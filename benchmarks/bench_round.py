"""One round's processing against the bare durable commit of the same rows, in the same run.

    .venv/bin/python -m benchmarks.bench_round [--rounds 60] [--db-url URL] [--game standard]

Rounds are played end to end by the production conductor with in-process simulators (the
shuffler behind ``simshuffler://``, the dice shaker behind its pyusb backend) and the
auto-dealer, six positions wagering every round. For each settled round it times:

- **processing**: the round's steps after the cards are in, as ``TableService`` runs them:
  verify the deal (one complete deck) and find the banker's house way (``record_deal``), six
  player settings, the dealer's setting checked against the house way, settle six positions,
  each step with its durable commit (one transaction per step: 9 commits);
- **bare commit**: the same 9 transactions writing the same rows (the same audit events with
  the same payloads, the same projection updates of ``rounds`` and ``round_positions``) with
  every value already known: no game logic, no validation of the round.

Both run in the same process on the same store (SQLite in a temporary folder, WAL,
``synchronous=FULL``; or ``--db-url``), interleaved round by round. It prints the medians and
the ratio; the goal (docs/round-lifecycle.md) is at most 2x the bare commit.

It also counts CPU, not wall time (the calling thread's, ``time.thread_time``: what the figures
mean on a machine other work shares): the same processing and bare commit per round, and the
part of the processing that is the round machine and the record's projection alone (the round's
events applied again and projected, no store), the part "one pass down" changed
(docs/round-lifecycle.md, Speed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import structlog
from sqlalchemy.engine import make_url

from drivers.dice_shaker.driver import DiceShakerDriver
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from simulators.device_link import DeviceLinkConfig
from simulators.dice_shaker import DiceShakerSimulator
from simulators.shuffler.simulator import ShufflerSimulator
from table_controller.conductor import Conductor, ShakerAdapter, ShufflerAdapter
from table_controller.game.cards import Game
from table_controller.record.recorder import step_projection
from table_controller.round.events import (
    ROUND_EVENT_KINDS,
    RoundOpened,
    RoundSettled,
    Wager,
    event_from_payload,
)
from table_controller.round.machine import apply, open_round
from table_controller.settings import AutoDealerSettings, TableSettings
from table_controller.storage import (
    RoundCreate,
    RoundPositionCreate,
    RoundPositionUpdate,
    RoundUpdate,
    add_position,
    append_event,
    create_round,
    get_positions,
    get_round,
    list_events,
    make_engine,
    open_store,
    read_snapshot,
    sqlite_url,
    unit_of_work,
    update_position,
    update_round,
)
from table_controller.table.autodealer import AutoDealer
from table_controller.table.service import TableService

GOAL_RATIO = 2.0
TABLE = "bench"
BARE_TABLE = "bench-bare"
STEPS = ("piles.dealt", "player.set", "dealer.set", "dealer.override", "round.settled")
TIMED = ("record_deal", "set_player", "set_dealer", "settle")


class TimedService(TableService):
    """TableService with a stopwatch on the steps that process a dealt round."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spent: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def _timed(self, name: str, call, *args: Any, **kwargs: Any):
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            round_id = self.round.round_id if self.round is not None else ""
            self.spent[round_id] = self.spent.get(round_id, 0.0) + time.perf_counter() - start
            self.cpu[round_id] = self.cpu.get(round_id, 0.0) + time.thread_time() - cpu

    def record_deal(self, event):
        return self._timed("record_deal", super().record_deal, event)

    def set_player(self, *args, **kwargs):
        return self._timed("set_player", super().set_player, *args, **kwargs)

    def set_dealer(self, *args, **kwargs):
        return self._timed("set_dealer", super().set_dealer, *args, **kwargs)

    def settle(self):
        return self._timed("settle", super().settle)


class SixPositions(AutoDealer):
    """The auto-dealer with every player position wagering: six positions to settle."""

    def wagers(self, round_number: int) -> dict[int, Wager]:
        return {position: Wager(main=self.limits.min_main * (1 + position % 3)) for position in range(2, 8)}


# -- the bare commit of the same rows ---------------------------------------------------------------


ROUND_FIELDS = (
    "phase",
    "house_way_rule_id",
    "override",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
    "closed_at",
)
DEAL_FIELDS = ("cards", "seven_card_category", "house_way_rule_id")
SETTING_FIELDS = ("high", "low", "high_category", "low_category")
SETTLE_FIELDS = ("outcome", "fouled", "win_cents", "commission_cents", "bonus_paid_cents", "net_cents")


def round_rows(engine, round_id: str) -> tuple[list[Any], Any, list[Any]]:
    """The round's step events (in order), its final row and its positions, as stored."""
    with read_snapshot(engine) as session:
        stored = [e for e in list_events(session, table_id=TABLE, round_id=round_id) if e.kind in STEPS]
        return stored, get_round(session, round_id=round_id), get_positions(session, round_id=round_id)


def bare_commit(engine, round_id: str, number: int) -> tuple[float, float]:
    """Write the same rows as the round's 9 steps, values known in advance; return the seconds
    and the CPU seconds (this thread's) it took."""
    stored, final, seats = round_rows(engine, round_id)
    by_position = {seat.position: seat for seat in seats}
    with unit_of_work(engine) as session:  # the round's opening is not part of either figure
        row = create_round(
            session,
            data=RoundCreate(
                table_id=BARE_TABLE,
                game=Game(final.game),
                dealer=final.dealer,
                phase="dealing",
                opened_at=final.opened_at,
            ),
        )
        for seat in seats:
            add_position(
                session,
                round_id=row.round_id,
                data=RoundPositionCreate(position=seat.position, wager_cents=seat.wager_cents),
            )
    bare_id = row.round_id
    phases = _phases(stored)
    start, cpu = time.perf_counter(), time.thread_time()
    for event, phase in zip(stored, phases, strict=True):
        with unit_of_work(engine) as session:
            append_event(
                session,
                table_id=BARE_TABLE,
                round_id=bare_id,
                kind=event.kind,
                actor=event.actor,
                payload=json.loads(event.payload),
            )
            changes: dict[str, Any] = {"phase": phase}
            if event.kind == "piles.dealt":
                changes["house_way_rule_id"] = final.house_way_rule_id
                for seat in seats:
                    update_position(
                        session,
                        round_id=bare_id,
                        position=seat.position,
                        changes=RoundPositionUpdate(**pick(seat, DEAL_FIELDS)),
                    )
            elif event.kind == "player.set":
                position = json.loads(event.payload)["position"]
                update_position(
                    session,
                    round_id=bare_id,
                    position=position,
                    changes=RoundPositionUpdate(**pick(by_position[position], SETTING_FIELDS)),
                )
            elif event.kind in ("dealer.set", "dealer.override"):
                update_position(
                    session,
                    round_id=bare_id,
                    position=1,
                    changes=RoundPositionUpdate(
                        **pick(by_position[1], SETTING_FIELDS), override=by_position[1].override
                    ),
                )
            else:
                for seat in seats:
                    update_position(
                        session,
                        round_id=bare_id,
                        position=seat.position,
                        changes=RoundPositionUpdate(**pick(seat, SETTLE_FIELDS)),
                    )
                changes.update(pick(final, ROUND_FIELDS[3:]))
            update_round(session, round_id=bare_id, changes=RoundUpdate(**changes))
    return time.perf_counter() - start, time.thread_time() - cpu


REPEATS = 15  # the machine and the projection alone: each round applied again this often, the best kept


def machine_and_projection(engine, service: TableService, round_id: str) -> tuple[float, float]:
    """The CPU seconds (this thread's) of the round's steps through the round machine, and
    through the record's projection, alone: its stored events applied again from the opening
    and each projected (``recorder.step_projection``), nothing read or written meanwhile; the
    best of ``REPEATS`` (the least disturbed by the machine's other work)."""
    with read_snapshot(engine) as session:
        stored = list_events(session, table_id=TABLE, round_id=round_id)
    events = [event_from_payload(json.loads(e.payload)) for e in stored if e.kind in ROUND_EVENT_KINDS]
    opened = events[0]
    assert isinstance(opened, RoundOpened)
    rules = service.recorder.rules_for(opened)
    steps = [e.model_copy(update={"result": None}) if isinstance(e, RoundSettled) else e for e in events[1:]]
    best_machine = best_projection = float("inf")
    for _ in range(REPEATS):
        state = open_round(opened)
        machine = projection = 0.0
        for event in steps:
            began = time.thread_time()
            state = apply(state, event, rules)
            applied = time.thread_time()
            step_projection(state, event)
            machine += applied - began
            projection += time.thread_time() - applied
        best_machine, best_projection = min(best_machine, machine), min(best_projection, projection)
    return best_machine, best_projection


def _phases(stored: list[Any]) -> list[str]:
    """The phase after each step of a standard round: players, then the dealer, then settling."""
    phases = []
    players = sum(1 for e in stored if e.kind == "player.set")
    seen = 0
    for event in stored:
        if event.kind == "piles.dealt":
            phases.append("players-setting")
        elif event.kind == "player.set":
            seen += 1
            phases.append("players-setting" if seen < players else "dealer-setting")
        elif event.kind in ("dealer.set", "dealer.override"):
            phases.append("settling")
        else:
            phases.append("closed")
    return phases


def pick(row: Any, names: Sequence[str]) -> dict[str, Any]:
    return {name: getattr(row, name) for name in names}


# -- the run ----------------------------------------------------------------------------------------


async def play(engine, rounds: int) -> tuple[list[float], list[float], dict[str, list[float]]]:
    settings = TableSettings(
        table_id=TABLE,
        auto_dealer=AutoDealerSettings(enabled=True, seed=1, other_setting_rate=0.1, foul_rate=0.02),
    )
    service = TimedService(settings, engine)
    shuffler_sim = ShufflerSimulator(seed=1, link_config=DeviceLinkConfig()).start()
    shaker_sim = DiceShakerSimulator(seed=1, link_config=DeviceLinkConfig())
    backend = shaker_sim.usb_backend()
    stop = asyncio.Event()
    processing: list[float] = []
    bare: list[float] = []
    cpu: dict[str, list[float]] = {"processing": [], "bare": [], "machine": [], "projection": []}
    try:
        shuffler = ShufflerAdapter(
            service,
            lambda journal: ShufflerDriver.from_url(
                shuffler_sim.url,
                url_packages=("simulators.shuffler",),
                link_config=LinkConfig(),
                journal=journal,
            ),
            stop=stop,
            deck_size=Game.STANDARD.deck_size,
        )
        dice = ShakerAdapter(
            service,
            lambda journal: DiceShakerDriver.over_usb(
                backend=backend, link_config=LinkConfig(), journal=journal
            ),
            stop=stop,
        )
        dealer = SixPositions(settings.auto_dealer, Game.STANDARD, settings.limits)
        conductor = Conductor(service, shuffler, dice, stop=stop, auto_dealer=dealer)
        await conductor.start()
        number = 0
        while len(processing) < rounds:
            await conductor.open_next()
            state = await conductor.play()
            number += 1
            if state.phase.value != "closed":
                continue
            processing.append(service.spent.pop(state.round_id))
            cpu["processing"].append(service.cpu.pop(state.round_id))
            wall, bare_cpu = bare_commit(engine, state.round_id, number)
            bare.append(wall)
            cpu["bare"].append(bare_cpu)
            machine, projection = machine_and_projection(engine, service, state.round_id)
            cpu["machine"].append(machine)
            cpu["projection"].append(projection)
    finally:
        stop.set()
        await conductor.close()
        shuffler_sim.stop()
        shaker_sim.close()
    return processing, bare, cpu


@contextlib.contextmanager
def scratch_store(db_url: str | None, folder: Path) -> Iterator[str]:
    """SQLite in ``folder``, or a fresh schema of the PostgreSQL database (dropped at the end)."""
    if db_url is None:
        yield sqlite_url(folder)
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = make_engine(db_url)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = make_url(db_url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="settled rounds to measure")
    parser.add_argument("--db-url", help="a PostgreSQL URL: the run uses a schema of its own, dropped after")
    parser.add_argument(
        "--data-dir", type=Path, help="folder for the SQLite store (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with (
        tempfile.TemporaryDirectory(dir=args.data_dir) as folder,
        scratch_store(args.db_url, Path(folder)) as url,
    ):
        engine = open_store(url)
        try:
            processing, bare, cpu = asyncio.run(play(engine, args.rounds))
        finally:
            engine.dispose()
    ms = 1000
    p_med, b_med = statistics.median(processing), statistics.median(bare)
    ratio = p_med / b_med
    print(f"{len(processing)} rounds, six positions each, store {engine.dialect.name}")
    print(
        f"  processing (verify, house way, 6 settings, dealer check, settle; 9 commits): "
        f"median {p_med * ms:7.2f} ms  mean {statistics.mean(processing) * ms:7.2f} ms"
    )
    print(
        f"  bare commit of the same rows (9 commits):                               "
        f"median {b_med * ms:7.2f} ms  mean {statistics.mean(bare) * ms:7.2f} ms"
    )
    print(
        f"  ratio (median processing / median bare commit): {ratio:.2f}   "
        f"goal <= {GOAL_RATIO:.0f}: {'met' if ratio <= GOAL_RATIO else 'NOT met'}"
    )
    c_proc, c_bare, c_machine, c_projection = (
        statistics.median(cpu[k]) for k in ("processing", "bare", "machine", "projection")
    )
    print("  CPU (this thread's, medians per round):")
    print(f"    processing {c_proc * ms:7.2f} ms, bare commit {c_bare * ms:7.2f} ms: {c_proc / c_bare:.2f}x")
    print(
        f"    the round machine alone {c_machine * ms:6.3f} ms,"
        f" the projection alone {c_projection * ms:6.3f} ms (no store; best of {REPEATS} each round):"
        f" {(c_machine + c_projection) / c_proc:.1%} of the processing"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
