"""Fixtures of the daemon tests that run real processes: the store they share with the test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from table_controller.storage import make_engine, sqlite_url

from .processes import Store


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    return Store(["--data-dir", str(tmp_path / "var")], sqlite_url(tmp_path / "var"))


@pytest.fixture
def postgres_store(postgres_url) -> Iterator[Store]:
    schema = f"kill_{uuid.uuid4().hex[:12]}"
    admin = make_engine(postgres_url)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        url = make_url(postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
        rendered = url.render_as_string(hide_password=False)
        yield Store(["--db-url", rendered], rendered)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
