"""A forged stored value never makes a floor read answer 500 (docs/api.md, "A forged stored
value"): the tables, a table's rounds, a round and its replay, the alerts, and the reports as
JSON, CSV, the printable page and the PDF answer 200 or 409 ``record-unreadable`` naming the row.
SQLite and PostgreSQL (PostgreSQL refuses the forgeries a typed column cannot hold)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from ..storage.helpers import tamper
from .conftest import Floor, play

TODAY = datetime.now(UTC).date().isoformat()


def _reads(round_id: str) -> list[tuple[str, dict[str, str]]]:
    return [
        ("/api/floor/tables", {}),
        ("/api/floor/tables/t1/rounds", {}),
        (f"/api/floor/tables/t1/rounds/{round_id}", {}),
        (f"/api/floor/tables/t1/rounds/{round_id}/replay", {}),
        ("/api/floor/alerts", {}),
        ("/api/floor/reports/day", {"day": TODAY, "tz": "UTC"}),
        ("/api/floor/reports/day.csv", {"day": TODAY, "tz": "UTC"}),
        ("/api/floor/reports/day.html", {"day": TODAY, "tz": "UTC"}),
        ("/api/floor/reports/day.pdf", {"day": TODAY, "tz": "UTC"}),
    ]


def _refused(floor: Floor, round_id: str, named: str) -> set[str]:
    refused = set()
    for path, query in _reads(round_id):
        answer = floor.get(path, "cy", params=query)
        assert answer.status_code in (200, 409), (path, answer.status_code, answer.text[:300])
        if answer.status_code == 409:
            body = answer.json()
            assert body["error"] == "record-unreadable", (path, body)
            assert any(line.startswith(named) for line in body["findings"]), (path, body)
            refused.add(path)
    return refused


def test_a_forged_event_time_or_payload_is_named_by_the_floor(floor: Floor):
    round_id = play(floor.services["t1"], how="override")
    with floor.engine.connect() as connection:
        seq = connection.execute(
            text(
                "SELECT min(seq) FROM events WHERE table_id = 't1' AND round_id = :r"
                " AND kind = 'alert.raised'"
            ),
            {"r": round_id},
        ).scalar_one()
    if floor.engine.dialect.name == "sqlite":
        tamper(
            floor.engine,
            "UPDATE events SET created_at = 'garbage' WHERE table_id = 't1' AND seq = :s",
            s=seq,
        )
        named = f"table t1, seq {seq} (alert.raised): created_at stored as 'garbage'"
    else:
        tamper(
            floor.engine, "UPDATE events SET payload = 'not json' WHERE table_id = 't1' AND seq = :s", s=seq
        )
        named = f"table t1, seq {seq} (alert.raised): payload is not JSON"
    refused = _refused(floor, round_id, named)
    assert f"/api/floor/tables/t1/rounds/{round_id}" in refused


@pytest.mark.parametrize("column", ["opened_at", "wagered_cents", "cards"])
def test_a_forged_projection_value_is_named_by_the_floor(floor: Floor, column: str):
    round_id = play(floor.services["t1"])
    sqlite = floor.engine.dialect.name == "sqlite"
    if column != "cards" and not sqlite:
        pytest.skip("PostgreSQL's typed columns refuse it (tests/api/test_forged_values.py shows it)")
    statement = {
        "opened_at": "UPDATE rounds SET opened_at = '2026-01-01T00:00:00+02:00' WHERE round_id = :r",
        "wagered_cents": "UPDATE rounds SET wagered_cents = 'abc' WHERE round_id = :r",
        "cards": "UPDATE round_positions SET cards = 'Zz Qq' WHERE round_id = :r AND position = 3",
    }[column]
    with floor.engine.begin() as connection:
        connection.execute(text(statement), {"r": round_id})
    refused = _refused(floor, round_id, f"rounds row {round_id}: {column} stored as ")
    detail = floor.get(f"/api/floor/tables/t1/rounds/{round_id}", "cy")
    if column == "cards":
        assert not refused
        assert any(
            line.startswith(f"round {round_id} position 3: cards: chained ")
            for line in detail.json()["record_findings"]
        )
    else:
        assert detail.status_code == 409
