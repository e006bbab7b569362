"""The record check the daemon runs at start and while it plays (docs/audit-chain.md, "The
daemon checks its record"), against the bare link check of the same chain.

    .venv/bin/python -m benchmarks.bench_record_check [--rounds 300]

``--rounds`` rounds are played through the table service on SQLite in a temporary folder
(auto-dealer hands are not needed: each round is the same hand of tests/round/tables.py), then,
in the same run:

1. ``verify_chain`` of the table: the links only (the baseline);
2. the start check (``RecordWatch.check(full=True)``): links, every round re-derived by the
   game core and compared with its chained settlement and projections, people, rules;
3. the check while playing (``full=False``): new rows, a window, the newest rounds.

Printed: seconds, events, rounds, per-round cost and the ratios to the baseline.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from table_controller.game.cards import codes
from table_controller.game.deal import pile_positions
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.service import TableService
from table_controller.settings import TableSettings
from table_controller.storage import make_engine, read_snapshot, sqlite_url, upgrade_to_head, verify_chain

BANKER = ["Ac", "Qd", "9h", "7s", "5c", "3d", "2h"]
POSITION_3 = ["As", "Ah", "Kd", "Kh", "9c", "8c", "2c"]


def _deal() -> tuple[list[list[str]], list[str]]:
    from table_controller.game.cards import Game

    used = set(BANKER + POSITION_3)
    rest = [c for c in codes(Game.STANDARD.deck()) if c != "JK" and c not in used] + ["JK"]
    piles = []
    for position in pile_positions(3):
        if position == 1:
            piles.append(BANKER)
        elif position == 3:
            piles.append(POSITION_3)
        else:
            piles.append(rest[:7])
            rest = rest[7:]
    return piles, rest


def _play(service: TableService, piles: list[list[str]], unused: list[str]) -> None:
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    service.record_dice(DiceRolled(faces=(1, 1, 1), source="rng"))
    service.record_deal(PilesDealt(piles=piles, unused=unused))
    service.set_player(3, ["As", "Ah", "9c", "8c", "2c"], ["Kd", "Kh"], actor="dealer-ann")
    service.set_dealer(["Ac", "9h", "5c", "3d", "2h"], ["Qd", "7s"], actor="dealer-ann")
    service.settle()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(sqlite_url(Path(folder)))
        upgrade_to_head(engine)
        settings = TableSettings(table_id="t1", data_dir=Path(folder))
        service = TableService(settings, engine)
        service.resume()
        piles, unused = _deal()
        for _ in range(args.rounds):
            _play(service, piles, unused)
        start = time.perf_counter()
        with read_snapshot(engine) as session:
            links = verify_chain(session, table_id="t1")
        baseline = time.perf_counter() - start
        start = time.perf_counter()
        full = service.record.check(full=True)
        at_start = time.perf_counter() - start
        start = time.perf_counter()
        playing = service.record.check(full=False)
        while_playing = time.perf_counter() - start
        engine.dispose()
    assert links.ok and full.ok and playing.ok, (links.describe(), full.describe(), playing.describe())
    print(f"{args.rounds} rounds, {links.events_checked} events")
    print(f"links only (baseline)   {baseline:8.3f} s   1.0x")
    print(
        f"start check             {at_start:8.3f} s   {at_start / baseline:5.1f}x"
        f"   {1000 * at_start / args.rounds:.2f} ms a round"
    )
    print(f"check while playing     {while_playing:8.3f} s   {while_playing / baseline:5.1f}x")


if __name__ == "__main__":
    main()
