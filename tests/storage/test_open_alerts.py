"""The open alerts kept current from what is new (storage/open_alerts.py), on both backends:
what ``list_alerts`` finds in the whole chain, read one step at a time."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from table_controller.storage import append_event, read_snapshot, unit_of_work
from table_controller.storage.alerts import RAISED, acknowledge_alert, list_alerts
from table_controller.storage.floor import floor_alerts, newest_first
from table_controller.storage.open_alerts import OpenAlerts

from .helpers import at


def _raise(engine: Engine, table_id: str, alert: str, seconds: float) -> int:
    with unit_of_work(engine) as session:
        event = append_event(
            session,
            table_id=table_id,
            round_id=None,
            kind=RAISED,
            actor="system",
            payload={"alert": alert, "detail": f"{alert} at {table_id}"},
            now=at(seconds),
        )
    return event.seq


def _other(engine: Engine, table_id: str) -> None:
    """An event that is not an alert: it moves the chain on, and nothing else."""
    with unit_of_work(engine) as session:
        append_event(
            session, table_id=table_id, round_id=None, kind="table.state", actor="system", payload={}
        )


def _acknowledge(engine: Engine, table_id: str, seq: int) -> None:
    with unit_of_work(engine) as session:
        acknowledge_alert(session, table_id=table_id, alert_seq=seq, actor="pia", note="seen")


def _open(cache: OpenAlerts, engine: Engine, *tables: str) -> dict[str, list[tuple[int, str]]]:
    with read_snapshot(engine) as session:
        found = cache.read(session, tables)
    return {table: [(seq, alert.kind) for seq, alert in sorted(found[table].items())] for table in tables}


def _listed(engine: Engine, table_id: str) -> list[tuple[int, str]]:
    with read_snapshot(engine) as session:
        return [(a.seq, a.kind) for a in list_alerts(session, table_id=table_id, open_only=True)]


def test_open_alerts_follow_raises_and_acknowledgements_as_the_whole_chain_has_them(engine: Engine):
    cache = OpenAlerts()
    assert _open(cache, engine, "T1") == {"T1": []}
    misdeal = _raise(engine, "T1", "misdeal", 1)
    _other(engine, "T1")
    void = _raise(engine, "T1", "void", 2)
    assert _open(cache, engine, "T1") == {"T1": [(misdeal, "misdeal"), (void, "void")]}
    _acknowledge(engine, "T1", misdeal)
    fault = _raise(engine, "T1", "device-fault", 3)
    # an acknowledgement of an alert read at an earlier look, and a new alert, in one step
    assert _open(cache, engine, "T1") == {"T1": [(void, "void"), (fault, "device-fault")]}
    assert _open(cache, engine, "T1")["T1"] == _listed(engine, "T1")
    _acknowledge(engine, "T1", void)
    _acknowledge(engine, "T1", fault)
    assert _open(cache, engine, "T1") == {"T1": []} == {"T1": _listed(engine, "T1")}


def test_each_table_is_read_from_its_own_last_alert_and_a_new_table_from_its_first(engine: Engine):
    cache = OpenAlerts()
    first = _raise(engine, "T1", "misdeal", 1)
    assert _open(cache, engine, "T1") == {"T1": [(first, "misdeal")]}
    other = _raise(engine, "T2", "override", 2)  # T2 is looked at for the first time below
    second = _raise(engine, "T1", "link-loss", 3)
    assert _open(cache, engine, "T1", "T2") == {
        "T1": [(first, "misdeal"), (second, "link-loss")],
        "T2": [(other, "override")],
    }
    _acknowledge(engine, "T2", other)
    assert _open(cache, engine, "T2", "T1") == {"T2": [], "T1": [(first, "misdeal"), (second, "link-loss")]}


def test_the_alerts_are_the_chains_own_events(engine: Engine):
    seq = _raise(engine, "T1", "misdeal", 1)
    with read_snapshot(engine) as session:
        [listed] = list_alerts(session, table_id="T1")
        [cached] = OpenAlerts().read(session, ["T1"])["T1"].values()
    assert cached.event == listed.event and cached.seq == seq and cached.acknowledged is None


def test_a_write_transaction_is_refused_and_leaves_nothing_behind(engine: Engine):
    """Its events are not committed yet: one remembered and then rolled back would hide the
    event that takes its seq next."""
    cache = OpenAlerts()
    with pytest.raises(RuntimeError, match="rolled back"), unit_of_work(engine) as session:
        append_event(
            session, table_id="T1", round_id=None, kind=RAISED, actor="system", payload={"alert": "void"}
        )
        with pytest.raises(ValueError, match="read snapshot"):
            cache.read(session, ["T1"])
        raise RuntimeError("rolled back")
    seq = _raise(engine, "T1", "misdeal", 1)  # the seq the rolled-back alert had
    assert _open(cache, engine, "T1") == {"T1": [(seq, "misdeal")]}


def test_newest_first_is_the_order_the_floor_lists_alerts_in(engine: Engine):
    """Several tables' alerts raised at the same moment and at different ones: the open alerts
    sorted in Python as the floor's SELECT sorts every alert."""
    for n, (table, seconds) in enumerate(
        [("T2", 5), ("T1", 5), ("T1", 5), ("T3", 1), ("T2", 9), ("T1", 0), ("T3", 5)]
    ):
        _raise(engine, table, f"misdeal-{n}", seconds)
    tables = ["T1", "T2", "T3"]
    with read_snapshot(engine) as session:
        cached = OpenAlerts().read(session, tables)
        listed = floor_alerts(session, table_ids=tables)
    ordered = newest_first(alert for found in cached.values() for alert in found.values())
    assert [(a.event.table_id, a.seq) for a in ordered] == [(a.event.table_id, a.seq) for a in listed]
    assert [(a.event.table_id, a.seq) for a in ordered][:3] == [("T2", 2), ("T1", 2), ("T1", 1)]


def test_a_reader_with_an_older_snapshot_does_not_reopen_what_a_newer_one_closed(engine: Engine, monkeypatch):
    """Readers read without the cache's lock: here one reads its new events, then another, on a
    newer snapshot, reads and applies an acknowledgement, and only then does the first apply
    what it read. The alert it read as raised stays closed, and is applied once."""
    import table_controller.storage.open_alerts as module

    cache = OpenAlerts()
    assert _open(cache, engine, "T1") == {"T1": []}
    misdeal = _raise(engine, "T1", "misdeal", 1)
    real = module.alert_events_after
    newer: dict[str, list[tuple[int, str]]] = {}

    def read_then_overtaken(session, *, after):
        events = real(session, after=after)  # the older snapshot: the misdeal raised, no more
        _acknowledge(engine, "T1", misdeal)
        monkeypatch.setattr(module, "alert_events_after", real)
        newer.update(_open(cache, engine, "T1"))  # the newer reader applies the acknowledgement
        return events

    monkeypatch.setattr(module, "alert_events_after", read_then_overtaken)
    assert _open(cache, engine, "T1") == {"T1": []} == newer
    fault = _raise(engine, "T1", "device-fault", 2)
    assert _open(cache, engine, "T1") == {"T1": [(fault, "device-fault")]} == {"T1": _listed(engine, "T1")}
