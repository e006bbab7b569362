"""Signed checkpoints anchor the chain outside the database (docs/audit-chain.md, "Anchoring").

A checkpoint is a table's chain head (seq and hash) at a moment, signed with an Ed25519 key
the daemon reads from a file that is not in the database. It is written twice: as an
``audit.checkpoint`` event of the table's chain, and as one JSON line appended to a
checkpoint file beside the database that surveillance copies off the machine. Whoever holds
only the database cannot sign: a rewritten chain (edited and re-hashed), a truncated one or
a wiped table no longer reaches the hash a signed checkpoint names, and ``audit verify
--checkpoints FILE`` says so.

Signed bytes (format ``paigow-checkpoint-v1``), UTF-8, five lines joined by ``\\n``::

    paigow-checkpoint-v1
    <table_id>
    <seq, decimal>
    <hash, 64 lowercase hex>
    <at, YYYY-MM-DDTHH:MM:SS.ffffffZ>
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import select
from sqlmodel import Session

from .audit import append_event, head_of_chain, lock_table
from .chain import check_hash, check_table_id, format_timestamp
from .models import Event
from .people import PEOPLE_CHAIN, PERSON_KINDS
from .rules_store import EVIDENCE_CHAIN
from .shifts import FLOOR_CHAIN

_EVENTS = Event.__table__  # type: ignore[attr-defined]  # typed columns for the queries

SIGNED_FORMAT: Final = "paigow-checkpoint-v1"
CHECKPOINT_KIND: Final = "audit.checkpoint"
# The store's own chains a table's checkpoint signs with its own (docs/audit-chain.md, "Anchoring").
# The people chain is signed when a person changes (sign_people) and re-signed with the others
# only while its every person event is already signed, so a forged tail is never signed over.
STORE_CHAINS: Final = (PEOPLE_CHAIN, EVIDENCE_CHAIN, FLOOR_CHAIN)


class CheckpointKeyError(ValueError):
    """A key file or public key that cannot be used (missing, unreadable, not Ed25519, not matching)."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A table's chain head, signed. ``signature`` and ``public_key`` are lowercase hex."""

    table_id: str
    seq: int
    hash: str
    at: str
    reason: str
    signature: str
    public_key: str  # which key signed it (verification uses the configured key, never this one)

    def signed_bytes(self) -> bytes:
        return signed_bytes(self.table_id, self.seq, self.hash, self.at)

    def as_payload(self) -> dict[str, Any]:
        return asdict(self)

    def as_line(self) -> str:
        return json.dumps(self.as_payload(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Checkpoint:
        """A checkpoint from its JSON form; ValueError naming what is wrong."""
        try:
            found = cls(
                table_id=check_table_id(data["table_id"]),
                seq=int(data["seq"]),
                hash=check_hash("hash", data["hash"]),
                at=str(data["at"]),
                reason=str(data.get("reason", "")),
                signature=str(data["signature"]),
                public_key=str(data.get("public_key", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a checkpoint: {error}") from None
        if found.seq < 0:
            raise ValueError(f"not a checkpoint: seq {found.seq} is negative")
        return found


def signed_bytes(table_id: str, seq: int, digest: str, at: str) -> bytes:
    """The exact bytes a checkpoint's signature covers (module docstring)."""
    return "\n".join([SIGNED_FORMAT, table_id, str(seq), digest, at]).encode("utf-8")


# --------------------------------------------------------------------------- keys


def generate_key_file(path: Path) -> str:
    """Write a new Ed25519 private key to ``path`` (PEM, PKCS#8, mode 0600; never over an
    existing file) and return its public half as hex, for the configuration."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(pem)
    return public_key_hex(key)


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The signing key from its file; CheckpointKeyError naming the file otherwise."""
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise CheckpointKeyError(f"checkpoint key file {path}: {error}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise CheckpointKeyError(f"checkpoint key file {path}: not an Ed25519 key")
    return key


def public_key_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def load_public_key(text: str) -> Ed25519PublicKey:
    """A public key given as 64 hex digits (its raw 32 bytes)."""
    try:
        raw = bytes.fromhex(text.strip())
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError as error:
        raise CheckpointKeyError(f"checkpoint public key {text!r}: {error}") from None


def verifies(checkpoint: Checkpoint, public_key: str) -> bool:
    """True when ``checkpoint`` was signed by the key whose public half is ``public_key``."""
    try:
        load_public_key(public_key).verify(bytes.fromhex(checkpoint.signature), checkpoint.signed_bytes())
    except (InvalidSignature, ValueError):
        return False
    return True


# --------------------------------------------------------------------------- writing


def write_checkpoint(
    session: Session, *, key: Ed25519PrivateKey, table_id: str, reason: str, actor: str = "system"
) -> Checkpoint:
    """Sign the table's chain head and chain the checkpoint, in the caller's transaction (the
    table's lock is taken first, so the head cannot move under the signature). The caller
    appends it to the checkpoint file once the transaction is committed."""
    head = lock_table(session, table_id=table_id)
    at = format_timestamp(datetime.now(UTC))
    signature = key.sign(signed_bytes(table_id, head.last_seq, head.last_hash, at)).hex()
    checkpoint = Checkpoint(
        table_id=table_id,
        seq=head.last_seq,
        hash=head.last_hash,
        at=at,
        reason=reason,
        signature=signature,
        public_key=public_key_hex(key),
    )
    append_event(
        session,
        table_id=table_id,
        round_id=None,
        kind=CHECKPOINT_KIND,
        actor=actor,
        payload=checkpoint.as_payload(),
    )
    return checkpoint


def sign_chains(
    session: Session, *, key: Ed25519PrivateKey, table_id: str, reason: str, actor: str = "system"
) -> list[Checkpoint]:
    """Sign the table's head and the head of each of the store's own chains that exists, each
    checkpoint chained in the chain it signs (the table's first). The people chain is left out
    while person events stand after its newest signed checkpoint (``unanchored_people``): those
    are for the check to name, never for a checkpoint to cover."""
    signed = [write_checkpoint(session, key=key, table_id=table_id, reason=reason, actor=actor)]
    public = public_key_hex(key)
    for chain in STORE_CHAINS:
        if head_of_chain(session, table_id=chain) is None:
            continue
        if chain == PEOPLE_CHAIN and unanchored_people(session, public_key=public):
            continue
        signed.append(write_checkpoint(session, key=key, table_id=chain, reason=reason, actor=actor))
    return signed


def sign_people(session: Session, *, key: Ed25519PrivateKey, actor: str) -> Checkpoint | None:
    """Sign the people chain's head in the transaction of a change to a person (the console's
    and the API's, with the table's key): a person event is trusted once signed."""
    if head_of_chain(session, table_id=PEOPLE_CHAIN) is None:
        return None
    return write_checkpoint(session, key=key, table_id=PEOPLE_CHAIN, reason="people-changed", actor=actor)


def unanchored_people(session: Session, *, public_key: str) -> list[tuple[int, str, str]]:
    """(seq, kind, name) of each person event after the people chain's newest checkpoint that
    verifies with ``public_key``: changes to people no key signed (a forged ``user.added``
    appended with a correct hash and head is one). Empty when no checkpoint of people was ever
    chained: a store from before people were signed, adopted once (``sign_people``)."""
    newest = None
    for _seq, item in chained_checkpoints(session, table_id=PEOPLE_CHAIN):
        if isinstance(item, Checkpoint) and item.table_id == PEOPLE_CHAIN and verifies(item, public_key):
            newest = item.seq if newest is None else max(newest, item.seq)
    if newest is None:
        return []
    rows = session.execute(
        select(_EVENTS.c.seq, _EVENTS.c.kind, _EVENTS.c.payload)
        .where(
            _EVENTS.c.table_id == PEOPLE_CHAIN,
            _EVENTS.c.seq > newest,
            _EVENTS.c.kind.in_(sorted(PERSON_KINDS)),
        )
        .order_by(_EVENTS.c.seq)
    )
    found = []
    for seq, kind, payload in rows:
        try:
            name = str(json.loads(payload).get("name"))
        except (ValueError, AttributeError):
            name = "?"
        found.append((seq, kind, name))
    return found


def people_signed(session: Session) -> bool:
    """True when a checkpoint of the people chain was ever chained (signed or not)."""
    return bool(chained_checkpoints(session, table_id=PEOPLE_CHAIN))


def append_checkpoint_file(path: Path, checkpoint: Checkpoint) -> None:
    """One line appended (and flushed to disk) to the checkpoint file; never rewritten."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as stream:
        stream.write(checkpoint.as_line() + "\n")
        stream.flush()
        os.fsync(stream.fileno())


def read_checkpoint_file(path: Path) -> list[Checkpoint]:
    """Every checkpoint of a file, in order; ValueError naming the first bad line."""
    found = []
    with Path(path).open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                found.append(Checkpoint.from_mapping(json.loads(line)))
            except ValueError as error:
                raise ValueError(f"checkpoint file {path}, line {number}: {error}") from None
    return found


def chained_checkpoints(
    session: Session,
    *,
    table_id: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> list[tuple[int, Checkpoint | str]]:
    """The ``audit.checkpoint`` events (seq of the event, the checkpoint or why it is unreadable),
    those chained from ``start`` (included) to ``end`` (excluded) when given."""
    query = select(_EVENTS.c.table_id, _EVENTS.c.seq, _EVENTS.c.payload).where(
        _EVENTS.c.kind == CHECKPOINT_KIND
    )
    if table_id is not None:
        query = query.where(_EVENTS.c.table_id == table_id)
    if start is not None:
        query = query.where(_EVENTS.c.created_at >= start)
    if end is not None:
        query = query.where(_EVENTS.c.created_at < end)
    found: list[tuple[int, Checkpoint | str]] = []
    for _table, seq, payload in session.execute(query.order_by(_EVENTS.c.table_id, _EVENTS.c.seq)):
        try:
            found.append((seq, Checkpoint.from_mapping(json.loads(payload))))
        except ValueError as error:
            found.append((seq, str(error)))
    return found


def report_checkpoints(
    session: Session, *, table_ids: list[str], start: datetime, end: datetime
) -> list[tuple[Checkpoint, bool]]:
    """The signed checkpoints a report of ``[start, end)`` carries, per table in ``table_ids``
    (docs/audit-chain.md, "Anchoring"): each one chained in the period, and the table's first
    one chained at or after ``end``, the first to sign every row of the period (when it exists
    yet). Each as (checkpoint, True when chained in the period); unreadable ones are left out
    (``audit verify`` names them). One definition for the table's reports and the floor's."""
    found: list[tuple[Checkpoint, bool]] = []
    for table_id in table_ids:
        found += [
            (item, True)
            for _seq, item in chained_checkpoints(session, table_id=table_id, start=start, end=end)
            if not isinstance(item, str)
        ]
        after = session.execute(
            select(_EVENTS.c.payload)
            .where(
                _EVENTS.c.table_id == table_id,
                _EVENTS.c.kind == CHECKPOINT_KIND,
                _EVENTS.c.created_at >= end,
            )
            .order_by(_EVENTS.c.seq)
            .limit(1)
        ).scalar()
        if after is not None:
            with contextlib.suppress(ValueError, TypeError, KeyError):  # audit verify names it
                found.append((Checkpoint.from_mapping(json.loads(after)), False))
    return found


# --------------------------------------------------------------------------- checking


def check_checkpoints(
    session: Session, *, checkpoints: Iterable[Checkpoint], public_key: str
) -> list[tuple[str, str]]:
    """(where, what is wrong) for each checkpoint the chain does not reach as signed: a
    signature that does not verify, a seq no longer stored (truncated, wiped), or a row at
    that seq with another hash (rewritten). The links between rows are verify_chain's."""
    problems: list[tuple[str, str]] = []
    load_public_key(public_key)  # a bad key is refused whole, not once per checkpoint
    for checkpoint in checkpoints:
        where = f"checkpoint of table {checkpoint.table_id} at seq {checkpoint.seq} ({checkpoint.at})"
        if not verifies(checkpoint, public_key):
            problems.append((where, "its signature does not verify with the configured public key (forged)"))
            continue
        if checkpoint.seq == 0:
            continue
        row = session.execute(
            select(_EVENTS.c.id, _EVENTS.c.hash).where(
                _EVENTS.c.table_id == checkpoint.table_id,
                _EVENTS.c.seq == checkpoint.seq,
            )
        ).first()
        if row is None:
            problems.append((where, "the chain no longer reaches this seq (truncated, or the table wiped)"))
        elif row[1] != checkpoint.hash:
            problems.append(
                (
                    where,
                    f"the row at this seq (event id {row[0]}) has hash {row[1]}, the signed checkpoint"
                    f" {checkpoint.hash} (the chain was rewritten)",
                )
            )
    return problems


def unchained_checkpoints(
    session: Session, *, checkpoints: Iterable[Checkpoint], public_key: str
) -> list[tuple[str, str]]:
    """(where, what is wrong) for each checkpoint of a file, signed by the key, that its chain
    does not hold as an ``audit.checkpoint`` event (each checkpoint is chained in the chain it
    signs): the event was removed or renamed and the chain re-hashed after it, which the hash at
    the signed seq alone cannot show for the newest checkpoint."""
    held: dict[str, set[str]] = {}
    problems: list[tuple[str, str]] = []
    for checkpoint in checkpoints:
        if not verifies(checkpoint, public_key):
            continue  # named as forged by check_checkpoints
        if checkpoint.table_id not in held:
            held[checkpoint.table_id] = {
                item.signature
                for _seq, item in chained_checkpoints(session, table_id=checkpoint.table_id)
                if isinstance(item, Checkpoint)
            }
        if checkpoint.signature not in held[checkpoint.table_id]:
            problems.append(
                (
                    f"checkpoint of table {checkpoint.table_id} at seq {checkpoint.seq} ({checkpoint.at})",
                    "in the checkpoint file but no longer in its chain (its audit.checkpoint event was"
                    " removed or renamed)",
                )
            )
    return problems


__all__ = [
    "CHECKPOINT_KIND",
    "SIGNED_FORMAT",
    "STORE_CHAINS",
    "Checkpoint",
    "CheckpointKeyError",
    "append_checkpoint_file",
    "chained_checkpoints",
    "check_checkpoints",
    "generate_key_file",
    "load_private_key",
    "load_public_key",
    "people_signed",
    "public_key_hex",
    "read_checkpoint_file",
    "report_checkpoints",
    "sign_chains",
    "sign_people",
    "signed_bytes",
    "unanchored_people",
    "unchained_checkpoints",
    "verifies",
    "write_checkpoint",
]
