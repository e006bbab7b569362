"""SIGKILL at every phase of a round, with real processes (docs/round-lifecycle.md, "Crash recovery").

The simulators run as their own processes (``python -m simulators ... --pty``), so the devices
outlive the daemon as real ones do. ``table-controller run`` plays against them on a temporary
data folder with a step delay; the test reads its JSON log lines, kills it with SIGKILL while
the round is in the chosen phase, starts it again on the same folder, and checks that the
round resumed in that phase, completed, was settled exactly once, that its wagers and all 53
cards are there exactly once, that the dice were not rolled again, and that ``audit verify``
finds the chain whole. The whole matrix runs on SQLite, one representative phase on PostgreSQL.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from table_controller.game.cards import Game, codes

from .processes import REPO, Daemon, Simulators, Store, event_is

pytestmark = pytest.mark.slow

DECK = Counter(codes(Game.STANDARD.deck()))


KILL_POINTS = {
    # phase id: (the log line to kill at, the phase the round is in then)
    "open": (event_is("round.phase", phase="open"), "open"),
    "open-roll-seen": (event_is("dice.seen"), "open"),
    "dealing": (event_is("round.phase", phase="dealing"), "dealing"),
    "dealing-mid-deal": (event_is("deal.pile", pile=3), "dealing"),
    "players-setting": (event_is("round.phase", phase="players-setting"), "players-setting"),
    "dealer-setting": (event_is("round.phase", phase="dealer-setting"), "dealer-setting"),
    "settling": (event_is("round.phase", phase="settling"), "settling"),
}


def _kill_and_resume(store: Store, tmp_path: Path, point: str) -> None:
    trigger, phase = KILL_POINTS[point]
    sims = Simulators().start(tmp_path)
    try:
        first = Daemon(store.args, sims.ports, tmp_path / "daemon-1.log")
        try:
            first.wait_for(trigger)
        finally:
            first.kill()
        assert store.rows("SELECT round_id, phase FROM rounds") == [("table-1-1", phase)]
        rolls_before = store.events("device.dice-shaker.rolled")
        piles_before = store.events("device.shuffler.pile-dealt")

        second = Daemon(store.args, sims.ports, tmp_path / "daemon-2.log")
        assert second.finish() == 0, f"see {second.log_path}"
    finally:
        sims.stop()

    resumed = [line for line in second.lines if line["event"] == "round.resuming"]
    assert [(line["round_id"], line["phase"]) for line in resumed] == [("table-1-1", phase)]
    assert store.rows("SELECT round_id, phase, voided FROM rounds") == [("table-1-1", "closed", False)]
    assert len(store.events("round.settled")) == 1
    [opened] = store.events("round.opened")
    wagers = {int(p): w["main"] for p, w in opened["wagers"].items()}
    assert dict(store.rows("SELECT position, wager_cents FROM round_positions WHERE position > 1")) == wagers
    [dealt] = store.events("piles.dealt")
    assert Counter(c for pile in dealt["piles"] for c in pile) + Counter(dealt["unused"]) == DECK
    cards = [c for (hand,) in store.rows("SELECT cards FROM round_positions") for c in hand.split()]
    assert len(cards) == len(set(cards)) == 7 * (len(wagers) + 1)
    [rolled] = store.events("device.dice-shaker.rolled")  # one shake in all: the dice were not re-rolled
    [dice] = store.events("dice.rolled")
    assert dice["faces"] == rolled["faces"] and dice["roll_id"].endswith(f":{rolled['roll_id']}")
    if rolls_before:
        assert rolls_before == [rolled]
    piles = [p["pile"] for p in store.events("device.shuffler.pile-dealt")]
    assert piles == [1, 2, 3, 4, 5, 6, 7]  # every pile stored once, across the kill
    assert [p["cards"] for p in piles_before] == dealt["piles"][: len(piles_before)]
    deals = [c for c in store.events("device.shuffler.command") if c["command"] == "deal"]
    assert len(deals) == 1  # one deal in all
    verify = subprocess.run(
        [
            sys.executable,
            "-m",
            "table_controller",
            "audit",
            "verify",
            *(store.args if store.args[0] == "--db-url" else ["--data-dir", store.args[1]]),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verify.returncode == 0, verify.stdout
    assert verify.stdout.startswith("audit chain whole:")


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_in_each_phase_resumes_there_and_settles_once_sqlite(sqlite_store, tmp_path, point):
    _kill_and_resume(sqlite_store, tmp_path, point)


def test_sigkill_mid_deal_resumes_and_settles_once_postgresql(postgres_store, tmp_path):
    _kill_and_resume(postgres_store, tmp_path, "dealing-mid-deal")
