"""Opening the store at start, and the read-only check behind ``audit verify`` (docs/round-lifecycle.md)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from .audit import ChainReport, verify_chain
from .engine import make_engine, redacted, sqlite_path, sqlite_url
from .errors import StorageError, StoreNotFoundError, StoreUnavailableError
from .migrate import check_schema_current, upgrade_to_head
from .session import read_snapshot


def store_url(*, data_dir: Path | None = None, db_url: str | None = None) -> str:
    """The database URL from either a data folder (SQLite) or a URL, never both."""
    if (data_dir is None) == (db_url is None):
        raise ValueError("give exactly one of data_dir and db_url")
    return db_url if db_url is not None else sqlite_url(Path(data_dir))  # type: ignore[arg-type]


def open_store(url: str) -> Engine:
    """An engine on ``url`` with its schema migrated to head: what the daemon calls at start.

    Creates the SQLite file's folder if it is missing.
    """
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    try:
        upgrade_to_head(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def open_read_store(url: str) -> Engine:
    """An engine on a read-only copy of the store (a streaming replica: docs/floor.md, "Reads off
    the primary"). Never migrated: the primary's migrations reach it by replication."""
    return make_engine(url)


def verify_store(url: str) -> ChainReport:
    """Verify every table's chain in the store at ``url`` without writing to it.

    Raises :class:`StoreNotFoundError` if a SQLite file does not exist (nothing is created),
    :class:`StoreUnavailableError` if the database cannot be reached,
    :class:`SchemaVersionError` if the schema is not at this program's revision.
    """
    path = sqlite_path(url)
    if path is not None and not path.is_file():
        raise StoreNotFoundError(f"no store at {path}")
    engine = make_engine(url)
    try:
        try:
            check_schema_current(engine)
        except OperationalError as exc:
            raise StoreUnavailableError(f"cannot open the store at {redacted(url)}: {exc.orig}") from exc
        with read_snapshot(engine) as session:
            return verify_chain(session)
    finally:
        engine.dispose()


EXIT_WHOLE = 0
EXIT_BROKEN = 1
EXIT_NOT_CHECKED = 2


def audit_verify(*, data_dir: Path | None = None, db_url: str | None = None) -> tuple[int, str]:
    """What ``table-controller audit verify [--data-dir DIR | --db-url URL]`` does.

    Returns (exit code, text to print): 0 and a one-line summary when every chain is whole;
    1 and the first broken link of each broken table, the first one first; 2 and the reason
    when the store could not be checked (missing, unreachable, not migrated, bad URL, both
    or neither option given). Never writes to the store.
    """
    try:
        report = verify_store(store_url(data_dir=data_dir, db_url=db_url))
    except (StorageError, ValueError) as exc:
        return EXIT_NOT_CHECKED, f"audit chain NOT CHECKED: {exc}"
    return (EXIT_WHOLE if report.ok else EXIT_BROKEN), report.describe()


__all__ = [
    "EXIT_BROKEN",
    "EXIT_NOT_CHECKED",
    "EXIT_WHOLE",
    "audit_verify",
    "open_store",
    "store_url",
    "verify_store",
]
