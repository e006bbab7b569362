"""The queries of the round history and of one round in full (the API builds its answers from them).

History pages walk one table's rounds by number (``uq_rounds_table_number``; newest first by
default) with a keyset cursor, so page 1000 costs what page 1 costs. A time range becomes a
range of round numbers first (round numbers follow opening time: ``create_round`` numbers a
table's rounds in the order they open), through ``ix_rounds_table_opened_at``. Round-level
filters (dealer, void, misdeal, override) have their own ``(table_id, filter, number)`` index
(migration 0002); position-level filters (position, outcome, a card, a hand category) are one
``EXISTS`` on the position rows of each round, by primary key: dense filters fill a page after
a short walk. A rare hand category is first looked up through its index (``SPARSE``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from pydantic_core import from_json
from sqlalchemy import Integer, Select, and_, bindparam, exists, func, literal, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import GenericFunction
from sqlmodel import Session

from ..game.cards import Game
from .chain import check_round_id
from .errors import RoundNotFoundError
from .fixed_read import FixedRead
from .models import Event, PositionOutcome, Round, RoundPosition

ROUNDS = Round.__table__  # type: ignore[attr-defined]
POSITION_ROWS = RoundPosition.__table__  # type: ignore[attr-defined]
SPARSE = 5000  # a hand category held by at most this many positions is looked up by its index


class substring_at(GenericFunction[int]):
    """Where ``needle`` first occurs in ``text`` (from 1; 0 if nowhere): ``instr`` in SQLite,
    ``strpos`` in PostgreSQL. The card filter uses it rather than ``LIKE '% As %'``, whose
    selectivity PostgreSQL guesses from the pattern's letters at a fiftieth of the truth: on
    two weeks of rounds it then read every position's cards and sorted them (27 ms) instead of
    walking the newest rounds until a page is full (1.5 ms)."""

    type = Integer()
    name = "instr"
    identifier = "substring_at"  # not ``func.instr``: that stays SQLAlchemy's own
    inherit_cache = True


@compiles(substring_at, "postgresql")
def _strpos(element: substring_at, compiler: Any, **kw: Any) -> str:
    return f"strpos({compiler.process(element.clauses, **kw)})"


@dataclass(frozen=True)
class HistoryFilter:
    """What a history page asks for; every field optional."""

    opened_from: datetime | None = None
    opened_to: datetime | None = None
    position: int | None = None
    outcome: PositionOutcome | None = None
    game: Game | None = None
    dealer: str | None = None
    card: str | None = None
    high_category: str | None = None
    low_category: str | None = None
    seven_card_category: str | None = None
    voided: bool | None = None
    misdeal: bool | None = None
    override: bool | None = None
    player_banked: bool | None = None  # True: a player banked; False: the house (migration 0006)


_FIRST_AT_OR_AFTER = FixedRead(
    select(ROUNDS.c.number)
    .where(ROUNDS.c.table_id == bindparam("table_id"), ROUNDS.c.opened_at >= bindparam("moment"))
    .order_by(ROUNDS.c.opened_at)
    .limit(1)
)
_LAST_BEFORE = FixedRead(
    select(ROUNDS.c.number)
    .where(ROUNDS.c.table_id == bindparam("table_id"), ROUNDS.c.opened_at < bindparam("moment"))
    .order_by(ROUNDS.c.opened_at.desc())
    .limit(1)
)


def _first_number(
    session: Session,
    table_id: str,
    moment: datetime,
    *,
    last: bool,
    lookups: list[tuple[Select[Any], dict[str, Any]]],
) -> int | None:
    """The number of the first round opened at/after ``moment`` (or the last opened before it)."""
    read = _LAST_BEFORE if last else _FIRST_AT_OR_AFTER
    params = {"table_id": table_id, "moment": moment}
    lookups.append((read.statement, params))
    found = read.rows(session, params)
    return None if not found else int(found[0][0])


@dataclass(frozen=True)
class HistoryQuery:
    """The SELECT of a history page and its parameters; ``ordered`` False: the rows come
    unordered and uncut (a rare category's rounds, sorted by :func:`history_page`)."""

    statement: Select[Any]
    params: dict[str, Any]
    ordered: bool = True
    lookups: tuple[tuple[Select[Any], dict[str, Any]], ...] = ()  # what was read first to build it
    read: FixedRead | None = None  # the statement as a FixedRead, when it binds no list

    def rows(self, session: Session) -> Sequence[Sequence[Any]]:
        """The statement's rows (``SUMMARY_COLUMNS``)."""
        if self.read is not None:
            return self.read.rows(session, self.params)
        return session.connection().execute(self.statement, self.params).all()


# Which filter binds which parameter: a page's statement depends only on which filters are given
# (its "shape"), so it is built once per shape (``_page_select``) and reused with new values.
_ROUND_FILTERS = ("game", "dealer", "voided", "misdeal", "override")
_CATEGORY_FILTERS = ("high_category", "low_category", "seven_card_category")


def _rare_rounds(
    session: Session, where: HistoryFilter, lookups: list[tuple[Select[Any], dict[str, Any]]]
) -> list[str] | None:
    """The rounds holding a rare hand category (at most ``SPARSE``), or None if it is common.

    A rare hand (five aces, a royal flush) would make the walk by number read every round
    before filling a page: when few positions hold it, its rounds come from the category's
    index instead, and are then paged by number."""
    given = {name: getattr(where, name) for name in _CATEGORY_FILTERS if getattr(where, name) is not None}
    lookup = (_holding(frozenset(given)), given)
    lookups.append(lookup)
    found = session.connection().execute(*lookup).scalars().all()
    return sorted(set(found)) if len(found) <= SPARSE else None


@lru_cache(maxsize=8)
def _holding(categories: frozenset[str]) -> Select[Any]:
    """The rounds of the positions holding the given hand categories (at most SPARSE + 1)."""
    p = POSITION_ROWS.c
    return (
        select(p.round_id)
        .where(*[p[name] == bindparam(name) for name in sorted(categories)])
        .limit(SPARSE + 1)
    )


def _checked_only(column: Any) -> Any:
    """``column`` wrapped in an expression of the same value: a condition on it is checked on
    the rows read, and can no longer draw the planner to the column's index."""
    return func.coalesce(column, column)


@lru_cache(maxsize=256)
def _page_select(shape: frozenset[str], newest_first: bool, rare: bool) -> Select[Any]:
    """The SELECT of history pages of one shape: the names of the filters given (and
    ``from``/``to``/``cursor``), every value a bound parameter of the same name."""
    c, p = ROUNDS.c, POSITION_ROWS.c

    def bare(column: Any) -> Any:
        # With the rare rounds' ids in hand, the primary key must drive the query.
        return _checked_only(column) if rare else column

    # A time range is walked by round number (its first and last numbers were looked up first);
    # the times themselves are only checked: asked for both ranges, PostgreSQL takes number and
    # time for independent and reads the whole range to sort it.
    opened = _checked_only(c.opened_at)
    conditions = [bare(c.table_id) == bindparam("table_id")]
    if "from" in shape:
        conditions += [bare(c.number) >= bindparam("from_number"), opened >= bindparam("opened_from")]
    if "to" in shape:
        conditions += [bare(c.number) <= bindparam("to_number"), opened < bindparam("opened_to")]
    if "cursor" in shape:
        conditions.append(
            bare(c.number) < bindparam("cursor") if newest_first else bare(c.number) > bindparam("cursor")
        )
    conditions += [bare(c[name]) == bindparam(name) for name in _ROUND_FILTERS if name in shape]
    if "player_banked" in shape:
        conditions.append(c.banker_seat.is_not(None) == bindparam("player_banked"))
    held = [bare(p[name]) == bindparam(name) for name in _CATEGORY_FILTERS if name in shape]
    if "position" in shape:
        held.append(p.position == bindparam("position"))
    if "outcome" in shape:
        held.append(p.outcome == bindparam("outcome"))
    if "card" in shape:
        held.append(substring_at(literal(" ") + p.cards + literal(" "), bindparam("card")) > 0)
    if rare:
        conditions.append(c.round_id.in_(bindparam("rare", expanding=True)))
    if held:
        conditions.append(exists().where(and_(p.round_id == c.round_id, *held)))
    statement = select(*_SUMMARY).where(*conditions)
    if rare:
        return statement
    return statement.order_by(c.number.desc() if newest_first else c.number.asc()).limit(bindparam("rows"))


@lru_cache(maxsize=256)
def _page_read(shape: frozenset[str], newest_first: bool) -> FixedRead:
    """An ordered page's SELECT (``_page_select``) as a FixedRead: a page is read on every
    request a terminal makes, and Core's per-statement work cost more than the page's query."""
    return FixedRead(_page_select(shape, newest_first, False))


def history_statement(
    session: Session,
    table_id: str,
    where: HistoryFilter,
    *,
    newest_first: bool,
    cursor: int | None,
    limit: int,
) -> HistoryQuery | None:
    """The SELECT of one history page and its parameters (None when no round can match).

    When a rare hand category is asked for, the statement selects every matching round (at most
    ``SPARSE``) without order or limit: :func:`history_page` sorts and cuts them, because a
    database asked to order them by number tends to walk the whole number index instead.
    """
    params: dict[str, Any] = {"table_id": table_id, "rows": limit + 1}
    lookups: list[tuple[Select[Any], dict[str, Any]]] = []
    rare: list[str] | None = None
    if any(getattr(where, name) is not None for name in _CATEGORY_FILTERS):
        rare = _rare_rounds(session, where, lookups)
        if rare == []:
            return None
        if rare is not None:
            params["rare"] = rare
    if where.opened_from is not None:
        params["from_number"] = _first_number(
            session, table_id, where.opened_from, last=False, lookups=lookups
        )
        params["opened_from"] = where.opened_from
        if params["from_number"] is None:
            return None
    if where.opened_to is not None:
        params["to_number"] = _first_number(session, table_id, where.opened_to, last=True, lookups=lookups)
        params["opened_to"] = where.opened_to
        if params["to_number"] is None:
            return None
    if cursor is not None:
        params["cursor"] = cursor
    given = {
        "game": None if where.game is None else where.game.value,
        "dealer": where.dealer,
        "voided": where.voided,
        "misdeal": where.misdeal,
        "override": where.override,
        "player_banked": where.player_banked,
        "high_category": where.high_category,
        "low_category": where.low_category,
        "seven_card_category": where.seven_card_category,
        "position": where.position,
        "outcome": None if where.outcome is None else where.outcome.value,
        "card": None if where.card is None else f" {where.card} ",
    }
    given = {name: value for name, value in given.items() if value is not None}
    params.update(given)
    shape = frozenset(given) | {
        name
        for name, value in (("from", where.opened_from), ("to", where.opened_to), ("cursor", cursor))
        if value is not None
    }
    if rare is not None:
        del params["rows"]
        statement = _page_select(shape, newest_first, True)
        return HistoryQuery(statement, params, ordered=False, lookups=tuple(lookups))
    read = _page_read(shape, newest_first)
    return HistoryQuery(read.statement, params, lookups=tuple(lookups), read=read)


SUMMARY_COLUMNS = (
    "round_id",
    "number",
    "game",
    "dealer",
    "phase",
    "opened_at",
    "closed_at",
    "voided",
    "misdeal",
    "void_reason",
    "override",
    "die_1",
    "die_2",
    "die_3",
    "dice_source",
    "start_position",
    "wagered_cents",
    "bonus_wagered_cents",
    "commission_cents",
    "bonuses_paid_cents",
    "house_result_cents",
    "house_way_rule_id",
    # who banked (migration 0006): NULL banker_seat, the house
    "banker_seat",
    "bank_cents",
    "house_wager_cents",
    "house_share_bp",
    "bank_offer",
    "dice_direction",
    "bank_gross_cents",
    "bank_commission_cents",
    "banker_result_cents",
    "house_hand_result_cents",
)
_SUMMARY = [ROUNDS.c[name] for name in SUMMARY_COLUMNS]


_DIE_1 = SUMMARY_COLUMNS.index("die_1")


def summary_data(row: Any) -> dict[str, Any]:
    """A row of ``SUMMARY_COLUMNS`` as named fields, the three dice as one list."""
    data = dict(zip(SUMMARY_COLUMNS, row, strict=True))
    data["dice"] = None if row[_DIE_1] is None else list(row[_DIE_1 : _DIE_1 + 3])
    return data


def history_rows(
    session: Session,
    table_id: str,
    where: HistoryFilter,
    *,
    newest_first: bool = True,
    cursor: int | None = None,
    limit: int = 50,
) -> tuple[Sequence[Sequence[Any]], bool]:
    """One page of rounds as rows of ``SUMMARY_COLUMNS``, and whether more follow."""
    query = history_statement(session, table_id, where, newest_first=newest_first, cursor=cursor, limit=limit)
    if query is None:
        return [], False
    rows = query.rows(session)
    if not query.ordered:  # a rare category's rounds: ordered and cut here
        number = SUMMARY_COLUMNS.index("number")
        rows = sorted(rows, key=lambda row: row[number], reverse=newest_first)[: limit + 1]
    return rows[:limit], len(rows) > limit


# --------------------------------------------------------------------------- one round


POSITION_COLUMNS = (
    "position",
    "wager_cents",
    "big_hand_bonus_cents",
    "joker_bonus_cents",
    "cards",
    "high",
    "low",
    "high_category",
    "low_category",
    "seven_card_category",
    "house_way_rule_id",
    "fouled",
    "outcome",
    "win_cents",
    "commission_cents",
    "bonus_paid_cents",
    "net_cents",
    "override",
    "house_hand",
)
_EVENTS = Event.__table__  # type: ignore[attr-defined]
_EVENT_COLUMNS = ("seq", "kind", "actor", "created_at", "payload", "prev_hash", "hash")


# Built once: a detail reads these three by index (primary key, primary key, (round_id, seq)),
# and its pinned rules by hash (rules_store.check_evidence).
_ROUND_BY_ID = FixedRead(
    select(ROUNDS.c.table_id, ROUNDS.c.house_way_required, *_SUMMARY).where(
        ROUNDS.c.round_id == bindparam("round_id")
    )
)
_POSITIONS_OF = FixedRead(
    select(*[POSITION_ROWS.c[name] for name in POSITION_COLUMNS])
    .where(POSITION_ROWS.c.round_id == bindparam("round_id"))
    .order_by(POSITION_ROWS.c.position)
)
_EVENTS_OF = FixedRead(
    select(*[_EVENTS.c[name] for name in _EVENT_COLUMNS])
    .where(_EVENTS.c.round_id == bindparam("round_id"), _EVENTS.c.table_id == bindparam("table_id"))
    .order_by(_EVENTS.c.seq)
)


def round_row(session: Session, table_id: str, round_id: str) -> dict[str, Any]:
    """The round's ``SUMMARY_COLUMNS`` as named fields and its ``house_way_required`` (JSON text)."""
    check_round_id(round_id)
    found = _ROUND_BY_ID.rows(session, {"round_id": round_id})
    if not found or found[0][0] != table_id:
        raise RoundNotFoundError(f"no round {round_id!r}")
    row = found[0]
    return {**summary_data(row[2:]), "house_way_required": row[1]}


def parse_json(text: str) -> Any:
    """Stored JSON text as Python values: pydantic-core's parser, at about half the time of
    ``json.loads`` on a round's payloads and with the same values; what it refuses (a lone
    surrogate, which ``json.dumps`` writes) or finds broken goes to ``json.loads`` as before."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


def round_events(session: Session, table_id: str, round_id: str) -> list[dict[str, Any]]:
    """The round's events in chain order, as ``ChainEventPublic`` fields (payload parsed)."""
    rows = _EVENTS_OF.rows(session, {"round_id": round_id, "table_id": table_id})
    return [
        {
            "seq": seq,
            "kind": kind,
            "round_id": round_id,
            "actor": actor,
            "created_at": created_at,
            "payload": parse_json(payload),
            "prev_hash": prev_hash,
            "hash": hash_,
        }
        for seq, kind, actor, created_at, payload, prev_hash, hash_ in rows
    ]


def round_positions(session: Session, round_id: str) -> list[dict[str, Any]]:
    """The round's positions as named fields, in position order."""
    return [
        dict(zip(POSITION_COLUMNS, row, strict=True))
        for row in _POSITIONS_OF.rows(session, {"round_id": round_id})
    ]
