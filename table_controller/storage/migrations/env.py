"""Alembic environment of the store.

Run programmatically by :func:`table_controller.storage.migrate.upgrade_to_head`, which hands
over an open connection in ``config.attributes["connection"]``. Developers may also run the
``alembic`` command with ``table_controller/storage/alembic.ini`` and ``TABLE_DB_URL`` set.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlmodel.sql.sqltypes import AutoString

from table_controller.storage.engine import make_engine
from table_controller.storage.models import SQLModel, UTCDateTime

config = context.config
target_metadata = SQLModel.metadata


def _render_item(type_: str, obj: Any, _autogen_context: AutogenContext) -> str | Literal[False]:
    """Render model-only types as plain SQLAlchemy ones, so scripts never import the models."""
    if type_ == "type" and isinstance(obj, AutoString):
        return f"sa.String(length={obj.length})" if obj.length else "sa.String()"
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection: Any) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_item=_render_item,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = os.environ.get("TABLE_DB_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("set TABLE_DB_URL to the database to migrate")
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run against a database")
run_migrations_online()
