"""Every piece of table state survives SIGKILL (docs/round-lifecycle.md, "When things go wrong"):
a table the pit closed stays closed, a table held after misdeals stays held with its deck
check, and an open device fault is restored and then judged by what the device reports.
Real processes: the daemon and both simulators, as in test_sigkill.py."""

from __future__ import annotations

import time

import httpx
import pytest

from table_controller.storage import add_user, open_store, unit_of_work

from .processes import Daemon, Simulators, Store, event_is

pytestmark = pytest.mark.slow

WAGERS = {"wagers": {"3": {"main": 2500}}}


def _people(store: Store) -> dict[str, dict[str, str]]:
    engine = open_store(store.url)
    try:
        with unit_of_work(engine) as session:
            return {
                role: {"Authorization": f"Bearer {add_user(session, name=name, role=role)}"}
                for role, name in (("pit", "bob"), ("dealer", "ann"))
            }
    finally:
        engine.dispose()


def _no_round_opens(daemon: Daemon, seconds: float = 1.5) -> None:
    time.sleep(seconds)
    assert not [line for line in daemon.lines if line["event"] == "round.opened"]


def test_a_closed_table_stays_closed_and_an_open_fault_is_restored_after_sigkill(sqlite_store, tmp_path):
    """One store, one pair of simulators, three starts: killed with the table closed, the table
    comes back closed; opened again, killed with the shuffler's door open (closed while the
    controller was down), the fault comes back and is cleared when the device no longer
    reports it, and play resumes."""
    people = _people(sqlite_store)
    sims = Simulators().start(tmp_path)
    try:
        first = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-1.log", rounds=50)
        try:
            url = first.wait_for(event_is("api.listening"))["url"]
            first.wait_for(event_is("round.summary"))
            assert httpx.post(f"{url}/api/table/close", headers=people["pit"]).status_code == 200
            first.wait_for(event_is("conductor.waiting", table_open=False))
        finally:
            first.kill()
        second = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-2.log", rounds=50)
        try:
            url = second.wait_for(event_is("api.listening"))["url"]
            assert second.wait_for(event_is("table.restored"))["open"] is False
            refused = httpx.post(f"{url}/api/round", headers=people["dealer"], json=WAGERS)
            assert refused.status_code == 409 and "the table is closed" in refused.json()["detail"]
            _no_round_opens(second)
            assert httpx.post(f"{url}/api/table/open", headers=people["pit"]).status_code == 200
            second.wait_for(event_is("round.summary"))
            sims.operate(0, "open-door")
            second.wait_for(event_is("device.fault", fault="door-open"))
        finally:
            second.kill()
        sims.operate(0, "close-door")  # closed while the controller was down
        third = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-3.log", rounds=1)
        try:
            restored = third.wait_for(event_is("table.restored"))
            assert restored["open"] is True
            assert restored["faults"] == ["shuffler door-open"]
            third.wait_for(event_is("device.fault_cleared", fault="door-open"))
            assert third.finish() == 0  # play resumed: a round settled
        except BaseException:
            third.kill()
            raise
    finally:
        sims.stop()


def test_a_table_held_after_misdeals_stays_held_with_its_deck_check_after_sigkill(sqlite_store, tmp_path):
    people = _people(sqlite_store)
    sims = Simulators().start(tmp_path, ("--fault", "duplicated-card"))
    try:
        first = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-1.log", rounds=50)
        try:
            first.wait_for(event_is("table.held"))
            first.wait_for(event_is("deck.checked", complete=False))
        finally:
            first.kill()
        second = Daemon(sqlite_store.args, sims.ports, tmp_path / "daemon-2.log", rounds=50)
        try:
            url = second.wait_for(event_is("api.listening"))["url"]
            restored = second.wait_for(event_is("table.restored"))
            assert restored["hold"].startswith("2 misdeals in a row")
            state = httpx.get(f"{url}/api/table", headers=people["pit"]).json()
            assert state["hold"]["deck_check"]["missing"] == ["2c"]
            refused = httpx.post(f"{url}/api/table/hold/clear", headers=people["pit"])
            assert refused.status_code == 409 and "missing 2c" in refused.json()["detail"]
            _no_round_opens(second)
        finally:
            second.kill()
    finally:
        sims.stop()
