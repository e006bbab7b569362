"""The floor service's settings: one validated object (pydantic-settings), as the table's
(settings.py) and read the same way (docs/floor.md, "Running the floor").

Where a value comes from, strongest first: a command-line flag, a ``FLOOR_`` environment
variable (nested with ``__``: ``FLOOR_HTTP__ALLOW_PLAIN_HTTP=true``), the TOML file given with
``--config``, then the defaults below. Unknown keys and unsafe values are refused at start with
the field named. ``db_url`` has no default: the floor reads the store its tables write to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from ..settings import AccountingSettings, HttpSettings, TableSettings, flags_env_toml, read_settings

DEFAULT_PORT = 8090
_PIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}")  # as TableSettings.pit
_TABLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")  # as TableSettings.table_id
MAP_ROWS = 20  # a pit map's rows and places per row at most


class FloorSettings(BaseSettings):
    """Everything ``table-controller floor`` needs: the tables' store and how to serve it."""

    model_config = SettingsConfigDict(
        env_prefix="FLOOR_", env_nested_delimiter="__", extra="forbid", frozen=True
    )

    db_url: str  # the store every table of the floor writes to (PostgreSQL; SQLite for one table)
    read_db_url: str | None = None  # a read-only replica for the floor's reads (docs/floor.md)
    # a read from read_db_url more than this far behind the primary says so in the answer
    # (docs/floor-replica.md, "How lag is shown"), as at a table
    read_lag_warn_seconds: float = Field(default=5.0, gt=0)
    host: str = "127.0.0.1"
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)  # 0: any free port (tests)
    # floor processes on the one port, each a whole floor (floor/workers.py; docs/floor.md)
    workers: int = Field(default=1, ge=1, le=64)
    time_zone: str = "UTC"  # IANA zone of the gaming day: "today" on the tables overview
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    http: HttpSettings = HttpSettings()
    # a table whose daemon has not refreshed its floor row (seen_at) for this long is shown as
    # not answering; its daemon's heartbeat is more frequent than this
    stale_after: float = Field(default=30.0, gt=0, le=3_600)
    poll_interval: float = Field(default=0.25, gt=0, le=10)  # seconds between the stream's looks at the store
    # the gaming day of the floor's reports and where a variance is flagged: the same keys as a
    # table's [accounting] (settings.AccountingSettings), set alike on the floor and its tables
    accounting: AccountingSettings = AccountingSettings()
    # the pit map (docs/floor.md, "The pit map"): per pit, its tables row by row as they stand in
    # the pit, "" an empty place; a pit's tables left out are shown after its rows
    layout: dict[str, list[list[str]]] = Field(default_factory=dict)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return flags_env_toml(settings_cls, init_settings, env_settings)

    # The same checks as a table's, one definition (settings.TableSettings).
    _time_zone = field_validator("time_zone")(TableSettings._time_zone.__func__)  # type: ignore[attr-defined]
    _db_url = field_validator("db_url", "read_db_url")(TableSettings._db_url.__func__)  # type: ignore[attr-defined]

    @field_validator("layout")
    @classmethod
    def _layout(cls, value: dict[str, list[list[str]]]) -> dict[str, list[list[str]]]:
        placed: dict[str, str] = {}
        for pit, rows in value.items():
            if not _PIT.fullmatch(pit):
                raise ValueError(f"layout: pit {pit!r} is not a pit's name (letters, digits, ' _.-')")
            if len(rows) > MAP_ROWS or any(len(row) > MAP_ROWS for row in rows):
                raise ValueError(f"layout: pit {pit!r} has more than {MAP_ROWS} rows or places in a row")
            for table_id in (place for row in rows for place in row if place != ""):
                if not _TABLE.fullmatch(table_id):
                    raise ValueError(f"layout: {table_id!r} in pit {pit!r} is not a table id")
                if table_id in placed:
                    raise ValueError(
                        f"layout: table {table_id!r} is placed twice ({placed[table_id]!r}, {pit!r})"
                    )
                placed[table_id] = pit
        return value

    @model_validator(mode="after")
    def _replica_differs(self) -> FloorSettings:
        if self.read_db_url is not None and self.read_db_url == self.db_url:
            raise ValueError("read_db_url is the primary itself: leave it out to read the primary")
        return self


def load_floor_settings(config_file: Path | None = None, **overrides: Any) -> FloorSettings:
    """Settings from flags (``overrides``), the environment and the TOML file, in that order.
    Raises ``FileNotFoundError`` for a config file that does not exist, pydantic's
    ``ValidationError`` (a ``ValueError``) naming every bad field."""
    if config_file is not None and not Path(config_file).is_file():
        raise FileNotFoundError(f"no config file {config_file}")

    return read_settings(FloorSettings, config_file, overrides)


__all__ = ["DEFAULT_PORT", "FloorSettings", "load_floor_settings"]
