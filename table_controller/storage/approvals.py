"""Requests that wait for a second pit user, and the refusals of the two-person rules, as the
chain holds them (docs/api.md, "Two people").

A void or a dealer override of a round whose wagers total more than the table's
``second_pit_above`` is not done by one person: it is stored as an ``approval.requested`` event
(who asked, for which round, what exactly) and done when another pit user confirms it
(``approval.confirmed``), or dropped (``approval.cancelled``). A request's id is the chain seq
of its ``approval.requested`` event. Every refusal of a two-person rule (the same person
confirming their own request, acknowledging the alert of their own act, an unconfirmed key
changing something) is a ``two-person.refused`` event naming the person: evidence like
everything else, never edited.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlmodel import Session, col, select

from .audit import append_event, lock_table
from .chain import check_table_id
from .errors import StorageError
from .models import Event, EventPublic

REQUESTED = "approval.requested"
CONFIRMED = "approval.confirmed"
CANCELLED = "approval.cancelled"
REFUSED = "two-person.refused"
ACTIONS = ("void", "override")
Action = Literal["void", "override"]


class TwoPersonRefusedError(StorageError, PermissionError):
    """One person tried a step that needs a second one; ``rule`` names which (docs/api.md)."""

    def __init__(self, detail: str, *, rule: str) -> None:
        super().__init__(detail)
        self.rule = rule


class ApprovalNotFoundError(StorageError, LookupError):
    """No request with that id (chain seq) at this table."""


class ApprovalClosedError(StorageError):
    """The request was confirmed or cancelled already, or its round has moved on."""


@dataclass(frozen=True, slots=True)
class Closure:
    """How a request ended: confirmed (done) or cancelled, by whom, at which seq."""

    seq: int
    kind: str
    actor: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Approval:
    """An ``approval.requested`` event and, once it ended, its closure."""

    seq: int
    round_id: str
    action: Action
    requested_by: str
    reason: str
    wagered_cents: int
    setting: dict[str, list[str]] | None  # the dealer's setting an override lets stand
    created_at: datetime
    closed: Closure | None

    @classmethod
    def from_event(cls, row: Event | EventPublic, closed: Closure | None) -> Approval:
        data = json.loads(row.payload)
        assert row.round_id is not None
        return cls(
            seq=row.seq,
            round_id=row.round_id,
            action=data["action"],
            requested_by=row.actor,
            reason=data["reason"],
            wagered_cents=int(data["wagered_cents"]),
            setting=data.get("setting"),
            created_at=row.created_at,
            closed=closed,
        )


def closures(session: Session, *, table_id: str) -> dict[int, Closure]:
    """Every request's closure, by the seq of the request."""
    check_table_id(table_id)
    rows = session.exec(
        select(Event)
        .where(Event.table_id == table_id, col(Event.kind).in_((CONFIRMED, CANCELLED)))
        .order_by(col(Event.seq))
    )
    found: dict[int, Closure] = {}
    for row in rows:
        data = json.loads(row.payload)
        found.setdefault(int(data["approval_seq"]), Closure(row.seq, row.kind, row.actor, row.created_at))
    return found


def list_approvals(
    session: Session,
    *,
    table_id: str,
    open_only: bool = False,
    after_seq: int = 0,
    limit: int = 100,
    round_id: str | None = None,
) -> list[Approval]:
    """The table's requests in chain order after ``after_seq``; ``open_only``: not yet closed;
    ``round_id``: that round's only."""
    closed = closures(session, table_id=table_id)
    statement = select(Event).where(
        Event.table_id == table_id, Event.kind == REQUESTED, Event.seq > after_seq
    )
    if round_id is not None:
        statement = statement.where(Event.round_id == round_id)
    if open_only and closed:
        statement = statement.where(col(Event.seq).not_in(list(closed)))
    rows = session.exec(statement.order_by(col(Event.seq)).limit(limit))
    return [Approval.from_event(row, closed.get(row.seq)) for row in rows]


def get_approval(session: Session, *, table_id: str, seq: int) -> Approval:
    check_table_id(table_id)
    row = session.exec(
        select(Event).where(Event.table_id == table_id, Event.seq == seq, Event.kind == REQUESTED)
    ).first()
    if row is None:
        raise ApprovalNotFoundError(f"no request {seq} at table {table_id}")
    return Approval.from_event(row, closures(session, table_id=table_id).get(seq))


def request_approval(
    session: Session,
    *,
    table_id: str,
    round_id: str,
    action: Action,
    actor: str,
    reason: str,
    wagered_cents: int,
    setting: dict[str, list[str]] | None = None,
) -> Approval:
    """Store a request for a second pit user (nothing is done yet) and return it."""
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    payload: dict[str, Any] = {"action": action, "reason": reason, "wagered_cents": wagered_cents}
    if setting is not None:
        payload["setting"] = setting
    event = append_event(
        session, table_id=table_id, round_id=round_id, kind=REQUESTED, actor=actor, payload=payload
    )
    return Approval.from_event(event, None)


def close_approval(
    session: Session, *, table_id: str, seq: int, actor: str, kind: str, note: str = ""
) -> EventPublic:
    """Record that ``actor`` confirmed (``CONFIRMED``) or cancelled (``CANCELLED``) request ``seq``.

    Takes the table's write lock first, so a request is closed once however many ask at once."""
    if kind not in (CONFIRMED, CANCELLED):
        raise ValueError(f"kind must be {CONFIRMED} or {CANCELLED}, got {kind!r}")
    lock_table(session, table_id=table_id)
    found = get_approval(session, table_id=table_id, seq=seq)
    if found.closed is not None:
        raise ApprovalClosedError(
            f"request {seq} was {found.closed.kind.removeprefix('approval.')} by {found.closed.actor}"
            f" (event {found.closed.seq})"
        )
    payload: dict[str, Any] = {"approval_seq": seq, "action": found.action}
    if note:
        payload["note"] = note
    return append_event(
        session, table_id=table_id, round_id=found.round_id, kind=kind, actor=actor, payload=payload
    )


def record_refusal(
    session: Session,
    *,
    table_id: str,
    round_id: str | None,
    actor: str,
    error: TwoPersonRefusedError,
    **data: Any,
) -> EventPublic:
    """Chain a refused two-person step: who tried what, and the rule that refused it."""
    return append_event(
        session,
        table_id=table_id,
        round_id=round_id,
        kind=REFUSED,
        actor=actor,
        payload={"rule": error.rule, "detail": str(error), **data},
    )


__all__ = [
    "ACTIONS",
    "CANCELLED",
    "CONFIRMED",
    "REFUSED",
    "REQUESTED",
    "Action",
    "Approval",
    "ApprovalClosedError",
    "ApprovalNotFoundError",
    "Closure",
    "TwoPersonRefusedError",
    "close_approval",
    "closures",
    "get_approval",
    "list_approvals",
    "record_refusal",
    "request_approval",
]
