"""Typed errors of the store. Every refusal names what was wrong; nothing falls back silently."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error raised by ``table_controller.storage``."""


class UnsupportedDatabaseURLError(StorageError, ValueError):
    """A database URL the store cannot use (unknown scheme or driver, or not a URL at all)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"unsupported database URL {url!r}: {reason}")
        self.url = url
        self.reason = reason


class StoreUnavailableError(StorageError):
    """The store cannot be reached or opened (server down, wrong credentials, unreadable file)."""


class StoreNotFoundError(StoreUnavailableError):
    """A command that only reads (``audit verify``) was pointed at a store that does not exist."""


class SchemaVersionError(StorageError):
    """The database schema is not at the revision this code expects (migrate it first)."""

    def __init__(self, current: str | None, expected: str) -> None:
        shown = current or "empty (no schema)"
        super().__init__(f"database schema is at revision {shown}, this program needs {expected}")
        self.current = current
        self.expected = expected


class InvalidFieldError(StorageError, ValueError):
    """A value the store refuses: a malformed id, kind, actor or name, a float, a naive time."""


class InvalidTimeError(InvalidFieldError):
    """A time the store cannot keep exactly: naive (no zone) or not a datetime."""


class InvalidEventError(InvalidFieldError):
    """An event payload that cannot be stored as given (not a JSON object, a float, bad text)."""


class ChainConflictError(StorageError):
    """Another writer stored the same (table, seq): the append is refused, the chain did not fork."""


class ChainHeadMismatchError(StorageError):
    """The table's chain head and its last stored event disagree: the chain is broken, appends stop.

    Run ``table-controller audit verify`` to name the broken link.
    """


class StoredValueError(Exception):
    """A read met a stored value the store never writes (a time with a zone, a payload that is not
    JSON, money that is not an integer, ...): the record was edited behind the store's back.
    ``findings`` names each such row (storage/forged.py); ``cause`` is what the read raised.
    Not a StorageError: the store answered, it is the record that cannot be read."""

    def __init__(self, cause: str, findings: list[str]) -> None:
        first = findings[0] if findings else cause
        super().__init__(f"a stored value cannot be read (edited behind the store's back?): {first}")
        self.cause = cause
        self.findings = findings


class InvalidRoundError(InvalidFieldError):
    """A round or position projection that would be inconsistent (dice, cards, void reason)."""


class RoundNotFoundError(StorageError, LookupError):
    """No round (or no position of a round) with that id."""


class RoundClosedError(StorageError):
    """A closed round is final: its projection is never written again (a round settles once)."""


class RoundChangedError(StorageError):
    """The stored round is not in the phase the writer read it in: another process (the console)
    recorded a step of it meanwhile. Nothing is written; the writer reads the round again."""


class PositionExistsError(StorageError):
    """The position already has a row in this round."""


def is_outage(error: BaseException) -> bool:
    """True when the database went away, is locked by another process, or timed out: the
    write did not happen (or cannot be known to have happened) and may be tried again once
    the store answers. Anything else is a refusal or a bug, never retried blindly."""
    from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeoutError

    return isinstance(
        error,
        StoreUnavailableError | OperationalError | InterfaceError | DisconnectionError | PoolTimeoutError,
    )
