"""SIGKILL in a co-banked round, with real processes (docs/round-lifecycle.md, "A player banks").

The daemon plays with the auto-dealer taking the bank whenever the rotation offers it, always
co-banking; the test kills it while the first player-banked round waits for the banker's
setting. The next start must resume that round there, settle it once with its bank, and leave a
record ``audit verify`` finds whole. One kill, one pair of simulators: a few seconds.
"""

from __future__ import annotations

import pytest

from .processes import Daemon, Simulators, event_is
from .test_sigkill import _check_verify, _round_events

pytestmark = pytest.mark.slow


def test_sigkill_in_a_co_banked_round_resumes_it_and_settles_its_bank_once(
    sqlite_store, tmp_path, monkeypatch
):
    store = sqlite_store
    monkeypatch.setenv("TABLE_BANKING__POLICY", "rotation")
    monkeypatch.setenv("TABLE_BANKING__HOUSE_WAGER", "table-minimum")
    monkeypatch.setenv("TABLE_AUTO_DEALER__PLAYER_BANKS", "true")
    monkeypatch.setenv("TABLE_AUTO_DEALER__CO_BANK_RATE", "1")
    sims = Simulators().start(tmp_path)
    try:
        first = Daemon(store.args, sims.ports, tmp_path / "daemon-1.log", rounds=6)
        try:
            opened = first.wait_for(
                lambda line: event_is("round.opened")(line) and line.get("banker_seat", 1) != 1
            )
            round_id = opened["round_id"]
            first.wait_for(
                lambda line: (
                    event_is("round.phase", phase="dealer-setting")(line) and line.get("round_id") == round_id
                )
            )
        finally:
            first.kill()
        assert store.rows(f"SELECT phase FROM rounds WHERE round_id = '{round_id}'") == [("dealer-setting",)]
        last = Daemon(store.args, sims.ports, tmp_path / "daemon-2.log", rounds=1)
        assert last.finish() == 0, f"see {last.log_path}"
    finally:
        sims.stop()

    resumed = [line for line in last.lines if line["event"] == "round.resuming"]
    assert [(line["round_id"], line["phase"]) for line in resumed] == [(round_id, "dealer-setting")]
    [stored_opening] = _round_events(store, round_id, "round.opened")
    bank = stored_opening["bank"]
    assert (
        bank["seat"] == opened["banker_seat"]
        and bank["house_share_bp"] == 5000
        and bank["house_wager"] == 500
    )
    [settled] = _round_events(store, round_id, "round.settled")  # settled once, across the kill
    chained = settled["result"]["bank"]
    assert chained["seat"] == bank["seat"] and chained["house_hand"]["wager"] == 500
    assert chained["banker_net"] + chained["house_share"] == chained["net"]
    row = store.rows(
        "SELECT phase, banker_seat, house_share_bp, banker_result_cents, house_result_cents "
        f"FROM rounds WHERE round_id = '{round_id}'"
    )
    assert row == [
        ("closed", bank["seat"], 5000, chained["banker_net"], settled["result"]["totals"]["house_result"])
    ]
    house = store.rows(
        f"SELECT position, cards, net_cents FROM round_positions WHERE round_id = '{round_id}' AND house_hand"
    )
    assert [(p, n) for p, _, n in house] == [(chained["house_position"], chained["house_hand"]["net"])]
    assert len(house[0][1].split()) == 7
    _check_verify(store)
