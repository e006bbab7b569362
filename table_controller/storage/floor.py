"""The floor's queries: every table of the store at once (docs/floor.md).

The floor shows many tables; each function here answers for all of them in one or two
indexed SELECTs (``floor_tables``; ``uq_rounds_table_number``; ``ix_events_table_kind_seq``;
``uq_events_table_seq``), never one query per table. Data functions take the session and
keyword arguments, as the rest of storage/.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Row, Select, and_, bindparam, func, or_, select
from sqlmodel import Session, col

from .alerts import ACKNOWLEDGED, RAISED, Acknowledgement, Alert
from .floor_tables import FloorTable
from .models import Event, EventPublic, Round
from .reports import ROUNDS, _count, _settled_only, _theory_columns

# today's sums per table, by name (integer cents; the theoretical win None when no round has one)
TODAY_FIELDS = ("rounds", "settled", "wagered_cents", "house_result_cents", "theoretical_win_cents")


def floor_tables(session: Session, *, pit: str | None = None) -> list[Row[Any]]:
    """The tables of the floor (of one pit when ``pit`` is given), by pit then table id: rows
    with FloorTable's columns, which outlive the session (the stream's hub keeps them)."""
    table = FloorTable.__table__  # type: ignore[attr-defined]
    statement = select(table)
    if pit is not None:
        statement = statement.where(table.c.pit == pit)
    return list(session.execute(statement.order_by(table.c.pit, table.c.table_id)).all())


def latest_rounds(session: Session, *, table_ids: Iterable[str]) -> dict[str, Round]:
    """Each table's newest round (the highest number), by table id: one SELECT of one equality
    lookup per table on ``uq_rounds_table_number``, each table's ``max(number)`` an uncorrelated
    subquery read off the end of that index (never a scan of a table's rounds)."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = session.execute(_latest_rounds(len(ids)), _numbered(ids)).scalars()
    return {row.table_id: row for row in rows}


@lru_cache(maxsize=64)
def _latest_rounds(count: int) -> Select[Any]:
    """``latest_rounds``'s statement for ``count`` tables (``t0``, ``t1``...), built once per
    count: building the per-table branches cost more than running them."""
    c = ROUNDS.c
    newest = [
        and_(
            col(Round.table_id) == bindparam(f"t{n}"),
            col(Round.number)
            == select(func.max(c.number)).where(c.table_id == bindparam(f"t{n}")).scalar_subquery(),
        )
        for n in range(count)
    ]
    return select(Round).where(or_(*newest))


def _numbered(ids: Iterable[str]) -> dict[str, str]:
    """The table ids as the per-count statements bind them: ``t0``, ``t1``..."""
    return {f"t{n}": table_id for n, table_id in enumerate(ids)}


def last_payloads(session: Session, *, table_ids: Iterable[str], kind: str) -> dict[str, dict[str, Any]]:
    """The payload of each table's last event of ``kind`` (for ``recorder.TABLE_STATE``: its open
    faults, hold, open or closed), by table id: one SELECT of one lookup per table, each table's
    last seq of ``kind`` read off the end of ``ix_events_table_kind_seq``."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = session.execute(_last_payloads(len(ids)), {**_numbered(ids), "kind": kind})
    return {table_id: json.loads(payload) for table_id, payload in rows}


@lru_cache(maxsize=64)
def _last_payloads(count: int) -> Select[str, str]:
    inner = Event.__table__.alias("last_of_kind")  # type: ignore[attr-defined]
    last = [
        and_(
            col(Event.table_id) == bindparam(f"t{n}"),
            col(Event.seq)
            == select(func.max(inner.c.seq))
            .where(inner.c.table_id == bindparam(f"t{n}"), inner.c.kind == bindparam("kind"))
            .scalar_subquery(),
        )
        for n in range(count)
    ]
    return select(col(Event.table_id), col(Event.payload)).where(or_(*last))


def _acknowledgements(session: Session, after: Mapping[str, int]) -> dict[tuple[str, int], Acknowledgement]:
    """The acknowledgements written after the seq given for each table, by (table id, seq of the
    alert it acknowledges): an acknowledgement always comes after its alert in the chain."""
    found: dict[tuple[str, int], Acknowledgement] = {}
    if not after:
        return found
    wanted = or_(*(and_(col(Event.table_id) == chain, col(Event.seq) > seq) for chain, seq in after.items()))
    for row in session.execute(
        select(Event)
        .where(col(Event.kind) == ACKNOWLEDGED, wanted)
        .order_by(col(Event.table_id), col(Event.seq))
    ).scalars():
        data = json.loads(row.payload)
        found.setdefault(
            (row.table_id, int(data["alert_seq"])),
            Acknowledgement(row.seq, row.actor, data.get("note", ""), row.created_at),
        )
    return found


def _with_acknowledgements(session: Session, rows: list[Event]) -> list[Alert]:
    oldest: dict[str, int] = {}
    for row in rows:
        oldest[row.table_id] = min(row.seq, oldest.get(row.table_id, row.seq))
    acks = _acknowledgements(session, oldest)
    return [
        Alert(EventPublic.model_validate(row, from_attributes=True), acks.get((row.table_id, row.seq)))
        for row in rows
    ]


_NEWEST_FIRST = (col(Event.created_at).desc(), col(Event.table_id), col(Event.seq).desc())


def newest_first(alerts: Iterable[Alert]) -> list[Alert]:
    """Alerts in ``_NEWEST_FIRST``'s order (the time raised, newest first, then table and seq,
    newest first): of several tables' open alerts (storage/open_alerts.py)."""
    by_seq = sorted(alerts, key=lambda alert: alert.seq, reverse=True)
    by_table = sorted(by_seq, key=lambda alert: alert.event.table_id)  # stable: each sort keeps the last
    return sorted(by_table, key=lambda alert: alert.event.created_at, reverse=True)


def floor_alerts(session: Session, *, table_ids: Iterable[str], limit: int = 100) -> list[Alert]:
    """The newest ``limit`` alerts of every table given, newest first (the time raised, then table
    and seq), each with its acknowledgement once the pit has seen it (as ``alerts.list_alerts``
    for one table): the acknowledgements read are those after the oldest alert listed."""
    ids = list(table_ids)
    if not ids:
        return []
    rows = session.execute(
        select(Event)
        .where(col(Event.table_id).in_(ids), col(Event.kind) == RAISED)
        .order_by(*_NEWEST_FIRST)
        .limit(limit)
    ).scalars()
    return _with_acknowledgements(session, list(rows))


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
    c = ROUNDS.c
    theory = _theory_columns()
    rows = session.execute(
        select(
            c.table_id,
            func.count(),
            _count(c.phase == "closed"),
            _settled_only(c.wagered_cents + c.bonus_wagered_cents),
            _settled_only(c.house_result_cents),
            theory[3],  # the theoretical win: NULL when no settled round carries one
        )
        .where(c.table_id.in_(ids), c.opened_at >= start, c.opened_at < end)
        .group_by(c.table_id)
    )
    return {
        row[0]: dict(
            zip(TODAY_FIELDS, [None if value is None else int(value) for value in row[1:]], strict=True)
        )
        for row in rows
    }


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
    rows = session.execute(_events_after(len(after)), {**_chains_after(after), "limit": limit}).scalars()
    return [EventPublic.model_validate(row, from_attributes=True) for row in rows]


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
            and_(col(Event.table_id) == bindparam(f"c{n}"), col(Event.seq) > bindparam(f"s{n}"))
            for n in range(count)
        )
    )


@lru_cache(maxsize=64)
def _events_after(count: int) -> Select[Any]:
    return (
        select(Event)
        .where(_after(count))
        .order_by(col(Event.table_id), col(Event.seq))
        .limit(bindparam("limit"))
    )


__all__ = [
    "TODAY_FIELDS",
    "chain_heads",
    "events_after",
    "floor_alerts",
    "floor_tables",
    "last_payloads",
    "latest_rounds",
    "newest_first",
    "today_sums",
]
