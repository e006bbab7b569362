"""Round history, one round in full, its replay: read from the projections and the chain.

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
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, bindparam, exists, func, literal, select
from sqlmodel import Session

from ..game.cards import Game, parse_cards
from ..round.events import ROUND_EVENT_KINDS, RoundOpened, event_from_payload
from ..round.machine import apply, open_round
from ..round.rules import GameRoundRules
from ..service import rules_for
from ..storage.chain import check_round_id
from ..storage.errors import RoundNotFoundError
from ..storage.models import Event, EventPublic, PositionOutcome, Round, RoundPosition
from .errors import ApiError
from .models.events import event_view
from .models.rounds import PositionPublic, ReplayPublic, ReplayStepPublic, RoundDetailPublic, RoundSummaryPublic
from .models.table import DicePublic, HouseWayPublic, PilePublic, round_state_view
from .models.errors import SettingPublic
from ..game.deal import pile_positions

ROUNDS = Round.__table__  # type: ignore[attr-defined]
POSITIONS = RoundPosition.__table__  # type: ignore[attr-defined]
MAX_PAGE = 200
SPARSE = 5000  # a hand category held by at most this many positions is looked up by its index


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


def _first_number(session: Session, table_id: str, moment: datetime, *, last: bool) -> int | None:
    """The number of the first round opened at/after ``moment`` (or the last opened before it)."""
    c = ROUNDS.c
    if last:
        statement = (select(c.number).where(c.table_id == table_id, c.opened_at < moment)
                     .order_by(c.opened_at.desc()).limit(1))
    else:
        statement = (select(c.number).where(c.table_id == table_id, c.opened_at >= moment)
                     .order_by(c.opened_at).limit(1))
    found = session.execute(statement).scalar()
    return None if found is None else int(found)


@dataclass(frozen=True)
class HistoryQuery:
    """The SELECT of a history page; ``ordered`` False: the rows come unordered and uncut."""

    statement: Select[Any]
    ordered: bool = True


def history_statement(session: Session, table_id: str, where: HistoryFilter, *, newest_first: bool,
                      cursor: int | None, limit: int) -> HistoryQuery | None:
    """The SELECT of one history page (None when no round can match).

    When a rare hand category is asked for, the statement selects every matching round (at most
    ``SPARSE``) without order or limit: :func:`history_page` sorts and cuts them, because a
    database asked to order them by number tends to walk the whole number index instead.
    """
    c, p = ROUNDS.c, POSITIONS.c
    categories = [column == value for column, value in ((p.high_category, where.high_category),
                                                        (p.low_category, where.low_category),
                                                        (p.seven_card_category, where.seven_card_category))
                  if value is not None]
    rare: list[str] | None = None
    if categories:
        # A rare hand (five aces, a royal flush) would make the walk by number read every round
        # before filling a page: when few positions hold it, take their rounds from the
        # category's index instead (at most SPARSE ids), then page them by number.
        found = session.execute(select(p.round_id).where(*categories).limit(SPARSE + 1)).scalars().all()
        if not found:
            return None
        if len(found) <= SPARSE:
            rare = sorted(set(found))

    def bare(column: Any) -> Any:
        # With the rare rounds' ids in hand, the primary key must drive the query: a round-level
        # column wrapped in an expression (same value) can no longer draw the planner to its index.
        return func.coalesce(column, column) if rare is not None else column

    conditions = [bare(c.table_id) == table_id]
    if where.opened_from is not None:
        low = _first_number(session, table_id, where.opened_from, last=False)
        if low is None:
            return None
        conditions += [bare(c.number) >= low, bare(c.opened_at) >= where.opened_from]
    if where.opened_to is not None:
        high = _first_number(session, table_id, where.opened_to, last=True)
        if high is None:
            return None
        conditions += [bare(c.number) <= high, bare(c.opened_at) < where.opened_to]
    if cursor is not None:
        conditions.append(bare(c.number) < cursor if newest_first else bare(c.number) > cursor)
    for column, value in ((c.game, where.game.value if where.game else None), (c.dealer, where.dealer),
                          (c.voided, where.voided), (c.misdeal, where.misdeal), (c.override, where.override)):
        if value is not None:
            conditions.append(bare(column) == value)
    held = [bare(column) == value for column, value in ((p.high_category, where.high_category),
                                                        (p.low_category, where.low_category),
                                                        (p.seven_card_category, where.seven_card_category))
            if value is not None]
    if where.position is not None:
        held.append(p.position == where.position)
    if where.outcome is not None:
        held.append(p.outcome == where.outcome.value)
    if where.card is not None:
        held.append((literal(" ") + p.cards + literal(" ")).like(f"% {where.card} %"))
    sparse = rare is not None
    if rare is not None:
        conditions.append(c.round_id.in_(rare))
    if held:
        conditions.append(exists().where(and_(p.round_id == c.round_id, *held)))
    if sparse:
        return HistoryQuery(select(*_SUMMARY).where(*conditions), ordered=False)
    order = c.number.desc() if newest_first else c.number.asc()
    return HistoryQuery(select(*_SUMMARY).where(*conditions).order_by(order).limit(limit + 1))


SUMMARY_COLUMNS = ("round_id", "number", "game", "dealer", "phase", "opened_at", "closed_at", "voided", "misdeal",
                   "void_reason", "override", "die_1", "die_2", "die_3", "dice_source", "start_position",
                   "wagered_cents", "bonus_wagered_cents", "commission_cents", "bonuses_paid_cents",
                   "house_result_cents", "house_way_rule_id")
_SUMMARY = [ROUNDS.c[name] for name in SUMMARY_COLUMNS]


def summary(row: Any) -> RoundSummaryPublic:
    """A round of the history from a row of ``SUMMARY_COLUMNS`` (by position: fast on a page)."""
    data = dict(zip(SUMMARY_COLUMNS, tuple(row)))
    dice = (data.pop("die_1"), data.pop("die_2"), data.pop("die_3"))
    data["dice"] = list(dice) if dice[0] is not None else None
    return RoundSummaryPublic.model_validate(data)


def history_page(session: Session, table_id: str, where: HistoryFilter, *, newest_first: bool = True,
                 cursor: int | None = None, limit: int = 50) -> tuple[list[RoundSummaryPublic], int | None]:
    """One page of rounds and the cursor of the next page (None on the last)."""
    if not 1 <= limit <= MAX_PAGE:
        raise ApiError(422, f"limit must be 1..{MAX_PAGE}")
    query = history_statement(session, table_id, where, newest_first=newest_first, cursor=cursor, limit=limit)
    if query is None:
        return [], None
    rows = session.execute(query.statement).all()
    if not query.ordered:  # a rare category's rounds: ordered and cut here
        number = SUMMARY_COLUMNS.index("number")
        rows = sorted(rows, key=lambda row: row[number], reverse=newest_first)[: limit + 1]
    more = len(rows) > limit
    page = [summary(row) for row in rows[:limit]]
    return page, (page[-1].number if more else None)


# --------------------------------------------------------------------------- one round


def _split(text: str | None) -> list[str] | None:
    return None if text is None else text.split()


_POSITION_COLUMNS = ("position", "wager_cents", "big_hand_bonus_cents", "joker_bonus_cents", "cards", "high", "low",
                     "high_category", "low_category", "seven_card_category", "house_way_rule_id", "fouled",
                     "outcome", "win_cents", "commission_cents", "bonus_paid_cents", "net_cents", "override")
_EVENTS = Event.__table__  # type: ignore[attr-defined]
_EVENT_COLUMNS = ("id", "table_id", "round_id", "kind", "actor", "seq", "created_at", "payload", "prev_hash", "hash")
# Built once: a detail is three indexed SELECTs (primary key, primary key, (round_id, seq)).
_ROUND_BY_ID = select(ROUNDS.c.table_id, *_SUMMARY).where(ROUNDS.c.round_id == bindparam("round_id"))
_POSITIONS_OF = (select(*[POSITIONS.c[name] for name in _POSITION_COLUMNS])
                 .where(POSITIONS.c.round_id == bindparam("round_id")).order_by(POSITIONS.c.position))
_EVENTS_OF = (select(*[_EVENTS.c[name] for name in _EVENT_COLUMNS])
              .where(_EVENTS.c.round_id == bindparam("round_id"), _EVENTS.c.table_id == bindparam("table_id"))
              .order_by(_EVENTS.c.seq))


def _table_round(session: Session, table_id: str, round_id: str) -> RoundSummaryPublic:
    check_round_id(round_id)
    row = session.execute(_ROUND_BY_ID, {"round_id": round_id}).first()
    if row is None or row[0] != table_id:
        raise RoundNotFoundError(f"no round {round_id!r}")
    return summary(tuple(row)[1:])


def _house_way(opened: dict[str, Any] | None, banker_cards: str | None) -> HouseWayPublic | None:
    """How the house way the round was opened under sets the banker's seven cards (002)."""
    if opened is None or banker_cards is None:
        return None
    rules = GameRoundRules.from_snapshot(opened["rules"])
    required = rules.required_setting(parse_cards(banker_cards))
    return HouseWayPublic(way=required.way, rule_id=required.rule_id, rule_words=required.rule_words,
                          setting=SettingPublic(high=[c.code for c in required.setting.high],
                                                low=[c.code for c in required.setting.low]))


def round_detail(session: Session, table_id: str, round_id: str) -> RoundDetailPublic:
    """One round in full: the projection, its positions, and every event of the round in order."""
    found = _table_round(session, table_id, round_id)
    positions = [dict(zip(_POSITION_COLUMNS, tuple(row)))
                 for row in session.execute(_POSITIONS_OF, {"round_id": round_id})]
    events = [EventPublic.model_validate(dict(zip(_EVENT_COLUMNS, tuple(row))))
              for row in session.execute(_EVENTS_OF, {"round_id": round_id, "table_id": table_id})]
    payloads = {e.kind: json.loads(e.payload) for e in events
                if e.kind in ("round.opened", "dice.rolled", "piles.dealt")}
    dealt = payloads.get("piles.dealt")
    rolled = payloads.get("dice.rolled")
    start = found.start_position
    owners = pile_positions(start) if start is not None and dealt is not None and not found.misdeal else None
    piles = [] if dealt is None else [
        PilePublic(pile=n, position=owners[n - 1] if owners else None, cards=list(cards))
        for n, cards in enumerate(dealt["piles"], start=1)
    ]
    banker = next((p for p in positions if p["position"] == 1), None)
    for position in positions:
        for name in ("cards", "high", "low"):
            position[name] = _split(position[name])
    return RoundDetailPublic(
        **found.model_dump(),
        dice_rolled=None if rolled is None else DicePublic(faces=rolled["faces"], source=rolled["source"],
                                                           roll_id=rolled.get("roll_id")),
        piles=piles,
        unused=[] if dealt is None else list(dealt["unused"]),
        house_way=None if found.misdeal or banker is None else _house_way(
            payloads.get("round.opened"), None if banker["cards"] is None else " ".join(banker["cards"])),
        positions=[PositionPublic.model_validate(p) for p in positions],
        events=[event_view(e) for e in events],
    )


def round_replay(session: Session, table_id: str, round_id: str) -> ReplayPublic:
    """The round step by step: the state after each of its round events (``machine.replay``)."""
    _table_round(session, table_id, round_id)
    stored = [e for e in (EventPublic.model_validate(dict(zip(_EVENT_COLUMNS, tuple(row))))
                          for row in session.execute(_EVENTS_OF, {"round_id": round_id, "table_id": table_id}))
              if e.kind in ROUND_EVENT_KINDS]
    if not stored or stored[0].kind != "round.opened":
        raise ApiError(409, f"round {round_id} has no stored round.opened event to replay from", "no-events")
    first = event_from_payload(json.loads(stored[0].payload))
    assert isinstance(first, RoundOpened)
    state = open_round(first)
    rules = rules_for(first)
    steps = [ReplayStepPublic(seq=stored[0].seq, kind=stored[0].kind, actor=stored[0].actor,
                              created_at=stored[0].created_at, state=round_state_view(state))]
    for event in stored[1:]:
        state = apply(state, event_from_payload(json.loads(event.payload)), rules)
        steps.append(ReplayStepPublic(seq=event.seq, kind=event.kind, actor=event.actor,
                                      created_at=event.created_at, state=round_state_view(state)))
    return ReplayPublic(round_id=round_id, steps=steps)
