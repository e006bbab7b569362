"""The store a maintenance command works on (``users add``, ``round void``): the one the daemon
uses, named by ``--data-dir`` (SQLite), ``--db-url`` (PostgreSQL) or, with neither, the
settings'. The options and their one way of opening it, shared by those commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.engine import Engine

from ..settings import TableSettings, load_settings
from ..storage import open_store, store_url
from ..storage.errors import StorageError

DataDirOption = Annotated[Path | None, typer.Option("--data-dir", help="the table's data folder (SQLite)")]
DbUrlOption = Annotated[str | None, typer.Option("--db-url", help="a PostgreSQL URL")]
ConfigOption = Annotated[Path | None, typer.Option("--config", help="the table's TOML settings")]


def open_command_store(
    config: Path | None, data_dir: Path | None, db_url: str | None
) -> tuple[TableSettings, str, Engine]:
    """The settings, the store's URL and its engine (migrated); exit status 2 when it cannot be had."""
    if data_dir is not None and db_url is not None:
        raise typer.BadParameter("give --data-dir or --db-url, not both")
    try:
        settings = load_settings(config, data_dir=data_dir, db_url=db_url)
        if db_url:
            url = store_url(db_url=db_url)
        elif data_dir:
            url = store_url(data_dir=data_dir)
        else:
            url = settings.database_url
        return settings, url, open_store(url)
    except (ValueError, OSError, StorageError) as error:
        typer.echo(f"cannot open the store: {error}", err=True)
        raise typer.Exit(2) from None


__all__ = ["ConfigOption", "DataDirOption", "DbUrlOption", "open_command_store"]
