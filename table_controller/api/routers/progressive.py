"""The side wagers and the progressive at the table (docs/progressive.md, docs/api.md
"Side wagers and the progressive"): a side wager before the deal (dealer), the pool's meters
(everyone who reads the table), a held hit paid after the pit verified the cards, and a meter
adjustment asked by one pit user and confirmed by another."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict

from ...game.progressive import (
    AdjustmentError,
    AdjustmentReason,
    PaymentError,
    ProgressiveError,
    TwoPersonRuleError,
)
from ...table.progressive_pool import AdjustmentRequestError, PoolKeeper
from ...table.service import TableService
from ..deps import ConfirmDep, OverrideDep, PlayDep, ReadTableDep, ServiceDep, StoreDep
from ..errors import ApiError, responses
from ..models.commands import MAX_CENTS, BodyCents, cents, whole_number
from ..models.table import TableStatePublic
from .round import command

router = APIRouter(tags=["progressive"])

PoolId = Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,51}$")]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SideWagerCreate(_Body):
    """A position's Fortune and progressive wagers as they stand before the deal (cents)."""

    position: Annotated[int, Strict(), Field(ge=2, le=7), BeforeValidator(whole_number)]
    fortune: BodyCents = 0
    progressive: BodyCents = 0


class HitPaymentCreate(_Body):
    """Who verified the winning hand's cards (surveillance, PRG-28); the payer is the caller."""

    verified_by: str = Field(min_length=1, max_length=128)


class AdjustmentCreate(_Body):
    """A meter adjustment asked for (signed cents, a reason, a note) for another pit user to confirm."""

    level: str = Field(min_length=1, max_length=64)
    amount: cents(-MAX_CENTS, MAX_CENTS, "signed cents")  # type: ignore[valid-type]  # an Annotated
    reason: AdjustmentReason = Field(strict=False)  # its text, e.g. "sign-variance"
    note: str = Field(default="", max_length=500)


def _pool(service: TableService, pool_id: str) -> PoolKeeper:
    keeper = service.pool
    if keeper is None or keeper.pool_id != pool_id:
        raise ApiError(404, f"this table keeps no progressive pool {pool_id!r}", "not-found")
    return keeper


def _refused(error: ProgressiveError) -> ApiError:
    if isinstance(error, TwoPersonRuleError):
        return ApiError(403, str(error), "two-person-rule")
    if isinstance(error, PaymentError):
        return ApiError(409, str(error), "not-pending")
    if isinstance(error, AdjustmentRequestError):
        return ApiError(409, str(error), "request-closed")
    if isinstance(error, AdjustmentError):
        return ApiError(409, str(error), "adjustment-refused")
    return ApiError(409, str(error), "progressive-refused")


@router.post(
    "/api/round/side-wager", response_model=TableStatePublic, responses=responses(409, 503), name="side_wager"
)
async def place_side_wager(
    body: SideWagerCreate, who: PlayDep, service: ServiceDep, store: StoreDep
) -> TableStatePublic:
    """A position's Fortune and progressive wagers while the round is open. 409 once the dice
    are rolled (the wagers are locked: ``round-refused``, chained and alerted), or for a wager
    the table does not take."""
    return await command(
        store,
        service,
        who.role,
        service.place_side_wager,
        body.position,
        body.fortune,
        body.progressive,
        who.name,
    )


@router.get("/api/progressive/{pool_id}", responses=responses(404))
async def get_pool(pool_id: PoolId, _: ReadTableDep, service: ServiceDep) -> dict[str, Any]:
    """The pool's meters (per level: the meter, reserve, overflow, in-meter count,
    contributions, seeds, locked, paid, hits), its hits pending payment and its last 25 hits,
    as re-derived from its chain (PRG-10, PRG-11, PRG-49)."""
    return _pool(service, pool_id).meters()


@router.post("/api/progressive/{pool_id}/hits/{hit_id}/pay", responses=responses(404, 409))
async def pay_hit(
    pool_id: PoolId,
    hit_id: int,
    body: HitPaymentCreate,
    who: OverrideDep,
    service: ServiceDep,
    store: StoreDep,
) -> dict[str, Any]:
    """A pending hit paid by the calling pit user, naming who verified the cards (PRG-28);
    chained once: a second payment is 409 ``not-pending`` (PRG-27)."""
    _pool(service, pool_id)
    try:
        await store.run(lambda: service.pay_hit(hit_id, actor=who.name, verified_by=body.verified_by))
    except ProgressiveError as error:
        raise _refused(error) from None
    return _pool(service, pool_id).meters()


@router.post("/api/progressive/{pool_id}/adjustments", status_code=201, responses=responses(404, 409))
async def request_adjustment(
    pool_id: PoolId, body: AdjustmentCreate, who: OverrideDep, service: ServiceDep, store: StoreDep
) -> dict[str, Any]:
    """Ask for a meter adjustment (PRG-29): chained, done only when another pit user confirms."""
    keeper = _pool(service, pool_id)
    try:
        seq = await store.run(
            lambda: keeper.request_adjustment(
                level=body.level, amount=body.amount, reason=body.reason, note=body.note, actor=who.name
            )
        )
    except ProgressiveError as error:
        raise _refused(error) from None
    return {"request": seq, "requested_by": who.name}


@router.post("/api/progressive/{pool_id}/adjustments/{request}/confirm", responses=responses(404, 409))
async def confirm_adjustment(
    pool_id: PoolId, request: int, who: ConfirmDep, service: ServiceDep, store: StoreDep
) -> dict[str, Any]:
    """A second pit user confirms an adjustment: the pool is closed, adjusted and opened in one
    transaction. The person who asked is refused (403 ``two-person-rule``, chained)."""
    keeper = _pool(service, pool_id)
    try:
        await store.run(lambda: keeper.confirm_adjustment(request, actor=who.name))
    except ProgressiveError as error:
        raise _refused(error) from None
    return keeper.meters()
