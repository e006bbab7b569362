"""Rules as evidence: every house way file, pay table and table-rules snapshot a round was
decided under, kept by the SHA-256 of its exact bytes (docs/audit-chain.md, "Rules pinned
by content").

A round's ``round.opened`` names what it used by hash; replay and ``audit verify`` load the
bytes by that hash and refuse them when they no longer hash to it. Editing a way's file
makes a new version (a new hash) that new rounds use; old rounds keep theirs. The first time
a version is stored it is chained (``evidence.stored`` on the ``evidence`` chain, one for
every table of the store, as the contents are), so a row inserted behind the store's back
is named by verify.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Final

from sqlalchemy import BigInteger, LargeBinary, bindparam
from sqlalchemy import select as core_select
from sqlmodel import Field, Session, SQLModel, col, select

from .audit import append_event
from .chain import check_hash
from .errors import StorageError
from .fixed_read import FixedRead
from .models import UTCDateTime

EVIDENCE_STORED: Final = "evidence.stored"
EVIDENCE_CHAIN: Final = "evidence"  # the chain's id in the events table (no table may take it)
KINDS: Final = frozenset({"house-way", "paytable", "table-rules"})
_VERIFIED: Final = "rules_store.unedited"  # Connection.info's key: contents found unedited, by hash
_VERIFIED_MAX: Final = 32


class EvidenceError(StorageError):
    """Rules a round names by hash cannot be had as they were."""


class EvidenceMissingError(EvidenceError, LookupError):
    """No stored content for the hash a round names."""


class EvidenceMismatchError(EvidenceError):
    """Stored content that no longer hashes to its key: edited behind the store's back."""


class Evidence(SQLModel, table=True):
    """The ``evidence`` table: content-addressed rules files and snapshots (migration 0005)."""

    __tablename__ = "evidence"

    sha256: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=32)
    name: str = Field(max_length=64)
    content: bytes = Field(sa_type=LargeBinary)
    size: int = Field(sa_type=BigInteger)
    stored_at: datetime = Field(sa_type=UTCDateTime)


_EVIDENCE = Evidence.__table__  # type: ignore[attr-defined]


@lru_cache(maxsize=16)
def _contents_of(count: int) -> FixedRead:
    """The SELECT of ``count`` contents by hash, built once per count (a round pins a few)."""
    e = _EVIDENCE.c
    return FixedRead(
        core_select(e.sha256, e.kind, e.name, e.content).where(
            e.sha256.in_([bindparam(f"sha256_{n}") for n in range(count)])
        )
    )


@dataclass(frozen=True, slots=True)
class StoredEvidence:
    """Content read back by hash, checked against it."""

    sha256: str
    kind: str
    name: str
    content: bytes


def sha256_hex(content: bytes) -> str:
    """The key of ``content``: SHA-256 of its exact bytes, lowercase hex."""
    return hashlib.sha256(content).hexdigest()


def keep_evidence(
    session: Session, *, table_id: str, kind: str, name: str, content: bytes, actor: str = "system"
) -> str:
    """Store ``content`` under its hash if it is new (and chain that, naming the table that
    first used it); return the hash. Storing the same bytes again changes nothing."""
    if kind not in KINDS:
        raise ValueError(f"evidence kind {kind!r} is not one of {sorted(KINDS)}")
    digest = sha256_hex(content)
    if session.get(Evidence, digest) is not None:
        return digest
    session.add(
        Evidence(
            sha256=digest,
            kind=kind,
            name=name,
            content=content,
            size=len(content),
            stored_at=datetime.now(UTC),
        )
    )
    session.flush()
    append_event(
        session,
        table_id=EVIDENCE_CHAIN,
        round_id=None,
        kind=EVIDENCE_STORED,
        actor=actor,
        payload={"sha256": digest, "kind": kind, "name": name, "size": len(content), "table_id": table_id},
    )
    return digest


def load_evidence(session: Session, *, sha256: str) -> StoredEvidence:
    """The content stored under ``sha256``, refused if it no longer hashes to it."""
    check_hash("sha256", sha256)
    row = session.get(Evidence, sha256)
    if row is None:
        raise EvidenceMissingError(f"no stored rules content with sha256 {sha256}")
    content = _unedited(sha256, row.kind, row.name, bytes(row.content), session)
    return StoredEvidence(sha256=sha256, kind=row.kind, name=row.name, content=content)


def _unedited(sha256: str, kind: str, name: str, content: bytes, session: Session) -> bytes:
    """``content`` if it still hashes to ``sha256``. Contents found unedited are remembered
    on the database connection (``Connection.info``, which lives as long as the driver's
    connection): a content read again that is equal byte for byte to one of them is the same
    bytes, so it hashes to the same key without hashing it again."""
    verified: dict[str, bytes] = session.connection().info.setdefault(_VERIFIED, {})
    if verified.get(sha256) == content:
        return content
    found = sha256_hex(content)
    if found != sha256:
        raise EvidenceMismatchError(
            f"stored {kind} {name!r} under sha256 {sha256} now hashes to {found}: edited"
        )
    if len(verified) >= _VERIFIED_MAX:
        del verified[next(iter(verified))]  # the first remembered
    verified[sha256] = content
    return content


def check_evidence(session: Session, hashes: Iterable[str]) -> None:
    """Refuse unless every content named by ``hashes`` is stored and still hashes to its key:
    one SELECT for all of them (a round's pins: its house way, pay tables and table rules)."""
    wanted = {check_hash("sha256", sha256) for sha256 in hashes}
    if not wanted:
        return
    ordered = sorted(wanted)
    rows = _contents_of(len(ordered)).rows(session, {f"sha256_{n}": h for n, h in enumerate(ordered)})
    for sha256, kind, name, content in rows:
        _unedited(sha256, kind, name, bytes(content), session)
    missing = wanted - {row[0] for row in rows}
    if missing:
        raise EvidenceMissingError(f"no stored rules content with sha256 {min(missing)}")


def list_evidence(session: Session) -> list[tuple[str, str, str, int]]:
    """(sha256, kind, name, size) of everything stored, by kind and name."""
    rows = session.exec(
        select(Evidence.sha256, Evidence.kind, Evidence.name, Evidence.size).order_by(
            col(Evidence.kind), col(Evidence.name), col(Evidence.stored_at)
        )
    )
    return [(row[0], row[1], row[2], row[3]) for row in rows]


__all__ = [
    "EVIDENCE_CHAIN",
    "EVIDENCE_STORED",
    "Evidence",
    "EvidenceError",
    "EvidenceMismatchError",
    "EvidenceMissingError",
    "StoredEvidence",
    "check_evidence",
    "keep_evidence",
    "list_evidence",
    "load_evidence",
    "sha256_hex",
]
