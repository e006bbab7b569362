"""``table-controller users`` on the stores it is pointed at (docs/api.md, "Who sees what"): a
tired operator's repeat is named, not chained again; a floor's database gets no stray table
chain from a person added there; a dealer is never scoped to a table the store does not know."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text
from typer.testing import CliRunner

from table_controller.cli.users import app as users_app
from table_controller.storage import list_events, unit_of_work
from table_controller.storage.floor_tables import register_table
from table_controller.storage.session import read_snapshot


def _run(engine, *args: str, table: str = "t9"):
    where = ["--db-url", engine.url.render_as_string(hide_password=False)]
    return CliRunner().invoke(users_app, [*args, *where], env={"TABLE_TABLE_ID": table})


def _chains(engine) -> set[str]:
    with read_snapshot(engine) as session:
        return {row[0] for row in session.execute(text("SELECT table_id FROM chain_heads"))}


def test_disabling_a_disabled_person_says_so_and_chains_nothing(engine):
    assert _run(engine, "add", "bob", "--role", "pit").exit_code == 0
    assert _run(engine, "disable", "bob").exit_code == 0
    again = _run(engine, "disable", "bob")
    assert again.exit_code == 1 and "not changed: bob is already disabled" in again.stderr
    with read_snapshot(engine) as session:
        kinds = [e.kind for e in list_events(session, table_id="people")]
        at_table = [e.kind for e in list_events(session, table_id="t9")]
    assert kinds.count("user.disabled") == 1 and at_table.count("user.disabled") == 1


def test_a_person_added_on_a_floors_database_makes_no_stray_table_chain(engine):
    with unit_of_work(engine) as session:
        for table in ("PG-1", "PG-2"):
            register_table(
                session,
                table_id=table,
                pit="pit-a",
                game="standard",
                house_way="casino-a",
                api_url=None,
                now=datetime(2026, 12, 4, tzinfo=UTC),
            )
    assert _run(engine, "add", "ann", "--role", "dealer", "--table", "PG-2", table="t1").exit_code == 0
    assert _run(engine, "add", "bob", "--role", "pit", "--pit", "pit-a", table="t1").exit_code == 0
    assert "t1" not in _chains(engine)  # no table t1 on this floor: nothing chained as if there were
    assert "people" in _chains(engine)  # the people chain has both
    unknown = _run(engine, "scope", "ann", "--table", "PG-3", table="t1")
    assert unknown.exit_code == 1
    assert "no table PG-3 in this store (its tables: PG-1, PG-2)" in unknown.stderr
