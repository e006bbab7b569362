"""Requests waiting for a second pit user: a void or override of a round whose wagers are above
the table's ``second_pit_above`` (docs/api.md, "Two people").

``POST /api/round/void`` or ``/api/round/dealer/override`` answers 202 with such a request; another
pit user confirms it here (the void or override is done then, naming both) or cancels it. The
person who asked may cancel it but never confirm it: 403 ``two-person-rule``, chained.
A request's id is the chain seq of its ``approval.requested`` event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field
from sqlmodel import Session

from ...storage.approvals import Approval, list_approvals
from ...storage.session import read_snapshot
from ...table import approvals
from ..deps import AuditDep, ConfirmDep, ServiceDep, StoreDep
from ..errors import responses
from ..models.commands import AcknowledgeCreate
from ..models.errors import SettingPublic
from ..models.table import TableStatePublic
from ..views import table_state

router = APIRouter(prefix="/api/approvals", tags=["approvals"])
MAX_APPROVALS = 500
Seq = Annotated[
    int, Path(ge=1, le=10**15, description="the request's id: the chain seq of its approval.requested")
]


class ApprovalPublic(BaseModel):
    """A void or override that waits for (or had) a second pit user's confirmation."""

    seq: int = Field(description="the request's id: the chain seq of its approval.requested event")
    round_id: str
    action: Literal["void", "override"]
    requested_by: str
    reason: str
    wagered_cents: int = Field(description="the round's total wagers when asked (cents)")
    setting: SettingPublic | None = Field(
        default=None, description="the dealer's setting an override lets stand"
    )
    requested_at: datetime
    state: Literal["waiting", "lapsed", "confirmed", "cancelled"] = Field(
        description="lapsed: open in the chain, but its round is no longer open (it cannot be confirmed)"
    )
    closed_by: str | None = None
    closed_at: datetime | None = None


def approval_view(found: Approval, open_round: str | None = None) -> ApprovalPublic:
    """A request as the terminals see it; ``open_round`` the table's open round ("" for none,
    None: not known), so a waiting request of another round shows as lapsed."""
    closed = found.closed
    waiting = "waiting" if open_round is None or open_round == found.round_id else "lapsed"
    return ApprovalPublic(
        seq=found.seq,
        round_id=found.round_id,
        action=found.action,
        requested_by=found.requested_by,
        reason=found.reason,
        wagered_cents=found.wagered_cents,
        setting=None if found.setting is None else SettingPublic(**found.setting),
        requested_at=found.created_at,
        state=waiting
        if closed is None
        else "confirmed"
        if closed.kind.endswith("confirmed")
        else "cancelled",
        closed_by=None if closed is None else closed.actor,
        closed_at=None if closed is None else closed.created_at,
    )


@router.get("", response_model=list[ApprovalPublic], responses=responses())
async def get_approvals(
    _: AuditDep,
    service: ServiceDep,
    store: StoreDep,
    open_only: Annotated[bool, Query(alias="open", description="only requests still waiting")] = False,
    after: Annotated[int, Query(ge=0, le=10**15, description="requests after this chain seq")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_APPROVALS)] = 100,
) -> list[ApprovalPublic]:
    """The table's requests for a second pit user, in chain order."""

    state = service.round
    open_round = "" if state is None or state.phase.is_final else state.round_id

    def found(session: Session) -> list[ApprovalPublic]:
        rows = list_approvals(
            session, table_id=service.table_id, open_only=open_only, after_seq=after, limit=limit
        )
        return [approval_view(row, open_round) for row in rows]

    return await store.read(found)


@router.post("/{seq}/confirm", response_model=TableStatePublic, responses=responses(404, 409, 503))
async def confirm(seq: Seq, who: ConfirmDep, service: ServiceDep, store: StoreDep) -> TableStatePublic:
    """A second pit user confirms the request: the void or override is done now, its alert names
    both. 403 for the person who asked; 409 when the request is closed or its round moved on."""

    def confirmed() -> TableStatePublic:
        approvals.confirm(service, seq=seq, actor=who.name)
        with read_snapshot(store.engine) as session:
            return table_state(service, session, who.role)

    return await store.run(confirmed)


@router.post("/{seq}/cancel", response_model=ApprovalPublic, responses=responses(404, 409, 503))
async def cancel(
    seq: Seq, body: AcknowledgeCreate, who: ConfirmDep, service: ServiceDep, store: StoreDep
) -> ApprovalPublic:
    """Withdraw (the person who asked) or decline (another pit user) the request, with a note:
    nothing is done."""

    def cancelled() -> ApprovalPublic:
        return approval_view(approvals.cancel(service, seq=seq, actor=who.name, note=body.note.strip()))

    return await store.run(cancelled)
