"""SIGKILL mid-deal more times than ``misdeal_hold_after``, with ``run --simulate`` (the
simulators are the daemon's children: the shuffler restarts with it), and the table plays on
(docs/round-lifecycle.md, "When things go wrong"). Each deal the restart interrupted is voided
and alerted, "deal interrupted: the shuffler restarted", but is no evidence against the deck:
the table is never held for it, and the next start settles a round by itself."""

from __future__ import annotations

import pytest

from .processes import Daemon, Store, event_is

pytestmark = pytest.mark.slow

KILLS = 3  # the default misdeal_hold_after is 2


def test_sigkill_mid_deal_more_times_than_the_hold_threshold_and_play_goes_on(sqlite_store: Store, tmp_path):
    killed: list[str] = []
    for n in range(KILLS):
        daemon = Daemon(sqlite_store.args, {}, tmp_path / f"daemon-{n + 1}.log", rounds=100, simulate=True)
        try:
            round_id = daemon.wait_for(event_is("round.opened"))["round_id"]
            daemon.wait_for(
                lambda line, r=round_id: event_is("deal.pile", pile=2)(line) and line["round_id"] == r
            )
        finally:
            daemon.kill()
        killed.append(round_id)
    last = Daemon(sqlite_store.args, {}, tmp_path / "daemon-last.log", rounds=1, simulate=True)
    assert last.finish() == 0, f"see {last.log_path}"  # a round settled: the table was not held

    rows = dict(sqlite_store.rows("SELECT round_id, phase FROM rounds"))
    interrupted = [
        r
        for r in killed
        if [
            d
            for d in sqlite_store.events("piles.dealt", r)
            if d["interrupted"] and "restarted" in d["interrupted"]
        ]
    ]
    assert interrupted == killed, f"a kill landed after its deal ended: {rows}"
    assert all(rows[r] == "void" for r in killed)
    assert sorted(rows.values()).count("closed") == 1
    alerts = [a["alert"] for a in sqlite_store.events("alert.raised")]
    assert "table-held" not in alerts
    misdeals = [a for a in sqlite_store.events("alert.raised") if a["alert"] == "misdeal"]
    assert len(misdeals) == KILLS and not any(m["counts_toward_hold"] for m in misdeals)
    assert [
        r for (r,) in sqlite_store.rows("SELECT count(*) FROM rounds WHERE phase NOT IN ('closed', 'void')")
    ] == [0]
