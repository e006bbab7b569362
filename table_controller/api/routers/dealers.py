"""The dealers on the table's box: signing in (relieving the dealer on it), signing out, and the
gaming day's stints and hands per hour (docs/api.md, "Dealers and limits"; docs/dealers.md).

A dealer signs in themselves (``play``: dealer, pit); the pit may name the dealer who goes on
the box (``open-close``). The day's record is read by the pit and surveillance (``audit``).
Every command is one transaction through table/dealers.py: refused whole, never half-written.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse

from ...accounting.dealers import Pace
from ...storage.dealers import DealerConflictError, DealerNotFoundError, StintRecord
from ...table import dealers as desk_ops
from ..deps import AuditDep, PlayDep, SettingsDep, StoreDep
from ..errors import ApiError, responses
from ..models.dealers import DealersPublic, PacePublic, SignedInPublic, SignInCreate, StintPublic
from ..models.errors import ErrorBody, RefusalBody
from ..roles import Permission, allowed

router = APIRouter(prefix="/api/dealers", tags=["dealers"])
DayQuery = Annotated[date | None, Query(description="the gaming day, YYYY-MM-DD; default: the one now")]


def stint_view(record: StintRecord) -> StintPublic:
    stint = record.stint
    return StintPublic(
        dealer=stint.dealer,
        start=stint.start,
        end=stint.end,
        signed_in_by=record.signed_in_by,
        ended_by=record.ended_by,
        end_reason=record.end_reason,
    )


def pace_view(pace: Pace) -> PacePublic:
    found = pace.hands_per_hour
    return PacePublic(
        dealer=pace.dealer,
        hands=pace.hands,
        seconds_on_box=pace.seconds_on_box,
        hands_per_hour=None if found is None else str(found),
    )


def day_view(found: desk_ops.DayPace, zone: str) -> DealersPublic:
    return DealersPublic(
        table_id=found.table_id,
        gaming_day=found.period.day,
        time_zone=zone,
        on_box=None if found.on_box is None else stint_view(found.on_box),
        stints=[stint_view(record) for record in found.stints],
        dealers=[pace_view(pace) for pace in found.pace.dealers],
        table=pace_view(found.pace.table),
    )


@router.post("/sign-in", status_code=201, response_model=SignedInPublic, responses=responses(404, 409, 503))
async def sign_in(
    body: SignInCreate, who: PlayDep, settings: SettingsDep, store_: StoreDep
) -> SignedInPublic:
    """A dealer goes on the box (``dealer.signed-in``), relieving the dealer on it (the push:
    their stint ends ``relieved``); every round opened from now records them. The caller signs
    in themselves; naming another dealer is the pit's (403 otherwise). 404: no enabled person of
    that name; 409 (``dealer-refused``): the dealer is on this box or another table's already."""
    dealer = body.dealer or who.name
    if dealer != who.name and not allowed(who.role, Permission.OPEN_CLOSE):
        raise ApiError(403, f"role {who.role.value} signs in only themselves: the pit names another dealer")
    started, relieved = await store_.run(
        desk_ops.sign_in, store_.engine, desk_ops.DealerDesk.of(settings), dealer=dealer, by=who.name
    )
    return SignedInPublic(
        signed_in=stint_view(started), relieved=None if relieved is None else stint_view(relieved)
    )


@router.post("/sign-out", response_model=StintPublic, responses=responses(409, 503))
async def sign_out(who: PlayDep, settings: SettingsDep, store_: StoreDep) -> StintPublic:
    """The dealer on the box leaves it with nobody relieving them (``dealer.signed-out``); the
    rounds opened after record who opens them, as without sign-ins. 409: nobody on the box."""
    return stint_view(
        await store_.run(desk_ops.sign_out, store_.engine, desk_ops.DealerDesk.of(settings), by=who.name)
    )


@router.get("", response_model=DealersPublic, responses=responses())
async def dealers_of_day(
    _: AuditDep, settings: SettingsDep, store_: StoreDep, gaming_day: DayQuery = None
) -> DealersPublic:
    """The gaming day's dealers at the table: who is on the box, every stint, and each dealer's
    and the table's hands (settled rounds) per hour on the box, up to now."""
    desk = desk_ops.DealerDesk.of(settings)
    now = datetime.now(UTC)
    found = await store_.read_current(lambda s: desk_ops.day_pace(s, desk, day=gaming_day, now=now))
    return day_view(found, desk.calendar.zone)


def install_dealer_errors(app: FastAPI) -> None:
    """The boxes refusing now 409 (``dealer-refused``); no such person 404. A bad name or time
    is an AccountingError (DealerError): 422 (install_accounting_errors)."""

    def _json(status: int, body: Any) -> JSONResponse:
        return JSONResponse(status_code=status, content=body.model_dump(mode="json", exclude_none=True))

    @app.exception_handler(DealerConflictError)
    async def _conflict(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="dealer-refused", detail=str(error)))

    @app.exception_handler(DealerNotFoundError)
    async def _missing(_: Request, error: Exception) -> JSONResponse:
        return _json(404, ErrorBody(error="not-found", detail=str(error)))


__all__ = ["day_view", "install_dealer_errors", "pace_view", "router", "stint_view"]
