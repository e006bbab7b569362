"""A forged stored value never makes a read answer 500 (docs/api.md, "A forged stored value").

An insider with the database owner's rights rewrites one value behind the store's back: an
event's ``created_at`` as ``2026-01-01T00:00:00+02:00`` or ``garbage``, a payload that is not JSON,
a ``round_positions.cards`` holding a code no deck has, money that is not an integer. Every read
of the table's API then answers either 200 (the row does not stop it; a round whose stored row
disagrees with its chain carries ``record_findings``) or 409 ``record-unreadable`` naming the
row, never a 500 or a 422 blaming the request.

On SQLite every forgery is possible (times are text, any column takes any type). On PostgreSQL a
``timestamptz`` holds any moment, not text, and an integer column holds integers only: those
forgeries are refused by the database itself, which is asserted too.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import DataError

from table_controller.api import create_app
from table_controller.settings import TableSettings

from ..storage.helpers import tamper
from .conftest import LOOPBACK, Api, play_round

_FORGE_TIME = "UPDATE events SET created_at = :t WHERE table_id = 't1' AND seq = :s"
DAY = datetime.now(UTC).date().isoformat()
START = (datetime.now(UTC) - timedelta(days=1)).isoformat()
END = (datetime.now(UTC) + timedelta(days=1)).isoformat()


def _reads(round_id: str) -> list[tuple[str, str, dict[str, str]]]:
    """(role, path, query) of every read of the table's API that touches the stored rows."""
    return [
        ("pit", "/api/rounds", {}),
        ("pit", f"/api/rounds/{round_id}", {}),
        ("pit", f"/api/rounds/{round_id}/replay", {}),
        ("pit", "/api/alerts", {}),
        ("surveillance", "/api/devices/events", {}),
        ("pit", "/api/reports/day", {"date": DAY}),
        ("pit", "/api/reports/day.csv", {"date": DAY}),
        ("pit", "/api/reports/shift", {"start": START, "end": END}),
        ("pit", "/api/reports/shift.csv", {"start": START, "end": END}),
        ("pit", "/api/table", {}),
        ("pit", "/api/approvals", {}),
        ("pit", "/api/audit/checkpoints", {}),
        ("pit", "/api/analysis/today", {}),
        ("pit", "/api/table/rules", {}),
    ]


def _answers(api: Api, round_id: str) -> dict[str, tuple[int, dict | str]]:
    found = {}
    for role, path, query in _reads(round_id):
        answer = api.get(path, role, params=query)  # the in-process client raises a server error
        body = answer.json() if "json" in answer.headers.get("content-type", "") else answer.text
        found[path] = (answer.status_code, body)
    return found


def _never_a_crash(answers: dict[str, tuple[int, dict | str]], named: str) -> list[str]:
    """Each answer is 200, or 409 ``record-unreadable`` whose findings name the forged row;
    returns the paths that answered 409."""
    refused = []
    for path, (status, body) in answers.items():
        assert status in (200, 409), (path, status, body)
        if status == 409:
            assert isinstance(body, dict) and body["error"] == "record-unreadable", (path, body)
            assert any(line.startswith(named) for line in body["findings"]), (path, body)
            assert named in body["detail"]
            refused.append(path)
    return refused


def _seq(api: Api, round_id: str, kind: str) -> int:
    with api.engine.connect() as connection:
        return connection.execute(
            text("SELECT min(seq) FROM events WHERE table_id = 't1' AND round_id = :r AND kind = :k"),
            {"r": round_id, "k": kind},
        ).scalar_one()


@pytest.mark.parametrize("forged", ["2026-01-01T00:00:00+02:00", "garbage"])
def test_an_events_time_forged_is_named_never_a_crash(api: Api, forged: str):
    round_id = play_round(api, how="override")
    seq = _seq(api, round_id, "round.opened")
    if api.engine.dialect.name == "postgresql":
        if forged == "garbage":
            with pytest.raises(DataError):  # a timestamptz refuses text that is not a time
                tamper(api.engine, _FORGE_TIME, t=forged, s=seq)
            return
        # PostgreSQL takes it as a moment (two hours earlier): a hash-mismatch for audit verify,
        # nothing a read cannot show
        tamper(api.engine, _FORGE_TIME, t=forged, s=seq)
        assert _never_a_crash(_answers(api, round_id), "-") == []
        return
    tamper(api.engine, _FORGE_TIME, t=forged, s=seq)
    named = f"table t1, seq {seq} (round.opened): created_at stored as {forged!r}: not a time the store"
    refused = _never_a_crash(_answers(api, round_id), named)
    assert f"/api/rounds/{round_id}" in refused and f"/api/rounds/{round_id}/replay" in refused


@pytest.mark.parametrize("kind", ["round.settled", "alert.raised"])
def test_a_payload_that_is_not_json_is_named_never_a_crash(api: Api, kind: str):
    round_id = play_round(api, how="override")  # the override raises an alert of the round
    seq = _seq(api, round_id, kind)
    tamper(api.engine, "UPDATE events SET payload = 'not json' WHERE table_id = 't1' AND seq = :s", s=seq)
    named = f"table t1, seq {seq} ({kind}): payload is not JSON"
    refused = _never_a_crash(_answers(api, round_id), named)
    assert f"/api/rounds/{round_id}" in refused
    if kind == "alert.raised":
        assert "/api/alerts" in refused


def test_an_unknown_card_code_is_shown_with_the_round_flagged(api: Api):
    round_id = play_round(api)
    with api.engine.connect() as connection:
        chained = connection.execute(
            text("SELECT cards FROM round_positions WHERE round_id = :r AND position = 3"), {"r": round_id}
        ).scalar_one()
    forged = "Zz " + chained.split(" ", 1)[1]
    with api.engine.begin() as connection:
        connection.execute(
            text("UPDATE round_positions SET cards = :c WHERE round_id = :r AND position = 3"),
            {"c": forged, "r": round_id},
        )
    answers = _answers(api, round_id)
    assert _never_a_crash(answers, "-") == []
    _status, detail = answers[f"/api/rounds/{round_id}"]
    assert isinstance(detail, dict)
    assert detail["record_findings"] == [
        f"round {round_id} position 3: cards: chained {chained!r}, stored {forged!r}"
    ]


def test_the_bankers_cards_forged_flag_the_round_and_derive_no_house_way(api: Api):
    round_id = play_round(api)
    with api.engine.begin() as connection:
        connection.execute(
            text("UPDATE round_positions SET cards = 'Zz Qq' WHERE round_id = :r AND position = 1"),
            {"r": round_id},
        )
    status, detail = _answers(api, round_id)[f"/api/rounds/{round_id}"]
    assert status == 200 and isinstance(detail, dict)
    assert detail["house_way"] is None  # never derived from cards the chain does not hold
    named = f"round {round_id} position 1: cards: chained "
    assert any(line.startswith(named) for line in detail["record_findings"])


def test_a_clean_round_has_no_findings(api: Api):
    round_id = play_round(api)
    status, detail = _answers(api, round_id)[f"/api/rounds/{round_id}"]
    assert status == 200 and isinstance(detail, dict) and detail["record_findings"] == []
    assert detail["house_way"] is not None


@pytest.mark.parametrize(
    ("table", "column", "forged", "shown"),
    [
        ("rounds", "wagered_cents", "'abc'", "'abc' (text)"),
        ("round_positions", "net_cents", "12.5", "12.5 (real)"),
    ],
)
def test_money_that_is_not_an_integer_is_named_never_a_crash(api: Api, table, column, forged, shown):
    round_id = play_round(api)
    where = "round_id = :r" + (" AND position = 3" if table == "round_positions" else "")
    statement = f"UPDATE {table} SET {column} = {forged} WHERE {where}"
    if api.engine.dialect.name == "postgresql" and forged == "'abc'":
        with pytest.raises(DataError), api.engine.begin() as connection:  # an integer column holds integers
            connection.execute(text(statement), {"r": round_id})
        return
    if api.engine.dialect.name == "postgresql":  # 12.5 is kept as the integer 13: another amount
        with api.engine.begin() as connection:
            connection.execute(text(statement), {"r": round_id})
        answers = _answers(api, round_id)
        assert _never_a_crash(answers, "-") == []
        detail = answers[f"/api/rounds/{round_id}"][1]
        assert isinstance(detail, dict)
        # position 3 won 2500, commission 125: net 2375 (tests/test_record_evidence.py)
        assert f"round {round_id} position 3: net_cents: chained 2375, stored 13" in detail["record_findings"]
        return
    with api.engine.begin() as connection:
        connection.execute(text(statement), {"r": round_id})
    key = round_id if table == "rounds" else f"{round_id}/3"
    named = f"{table} row {key}: {column} stored as {shown}: not an integer"
    refused = _never_a_crash(_answers(api, round_id), named)
    assert f"/api/rounds/{round_id}" in refused


def test_a_projection_time_forged_is_named_never_a_crash(api: Api):
    round_id = play_round(api)
    if api.engine.dialect.name == "postgresql":
        pytest.skip("a timestamptz holds no text to forge (the events test shows PostgreSQL refusing it)")
    with api.engine.begin() as connection:
        connection.execute(
            text("UPDATE rounds SET opened_at = '2026-01-01T00:00:00+02:00' WHERE round_id = :r"),
            {"r": round_id},
        )
    named = f"rounds row {round_id}: opened_at stored as '2026-01-01T00:00:00+02:00'"
    refused = _never_a_crash(_answers(api, round_id), named)
    assert {"/api/rounds", f"/api/rounds/{round_id}"} <= set(refused)


@pytest.mark.parametrize("forged", ["created_at", "payload"])
def test_the_live_stream_sends_a_forged_row_as_unreadable_and_goes_on(api: Api, forged: str):
    """The stream (and its resume) never stalls on one forged row: the row comes in its place as
    ``record.unreadable`` with its seq and hashes and the finding, then the rows after it."""
    round_id = play_round(api)
    seq = _seq(api, round_id, "dice.rolled")
    if forged == "created_at":
        if api.engine.dialect.name == "postgresql":
            pytest.skip("a timestamptz holds no text to forge")
        tamper(api.engine, _FORGE_TIME, t="garbage", s=seq)
    else:
        tamper(api.engine, "UPDATE events SET payload = '[1]' WHERE table_id = 't1' AND seq = :s", s=seq)
    api.service.set_table_open(False, actor="bob")  # one more event after the forged one
    with api.engine.connect() as connection:
        head, stored_hash = connection.execute(
            text(
                "SELECT max(seq), (SELECT hash FROM events WHERE table_id = 't1' AND seq = :s) FROM events"
                " WHERE table_id = 't1'"
            ),
            {"s": seq},
        ).one()
    # a terminal resuming from the store (a fresh hub: the running one buffered the rows before
    # they were forged)
    app = create_app(TableSettings(table_id="t1"), api.service, api.engine, poll_interval=0.02)
    with TestClient(app, client=LOOPBACK) as client:
        answer = client.get(
            "/api/stream", headers=api.headers("surveillance"), params={"after": 0, "follow": "false"}
        )
    assert answer.status_code == 200
    frames = [
        json.loads(line[len("data: ") :]) for line in answer.text.splitlines() if line.startswith("data: ")
    ]
    assert [frame["seq"] for frame in frames] == list(range(1, head + 1))  # none missing, none stalled
    unread = frames[seq - 1]
    assert (unread["kind"], unread["hash"]) == ("record.unreadable", stored_hash)
    assert unread["payload"]["stored_kind"] == "dice.rolled"
    assert unread["payload"]["finding"].startswith(f"table t1, seq {seq}: a stored value cannot be read: ")
    assert all(frame["kind"] != "record.unreadable" for frame in frames if frame["seq"] != seq)
