"""Migrations: up from empty, idempotent, the migrated schema equals the models, money is BIGINT."""

from __future__ import annotations

import subprocess
import sys

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import BigInteger, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from table_controller.storage import (
    SchemaVersionError,
    append_event,
    check_schema_current,
    current_revision,
    head_revision,
    unit_of_work,
    upgrade_to_head,
)
from table_controller.storage.migrate import alembic_config

TABLES = {"events", "chain_heads", "rounds", "round_positions"}


def test_upgrade_from_empty_creates_every_table(empty_engine: Engine) -> None:
    assert current_revision(empty_engine) is None
    assert upgrade_to_head(empty_engine) == head_revision()
    assert set(inspect(empty_engine).get_table_names()) >= TABLES
    assert current_revision(empty_engine) == head_revision()


def test_upgrade_is_idempotent(engine: Engine) -> None:
    with unit_of_work(engine) as session:
        append_event(session, table_id="PG-3", round_id=None, kind="table.opened", actor="system", payload={})
    assert upgrade_to_head(engine) == head_revision()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM events")).scalar() == 1


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diffs = compare_metadata(context, SQLModel.metadata)
    assert diffs == []


def test_schema_check_refuses_an_unmigrated_database(empty_engine: Engine) -> None:
    with pytest.raises(SchemaVersionError, match="empty"):
        check_schema_current(empty_engine)
    upgrade_to_head(empty_engine)
    assert check_schema_current(empty_engine) == head_revision()


def test_downgrade_to_base_and_up_again(engine: Engine) -> None:
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert not set(inspect(engine).get_table_names()) & TABLES
    upgrade_to_head(engine)
    assert set(inspect(engine).get_table_names()) >= TABLES


def test_money_columns_are_bigint_in_models_and_database(engine: Engine) -> None:
    inspector = inspect(engine)
    money = 0
    # A round settled without its theoretical win shows it as missing, never as 0 (docs/math.md).
    may_be_missing = {("rounds", "theoretical_win_cents")}
    # A house-banked round has no player's bank: its bank columns are NULL, not 0 (migration 0006).
    may_be_missing |= {
        ("rounds", name)
        for name in (
            "bank_cents",
            "house_wager_cents",
            "bank_gross_cents",
            "bank_commission_cents",
            "banker_result_cents",
            "house_hand_result_cents",
        )
    }
    for table in SQLModel.metadata.sorted_tables:
        reflected = {column["name"]: column for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name.endswith("_cents"):
                money += 1
                assert isinstance(column.type, BigInteger), column
                assert str(reflected[column.name]["type"]).upper() == "BIGINT", column
                nullable = (table.name, column.name) in may_be_missing
                assert reflected[column.name]["nullable"] is nullable, column
    # rounds: 5 totals, theoretical win, 6 of a player's bank, 3 of the side wagers (0009);
    # round_positions: 3 wagers, win, commission, bonus paid, net, 2 side wagers and their 3
    # results (0009); the accounting (0008): a count's and a slip's value, a drop amount, a named
    # line's amount, a reconciliation's 5 figures; the ratings (0010): a rating's 8 figures, a
    # buy-in's amount
    assert money == 27 + 9 + 9


@pytest.mark.parametrize("statement", ["UPDATE events SET payload = '{}'", "DELETE FROM events"])
def test_the_event_log_refuses_updates_and_deletes(engine: Engine, statement: str) -> None:
    with unit_of_work(engine) as session:
        append_event(
            session, table_id="PG-3", round_id=None, kind="table.opened", actor="system", payload={"a": 1}
        )
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
        connection.execute(text(statement))
    with engine.connect() as connection:
        assert connection.execute(text("SELECT payload FROM events")).scalar() == '{"a":1}'


@pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)  # SQLite has no TRUNCATE
def test_the_event_log_refuses_truncate_on_postgres(engine: Engine) -> None:
    with pytest.raises(DBAPIError, match="append-only"), engine.begin() as connection:
        connection.execute(text("TRUNCATE events"))


_MIGRATOR = (
    "import sys; from table_controller.storage import upgrade_to_head; print(upgrade_to_head(sys.argv[1]))"
)


@pytest.mark.slow
def test_daemons_starting_together_all_find_the_schema_at_head(empty_engine: Engine) -> None:
    url = empty_engine.url.render_as_string(hide_password=False)
    daemons = [
        subprocess.Popen(
            [sys.executable, "-c", _MIGRATOR, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    outcomes = [daemon.communicate(timeout=60) for daemon in daemons]
    assert [(daemon.returncode, out) for daemon, (out, _) in zip(daemons, outcomes, strict=True)] == [
        (0, f"{head_revision()}\n")
    ] * 3, [err for _, err in outcomes]
    assert current_revision(empty_engine) == head_revision()
