"""The event reads the API and the record check ask storage for, on both backends: a table's
events by kind prefix, its newest opened rounds, the chained events by round, payloads of a kind."""

from __future__ import annotations

import json

from sqlalchemy.engine import Engine

from table_controller.storage import (
    EventPublic,
    append_event,
    event_payloads,
    events_by_round,
    list_events,
    newest_round_ids,
    read_snapshot,
    unit_of_work,
)

from .helpers import at


def _chain(engine: Engine, events: list[tuple[str, str | None, str, dict[str, object]]]) -> None:
    """Append (table, round, kind, payload) in order, one second apart."""
    with unit_of_work(engine) as session:
        for n, (table_id, round_id, kind, payload) in enumerate(events):
            append_event(
                session,
                table_id=table_id,
                round_id=round_id,
                kind=kind,
                actor="ann",
                payload=payload,
                now=at(n),
            )


def test_device_events_are_read_by_kind_prefix_in_seq_order(engine: Engine) -> None:
    _chain(
        engine,
        [
            ("PG-3", None, "device.shuffler.pile-read", {"pile": 1}),  # PG-3 seq 1
            ("PG-3", "PG-3-1", "round.opened", {}),  # seq 2
            ("PG-3", None, "device.dice-shaker.rolled", {"dice": [2, 5]}),  # seq 3
            ("PG-4", None, "device.shuffler.pile-read", {"pile": 9}),  # another table's seq 1
            ("PG-3", None, "device.shuffler.fault", {"kind": "jam"}),  # seq 4
            ("PG-3", None, "devices.other", {}),  # seq 5: "devices." is not "device."
        ],
    )
    with read_snapshot(engine) as session:
        every = list_events(session, table_id="PG-3", kind_prefix="device.")
        shuffler = list_events(session, table_id="PG-3", kind_prefix="device.shuffler.", after_seq=1)
        first_two = list_events(session, table_id="PG-3", kind_prefix="device.", limit=2)
        none_after = list_events(session, table_id="PG-3", kind_prefix="device.", after_seq=4)
    assert all(isinstance(event, EventPublic) for event in every)
    assert [(e.seq, e.kind) for e in every] == [
        (1, "device.shuffler.pile-read"),
        (3, "device.dice-shaker.rolled"),
        (4, "device.shuffler.fault"),
    ]
    assert [(e.seq, json.loads(e.payload)) for e in shuffler] == [(4, {"kind": "jam"})]
    assert [e.seq for e in first_two] == [1, 3]
    assert none_after == []


def test_newest_round_ids_are_the_last_opened_newest_first(engine: Engine) -> None:
    _chain(
        engine,
        [
            ("PG-3", "PG-3-1", "round.opened", {}),  # PG-3 seq 1
            ("PG-3", "PG-3-1", "round.settled", {}),  # seq 2
            ("PG-3", "PG-3-2", "round.opened", {}),  # seq 3
            ("PG-4", "PG-4-1", "round.opened", {}),  # another table's
            ("PG-3", "PG-3-3", "round.opened", {}),  # seq 4
        ],
    )
    with read_snapshot(engine) as session:
        assert newest_round_ids(session, table_id="PG-3", last=2) == ["PG-3-3", "PG-3-2"]
        assert newest_round_ids(session, table_id="PG-3", last=10) == ["PG-3-3", "PG-3-2", "PG-3-1"]
        assert newest_round_ids(session, table_id="PG-9", last=3) == []


def test_events_by_round_group_each_rounds_events_of_the_kinds_in_seq_order(engine: Engine) -> None:
    _chain(
        engine,
        [
            ("PG-3", "PG-3-1", "round.opened", {"n": 1}),  # PG-3 seq 1
            ("PG-3", "PG-3-2", "round.opened", {"n": 2}),  # seq 2
            ("PG-3", "PG-3-1", "dice.rolled", {"n": 3}),  # seq 3
            ("PG-3", "PG-3-1", "pile.dealt", {"n": 4}),  # seq 4: not one of the kinds
            ("PG-3", None, "dice.rolled", {"n": 5}),  # seq 5: of no round
            ("PG-3", "PG-3-2", "dice.rolled", {"n": 6}),  # seq 6
            ("PG-4", "PG-4-1", "round.opened", {"n": 7}),  # PG-4 seq 1
        ],
    )
    kinds = frozenset({"round.opened", "dice.rolled"})

    def read(
        table_id: str | None = None, round_ids: list[str] | None = None
    ) -> list[tuple[str, list[tuple[int, str, object]]]]:
        with read_snapshot(engine) as session:
            groups = events_by_round(session, kinds=kinds, table_id=table_id, round_ids=round_ids)
            return [
                (round_id, [(seq, kind, json.loads(payload)) for seq, kind, payload in events])
                for round_id, events in groups
            ]

    assert read() == [
        ("PG-3-1", [(1, "round.opened", {"n": 1}), (3, "dice.rolled", {"n": 3})]),
        ("PG-3-2", [(2, "round.opened", {"n": 2}), (6, "dice.rolled", {"n": 6})]),
        ("PG-4-1", [(1, "round.opened", {"n": 7})]),
    ]
    assert read(table_id="PG-4") == [("PG-4-1", [(1, "round.opened", {"n": 7})])]
    assert read(table_id="PG-3", round_ids=["PG-3-2", "PG-4-1"]) == [
        ("PG-3-2", [(2, "round.opened", {"n": 2}), (6, "dice.rolled", {"n": 6})])
    ]
    assert read(round_ids=[]) == []


def test_event_payloads_are_every_payload_of_the_kind_in_the_chain(engine: Engine) -> None:
    _chain(
        engine,
        [
            ("PG-3", None, "table.state", {"open": True}),
            ("PG-3", None, "table.note", {"open": "no"}),  # another kind
            ("PG-4", None, "table.state", {"open": False, "table": "PG-4"}),  # another chain
            ("PG-3", None, "table.state", {"open": False}),
        ],
    )
    with read_snapshot(engine) as session:
        payloads = event_payloads(session, table_id="PG-3", kind="table.state")
        assert event_payloads(session, table_id="PG-9", kind="table.state") == []
    assert all(isinstance(payload, str) for payload in payloads)
    assert sorted(json.loads(payload)["open"] for payload in payloads) == [False, True]
