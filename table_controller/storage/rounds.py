"""The round projections: create a round, update it step by step, read it back (docs/round-lifecycle.md).

The round state machine writes each step as ``append_event(...)`` plus one of these calls
inside one :func:`~table_controller.storage.session.unit_of_work`. A closed round is final:
its projection is never written again, so a round cannot settle twice
(:class:`RoundClosedError`). Positions are 1..7 and the banker is position 1
(003_4dcc2fceebc6e4af.txt).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..game.cards import CardError, Game, check_cards, parse_cards
from .audit import lock_table
from .chain import check_round_id, check_table_id
from .errors import (
    InvalidRoundError,
    PositionExistsError,
    RoundChangedError,
    RoundClosedError,
    RoundNotFoundError,
)
from .models import (
    Event,
    Round,
    RoundCreate,
    RoundPosition,
    RoundPositionCreate,
    RoundPositionPublic,
    RoundPositionUpdate,
    RoundPublic,
    RoundUpdate,
)

_ROUNDS = Round.__table__  # type: ignore[attr-defined]
_POSITIONS = RoundPosition.__table__  # type: ignore[attr-defined]
_LOCKED_ROUNDS = "table_controller.locked_rounds"  # Session.info: the round rows this transaction locked


def round_id_for(table_id: str, number: int) -> str:
    """The id of a table's round ``number``: ``<table_id>-<number>`` (``PG-3-1042``)."""
    check_table_id(table_id)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InvalidRoundError(f"round number must be an int >= 1, got {number!r}")
    return f"{table_id}-{number}"


def next_round_number(session: Session, *, table_id: str) -> int:
    """One more than the table's highest round number (1 for a new table)."""
    check_table_id(table_id)
    highest = session.exec(select(func.max(Round.number)).where(Round.table_id == table_id)).one()
    return 1 if highest is None else int(highest) + 1


def create_round(session: Session, *, data: RoundCreate) -> RoundPublic:
    """Open a new round for ``data.table_id`` with the table's next number.

    Takes the table's write lock first, so two writers never pick the same number.
    """
    lock_table(session, table_id=data.table_id)
    number = next_round_number(session, table_id=data.table_id)
    row = Round(
        **data.model_dump(),
        round_id=round_id_for(data.table_id, number),
        number=number,
    )
    session.add(row)
    session.flush()
    return RoundPublic.model_validate(row, from_attributes=True)


def _round_row(session: Session, round_id: str, *, for_update: bool = False) -> Round:
    check_round_id(round_id)
    statement = select(Round).where(Round.round_id == round_id)
    if for_update:
        statement = statement.with_for_update()
    row = session.exec(statement.execution_options(populate_existing=True)).first()
    if row is None:
        raise RoundNotFoundError(f"no round {round_id!r}")
    return row


def _writable_round(session: Session, round_id: str) -> Round:
    """The round's row, locked until the transaction ends; :class:`RoundClosedError` if closed.

    Read and locked once per transaction (``SELECT ... FOR UPDATE`` on PostgreSQL): a step
    writes the round and several positions, and each used to read the round again. Within the
    transaction nobody else can change a locked row, and this session changes it only through
    the same object, so the row it locked is current."""
    locked: dict[str, tuple[object, Round]] = session.info.setdefault(_LOCKED_ROUNDS, {})
    transaction = session.get_transaction()
    held = locked.get(round_id)
    if held is not None and held[0] is transaction:  # held[0] is never None: taken after the read
        row = held[1]
    else:
        row = _round_row(session, round_id, for_update=True)
        transaction = session.get_transaction()  # begun by the read if it was not yet
        for ended in [key for key, (owner, _) in locked.items() if owner is not transaction]:
            del locked[ended]  # locked by a transaction that has ended: no longer held
        locked[round_id] = (transaction, row)
    if row.closed_at is not None:
        raise RoundClosedError(f"round {round_id} closed at {row.closed_at.isoformat()}: its record is final")
    return row


def expect_round_phase(session: Session, *, round_id: str, phase: str) -> None:
    """Lock the round's row for this transaction and check that it is still open in ``phase``,
    the phase the writer last read it in: :class:`RoundClosedError` when another writer closed
    it (a void from the console), :class:`RoundChangedError` when it moved it on. Taken after
    the chain's table lock (``append_event``), in the order every writer takes them."""
    row = _writable_round(session, round_id)
    if row.phase != phase:
        raise RoundChangedError(
            f"round {round_id} is {row.phase} in the store, not {phase}: another process changed it"
        )


def _checked_updates(table: Any, what: str, changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` with a clear error for a None written to a column that cannot be empty."""
    for name, value in changes.items():
        if value is None and not table.c[name].nullable:
            raise InvalidRoundError(f"{what}: {name} cannot be empty")
    return changes


def _check_round(candidate: RoundPublic) -> None:
    dice = (candidate.die_1, candidate.die_2, candidate.die_3)
    if any(die is None for die in dice) and any(die is not None for die in dice):
        raise InvalidRoundError(f"round {candidate.round_id}: three dice or none, got {dice}")
    if (candidate.voided or candidate.misdeal) and not candidate.void_reason:
        raise InvalidRoundError(f"round {candidate.round_id}: a void or misdeal needs a reason")
    if candidate.closed_at is not None and candidate.closed_at < candidate.opened_at:
        raise InvalidRoundError(f"round {candidate.round_id}: closed before it opened")


def update_round(session: Session, *, round_id: str, changes: RoundUpdate) -> RoundPublic:
    """Write the fields set in ``changes``; setting ``closed_at`` closes the round for good.

    The whole new state is checked before anything is written (three dice or none, a void
    or misdeal has a reason, closed after opened).
    """
    row = _writable_round(session, round_id)
    updates = _checked_updates(_ROUNDS, f"round {round_id}", changes.model_dump(exclude_unset=True))
    current = RoundPublic.model_validate(row, from_attributes=True)
    candidate = current.model_copy(update=updates)
    _check_round(candidate)
    for name, value in updates.items():
        setattr(row, name, value)
    session.add(row)
    session.flush()
    return RoundPublic.model_validate(row, from_attributes=True)


def get_round(session: Session, *, round_id: str) -> RoundPublic:
    """One round; :class:`RoundNotFoundError` if there is none."""
    return RoundPublic.model_validate(_round_row(session, round_id), from_attributes=True)


def find_open_round(session: Session, *, table_id: str) -> RoundPublic | None:
    """The table's latest round if it is not closed (what a restart resumes), else None."""
    check_table_id(table_id)
    row = session.exec(
        select(Round).where(Round.table_id == table_id).order_by(col(Round.number).desc()).limit(1)
    ).first()
    if row is None or row.closed_at is not None:
        return None
    return RoundPublic.model_validate(row, from_attributes=True)


def trailing_misdeals(session: Session, *, table_id: str, limit: int, from_number: int = 1) -> int:
    """How many of the table's newest rounds (numbered ``from_number`` on) were misdeals in a row,
    counting at most ``limit``.

    A round without a deal yet, voided before a good deal, or whose deal was interrupted (its
    ``piles.dealt`` names why the shuffler stopped or lost it: ``game.deal.counts_toward_hold``)
    neither counts nor breaks the run; a good deal (the round has the house way's setting of the
    banker's hand) ends it, whether that round is still open or not."""
    check_table_id(table_id)
    rows = list(
        session.exec(
            select(Round.round_id, Round.misdeal, Round.house_way_rule_id)
            .where(Round.table_id == table_id, Round.number >= from_number)
            .order_by(col(Round.number).desc())
            .limit(max(limit, 1) * 4)
        )
    )
    interrupted = _interrupted_deals(session, table_id, [r for r, misdeal, _ in rows if misdeal])
    count = 0
    for round_id, misdeal, dealt_rule in rows:
        if misdeal:
            if round_id in interrupted:
                continue
            count += 1
            if count >= limit:
                break
        elif dealt_rule is not None:  # a good deal
            break
    return count


def _interrupted_deals(session: Session, table_id: str, round_ids: list[str]) -> set[str]:
    """The rounds among ``round_ids`` whose chained deal was interrupted."""
    if not round_ids:
        return set()
    dealt = session.exec(
        select(Event.round_id, Event.payload).where(
            Event.table_id == table_id, Event.kind == "piles.dealt", col(Event.round_id).in_(round_ids)
        )
    )
    return {
        str(round_id) for round_id, payload in dealt if json.loads(payload).get("interrupted") is not None
    }


# --------------------------------------------------------------------------- positions


def add_positions(
    session: Session, *, round_id: str, seats: Sequence[RoundPositionCreate]
) -> list[RoundPositionPublic]:
    """Seat positions in an open round (the banker, positions with a wager), in one INSERT."""
    _writable_round(session, round_id)
    wanted = [data.position for data in seats]
    if len(set(wanted)) != len(wanted):
        raise PositionExistsError(f"round {round_id}: positions {wanted} name one twice")
    taken = session.exec(
        select(RoundPosition.position).where(
            RoundPosition.round_id == round_id, col(RoundPosition.position).in_(wanted)
        )
    ).all()
    if taken:
        raise PositionExistsError(f"round {round_id}: position {min(taken)} already has a row")
    rows = [RoundPosition(round_id=round_id, **data.model_dump()) for data in seats]
    session.add_all(rows)
    try:
        session.flush()
    except IntegrityError as exc:  # seated meanwhile by a writer that did not lock the round
        raise PositionExistsError(f"round {round_id}: one of positions {wanted} already has a row") from exc
    return [RoundPositionPublic.model_validate(row, from_attributes=True) for row in rows]


def add_position(session: Session, *, round_id: str, data: RoundPositionCreate) -> RoundPositionPublic:
    """Seat one position in an open round (:func:`add_positions`)."""
    return add_positions(session, round_id=round_id, seats=[data])[0]


def _check_hand(candidate: RoundPositionPublic, game: Game) -> None:
    """The seven cards come from one deck of the game; high + low are a split of them (001)."""
    where = f"round {candidate.round_id} position {candidate.position}"
    if candidate.cards is not None:
        try:
            check_cards(parse_cards(candidate.cards), game)
        except CardError as exc:
            raise InvalidRoundError(f"{where}: cards {candidate.cards}: {exc}") from exc
    if candidate.high is not None and candidate.low is not None and candidate.cards is not None:
        split = Counter(parse_cards(candidate.high)) + Counter(parse_cards(candidate.low))
        if split != Counter(parse_cards(candidate.cards)):
            raise InvalidRoundError(
                f"{where}: high {candidate.high} and low {candidate.low}"
                f" are not a split of the cards {candidate.cards}"
            )


def update_positions(
    session: Session, *, round_id: str, changes: Mapping[int, RoundPositionUpdate]
) -> list[RoundPositionPublic]:
    """Write the fields set in ``changes[position]`` for positions of an open round, all read in
    one SELECT and written in one flush (a deal and a settlement write every position).

    Checked before anything is written: every position exists, its cards fit one deck of the
    round's game and its high and low hands are a split of the seven cards.
    """
    round_row = _writable_round(session, round_id)
    rows = {
        row.position: row
        for row in session.exec(
            select(RoundPosition)
            .where(RoundPosition.round_id == round_id, col(RoundPosition.position).in_(list(changes)))
            .execution_options(populate_existing=True)
        )
    }
    game = Game(round_row.game)
    planned = []
    for position, change in changes.items():
        row = rows.get(position)
        if row is None:
            raise RoundNotFoundError(f"round {round_id} has no position {position}")
        where = f"round {round_id} position {position}"
        updates = _checked_updates(_POSITIONS, where, change.model_dump(exclude_unset=True))
        candidate = RoundPositionPublic.model_validate(row, from_attributes=True).model_copy(update=updates)
        _check_hand(candidate, game)
        planned.append((row, updates))
    for row, updates in planned:
        for name, value in updates.items():
            setattr(row, name, value)
    session.flush()
    return [RoundPositionPublic.model_validate(row, from_attributes=True) for row, _ in planned]


def update_position(
    session: Session, *, round_id: str, position: int, changes: RoundPositionUpdate
) -> RoundPositionPublic:
    """Write the fields set in ``changes`` for one position of an open round (:func:`update_positions`)."""
    return update_positions(session, round_id=round_id, changes={position: changes})[0]


def get_positions(session: Session, *, round_id: str) -> list[RoundPositionPublic]:
    """The round's positions in position order."""
    _round_row(session, round_id)
    rows = session.exec(
        select(RoundPosition).where(RoundPosition.round_id == round_id).order_by(col(RoundPosition.position))
    )
    return [RoundPositionPublic.model_validate(row, from_attributes=True) for row in rows]


def last_main_wagers(session: Session, *, table_id: str) -> dict[int, int]:
    """Each seat's last main wager as a player at this table (cents, by seat 2..7; a seat that
    never wagered is absent): what the house's hand wagers against that seat when it banks
    (``banker-last-wager``, game/banking.py), read after a restart so a seat that sat out the
    last round keeps its own last wager. Every opened round counts, as it does while the
    daemon runs. A position's seat follows who banked (004: positions count from the banker's
    seat): ``seat = (banker_seat - 1 + position - 1) mod 7 + 1``, the house's seat being 1.
    One query (a window over the table's positions)."""
    check_table_id(table_id)
    banker = func.coalesce(_ROUNDS.c.banker_seat, 1)
    seat = (banker + _POSITIONS.c.position - 2) % 7 + 1
    newest = func.row_number().over(partition_by=seat, order_by=_ROUNDS.c.number.desc()).label("newest")
    ranked = (
        select(seat.label("seat"), _POSITIONS.c.wager_cents.label("wager"), newest)
        .select_from(_POSITIONS.join(_ROUNDS, _ROUNDS.c.round_id == _POSITIONS.c.round_id))
        .where(
            _ROUNDS.c.table_id == table_id,
            _POSITIONS.c.house_hand == False,  # noqa: E712 - a SQL comparison
            _POSITIONS.c.wager_cents > 0,
        )
        .subquery()
    )
    rows = session.exec(select(ranked.c.seat, ranked.c.wager).where(ranked.c.newest == 1))
    return {int(seat_): int(wager) for seat_, wager in rows}


__all__ = [
    "add_position",
    "add_positions",
    "create_round",
    "find_open_round",
    "get_positions",
    "get_round",
    "last_main_wagers",
    "next_round_number",
    "round_id_for",
    "update_position",
    "update_positions",
    "update_round",
]
