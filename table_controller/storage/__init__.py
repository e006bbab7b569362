"""The durable, tamper-evident store of the table (docs/round-lifecycle.md).

SQLite (WAL, synchronous) in a local data folder by default, PostgreSQL by URL. The event
log is an append-only SHA-256 hash chain per table (``docs/audit-chain.md``); rounds and
positions are projections of it for fast queries. The round state machine writes each step
as ``append_event`` + a projection update inside one ``unit_of_work``.

``table-controller audit verify [--data-dir DIR | --db-url URL]`` is
``code, text = audit_verify(data_dir=..., db_url=...)``: print ``text``, exit ``code``
(0 whole, 1 a broken link named, 2 the store could not be checked).
"""

from . import accounting as accounting  # its tables are part of the schema (migration 0008)
from . import dealers as dealers  # its table is part of the schema (migration 0011)
from . import ratings as ratings  # its tables are part of the schema (migration 0010)
from .audit import (
    BreakKind,
    ChainBreak,
    ChainReport,
    HeadOfChain,
    append_event,
    event_payloads,
    events_by_round,
    head_of_chain,
    last_event,
    list_events,
    lock_table,
    newest_round_ids,
    verify_chain,
)
from .chain import GENESIS_HASH, ChainLink, canonical_payload, format_timestamp
from .engine import make_engine, redacted, sqlite_path, sqlite_url
from .errors import (
    ChainConflictError,
    ChainHeadMismatchError,
    InvalidEventError,
    InvalidFieldError,
    InvalidRoundError,
    InvalidTimeError,
    PositionExistsError,
    RoundClosedError,
    RoundNotFoundError,
    SchemaVersionError,
    StorageError,
    StoreNotFoundError,
    StoreUnavailableError,
    UnsupportedDatabaseURLError,
    is_outage,
)
from .floor_tables import FloorTable
from .migrate import check_schema_current, current_revision, head_revision, upgrade_to_head
from .models import (
    BANKER_POSITION,
    DiceSource,
    EventCreate,
    EventPublic,
    PositionOutcome,
    RoundCreate,
    RoundPositionCreate,
    RoundPositionPublic,
    RoundPositionUpdate,
    RoundPublic,
    RoundUpdate,
)
from .people import PEOPLE_CHAIN, chained_people
from .progressive import ProgressivePool
from .rounds import (
    add_position,
    add_positions,
    create_round,
    find_open_round,
    get_positions,
    get_round,
    next_round_number,
    round_id_for,
    trailing_misdeals,
    update_position,
    update_positions,
    update_round,
)
from .rules_store import Evidence, keep_evidence, load_evidence
from .session import read_snapshot, unit_of_work
from .shifts import FLOOR_CHAIN, Shift
from .store import audit_verify, open_read_store, open_store, store_url, verify_store
from .users import Role, UserExistsError, UserNotFoundError, UserPublic, add_user, user_for_token

__all__ = [
    "BANKER_POSITION",
    "FLOOR_CHAIN",
    "GENESIS_HASH",
    "PEOPLE_CHAIN",
    "BreakKind",
    "ChainBreak",
    "ChainConflictError",
    "ChainHeadMismatchError",
    "ChainLink",
    "ChainReport",
    "DiceSource",
    "EventCreate",
    "EventPublic",
    "Evidence",
    "FloorTable",
    "HeadOfChain",
    "InvalidEventError",
    "InvalidFieldError",
    "InvalidRoundError",
    "InvalidTimeError",
    "PositionExistsError",
    "PositionOutcome",
    "ProgressivePool",
    "Role",
    "RoundClosedError",
    "RoundCreate",
    "RoundNotFoundError",
    "RoundPositionCreate",
    "RoundPositionPublic",
    "RoundPositionUpdate",
    "RoundPublic",
    "RoundUpdate",
    "SchemaVersionError",
    "Shift",
    "StorageError",
    "StoreNotFoundError",
    "StoreUnavailableError",
    "UnsupportedDatabaseURLError",
    "UserExistsError",
    "UserNotFoundError",
    "UserPublic",
    "add_position",
    "add_positions",
    "add_user",
    "append_event",
    "audit_verify",
    "canonical_payload",
    "chained_people",
    "check_schema_current",
    "create_round",
    "current_revision",
    "event_payloads",
    "events_by_round",
    "find_open_round",
    "format_timestamp",
    "get_positions",
    "get_round",
    "head_of_chain",
    "head_revision",
    "is_outage",
    "keep_evidence",
    "last_event",
    "list_events",
    "load_evidence",
    "lock_table",
    "make_engine",
    "newest_round_ids",
    "next_round_number",
    "open_read_store",
    "open_store",
    "read_snapshot",
    "redacted",
    "round_id_for",
    "sqlite_path",
    "sqlite_url",
    "store_url",
    "trailing_misdeals",
    "unit_of_work",
    "update_position",
    "update_positions",
    "update_round",
    "upgrade_to_head",
    "user_for_token",
    "verify_chain",
    "verify_store",
]
