"""SIGKILL at every phase of a round, with real processes (docs/round-lifecycle.md, "Crash recovery").

The simulators run as their own processes (``python -m simulators ... --pty``), so the devices
outlive the daemon as real ones do. ``table-controller run`` plays against them on a temporary
data folder with a step delay; the test reads its JSON log lines and kills it with SIGKILL while
the round it opened is in the next chosen phase; the next start on the same folder must resume
that round in that phase, complete it, and open one of its own, killed at the next point (a kill
that lands after the round moved on is tried again in the next round). Two chains of kills cover
every phase (a pair of simulators and one ``audit verify`` each). For each round the test checks
that it was settled exactly once, that its wagers and all 53 cards are there exactly once, that
the dice were not rolled again and the deck dealt once, and that the chain is whole. The whole
matrix runs on SQLite, one representative phase on PostgreSQL.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
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


@dataclass
class Kill:
    """What the store held for one round when the daemon was killed in it."""

    round_id: str
    phase: str
    rolls: list[dict]
    piles: list[dict]


def _player_banked(line: dict) -> bool:
    return event_is("round.opened")(line) and line.get("banker_seat", 1) != 1


ATTEMPTS = 4  # tries at one kill point before the test gives up (see _kill_chain)


def _kill_chain(store: Store, tmp_path: Path, points: list[str], *, banked: bool = False) -> None:
    """Kill a round at each point in turn, each time in the next round a new daemon opens (with
    ``banked``, the next round a player banks; the house's turns in between play through).

    The test sees the kill point in the daemon's log and kills it then; the daemon's next step
    is a step delay away, but on a loaded machine the kill can land after it. That kill is not
    the one wanted: the round was in a later phase. It still has to resume and settle once (every
    round is checked below), and the point is tried again in the next round, up to ``ATTEMPTS``
    times."""
    kills: list[tuple[Kill, int]] = []  # each on its point, with its resumer's index in daemons
    daemons: list[Daemon] = []
    late: list[str] = []
    opened = _player_banked if banked else event_is("round.opened")
    sims = Simulators().start(tmp_path)
    try:
        for point in points:
            trigger, phase = KILL_POINTS[point]
            for _attempt in range(ATTEMPTS):
                log_path = tmp_path / f"daemon-{len(daemons) + 1}.log"
                daemon = Daemon(store.args, sims.ports, log_path, rounds=100)
                daemons.append(daemon)
                try:
                    round_id = daemon.wait_for(opened)["round_id"]
                    daemon.wait_for(lambda line, t=trigger, r=round_id: t(line) and line.get("round_id") == r)
                finally:
                    daemon.kill()
                [(found,)] = store.rows(f"SELECT phase FROM rounds WHERE round_id = '{round_id}'")
                if found == phase:
                    rolls = store.events("device.dice-shaker.rolled", round_id)
                    piles = store.events("device.shuffler.pile-dealt", round_id)
                    kills.append((Kill(round_id, phase, rolls, piles), len(daemons)))
                    break
                late.append(f"{point}: {round_id} was {found} ({daemon.log_path.name})")
            else:
                pytest.fail(f"each of {ATTEMPTS} kills at {point} came after the next step: {late}")
        last = Daemon(store.args, sims.ports, tmp_path / "daemon-last.log", rounds=1)
        daemons.append(last)
        assert last.finish() == 0, f"see {last.log_path}"
    finally:
        sims.stop()

    assert store.rows("SELECT count(*) FROM rounds WHERE phase <> 'closed'") == [(0,)]
    round_ids = [r for (r,) in store.rows("SELECT round_id FROM rounds")]
    if not banked and not late:
        assert len(round_ids) == len(daemons) - 1  # one round opened by each killed daemon
    for round_id in round_ids:
        _check_settled_once(store, round_id)
    for kill, resumer in kills:
        _check_resumed(kill, daemons[resumer], store)
    _check_verify(store)


def _check_resumed(kill: Kill, resumer: Daemon, store: Store) -> None:
    """The next start resumed the round in the phase it was killed in, and what the devices had
    done before the kill was kept, not done again."""
    round_id = kill.round_id
    resumed = [line for line in resumer.lines if line["event"] == "round.resuming"]
    where = f"see {resumer.log_path}"
    assert [(line["round_id"], line["phase"]) for line in resumed] == [(round_id, kill.phase)], where
    [rolled] = store.events("device.dice-shaker.rolled", round_id)
    if kill.rolls:
        assert kill.rolls == [rolled]
    [dealt] = store.events("piles.dealt", round_id)
    assert [p["cards"] for p in kill.piles] == dealt["piles"][: len(kill.piles)]


def _check_settled_once(store: Store, round_id: str) -> None:
    """A round closed and settled once, with its wagers and its 53 cards once each, the dice
    shaken once and the deck dealt once, across whatever kill it went through."""
    rows = store.rows(f"SELECT phase, voided FROM rounds WHERE round_id = '{round_id}'")
    assert rows == [("closed", False)], round_id
    assert len(store.events("round.settled", round_id)) == 1, round_id
    [opened] = store.events("round.opened", round_id)
    wagers = {int(p): w["main"] for p, w in opened["wagers"].items()}
    rows = f"FROM round_positions WHERE round_id = '{round_id}'"
    positions = store.rows(f"SELECT position, wager_cents {rows} AND position > 1 AND NOT house_hand")
    assert dict(positions) == wagers, round_id
    [dealt] = store.events("piles.dealt", round_id)
    assert Counter(c for pile in dealt["piles"] for c in pile) + Counter(dealt["unused"]) == DECK
    hands = store.rows(f"SELECT cards {rows}")
    houses = store.rows(f"SELECT position {rows} AND house_hand")  # the house's hand against a player's bank
    assert (opened.get("bank") is not None) == bool(houses) or opened["bank"]["house_wager"] == 0, round_id
    cards = [c for (hand,) in hands for c in hand.split()]
    assert len(cards) == len(set(cards)) == 7 * (len(wagers) + 1 + len(houses)), round_id
    if opened.get("bank") is not None:
        _check_bank(store, round_id, opened["bank"])
    # one shake in all: the dice were not re-rolled after a kill
    [rolled] = store.events("device.dice-shaker.rolled", round_id)
    [dice] = store.events("dice.rolled", round_id)
    assert dice["faces"] == rolled["faces"] and dice["roll_id"].endswith(f":{rolled['roll_id']}")
    piles = [p["pile"] for p in store.events("device.shuffler.pile-dealt", round_id)]
    assert piles == [1, 2, 3, 4, 5, 6, 7], round_id  # every pile stored once, across a kill
    commands = store.events("device.shuffler.command", round_id)
    assert len([c for c in commands if c["command"] == "deal"]) == 1, round_id  # one deal in all


def _check_bank(store: Store, round_id: str, bank: dict) -> None:
    """A player's bank settled once: the chained result, the round's row and the house hand's
    row agree, and the bank's result splits between the banker and the house exactly."""
    [settled] = store.events("round.settled", round_id)
    chained = settled["result"]["bank"]
    assert chained["seat"] == bank["seat"], round_id
    assert chained["banker_net"] + chained["house_share"] == chained["net"], round_id
    row = store.rows(
        "SELECT banker_seat, house_share_bp, banker_result_cents, house_result_cents "
        f"FROM rounds WHERE round_id = '{round_id}'"
    )
    house_result = settled["result"]["totals"]["house_result"]
    assert row == [(bank["seat"], bank["house_share_bp"], chained["banker_net"], house_result)], round_id
    house = store.rows(
        f"SELECT position, net_cents FROM round_positions WHERE round_id = '{round_id}' AND house_hand"
    )
    if chained.get("house_hand"):
        assert house == [(chained["house_position"], chained["house_hand"]["net"])], round_id


def _check_verify(store: Store) -> None:
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


# Every phase, in two chains that can run side by side (each its own store and devices).
CHAINS = {
    "before-the-hands": ["open", "open-roll-seen", "dealing", "dealing-mid-deal"],
    "the-hands-and-after": ["players-setting", "dealer-setting", "settling"],
}


def test_the_chains_cover_every_kill_point_once():
    assert sorted(p for points in CHAINS.values() for p in points) == sorted(KILL_POINTS)


@pytest.mark.parametrize("chain", list(CHAINS))
def test_sigkill_in_each_phase_resumes_there_and_settles_once_sqlite(sqlite_store, tmp_path, chain):
    _kill_chain(sqlite_store, tmp_path, CHAINS[chain])


@pytest.mark.parametrize("chain", list(CHAINS))
def test_sigkill_in_each_phase_of_a_player_banked_round_resumes_it_and_settles_its_bank_once(
    sqlite_store, tmp_path, monkeypatch, chain
):
    """Every phase again, each time in a round a player banks (co-banked one time in two, so the
    banker's setting is by the house way in some): the bank is resumed with the round and settled
    once (replaces the single co-banked kill of an earlier test)."""
    monkeypatch.setenv("TABLE_BANKING__POLICY", "rotation")
    monkeypatch.setenv("TABLE_BANKING__HOUSE_WAGER", "table-minimum")
    monkeypatch.setenv("TABLE_AUTO_DEALER__PLAYER_BANKS", "true")
    monkeypatch.setenv("TABLE_AUTO_DEALER__CO_BANK_RATE", "0.5")
    _kill_chain(sqlite_store, tmp_path, CHAINS[chain], banked=True)
    openings = [e["bank"] for e in sqlite_store.events("round.opened") if e.get("bank")]
    assert {bank["house_share_bp"] for bank in openings} == {None, 5000}  # banks co-banked and not


def test_sigkill_mid_deal_resumes_and_settles_once_postgresql(postgres_store, tmp_path):
    _kill_chain(postgres_store, tmp_path, ["dealing-mid-deal"])
