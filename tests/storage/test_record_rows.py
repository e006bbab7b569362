"""The record's rows as stored (storage/record_rows.py), on both backends: the round and
position projections by round, every user row, every stored rules content."""

from __future__ import annotations

import hashlib

from sqlalchemy.engine import Engine

from table_controller.game.cards import Game
from table_controller.storage import (
    RoundCreate,
    RoundPositionCreate,
    add_positions,
    add_user,
    create_round,
    keep_evidence,
    read_snapshot,
    unit_of_work,
)
from table_controller.storage.models import Round, RoundPosition
from table_controller.storage.record_rows import evidence_rows, round_projections, user_rows
from table_controller.storage.rules_store import Evidence
from table_controller.storage.users import User

from .helpers import T0


def _round(engine: Engine, table_id: str, seats: dict[int, int]) -> str:
    """A new round of ``table_id`` with its positions seated (position: main wager in cents)."""
    with unit_of_work(engine) as session:
        data = RoundCreate(table_id=table_id, game=Game.STANDARD, dealer="ann", phase="betting", opened_at=T0)
        round_id = create_round(session, data=data).round_id
        add_positions(
            session,
            round_id=round_id,
            seats=[RoundPositionCreate(position=p, wager_cents=c) for p, c in seats.items()],
        )
    return round_id


def test_round_projections_by_round_of_every_table_one_table_or_some_rounds(engine: Engine) -> None:
    assert _round(engine, "PG-3", {1: 0, 2: 500}) == "PG-3-1"
    assert _round(engine, "PG-3", {1: 0}) == "PG-3-2"
    assert _round(engine, "PG-4", {1: 0, 3: 2500}) == "PG-4-1"

    def read(
        table_id: str | None = None, round_ids: list[str] | None = None
    ) -> tuple[list[str], dict[str, list[int]]]:
        with read_snapshot(engine) as session:  # table models: read while the session holds them
            rounds, positions = round_projections(session, table_id=table_id, round_ids=round_ids)
            assert all(isinstance(row, Round) and row.round_id == key for key, row in rounds.items())
            assert all(
                isinstance(row, RoundPosition) and (row.round_id, row.position) == (key, position)
                for key, seated in positions.items()
                for position, row in seated.items()
            )
        return sorted(rounds), {key: sorted(seated) for key, seated in positions.items()}

    assert read() == (["PG-3-1", "PG-3-2", "PG-4-1"], {"PG-3-1": [1, 2], "PG-3-2": [1], "PG-4-1": [1, 3]})
    assert read(table_id="PG-3") == (["PG-3-1", "PG-3-2"], {"PG-3-1": [1, 2], "PG-3-2": [1]})
    assert read(table_id="PG-3", round_ids=["PG-3-2", "PG-4-1"]) == (["PG-3-2"], {"PG-3-2": [1]})
    assert read(round_ids=["PG-4-1"]) == (["PG-4-1"], {"PG-4-1": [1, 3]})
    assert read(table_id="PG-9") == ([], {})
    with read_snapshot(engine) as session:
        _, positions = round_projections(session)
        assert (positions["PG-3-1"][2].wager_cents, positions["PG-4-1"][3].wager_cents) == (500, 2500)


def test_user_rows_are_every_person_as_stored(engine: Engine) -> None:
    with read_snapshot(engine) as session:
        assert user_rows(session) == []
    with unit_of_work(engine) as session:
        add_user(session, name="bob", role="pit", now=T0)
        add_user(session, name="ann", role="admin", now=T0)
    with read_snapshot(engine) as session:
        rows = user_rows(session)
        assert all(isinstance(row, User) for row in rows)
        assert sorted((row.name, row.role) for row in rows) == [("ann", "admin"), ("bob", "pit")]


def test_evidence_rows_are_every_stored_rules_content(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        keep_evidence(session, table_id="PG-3", kind="house-way", name="standard", content=b"way one")
        keep_evidence(session, table_id="PG-3", kind="paytable", name="main", content=b"pays")
        # the same bytes again, from another table: kept once
        keep_evidence(session, table_id="PG-4", kind="house-way", name="standard", content=b"way one")
    with read_snapshot(engine) as session:
        rows = evidence_rows(session)
        assert all(isinstance(row, Evidence) for row in rows)
        assert sorted((row.kind, row.name, bytes(row.content), row.sha256) for row in rows) == [
            ("house-way", "standard", b"way one", hashlib.sha256(b"way one").hexdigest()),
            ("paytable", "main", b"pays", hashlib.sha256(b"pays").hexdigest()),
        ]
