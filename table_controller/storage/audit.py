"""The audit chain: append an event, read events back, verify the whole chain (docs/round-lifecycle.md).

Each table has its own chain: events numbered ``seq`` 1, 2, 3 ... and each event's
``prev_hash`` is the ``hash`` of the one before (64 zeros for seq 1). The hashed bytes are
given in ``chain.py`` and ``docs/audit-chain.md``.

Appends for one table are serialised by locking the table's ``chain_heads`` row
(``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite the database has one writer at a time,
and ``unit_of_work`` takes that lock with ``BEGIN IMMEDIATE``). The unique
``(table_id, seq)`` constraint is the backstop: if it ever fires the append fails with
:class:`ChainConflictError` rather than forking the chain.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Text, bindparam, insert, type_coerce, update
from sqlalchemy import select as sql_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from .chain import (
    GENESIS_HASH,
    ChainLink,
    canonical_payload,
    check_actor,
    check_hash,
    check_kind,
    check_round_id,
    check_table_id,
    format_timestamp,
    utc_timestamp,
)
from .errors import ChainConflictError, ChainHeadMismatchError, InvalidFieldError, is_outage
from .models import ChainHead, Event, EventPublic

# --------------------------------------------------------------------------- appending


@dataclass(frozen=True, slots=True)
class HeadOfChain:
    """The last link of a table's chain: publish ``last_hash`` somewhere else to anchor it."""

    table_id: str
    last_seq: int
    last_hash: str
    updated_at: datetime


# Statements built once (immutable), so each append only binds values: appends are hot.
_HEADS = ChainHead.__table__  # type: ignore[attr-defined]
_EVENTS = Event.__table__  # type: ignore[attr-defined]
_READ_HEAD_FOR_UPDATE = (
    select(_HEADS.c.last_seq, _HEADS.c.last_hash, _HEADS.c.updated_at)
    .where(_HEADS.c.table_id == bindparam("head_table_id"))
    .with_for_update()
)
_NEW_HEAD = {
    "postgresql": postgresql.insert(_HEADS).on_conflict_do_nothing(),
    "sqlite": sqlite.insert(_HEADS).on_conflict_do_nothing(),
}
_LAST_LINK = (
    select(_EVENTS.c.seq, _EVENTS.c.hash)
    .where(_EVENTS.c.table_id == bindparam("head_table_id"))
    .order_by(_EVENTS.c.seq.desc())
    .limit(1)
)
_INSERT_EVENT = insert(_EVENTS).returning(_EVENTS.c.id)
_MOVE_HEAD = update(_HEADS).where(_HEADS.c.table_id == bindparam("head_table_id"))


def lock_table(session: Session, *, table_id: str) -> HeadOfChain:
    """Take the table's write lock for the rest of the transaction and return its chain head.

    Creates the head (seq 0, genesis hash) the first time a table writes; two first writers
    racing both end up waiting on the one head row.
    """
    check_table_id(table_id)
    key = {"head_table_id": table_id}
    head = session.exec(_READ_HEAD_FOR_UPDATE, params=key).first()
    if head is None:
        dialect = session.get_bind().dialect.name
        if dialect not in _NEW_HEAD:  # pragma: no cover - make_engine refuses other backends
            raise ChainConflictError(f"no chain lock for database {dialect!r}")
        session.exec(
            _NEW_HEAD[dialect],
            params={
                "table_id": table_id,
                "last_seq": 0,
                "last_hash": GENESIS_HASH,
                "updated_at": datetime.now(UTC),
            },
        )
        head = session.exec(_READ_HEAD_FOR_UPDATE, params=key).one()
    return HeadOfChain(table_id, head[0], head[1], head[2])


def _last_link(session: Session, table_id: str) -> tuple[int, str]:
    """(seq, hash) of the table's last stored event, or (0, genesis)."""
    last = session.exec(_LAST_LINK, params={"head_table_id": table_id}).first()
    return (last[0], last[1]) if last is not None else (0, GENESIS_HASH)


def append_event(
    session: Session,
    *,
    table_id: str,
    round_id: str | None,
    kind: str,
    actor: str,
    payload: Mapping[str, Any],
    now: datetime | None = None,
) -> EventPublic:
    """Append one event to the table's chain in the session's transaction and return it.

    ``seq`` and ``prev_hash`` come from the table's chain head, cross-checked with the last
    stored event: if they disagree the chain is broken and :class:`ChainHeadMismatchError`
    stops the append. ``now`` defaults to the UTC time at which the table's lock was
    obtained; a naive time is refused. The chain's order is ``seq``, not the time.
    Nothing is committed here: the caller's ``unit_of_work`` commits the whole step.
    """
    check_table_id(table_id)
    if round_id is not None:
        check_round_id(round_id)
    check_kind(kind)
    check_actor(actor)
    text = canonical_payload(payload)
    given = utc_timestamp(now) if now is not None else None

    head = lock_table(session, table_id=table_id)
    moment = given if given is not None else datetime.now(UTC)  # taken once the lock is ours
    last_seq, last_hash = _last_link(session, table_id)
    if (last_seq, last_hash) != (head.last_seq, head.last_hash):
        raise ChainHeadMismatchError(
            f"table {table_id}: chain head says seq {head.last_seq} hash {head.last_hash[:12]}...,"
            f" last stored event is seq {last_seq} hash {last_hash[:12]}...; appends stop until"
            " the chain is verified (table-controller audit verify)"
        )

    seq = last_seq + 1
    link = ChainLink(table_id, seq, round_id, kind, actor, format_timestamp(moment), last_hash, text)
    # the row is the link's fields, its time kept as the datetime (the link hashes its text form)
    values: dict[str, Any] = {**asdict(link), "created_at": moment, "hash": link.digest()}
    try:
        event_id = session.exec(_INSERT_EVENT, params=values).scalar_one()
    except IntegrityError as exc:
        raise ChainConflictError(
            f"table {table_id}: seq {seq} was stored by another writer; append refused ({exc.orig})"
        ) from exc
    session.exec(
        _MOVE_HEAD,
        params={
            "head_table_id": table_id,
            "last_seq": seq,
            "last_hash": values["hash"],
            "updated_at": moment,
        },
    )
    return EventPublic(id=event_id, **values)


# --------------------------------------------------------------------------- reading


def list_events(
    session: Session,
    *,
    table_id: str | None = None,
    round_id: str | None = None,
    kind_prefix: str | None = None,
    after_seq: int = 0,
    limit: int | None = None,
) -> list[EventPublic]:
    """Events in chain order (table, then seq), filtered by table, round and/or the start of
    their kind (``device.``, ``device.shuffler.``)."""
    statement = select(Event).where(Event.seq > after_seq)
    if table_id is not None:
        statement = statement.where(Event.table_id == table_id)
    if round_id is not None:
        statement = statement.where(Event.round_id == round_id)
    if kind_prefix is not None:
        statement = statement.where(col(Event.kind).startswith(kind_prefix))
    statement = statement.order_by(col(Event.table_id), col(Event.seq))
    if limit is not None:
        statement = statement.limit(limit)
    return [EventPublic.model_validate(row, from_attributes=True) for row in session.exec(statement)]


UNREADABLE_EVENT = "record.unreadable"  # a stored row a live stream could not read, in its place


def _json_object(payload: object) -> bool:
    try:
        return isinstance(json.loads(payload), dict)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def stream_events(session: Session, *, table_id: str, after_seq: int, limit: int) -> list[EventPublic]:
    """``list_events`` for a live stream, which must never stall on one forged row (docs/api.md,
    "A forged stored value"): a row whose stored values cannot be read (a ``created_at`` the
    store never writes, a payload that is not a JSON object) is sent in its place as a
    ``record.unreadable`` event with the same seq and hashes, its payload naming the finding; the
    time given it is the moment it was read. Every other row is as stored. An outage is raised."""
    try:
        read = list_events(session, table_id=table_id, after_seq=after_seq, limit=limit)
        if events_readable(read):
            return read
    except Exception as error:
        if is_outage(error):
            raise
    columns = ("id", "seq", "round_id", "kind", "actor", "payload", "prev_hash", "hash")
    query = (
        sql_select(*[_EVENTS.c[name] for name in columns], type_coerce(_EVENTS.c.created_at, Text))
        .where(_EVENTS.c.table_id == table_id, _EVENTS.c.seq > after_seq)
        .order_by(_EVENTS.c.seq)
        .limit(limit)
    )
    found: list[EventPublic] = []
    for row in session.execute(query):
        values = dict(zip(columns, row[:-1], strict=True))
        stored = row[-1]
        try:
            when = datetime.fromisoformat(stored_time_text(stored).replace("Z", "+00:00"))
            if not _json_object(values["payload"]):
                raise ValueError(f"payload {str(values['payload'])[:60]!r} is not a JSON object")
            found.append(EventPublic(table_id=table_id, created_at=when, **values))
        except (ValueError, TypeError) as why:
            finding = f"table {table_id}, seq {values['seq']}: a stored value cannot be read: {why}"
            found.append(
                EventPublic(
                    id=values["id"],
                    table_id=table_id,
                    seq=values["seq"],
                    round_id=None,
                    kind=UNREADABLE_EVENT,
                    actor="system",
                    created_at=datetime.now(UTC),
                    payload=canonical_payload(
                        {"finding": finding[:500], "stored_kind": str(values["kind"])[:60]}
                    ),
                    prev_hash=values["prev_hash"],
                    hash=values["hash"],
                )
            )
    return found


def stream_events_after(session: Session, *, after: Mapping[str, int], limit: int) -> list[EventPublic]:
    """``stream_events`` of several chains (chain -> the seq after which it is read), in chain
    order (table, then seq), at most ``limit``: the floor's stream when a row of one of them
    cannot be read (storage/floor.events_after is the fast path)."""
    found: list[EventPublic] = []
    for table_id, seq in sorted(after.items()):
        if len(found) >= limit:
            break
        found += stream_events(session, table_id=table_id, after_seq=seq, limit=limit - len(found))
    return found


def events_readable(events: Iterable[EventPublic]) -> bool:
    """True when every event's payload is a JSON object (what a stream's frame is made of)."""
    return all(_json_object(event.payload) for event in events)


def last_event(session: Session, *, table_id: str, kinds: Iterable[str]) -> EventPublic | None:
    """The table's newest event of one of ``kinds`` (the table-state record a restart reads)."""
    check_table_id(table_id)
    row = session.exec(
        select(Event)
        .where(Event.table_id == table_id, col(Event.kind).in_(list(kinds)))
        .order_by(col(Event.seq).desc())
        .limit(1)
    ).first()
    return None if row is None else EventPublic.model_validate(row, from_attributes=True)


def newest_round_ids(session: Session, *, table_id: str, last: int) -> list[str]:
    """The ids of the table's ``last`` newest opened rounds (``round.opened``), newest first by
    the chain."""
    statement = (
        select(_EVENTS.c.round_id)
        .where(_EVENTS.c.table_id == table_id, _EVENTS.c.kind == "round.opened")
        .order_by(_EVENTS.c.seq.desc())
        .limit(last)
    )
    return [row[0] for row in session.execute(statement)]


def events_by_round(
    session: Session, *, kinds: Iterable[str], table_id: str | None = None, round_ids: list[str] | None = None
) -> Iterator[tuple[str, list[tuple[int, str, str]]]]:
    """(round id, [(seq, kind, payload text)...]) for every round with chained events of
    ``kinds``, of one table and of some rounds only when given: by table, then round id, each
    round's events in seq order. Read lazily, 2000 rows at a time."""
    statement = select(_EVENTS.c.round_id, _EVENTS.c.seq, _EVENTS.c.kind, _EVENTS.c.payload).where(
        _EVENTS.c.round_id.is_not(None),
        _EVENTS.c.kind.in_(sorted(kinds)),
    )
    if table_id is not None:
        statement = statement.where(_EVENTS.c.table_id == table_id)
    if round_ids is not None:
        statement = statement.where(_EVENTS.c.round_id.in_(round_ids))
    statement = statement.order_by(_EVENTS.c.table_id, _EVENTS.c.round_id, _EVENTS.c.seq)
    current: str | None = None
    events: list[tuple[int, str, str]] = []
    for round_id, seq, kind, payload in session.execute(statement, execution_options={"yield_per": 2000}):
        if round_id != current:
            if current is not None:
                yield current, events
            current, events = round_id, []
        events.append((seq, kind, payload))
    if current is not None:
        yield current, events


def event_payloads(session: Session, *, table_id: str, kind: str) -> list[str]:
    """The payload text of every event of ``kind`` in the ``table_id`` chain, in no promised
    order (``evidence.stored`` of the evidence chain: which rules contents were chained)."""
    statement = select(_EVENTS.c.payload).where(_EVENTS.c.table_id == table_id, _EVENTS.c.kind == kind)
    return [payload for (payload,) in session.execute(statement)]


def head_of_chain(session: Session, *, table_id: str) -> HeadOfChain | None:
    """The table's chain head as stored now, or None if the table never wrote an event."""
    check_table_id(table_id)
    head = session.exec(
        select(_HEADS.c.last_seq, _HEADS.c.last_hash, _HEADS.c.updated_at).where(
            _HEADS.c.table_id == table_id
        )
    ).first()
    return None if head is None else HeadOfChain(table_id, head[0], head[1], head[2])


# --------------------------------------------------------------------------- verifying


class BreakKind(enum.StrEnum):
    """What is wrong at a broken link of a table's chain."""

    HASH_MISMATCH = "hash-mismatch"  # the row's fields do not hash to its stored hash: edited
    PREV_HASH_MISMATCH = "prev-hash-mismatch"  # the row does not link to the one before
    SEQ_GAP = "seq-gap"  # rows missing before this seq: deleted
    SEQ_REPEATED = "seq-repeated"  # two rows claim one seq: forged
    DELETED_TAIL = "deleted-tail"  # the head records more rows than are stored: deleted
    UNRECORDED_ROW = "unrecorded-row"  # a row beyond the recorded head: inserted
    HEAD_MISMATCH = "head-mismatch"  # the head's hash differs from the last row's
    UNREADABLE_FIELD = "unreadable-field"  # a stored value is not in the form the store writes


@dataclass(frozen=True, slots=True)
class ChainBreak:
    """One broken link of one table's chain."""

    table_id: str
    seq: int
    event_id: int | None  # None when the row at ``seq`` is missing
    kind: BreakKind
    detail: str

    def describe(self) -> str:
        row = f"event id {self.event_id}" if self.event_id is not None else "row missing"
        return f"table {self.table_id}, seq {self.seq} ({row}): {self.kind.value}: {self.detail}"


BREAKS_LISTED_PER_TABLE = 50  # beyond this a table's further breaks are counted, not listed


@dataclass(frozen=True, slots=True)
class ChainReport:
    """Result of :func:`verify_chain`. ``breaks`` holds every broken link found (up to
    ``BREAKS_LISTED_PER_TABLE`` a table, in table then seq order; ``unlisted`` counts the
    rest); ``first_break`` is the first one overall (tables in id order). Verification never
    stops at a break: every row of every table is read and checked."""

    events_checked: int
    tables_checked: int
    breaks: tuple[ChainBreak, ...] = field(default=())
    unlisted: int = 0

    @property
    def ok(self) -> bool:
        return not self.breaks

    @property
    def first_break(self) -> ChainBreak | None:
        return self.breaks[0] if self.breaks else None

    def describe(self) -> str:
        summary = f"{self.events_checked} events in {self.tables_checked} table chain(s)"
        if self.ok:
            return f"audit chain whole: {summary} verified"
        heading = "first broken link:" if len(self.breaks) == 1 else "broken links, first one first:"
        lines = [f"audit chain BROKEN: {summary} checked; {heading}"]
        lines += [f"  {item.describe()}" for item in self.breaks]
        if self.unlisted:
            lines.append(f"  ... and {self.unlisted} more broken link(s) not listed")
        return "\n".join(lines)


_VERIFY_BATCH = 2000

# SQLite keeps a time as the text SQLAlchemy writes (storage/models.py UTCDateTime): exactly
# this form, in UTC. Verification reads that text as stored and accepts nothing else, so the
# time hashed is the time stored, character for character (docs/audit-chain.md, "Strict").
_SQLITE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}\.\d{6})")


def stored_time_text(value: object) -> str:
    """The hashed form (``YYYY-MM-DDTHH:MM:SS.ffffffZ``) of a stored ``created_at``.

    ``value`` is the raw stored value: SQLite's text, or PostgreSQL's ``timestamptz`` as an
    aware datetime. Raises ValueError, naming the value, for anything the store never writes
    (a suffix, a zone, another layout, an impossible date).
    """
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"time {value.isoformat()} has no time zone")
        return format_timestamp(value)
    if not isinstance(value, str):
        raise ValueError(f"time stored as {type(value).__name__} {value!r}, not as text")
    match = _SQLITE_TIME.fullmatch(value)
    if match is None:
        raise ValueError(f"time stored as {value!r}, not as YYYY-MM-DD HH:MM:SS.ffffff (UTC)")
    try:
        datetime.fromisoformat(f"{match[1]}T{match[2]}")
    except ValueError as error:
        raise ValueError(f"time stored as {value!r} is not a date: {error}") from None
    return f"{match[1]}T{match[2]}Z"


def _check_fields(row: Any) -> str | None:
    """Why a row's stored fields are not as the writer stores them, or None."""
    _id, table_id, seq, round_id, kind, actor, _created, payload, prev_hash, stored = row
    try:
        check_table_id(table_id)
        if round_id is not None:
            check_round_id(round_id)
        check_kind(kind)
        check_actor(actor)
        check_hash("prev_hash", prev_hash)
        check_hash("hash", stored)
    except InvalidFieldError as error:
        return str(error)
    if not isinstance(seq, int) or isinstance(seq, bool):
        return f"seq stored as {seq!r}, not an integer"
    if not isinstance(payload, str):
        return f"payload stored as {type(payload).__name__}, not as text"
    return None


class _TableCheck:
    """Walks one table's rows in seq order and keeps every break."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.expected_seq = 1
        self.prev_hash = GENESIS_HASH
        self.last_seen: tuple[int, int | None, str] | None = None  # (seq, id, hash)
        self.first_seq: int | None = None
        self.found: list[ChainBreak] = []
        self.unlisted = 0

    def _break(self, seq: int, event_id: int | None, kind: BreakKind, detail: str) -> None:
        if self.found and self.found[-1].seq == seq and self.found[-1].event_id == event_id:
            return  # one break named per row: the first thing wrong with it
        if len(self.found) < BREAKS_LISTED_PER_TABLE:
            self.found.append(ChainBreak(self.table_id, seq, event_id, kind, detail))
        else:
            self.unlisted += 1

    def check(self, row: Any) -> None:
        event_id, table_id, seq, round_id, kind, actor, created_at, payload, prev_hash, stored = row
        wrong = _check_fields(row)
        if wrong is not None:
            self._break(
                seq if isinstance(seq, int) else self.expected_seq,
                event_id,
                BreakKind.UNREADABLE_FIELD,
                wrong,
            )
            if not isinstance(seq, int):
                return
        if self.first_seq is None:
            self.first_seq = seq
        if seq < self.expected_seq:
            self._break(seq, event_id, BreakKind.SEQ_REPEATED, f"seq {seq} is stored more than once")
        elif seq > self.expected_seq:
            missing = (
                f"seq {self.expected_seq}"
                if seq == self.expected_seq + 1
                else f"seqs {self.expected_seq}..{seq - 1}"
            )
            self._break(
                self.expected_seq,
                None,
                BreakKind.SEQ_GAP,
                f"{missing} missing (deleted); next stored row is seq {seq} (event id {event_id})",
            )
        follows_break = bool(self.found) and self.found[-1].seq >= self.expected_seq - 1
        if prev_hash != self.prev_hash and not follows_break:  # else the break before explains it
            before = "the genesis hash" if seq == 1 else "the hash of the row before"
            self._break(
                seq,
                event_id,
                BreakKind.PREV_HASH_MISMATCH,
                f"prev_hash {prev_hash} does not match {before} ({self.prev_hash})",
            )
        try:
            time_text = stored_time_text(created_at)
        except ValueError as error:
            self._break(seq, event_id, BreakKind.UNREADABLE_FIELD, f"created_at: {error}; hash not checked")
        else:
            if wrong is None:
                recomputed = ChainLink(
                    table_id, seq, round_id, kind, actor, time_text, prev_hash, payload
                ).digest()
                if recomputed != stored:
                    self._break(
                        seq,
                        event_id,
                        BreakKind.HASH_MISMATCH,
                        f"stored hash {stored} but the row's fields hash to {recomputed} (row edited)",
                    )
        self.prev_hash = stored
        self.expected_seq = max(self.expected_seq, seq) + 1
        self.last_seen = (seq, event_id, stored)

    def finish(self, head: ChainHead | None) -> None:
        if head is None:
            if self.last_seen is not None:
                self._break(
                    self.first_seq or 1,
                    None,
                    BreakKind.UNRECORDED_ROW,
                    "rows stored for a table that has no chain head (inserted behind the store's back)",
                )
            return
        last_seq, last_id, last_hash = self.last_seen if self.last_seen else (0, None, GENESIS_HASH)
        if head.last_seq > last_seq:
            self._break(
                last_seq + 1,
                None,
                BreakKind.DELETED_TAIL,
                f"the chain head records seq {head.last_seq} but the last stored row is seq {last_seq}",
            )
        elif head.last_seq < last_seq:
            self._break(
                head.last_seq + 1,
                None,
                BreakKind.UNRECORDED_ROW,
                f"rows up to seq {last_seq} stored beyond the chain head (seq {head.last_seq})",
            )
        elif head.last_hash != last_hash:
            self._break(
                last_seq,
                last_id,
                BreakKind.HEAD_MISMATCH,
                f"the chain head records hash {head.last_hash}, the last row has {last_hash}",
            )


_ROW_COLUMNS = (
    "id",
    "table_id",
    "seq",
    "round_id",
    "kind",
    "actor",
    "created_at",
    "payload",
    "prev_hash",
    "hash",
)


def _raw_rows_query(dialect: str) -> Any:
    """Every column as stored: on SQLite ``created_at`` is read as its raw text (no parsing)."""
    columns = []
    for name in _ROW_COLUMNS:
        column = _EVENTS.c[name]
        if name == "created_at" and dialect == "sqlite":
            column = type_coerce(column, Text).label("created_at")
        columns.append(column)
    return select(*columns)


def verify_chain(
    session: Session, *, table_id: str | None = None, batch_size: int = _VERIFY_BATCH
) -> ChainReport:
    """Check every link of every table's chain (or of one table) and name every break.

    Strict (docs/audit-chain.md, "Strict verification"): each row is hashed from its fields
    exactly as stored; a value the store would never write (a time with a suffix or a zone,
    an empty round id, a field with a line break) is named as a break of its row and the
    walk goes on. Rows are streamed in (table, seq) order, ``batch_size`` at a time, so
    memory stays flat on a year of rounds.
    Run it inside :func:`~table_controller.storage.session.read_snapshot` so that appends
    made while it runs are not mistaken for tampering.
    """
    heads_query = select(ChainHead)
    rows_query = _raw_rows_query(session.get_bind().dialect.name)
    if table_id is not None:
        check_table_id(table_id)
        heads_query = heads_query.where(ChainHead.table_id == table_id)
        rows_query = rows_query.where(_EVENTS.c.table_id == table_id)
    heads = {head.table_id: head for head in session.exec(heads_query)}
    rows = session.exec(
        rows_query.order_by(_EVENTS.c.table_id, _EVENTS.c.seq, _EVENTS.c.id),
        execution_options={"yield_per": batch_size},
    )

    breaks: list[ChainBreak] = []
    unlisted = 0
    tables: set[str] = set()
    checked = 0
    current: _TableCheck | None = None

    def close(check: _TableCheck) -> None:
        nonlocal unlisted
        check.finish(heads.pop(check.table_id, None))
        tables.add(check.table_id)
        breaks.extend(check.found)
        unlisted += check.unlisted

    for row in rows:
        if current is None or row[1] != current.table_id:
            if current is not None:
                close(current)
            current = _TableCheck(row[1])
        current.check(row)
        checked += 1
    if current is not None:
        close(current)
    for orphan in list(heads.values()):  # heads whose every row is gone
        close(_TableCheck(orphan.table_id))

    breaks.sort(key=lambda item: (item.table_id, item.seq))
    return ChainReport(
        events_checked=checked, tables_checked=len(tables), breaks=tuple(breaks), unlisted=unlisted
    )


def verify_range(session: Session, *, table_id: str, first: int, last: int | None = None) -> ChainReport:
    """Check the links of one table's rows ``first``..``last`` (``last`` None: to the end, and
    the chain head with it): the daemon's check while it plays, a window at a time
    (table/service.py). Row ``first - 1``'s stored hash is the start: its own row is checked by the
    window that holds it."""
    check_table_id(table_id)
    check = _TableCheck(table_id)
    check.expected_seq = first
    if first > 1:
        before = session.execute(
            select(_EVENTS.c.hash).where(_EVENTS.c.table_id == table_id, _EVENTS.c.seq == first - 1)
        ).scalar()
        check.prev_hash = str(before) if before is not None else GENESIS_HASH
        check.last_seen = (first - 1, None, check.prev_hash)  # the head may stand where the window starts
    query = _raw_rows_query(session.get_bind().dialect.name).where(
        _EVENTS.c.table_id == table_id, _EVENTS.c.seq >= first
    )
    if last is not None:
        query = query.where(_EVENTS.c.seq <= last)
    checked = 0
    for row in session.exec(query.order_by(_EVENTS.c.seq, _EVENTS.c.id)):
        check.check(row)
        checked += 1
    if last is None:
        check.finish(session.exec(select(ChainHead).where(ChainHead.table_id == table_id)).first())
    return ChainReport(
        events_checked=checked, tables_checked=1, breaks=tuple(check.found), unlisted=check.unlisted
    )


__all__ = [
    "BreakKind",
    "ChainBreak",
    "ChainReport",
    "HeadOfChain",
    "append_event",
    "event_payloads",
    "events_by_round",
    "head_of_chain",
    "list_events",
    "lock_table",
    "newest_round_ids",
    "stored_time_text",
    "verify_chain",
    "verify_range",
]
