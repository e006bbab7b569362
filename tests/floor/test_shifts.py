"""Shifts (docs/floor-reports.md, "Shifts"): opened and closed with the people on duty named, one
open shift per pit, closed once, each change an event of the store's ``floor`` chain that the
record check verifies; who may open, close and read them through the floor's API."""

from __future__ import annotations

import json

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from table_controller.record.check import check_record
from table_controller.storage import add_user, list_events, read_snapshot, unit_of_work
from table_controller.storage.audit import verify_chain
from table_controller.storage.shifts import (
    FLOOR_CHAIN,
    ShiftConflictError,
    ShiftNotFoundError,
    ShiftPeopleError,
    close_shift,
    get_shift,
    list_shifts,
    open_shift,
)
from table_controller.storage.users import User, disable_user

from ..storage.helpers import tamper
from .conftest import Floor, add_people
from .report_fixtures import utc

SQLITE_ONLY = pytest.mark.parametrize("empty_engine", ["sqlite"], indirect=True)


def test_a_shift_opens_and_closes_once_with_its_people_chained(engine: Engine):
    add_people(engine)
    with unit_of_work(engine) as session:
        opened = open_shift(session, pit="pit-a", on_duty=[" pia", "dan"], actor="pia", now=utc(10, 15))
    assert (opened.pit, opened.on_duty, opened.opened_by, opened.is_open) == (
        "pit-a",
        ("pia", "dan"),
        "pia",
        True,
    )
    # one open shift per pit; another pit, the floor: their own
    with (
        pytest.raises(ShiftConflictError, match=f"shift {opened.id}, opened by pia"),
        unit_of_work(engine) as session,
    ):
        open_shift(session, pit="pit-a", on_duty=["paul"], actor="paul", now=utc(10, 16))
    with unit_of_work(engine) as session:
        other = open_shift(session, pit="pit-b", on_duty=["pete"], actor="pete", now=utc(10, 16))
        whole = open_shift(session, pit=None, on_duty=["cy"], actor="dee", now=utc(10, 16))
    with pytest.raises(ShiftConflictError), unit_of_work(engine) as session:
        open_shift(session, pit=None, on_duty=["cy"], actor="dee", now=utc(10, 17))
    with unit_of_work(engine) as session:
        closed = close_shift(
            session,
            shift_id=opened.id,
            actor="paul",
            signed_off=["pia", "paul"],
            note=" all quiet ",
            now=utc(10, 23),
        )
    assert (closed.closed_by, closed.signed_off, closed.note, closed.is_open) == (
        "paul",
        ("pia", "paul"),
        "all quiet",
        False,
    )
    with pytest.raises(ShiftConflictError, match="closed by paul"), unit_of_work(engine) as session:
        close_shift(session, shift_id=opened.id, actor="pia", signed_off=["pia"], now=utc(10, 23, 5))
    with pytest.raises(ShiftNotFoundError), unit_of_work(engine) as session:
        close_shift(session, shift_id=999, actor="pia", signed_off=["pia"])
    with unit_of_work(engine) as session:  # the pit may open its next shift now
        again = open_shift(session, pit="pit-a", on_duty=["paul"], actor="paul", now=utc(10, 23, 10))

    with read_snapshot(engine) as session:
        assert get_shift(session, shift_id=opened.id) == closed
        assert [s.id for s in list_shifts(session)] == [
            again.id,
            whole.id,
            other.id,
            opened.id,
        ]  # newest first
        assert [s.id for s in list_shifts(session, pits=["pit-a", None])] == [again.id, whole.id, opened.id]
        assert [s.id for s in list_shifts(session, pits=["pit-b"], open_only=True)] == [other.id]
        events = list_events(session, table_id=FLOOR_CHAIN)
        assert verify_chain(session, table_id=FLOOR_CHAIN).breaks == ()
    assert [(e.kind, e.actor) for e in events] == [
        ("shift.opened", "pia"),
        ("shift.opened", "pete"),
        ("shift.opened", "dee"),
        ("shift.closed", "paul"),
        ("shift.opened", "paul"),
    ]
    assert json.loads(events[0].payload) == {
        "shift_id": opened.id,
        "pit": "pit-a",
        "on_duty": ["pia", "dan"],
        "opened_at": "2026-03-10T15:00:00+00:00",
    }
    assert json.loads(events[3].payload) == {
        "shift_id": opened.id,
        "pit": "pit-a",
        "signed_off": ["pia", "paul"],
        "note": "all quiet",
        "closed_at": "2026-03-10T23:00:00+00:00",
    }


def test_the_people_named_are_enabled_people_of_the_store_and_nothing_is_half_written(engine: Engine):
    add_people(engine)
    with unit_of_work(engine) as session:
        disable_user(session, name="paul")
    for names, words in (
        (["pia", "nobody"], "no enabled person named nobody"),
        (["paul"], "no enabled person named paul"),  # disabled
        ([], "give 1..50"),
        (["pia", "pia"], "distinct"),
        (["pia", "  "], "non-empty"),
    ):
        with pytest.raises(ShiftPeopleError, match=words), unit_of_work(engine) as session:
            open_shift(session, pit="pit-a", on_duty=names, actor="pia")
    with unit_of_work(engine) as session:
        opened = open_shift(session, pit="pit-a", on_duty=["pia"], actor="pia", now=utc(10, 15))
    with (
        pytest.raises(ShiftPeopleError, match="no enabled person named ghost"),
        unit_of_work(engine) as session,
    ):
        close_shift(session, shift_id=opened.id, actor="pia", signed_off=["ghost"], now=utc(10, 16))
    with pytest.raises(ValueError, match="cannot close before it opened"), unit_of_work(engine) as s2:
        close_shift(s2, shift_id=opened.id, actor="pia", signed_off=["pia"], now=utc(10, 14))
    with read_snapshot(engine) as session:
        assert get_shift(session, shift_id=opened.id).is_open  # the refused closes left nothing
        assert [e.kind for e in list_events(session, table_id=FLOOR_CHAIN)] == ["shift.opened"]


def test_the_record_check_verifies_the_floor_chain(engine: Engine):
    add_people(engine)
    with unit_of_work(engine) as session:
        open_shift(session, pit="pit-a", on_duty=["pia"], actor="pia", now=utc(10, 15))
    with read_snapshot(engine) as session:
        assert check_record(session, table_id="t1").chain.breaks == ()
    tamper(engine, "UPDATE events SET payload = REPLACE(payload, 'pia', 'pix') WHERE table_id = 'floor'")
    with read_snapshot(engine) as session:
        breaks = check_record(session, table_id="t1").chain.breaks
    assert [b.table_id for b in breaks] == [FLOOR_CHAIN]


# -- through the floor's API -----------------------------------------------------------------------


@SQLITE_ONLY
def test_a_pit_user_opens_and_closes_their_pits_shift_and_an_admin_the_floors(floor: Floor):
    opened = floor.post("/api/floor/shifts", "pia", json={"pit": "pit-a", "on_duty": ["pia", "dan"]})
    assert opened.status_code == 201, opened.text
    shift = opened.json()
    assert {k: shift[k] for k in ("pit", "opened_by", "on_duty", "open", "signed_off")} == {
        "pit": "pit-a",
        "opened_by": "pia",
        "on_duty": ["pia", "dan"],
        "open": True,
        "signed_off": [],
    }
    again = floor.post("/api/floor/shifts", "paul", json={"pit": "pit-a", "on_duty": ["paul"]})
    assert again.status_code == 409 and again.json()["error"] == "shift-open"

    # another pit's user, a dealer, surveillance: not theirs to open or close
    for who in ("pete", "dan", "cy"):
        refused = floor.post("/api/floor/shifts", who, json={"pit": "pit-a", "on_duty": ["pia"]})
        assert refused.status_code == 403, who
        closing = floor.post(f"/api/floor/shifts/{shift['id']}/close", who, json={"signed_off": ["pia"]})
        assert closing.status_code == 403, who
    # the whole floor's shift is an admin's
    assert floor.post("/api/floor/shifts", "pia", json={"on_duty": ["pia"]}).status_code == 403
    whole = floor.post("/api/floor/shifts", "dee", json={"on_duty": ["cy", "dee"]})
    assert whole.status_code == 201 and whole.json()["pit"] is None
    assert (
        floor.post("/api/floor/shifts", "nopit", json={"pit": "pit-a", "on_duty": ["pia"]}).status_code == 403
    )

    # malformed: unknown people, nobody, an extra field, a pit too long
    for body in (
        {"pit": "pit-b", "on_duty": ["ghost"]},
        {"pit": "pit-b", "on_duty": []},
        {"pit": "pit-b", "on_duty": ["pete"], "when": "now"},
        {"pit": "p" * 65, "on_duty": ["pete"]},
    ):
        assert floor.post("/api/floor/shifts", "pete", json=body).status_code == 422, body

    # paul, pia's colleague in pit-a, closes it with the people signing off
    closed = floor.post(
        f"/api/floor/shifts/{shift['id']}/close",
        "paul",
        json={"signed_off": ["pia", "paul"], "note": "quiet"},
    )
    assert closed.status_code == 200, closed.text
    assert {k: closed.json()[k] for k in ("closed_by", "signed_off", "note", "open")} == {
        "closed_by": "paul",
        "signed_off": ["pia", "paul"],
        "note": "quiet",
        "open": False,
    }
    twice = floor.post(f"/api/floor/shifts/{shift['id']}/close", "pia", json={"signed_off": ["pia"]})
    assert twice.status_code == 409 and twice.json()["error"] == "shift-closed"
    assert floor.post("/api/floor/shifts/999/close", "dee", json={"signed_off": ["dee"]}).status_code == 404
    assert (
        floor.post(f"/api/floor/shifts/{shift['id']}/close", "dee", json={"signed_off": []}).status_code
        == 422
    )


@SQLITE_ONLY
def test_shifts_are_listed_within_the_persons_scope(floor: Floor):
    a = floor.post("/api/floor/shifts", "pia", json={"pit": "pit-a", "on_duty": ["pia"]}).json()["id"]
    b = floor.post("/api/floor/shifts", "pete", json={"pit": "pit-b", "on_duty": ["pete"]}).json()["id"]
    whole = floor.post("/api/floor/shifts", "dee", json={"on_duty": ["dee"]}).json()["id"]

    def listed(who: str, **params) -> list[int]:
        answer = floor.get("/api/floor/shifts", who, params=params)
        assert answer.status_code == 200, answer.text
        return [s["id"] for s in answer.json()]

    assert listed("cy") == listed("dee") == sorted([a, b, whole], reverse=True)
    assert listed("pia") == sorted([a, whole], reverse=True)  # their pit's and the floor's
    assert listed("pete") == sorted([b, whole], reverse=True)
    floor.post(f"/api/floor/shifts/{b}/close", "pete", json={"signed_off": ["pete"]})
    assert listed("cy", open="true") == sorted([a, whole], reverse=True)
    assert floor.get(f"/api/floor/shifts/{a}", "pia").json()["on_duty"] == ["pia"]
    assert floor.get(f"/api/floor/shifts/{b}", "pia").status_code == 404  # another pit's
    assert floor.get("/api/floor/shifts", "dan").status_code == 403  # a dealer


@SQLITE_ONLY
def test_a_key_waiting_for_a_second_admin_opens_no_shift(floor: Floor):
    with unit_of_work(floor.engine) as session:
        token = add_user(session, name="newpit", role="pit", keyed_by="dee", confirmed=False)
        row = session.exec(select(User).where(User.name == "newpit")).one()
        row.pit = "pit-a"
        session.add(row)
    refused = floor.client.post(
        "/api/floor/shifts",
        headers={"Authorization": f"Bearer {token}"},
        json={"pit": "pit-a", "on_duty": ["pia"]},
    )
    assert refused.status_code == 403 and refused.json()["error"] == "unconfirmed-key"
    with read_snapshot(floor.engine) as session:
        assert list_shifts(session) == []


@SQLITE_ONLY
def test_the_openapi_document_lists_who_may_call_each_shift_and_report_operation(floor: Floor):
    paths = floor.client.get("/openapi.json").json()["paths"]
    assert paths["/api/floor/shifts"]["post"]["x-roles"] == ["admin", "pit"]
    assert paths["/api/floor/shifts/{shift_id}/close"]["post"]["x-roles"] == ["admin", "pit"]
    assert paths["/api/floor/shifts"]["get"]["x-roles"] == ["admin", "pit", "surveillance"]
    for path in ("/api/floor/reports/day", "/api/floor/reports/shift/{shift_id}.pdf"):
        assert paths[path]["get"]["x-roles"] == ["pit", "surveillance"]
