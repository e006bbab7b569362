"""The floor's row of one table (storage/floor_tables.py), on both backends."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from table_controller.storage import FloorTable, read_snapshot, unit_of_work
from table_controller.storage.floor_tables import find_floor_table, register_table

from .helpers import T0, at


def test_find_floor_table_is_the_tables_row_or_none(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        register_table(
            session, table_id="PG-3", pit="pit-a", game="standard", house_way="hw-1", api_url=None, now=T0
        )
        register_table(
            session,
            table_id="PG-4",
            pit=None,
            game="standard",
            house_way="hw-2",
            api_url="http://pg-4:8080/",
            now=at(60),
        )
    with read_snapshot(engine) as session:  # table models: read while the session holds them
        found = find_floor_table(session, table_id="PG-4")
        assert isinstance(found, FloorTable)
        assert (found.table_id, found.pit, found.house_way, found.api_url) == (
            "PG-4",
            None,
            "hw-2",
            "http://pg-4:8080/",
        )
        assert found.started_at == found.seen_at == at(60)
        assert find_floor_table(session, table_id="PG-9") is None
