"""The device journal (conductor/journal.py): what is stored for a device event, and a device's
re-sent copy (same session, same event id) acknowledged but stored once."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from drivers.messages import Hello
from drivers.shuffler.events import FaultKind, PileRead, ShufflerFault
from table_controller.conductor.journal import DeviceJournal, recent_device_events, round_device_events
from table_controller.round.events import Wager
from table_controller.settings import TableSettings
from table_controller.table.service import TableService

from .rig import events

RAW = bytes.fromhex("a51806220000000300000002")


@dataclass
class _Link:
    session_id: int


@dataclass
class _Driver:
    """What the journal reads of its driver: the device's HELLO and the link's own session."""

    hello: Hello
    link: _Link


def _driver(session: int = 77) -> _Driver:
    return _Driver(Hello(1, 0, 1000, session, "SIM-SHUFFLER", "SIM0001", "1.0.0"), _Link(5))


@pytest.fixture
def service(engine):
    return TableService(TableSettings(table_id="t1"), engine)


def test_a_pile_is_stored_with_its_sessions_ids_cards_and_raw_frame(service, engine):
    service.open_round({3: Wager(main=2500)}, actor="dealer-ann")
    journal = DeviceJournal(service, "shuffler")
    journal.bind(_driver())
    journal(PileRead(device="shuffler", event_id=3, command_id=2, pile=2, cards=("Qs", "Ad", None)), RAW)
    [(kind, payload)] = events(engine, "device.shuffler")
    assert kind == "device.shuffler.pile-dealt"
    assert payload == {
        "session": 77,
        "host_session": 5,
        "serial": "SIM0001",
        "event_id": 3,
        "command_id": 2,
        "pile": 2,
        "cards": ["Qs", "Ad", None],
        "raw": RAW.hex(),
    }
    [record] = round_device_events(engine, "t1", "t1-1")
    assert (record.device, record.what, record.round_id, record.key) == (
        "shuffler",
        "pile-dealt",
        "t1-1",
        (77, 3),
    )


def test_a_resent_copy_is_acknowledged_but_stored_once_even_after_a_restart(service, engine):
    journal = DeviceJournal(service, "shuffler")
    journal.bind(_driver())
    heard = []
    journal.listen(lambda event, round_id: heard.append(event.event_id))
    fault = ShufflerFault(device="shuffler", event_id=9, kind=FaultKind.JAM)
    journal(fault, RAW)
    journal(fault, RAW)  # the ACK was lost: the device sends it again
    assert len(events(engine, "device.shuffler.fault")) == 1 and heard == [9]

    restarted = DeviceJournal(service, "shuffler", known=recent_device_events(engine, "t1"))
    restarted.bind(_driver())
    restarted(fault, RAW)  # killed between the commit and the ACK: re-sent to the next run
    assert len(events(engine, "device.shuffler.fault")) == 1
    other_session = DeviceJournal(service, "shuffler", known=recent_device_events(engine, "t1"))
    other_session.bind(_driver(session=78))  # the same id in a new device session is a new event
    other_session(fault, RAW)
    assert len(events(engine, "device.shuffler.fault")) == 2


def test_a_command_is_journalled_with_both_sessions(service, engine):
    journal = DeviceJournal(service, "shuffler")
    journal.bind(_driver())
    journal.command("deal", 4, round_id="t1-1")
    [(kind, payload)] = events(engine, "device.shuffler")
    assert (kind, payload) == (
        "device.shuffler.command",
        {
            "session": 77,
            "host_session": 5,
            "serial": "SIM0001",
            "command": "deal",
            "command_id": 4,
            "round_id": "t1-1",
        },
    )
