"""A forged stored value never stops the daemon's start (docs/audit-chain.md, "The daemon checks
its record"): a ``created_at`` forged with a zone on one row made ``table-controller run`` exit
with a ValueError before; now the real daemon stays up, chains a ``record-broken`` alert, deals
no round, and deals again once a pit user runs on with the chained override. Real processes:
the daemon and both simulators, as in test_sigkill.py."""

from __future__ import annotations

import time

import httpx
import pytest

from table_controller.storage import add_user, open_store, unit_of_work

from ..storage.helpers import tamper
from .processes import Daemon, Simulators, event_is

pytestmark = pytest.mark.slow


def test_a_forged_time_on_a_row_leaves_the_daemon_up_for_the_pits_override(sqlite_store, tmp_path):
    engine = open_store(sqlite_store.url)
    try:
        with unit_of_work(engine) as session:
            pit = {"Authorization": f"Bearer {add_user(session, name='bob', role='pit')}"}
    finally:
        engine.dispose()
    sims = Simulators().start(tmp_path)
    try:
        first = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-1.log", rounds=1)
        assert first.finish() == 0
        engine = open_store(sqlite_store.url)
        try:  # one device event among those the conductor loads at start, its time forged
            tamper(
                engine,
                "UPDATE events SET created_at = created_at || '+02:00' WHERE id ="
                " (SELECT min(id) FROM events WHERE kind LIKE 'device.%')",
            )
        finally:
            engine.dispose()
        second = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-2.log", rounds=1)
        try:
            url = second.wait_for(event_is("api.listening"), timeout=60)["url"]
            broken = second.wait_for(event_is("record.broken"), timeout=60)
            assert "unreadable-field" in broken["first"]
            assert [line for line in second.lines if line["event"] == "record.unreadable_at_start"]
            time.sleep(1.0)
            assert not [line for line in second.lines if line["event"] == "round.opened"]
            answer = httpx.post(
                f"{url}/api/audit/override", headers=pit, json={"reason": "forged time, investigating"}
            )
            assert answer.status_code == 200, answer.text
            assert second.finish() == 0  # the override let it deal: the round settled
        except BaseException:
            second.kill()
            raise
        alerts = [a["alert"] for a in sqlite_store.events("alert.raised")]
        assert "record-broken" in alerts
        assert sqlite_store.events("audit.override")[0]["reason"] == "forged time, investigating"
    finally:
        sims.stop()
