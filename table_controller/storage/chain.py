"""The hash chain as pure functions: field checks, canonical JSON, the hashed bytes.

The exact byte layout is specified for auditors in ``docs/audit-chain.md``; this module is
its reference implementation. Nothing here touches a database.

Layout (format ``paigow-audit-v1``): the UTF-8 encoding of nine lines joined by ``\\n``
(no trailing newline)::

    paigow-audit-v1
    <table_id>
    <seq, decimal>
    <round_id, or empty for a table-level event>
    <kind>
    <actor>
    <created_at, YYYY-MM-DDTHH:MM:SS.ffffffZ in UTC>
    <prev_hash, 64 lowercase hex; 64 zeros for seq 1>
    <payload, canonical JSON text exactly as stored>

``hash = sha256(those bytes)`` in lowercase hex. No field may hold a line break (checked
here), so the layout is unambiguous.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from .errors import InvalidEventError, InvalidFieldError, InvalidTimeError

FORMAT_TAG: Final = "paigow-audit-v1"
GENESIS_HASH: Final = "0" * 64

TABLE_ID_MAX: Final = 64
ROUND_ID_MAX: Final = 80
KIND_MAX: Final = 64
ACTOR_MAX: Final = 128

_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_ROUND_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_KIND = re.compile(r"[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")


def _check_pattern(name: str, value: object, pattern: re.Pattern[str], maximum: int, example: str) -> str:
    if not isinstance(value, str):
        raise InvalidFieldError(f"{name} must be a string, got {type(value).__name__}")
    if not value or len(value) > maximum or not pattern.fullmatch(value):
        raise InvalidFieldError(f"{name} {value!r} is not valid: 1..{maximum} characters like {example!r}")
    return value


def check_table_id(value: object) -> str:
    """A table id: letters, digits, ``_ . -``, starting with a letter or digit (``PG-3``)."""
    return _check_pattern("table_id", value, _TABLE_ID, TABLE_ID_MAX, "PG-3")


def check_round_id(value: object) -> str:
    """A round id: letters, digits, ``_ . : -`` (``PG-3-1042``)."""
    return _check_pattern("round_id", value, _ROUND_ID, ROUND_ID_MAX, "PG-3-1042")


def check_kind(value: object) -> str:
    """An event kind: lowercase dotted words (``round.opened``, ``dice.rolled``, ``misdeal``)."""
    return _check_pattern("kind", value, _KIND, KIND_MAX, "round.opened")


def check_name(name: str, value: object) -> str:
    """A person or device name (actor, dealer): no line breaks, no edge spaces, 1..128 chars."""
    if not isinstance(value, str):
        raise InvalidFieldError(f"{name} must be a string, got {type(value).__name__}")
    if not value or len(value) > ACTOR_MAX or value != value.strip() or _CONTROL.search(value):
        raise InvalidFieldError(
            f"{name} {value!r} is not valid: 1..{ACTOR_MAX} characters, no control characters,"
            " no leading or trailing spaces"
        )
    return value


def check_actor(value: object) -> str:
    """Who acted: a user name, ``system``, ``device:shuffler``."""
    return check_name("actor", value)


def check_hash(name: str, value: object) -> str:
    """A SHA-256 digest as 64 lowercase hex digits."""
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise InvalidFieldError(f"{name} must be 64 lowercase hex digits, got {value!r}")
    return value


def utc_timestamp(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive datetime is refused (its zone would be a guess)."""
    if not isinstance(moment, datetime):
        raise InvalidTimeError(f"a time must be a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidTimeError(f"naive datetime {moment.isoformat()} refused: give a time zone")
    return moment.astimezone(UTC)


def format_timestamp(moment: datetime) -> str:
    """The hashed form of a time: ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, UTC, always 6 fraction digits."""
    return utc_timestamp(moment).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _check_json_value(value: Any, path: str) -> None:
    if value is None or isinstance(value, (bool, str)):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InvalidEventError(f"{path}: string is not valid Unicode ({exc.reason})") from None
        return
    if isinstance(value, int):
        return
    if isinstance(value, float):
        raise InvalidEventError(f"{path}: float {value!r} refused: money is integer cents, counts are int")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidEventError(f"{path}: object keys must be strings, got {key!r}")
            _check_json_value(key, f"{path}.<key>")
            _check_json_value(item, f"{path}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json_value(item, f"{path}[{index}]")
        return
    raise InvalidEventError(
        f"{path}: {type(value).__name__} is not a JSON value (str, int, bool, None, list, dict)"
    )


def canonical_payload(payload: Mapping[str, Any]) -> str:
    """The stored and hashed text of a payload: a JSON object, keys sorted, no spaces, UTF-8.

    Only ``str``, ``int``, ``bool``, ``None``, lists (tuples) and string-keyed objects are
    accepted: a float is refused, money is integer cents.
    """
    if not isinstance(payload, Mapping):
        raise InvalidEventError(f"payload must be a JSON object (a mapping), got {type(payload).__name__}")
    _check_json_value(payload, "payload")
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(frozen=True, slots=True)
class ChainLink:
    """One event as the chain hashes it: every field in its stored text form.

    ``preimage`` is the exact bytes hashed (docs/audit-chain.md); ``digest`` their SHA-256. The
    writer builds one to hash a new event, the verifier one per stored row to re-hash it."""

    table_id: str
    seq: int
    round_id: str | None
    kind: str
    actor: str
    created_at: str
    prev_hash: str
    payload: str

    def preimage(self) -> bytes:
        lines = [
            FORMAT_TAG,
            self.table_id,
            str(self.seq),
            self.round_id or "",
            self.kind,
            self.actor,
            self.created_at,
            self.prev_hash,
            self.payload,
        ]
        return "\n".join(lines).encode("utf-8")

    def digest(self) -> str:
        """SHA-256 of the preimage, lowercase hex."""
        return hashlib.sha256(self.preimage()).hexdigest()


__all__ = [
    "FORMAT_TAG",
    "GENESIS_HASH",
    "ChainLink",
    "canonical_payload",
    "check_actor",
    "check_hash",
    "check_kind",
    "check_name",
    "check_round_id",
    "check_table_id",
    "format_timestamp",
    "utc_timestamp",
]
