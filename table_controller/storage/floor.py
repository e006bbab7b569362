"""The floor's queries: every table of the store at once (docs/floor.md).

The floor shows many tables; each function here answers for all of them in one or two
indexed SELECTs (``floor_tables``; ``uq_rounds_table_number``; ``ix_events_table_kind_seq``;
``uq_events_table_seq``), never one query per table. Data functions take the session and
keyword arguments, as the rest of storage/.

The floor's terminals ask every few seconds, so the statements that answer them are built once
per number of tables and run as ``FixedRead``s (storage/fixed_read.py): building and executing
them through Core cost more than the indexed reads themselves (docs/floor.md, Speed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import and_, bindparam, func, or_, select
from sqlmodel import Session, col

from .alerts import ACKNOWLEDGED, RAISED, Acknowledgement, Alert
from .checkpoints import STORE_CHAINS
from .fixed_read import FixedRead
from .floor_tables import FloorTable
from .models import ChainHead, Event, EventPublic
from .progressive import is_pool_chain
from .reports import ROUNDS, _count, _settled_only, _theory_columns

# today's sums per table, by name (integer cents; the theoretical win None when no round has one)
TODAY_FIELDS = ("rounds", "settled", "wagered_cents", "house_result_cents", "theoretical_win_cents")

_TABLES = FloorTable.__table__  # type: ignore[attr-defined]
_EVENTS = Event.__table__  # type: ignore[attr-defined]
_EVENT_COLUMNS = tuple(EventPublic.model_fields)  # every column of an event, as the model names them


class FloorTableRow(NamedTuple):
    """A row of ``floor_tables`` (``FloorTable``'s columns), which outlives the session (the
    stream's hub keeps them)."""

    table_id: str
    pit: str | None
    game: str
    house_way: str
    api_url: str | None
    started_at: datetime
    seen_at: datetime


class LatestRound(NamedTuple):
    """What the floor shows of a table's newest round."""

    table_id: str
    round_id: str
    number: int
    phase: str
    dealer: str
    banker_seat: int | None


def _numbered(ids: Iterable[str]) -> dict[str, str]:
    """The table ids as the per-count statements bind them: ``t0``, ``t1``..."""
    return {f"t{n}": table_id for n, table_id in enumerate(ids)}


def _tables_in(count: int) -> list[Any]:
    return [bindparam(f"t{n}") for n in range(count)]


_FLOOR_TABLES = select(*[_TABLES.c[name] for name in FloorTableRow._fields]).order_by(
    _TABLES.c.pit, _TABLES.c.table_id
)
_ALL_TABLES = FixedRead(_FLOOR_TABLES)
_PIT_TABLES = FixedRead(_FLOOR_TABLES.where(_TABLES.c.pit == bindparam("pit")))


def floor_tables(session: Session, *, pit: str | None = None) -> list[FloorTableRow]:
    """The tables of the floor (of one pit when ``pit`` is given), by pit then table id."""
    if pit is None:
        return [FloorTableRow(*row) for row in _ALL_TABLES.rows(session, {})]
    return [FloorTableRow(*row) for row in _PIT_TABLES.rows(session, {"pit": pit})]


def known_table_ids(session: Session) -> frozenset[str]:
    """Every table this store knows: the floor's registered tables and every table that has
    written to its chain (a single table's store has no registry). The store's own chains (the
    people, the evidence, the floor's) are not tables."""
    registered = session.execute(select(_TABLES.c.table_id)).scalars()
    chains = session.execute(select(ChainHead.__table__.c.table_id)).scalars()  # type: ignore[attr-defined]
    tables = frozenset(chain for chain in chains if not is_pool_chain(chain))  # a pool's chain is no table
    return frozenset(registered) | (tables - frozenset(STORE_CHAINS))


def latest_rounds(session: Session, *, table_ids: Iterable[str]) -> dict[str, LatestRound]:
    """Each table's newest round (the highest number), by table id: one SELECT of one equality
    lookup per table on ``uq_rounds_table_number``, each table's ``max(number)`` an uncorrelated
    subquery read off the end of that index (never a scan of a table's rounds)."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = _latest_rounds(len(ids)).rows(session, _numbered(ids))
    return {row[0]: LatestRound(*row) for row in rows}


@lru_cache(maxsize=64)
def _latest_rounds(count: int) -> FixedRead:
    """``latest_rounds``'s statement for ``count`` tables (``t0``, ``t1``...), built once per count."""
    c = ROUNDS.c
    newest = [
        and_(
            c.table_id == bindparam(f"t{n}"),
            c.number == select(func.max(c.number)).where(c.table_id == bindparam(f"t{n}")).scalar_subquery(),
        )
        for n in range(count)
    ]
    return FixedRead(select(*[c[name] for name in LatestRound._fields]).where(or_(*newest)))


def last_payloads(session: Session, *, table_ids: Iterable[str], kind: str) -> dict[str, dict[str, Any]]:
    """The payload of each table's last event of ``kind`` (for ``recorder.TABLE_STATE``: its open
    faults, hold, open or closed), by table id: one SELECT of one lookup per table, each table's
    last seq of ``kind`` read off the end of ``ix_events_table_kind_seq``."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = _last_payloads(len(ids)).rows(session, {**_numbered(ids), "kind": kind})
    return {table_id: json.loads(payload) for table_id, payload in rows}


@lru_cache(maxsize=64)
def _last_payloads(count: int) -> FixedRead:
    inner = _EVENTS.alias("last_of_kind")
    e = _EVENTS.c
    last = [
        and_(
            e.table_id == bindparam(f"t{n}"),
            e.seq
            == select(func.max(inner.c.seq))
            .where(inner.c.table_id == bindparam(f"t{n}"), inner.c.kind == bindparam("kind"))
            .scalar_subquery(),
        )
        for n in range(count)
    ]
    return FixedRead(select(e.table_id, e.payload).where(or_(*last)))


def _events(read: FixedRead, session: Session, params: Mapping[str, Any]) -> list[EventPublic]:
    return [EventPublic(**dict(zip(_EVENT_COLUMNS, row, strict=True))) for row in read.rows(session, params)]


def _select_events(*where: Any) -> Any:
    return select(*[_EVENTS.c[name] for name in _EVENT_COLUMNS]).where(*where)


def alert_events_after(session: Session, *, after: Mapping[str, int]) -> list[EventPublic]:
    """Each table's ``alert.raised`` and ``alert.acknowledged`` events after the seq given for
    it, in chain order (table, then seq): two index ranges per table on
    ``ix_events_table_kind_seq``. From 0 once, then from the last seen, it keeps a table's open
    alerts current reading only what is new (storage/open_alerts.py)."""
    if not after:
        return []
    return _events(_kinds_after(len(after), (RAISED, ACKNOWLEDGED)), session, _chains_after(after))


def _acknowledgements(session: Session, after: Mapping[str, int]) -> dict[tuple[str, int], Acknowledgement]:
    """The acknowledgements written after the seq given for each table, by (table id, seq of the
    alert it acknowledges): an acknowledgement always comes after its alert in the chain."""
    found: dict[tuple[str, int], Acknowledgement] = {}
    if not after:
        return found
    for event in _events(_kinds_after(len(after), (ACKNOWLEDGED,)), session, _chains_after(after)):
        data = event.payload_data()
        found.setdefault(
            (event.table_id, int(data["alert_seq"])),
            Acknowledgement(event.seq, event.actor, data.get("note", ""), event.created_at),
        )
    return found


def _with_acknowledgements(session: Session, events: list[EventPublic]) -> list[Alert]:
    oldest: dict[str, int] = {}
    for event in events:
        oldest[event.table_id] = min(event.seq, oldest.get(event.table_id, event.seq))
    acks = _acknowledgements(session, oldest)
    return [Alert(event, acks.get((event.table_id, event.seq))) for event in events]


_NEWEST_FIRST = (_EVENTS.c.created_at.desc(), _EVENTS.c.table_id, _EVENTS.c.seq.desc())


def newest_first(alerts: Iterable[Alert]) -> list[Alert]:
    """Alerts in ``_NEWEST_FIRST``'s order (the time raised, newest first, then table and seq,
    newest first): of several tables' open alerts (storage/open_alerts.py)."""
    by_table = sorted(alerts, key=lambda alert: (alert.event.table_id, -alert.seq))
    return sorted(by_table, key=lambda alert: alert.event.created_at, reverse=True)  # stable


def floor_alerts(session: Session, *, table_ids: Iterable[str], limit: int = 100) -> list[Alert]:
    """The newest ``limit`` alerts of every table given, newest first (the time raised, then table
    and seq), each with its acknowledgement once the pit has seen it (as ``alerts.list_alerts``
    for one table): the acknowledgements read are those after the oldest alert listed."""
    ids = list(table_ids)
    if not ids:
        return []
    events = _events(_newest_alerts(len(ids)), session, {**_numbered(ids), "limit": limit})
    return _with_acknowledgements(session, events)


@lru_cache(maxsize=64)
def _newest_alerts(count: int) -> FixedRead:
    e = _EVENTS.c
    return FixedRead(
        _select_events(e.table_id.in_(_tables_in(count)), e.kind == RAISED)
        .order_by(*_NEWEST_FIRST)
        .limit(bindparam("limit"))
    )


def today_sums(
    session: Session, *, table_ids: Iterable[str], start: datetime, end: datetime
) -> dict[str, dict[str, Any]]:
    """Per table, the rounds opened in ``[start, end)`` (``reports.today_bounds``) and, over the
    settled ones, what was wagered (main and bonus wagers), the house's actual win and its
    theoretical win: TODAY_FIELDS, in one grouped SELECT along ``ix_rounds_table_opened_at``.
    The same sums as ``reports.period_sums`` (a voided round returns its wagers: not counted)."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = _today_sums(len(ids)).rows(session, {**_numbered(ids), "start": start, "end": end})
    return {
        row[0]: dict(
            zip(TODAY_FIELDS, [None if value is None else int(value) for value in row[1:]], strict=True)
        )
        for row in rows
    }


@lru_cache(maxsize=64)
def _today_sums(count: int) -> FixedRead:
    c = ROUNDS.c
    theory = _theory_columns()
    return FixedRead(
        select(
            c.table_id,
            func.count(),
            _count(c.phase == "closed"),
            _settled_only(c.wagered_cents + c.bonus_wagered_cents),
            _settled_only(c.house_result_cents),
            theory[3],  # the theoretical win: NULL when no settled round carries one
        )
        .where(
            c.table_id.in_(_tables_in(count)),
            c.opened_at >= bindparam("start"),
            c.opened_at < bindparam("end"),
        )
        .group_by(c.table_id)
    )


def chain_heads(
    session: Session, *, chains: Iterable[str], before: Mapping[str, datetime] | None = None
) -> dict[str, int]:
    """The last seq of each chain (0 for a chain with no event yet), or with ``before`` the last
    seq of each chain it names written before the time given for it: one SELECT of one scalar
    subquery per chain, each read off ``uq_events_table_seq``."""
    ids = list(chains)
    if not ids:
        return {}
    heads = []
    for chain in ids:
        last = select(func.coalesce(func.max(Event.seq), 0)).where(col(Event.table_id) == chain)
        if before is not None and chain in before:
            last = last.where(col(Event.created_at) < before[chain])
        heads.append(last.scalar_subquery())
    row = session.execute(select(*heads)).one()
    return {chain: int(seq) for chain, seq in zip(ids, row, strict=True)}


def events_after(session: Session, *, after: Mapping[str, int], limit: int) -> list[EventPublic]:
    """The events of each chain of ``after`` with a seq above the one given for it, in chain
    order (table, then seq), at most ``limit``: each chain's share is the start of its rest, so
    whatever a reader takes it can resume from the last seq of each chain."""
    if not after:
        return []
    return _events(_events_after(len(after)), session, {**_chains_after(after), "limit": limit})


def _chains_after(after: Mapping[str, int]) -> dict[str, Any]:
    """The parameters of ``_after``: each chain (``c0``...) and the seq after which it is read
    (``s0``...), in chain order."""
    params: dict[str, Any] = {}
    for n, (chain, seq) in enumerate(sorted(after.items())):
        params[f"c{n}"], params[f"s{n}"] = chain, seq
    return params


def _after(count: int) -> Any:
    """``count`` chains, each after its own seq: one index range per chain on ``(table_id, seq)``."""
    return or_(
        *(
            and_(_EVENTS.c.table_id == bindparam(f"c{n}"), _EVENTS.c.seq > bindparam(f"s{n}"))
            for n in range(count)
        )
    )


def _in_chain_order(count: int, *where: Any) -> Any:
    """The events of ``count`` chains after their seqs (``_after``) that also meet ``where``, in
    chain order (table, then seq)."""
    return _select_events(_after(count), *where).order_by(_EVENTS.c.table_id, _EVENTS.c.seq)


@lru_cache(maxsize=64)
def _events_after(count: int) -> FixedRead:
    return FixedRead(_in_chain_order(count).limit(bindparam("limit")))


@lru_cache(maxsize=64)
def _kinds_after(count: int, kinds: tuple[str, ...]) -> FixedRead:
    """``_in_chain_order`` of the events of ``kinds`` (each an index range on
    ``ix_events_table_kind_seq``), built once per count and kinds."""
    return FixedRead(_in_chain_order(count, or_(*(_EVENTS.c.kind == kind for kind in kinds))))


__all__ = [
    "TODAY_FIELDS",
    "FloorTableRow",
    "LatestRound",
    "alert_events_after",
    "chain_heads",
    "events_after",
    "floor_alerts",
    "floor_tables",
    "last_payloads",
    "latest_rounds",
    "newest_first",
    "today_sums",
]
