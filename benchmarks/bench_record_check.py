"""The record check the daemon runs at start and while it plays (docs/audit-chain.md, "The
daemon checks its record"), against the bare link check of the same chain.

    .venv/bin/python -m benchmarks.bench_record_check [--rounds 300]

``--rounds`` rounds are played through the table service on SQLite in a temporary folder
(auto-dealer hands are not needed: each round is the same hand of tests/round/tables.py), with
a checkpoint key and a signed checkpoint of every chain each 100 settled rounds (the default),
then, in the same run:

1. ``verify_chain`` of the table: the links only (the baseline);
2. the start check without the key (``RecordWatch.check(full=True)``): links, every round
   re-derived by the game core and compared with its chained settlement and every projected
   column, people, rules;
3. the start check with the key: the same, plus the chained checkpoints of every chain and the
   comparison with the daemon's own checkpoint file (docs/audit-chain.md, "Anchoring");
4. the check while playing (``full=False``, with the key): new rows, a window, the newest rounds.

Printed: seconds, events, rounds, per-round cost, the cost scaled to 10,000 rounds, and the
ratios to the baseline.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_controller.game.cards import codes
from table_controller.game.deal import pile_positions
from table_controller.record.pinned_rules import PinnedRules
from table_controller.record.watch import RecordWatch
from table_controller.round.events import DiceRolled, PilesDealt, Wager
from table_controller.settings import AuditSettings, TableSettings
from table_controller.storage import make_engine, read_snapshot, sqlite_url, upgrade_to_head, verify_chain
from table_controller.storage.checkpoints import generate_key_file
from table_controller.table.service import TableService

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


def _best(runs: list[Callable[[], Any]], repeats: int = 5) -> list[tuple[Any, float]]:
    """Each run's result and its fastest time of ``repeats``, the runs taken in turn each time,
    so that a busy machine slows them alike (the first turn warms the caches of the rules)."""
    times: list[list[float]] = [[] for _ in runs]
    found: list[Any] = [None] * len(runs)
    for _ in range(repeats):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            found[index] = run()
            times[index].append(time.perf_counter() - start)
    return [(result, min(spent)) for result, spent in zip(found, times, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(sqlite_url(Path(folder)))
        upgrade_to_head(engine)
        key_file = Path(folder) / "keys" / "checkpoint.key"
        public = generate_key_file(key_file)
        keyed = TableSettings(
            table_id="t1", data_dir=Path(folder), audit=AuditSettings(key_file=key_file, public_key=public)
        )
        service = TableService(keyed, engine)
        service.resume()
        piles, unused = _deal()
        for _ in range(args.rounds):
            _play(service, piles, unused)
        service.checkpoint("shutdown")
        unkeyed = RecordWatch(
            engine, TableSettings(table_id="t1", data_dir=Path(folder)), PinnedRules(engine)
        )

        def links_only():
            with read_snapshot(engine) as session:
                return verify_chain(session, table_id="t1")

        (links, baseline), (plain, without_key), (full, at_start), (playing, while_playing) = _best(
            [
                links_only,
                lambda: unkeyed.check(full=True),
                lambda: service.record.check(full=True),
                lambda: service.record.check(full=False),
            ]
        )
        lines = len((Path(folder) / "checkpoints.jsonl").read_text().splitlines())
        engine.dispose()
    for report in (plain, full, playing):
        assert links.ok and report.ok, (links.describe(), report.describe())
    per_10k = 10_000 / args.rounds
    print(f"{args.rounds} rounds, {links.events_checked} events, {lines} checkpoint file lines")
    print(f"{'':34}{'seconds':>9}{'per 10,000 rounds':>20}{'ratio':>8}")
    for name, seconds in (
        ("links only (baseline)", baseline),
        ("start check, no key", without_key),
        ("start check, key and file", at_start),
        ("check while playing", while_playing),
    ):
        print(f"{name:34}{seconds:9.3f}{seconds * per_10k:18.1f} s{seconds / baseline:7.1f}x")
    print(
        f"the checkpoints' comparison adds {at_start - without_key:.3f} s"
        f" ({100 * (at_start - without_key) / without_key:.1f}% of the start check)"
    )


if __name__ == "__main__":
    main()
