"""The table's accounting: openers and closers, fill and credit slips, the drop, named variance
lines, and the gaming day's win, hold and reconciliation (docs/api.md, "Table accounting").

The pit enters (``account``); the second signature of a count or a delivery is the dealer's or
another pit user's (``sign``); a void is asked by one pit user and confirmed by another. The day
is read by the pit and surveillance (``audit``), as JSON or CSV. Every command is one
transaction through table/accounting.py: refused whole (4xx), never half-written.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from sqlmodel import Session

from ...accounting.chips import CountKind
from ...accounting.drop import DropKind
from ...accounting.errors import (
    AccountingError,
    CountFileError,
    DuplicateError,
    MismatchError,
    SlipError,
    UnknownShiftError,
)
from ...accounting.slips import SlipKind
from ...storage import accounting as store
from ...storage.accounting import AccountingConflictError, AccountingNotFoundError
from ...table import accounting as desk_ops
from ..deps import AuditDep, Authorizer, SettingsDep, StoreDep
from ..errors import responses
from ..models.accounting import (
    AccountPublic,
    CountCreate,
    CountPublic,
    DayPublic,
    DeliveryCreate,
    DropCreate,
    DropPublic,
    ImportPublic,
    LineCreate,
    LinePublic,
    PeriodCreate,
    ReconciledPublic,
    ReconciliationPublic,
    SlipCreate,
    SlipPublic,
    TheoryPublic,
    VoidCreate,
)
from ..models.errors import ErrorBody, FieldProblem, RefusalBody, ValidationBody
from ..roles import Permission
from ..tokens import Principal

router = APIRouter(prefix="/api/accounting", tags=["accounting"])
AccountDep = Annotated[Principal, Depends(Authorizer(Permission.ACCOUNT))]
SignDep = Annotated[Principal, Depends(Authorizer(Permission.SIGN))]
Number = Annotated[int, Path(ge=1, le=2**31 - 1, description="the slip's number")]
CountId = Annotated[int, Path(ge=1, le=2**31 - 1, description="the count's id")]
DayQuery = Annotated[date | None, Query(description="the gaming day, YYYY-MM-DD; default: the one now")]
ShiftQuery = Annotated[str | None, Query(max_length=32, description="one of the day's shifts; none: the day")]
MAX_FILE_BYTES = 2_000_000
_CSV: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "the day as CSV (one figure a line)",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }
}


def _desk(settings: Any) -> desk_ops.Desk:
    return desk_ops.Desk.of(settings)


def _day(desk: desk_ops.Desk, day: date | None) -> date:
    return day if day is not None else desk.today(datetime.now(UTC))


def _chips(body: dict[str, int]) -> dict[int, int]:
    return {int(denomination): count for denomination, count in body.items()}


# --------------------------------------------------------------------------- views


def count_view(count: store.CountRecord) -> CountPublic:
    return CountPublic(
        id=count.id,
        kind=count.kind.value,
        gaming_day=count.day,
        shift=count.shift,
        counted_at=count.counted_at,
        chips=store.chips_json(count.chips),
        value_cents=count.value,
        supervisor=count.supervisor,
        dealer=count.dealer,
        signed_at=count.signed_at,
    )


def slip_view(record: store.SlipRecord) -> SlipPublic:
    slip = record.slip
    return SlipPublic(
        number=slip.number,
        table_id=slip.table_id,
        kind=slip.kind.value,
        state=slip.state.value,
        chips=store.chips_json(slip.chips),
        value_cents=slip.value,
        requested_at=slip.requested_at,
        requested_by=slip.requested_by,
        delivered_at=slip.delivered_at,
        runner=slip.runner,
        table_signer=slip.table_signer,
        void_asked_by=record.void_asked_by,
        void_reason=record.void_reason,
        voided_at=None if slip.void is None else slip.void.at,
        void_approved_by=None if slip.void is None else slip.void.approved_by,
    )


def drop_view(record: store.DropRecord) -> DropPublic:
    entry = record.entry
    return DropPublic(
        id=record.id,
        gaming_day=entry.day,
        shift=entry.shift,
        kind=entry.kind.value,
        amount_cents=entry.amount,
        source=entry.source.value,
        reference=entry.reference,
        entered_by=record.entered_by,
        entered_at=record.entered_at,
        file_sha256=record.file_sha256,
        file_line=record.file_line,
    )


def line_view(record: store.LineRecord) -> LinePublic:
    return LinePublic(
        id=record.id,
        gaming_day=record.day,
        shift=record.shift,
        name=record.line.name,
        amount_cents=record.line.amount,
        entered_by=record.line.entered_by,
        entered_at=record.entered_at,
    )


def reconciled_view(record: store.ReconciliationRecord) -> ReconciledPublic:
    return ReconciledPublic(
        id=record.id,
        reconciled_at=record.reconciled_at,
        reconciled_by=record.reconciled_by,
        counted_win_cents=record.counted_win,
        computed_result_cents=record.computed_result,
        explained_cents=record.explained,
        variance_cents=record.variance,
        alert_above_cents=record.alert_above,
        rounds=record.rounds,
        alert_seq=record.alert_seq,
    )


def _percent(value: Any) -> str | None:
    return None if value is None else str(value)


def day_view(found: desk_ops.DayAccounting, time_zone: str) -> DayPublic:
    account, theory, rec = found.account, found.theory, found.reconciliation
    band = theory.band
    return DayPublic(
        table_id=found.table_id,
        gaming_day=found.period.day,
        shift=found.period.shift,
        start=found.period.start,
        end=found.period.end,
        time_zone=time_zone,
        counts=[count_view(c) for c in found.counts],
        slips=[slip_view(s) for s in found.slips],
        drop=[drop_view(d) for d in found.drop],
        lines=[line_view(line) for line in found.lines],
        account=None
        if account is None
        else AccountPublic(
            opener_cents=account.opener,
            closer_cents=account.closer,
            fills_cents=account.fills,
            credits_cents=account.credits,
            drop_cash_cents=account.drop.cash,
            drop_markers_cents=account.drop.markers,
            drop_cents=account.drop.total,
            win_cents=account.win,
            hold_percent=_percent(account.hold_percent),
            fill_slips=list(account.fill_slips),
            credit_slips=list(account.credit_slips),
        ),
        theory=None
        if band is None
        else TheoryPublic(
            rounds=band.rounds,
            actual_cents=band.actual_cents,
            theoretical_win_cents=band.theoretical_cents,
            theoretical_hold_percent=_percent(theory.theoretical_hold_percent),
            low_cents=band.low_cents,
            high_cents=band.high_cents,
            outside=band.outside,
        ),
        reconciliation=None
        if rec is None
        else ReconciliationPublic(
            counted_win_cents=rec.counted_win,
            computed_result_cents=rec.computed_result,
            explained_cents=rec.explained,
            variance_cents=rec.variance,
            alert_above_cents=rec.alert_above,
            flagged=rec.flagged,
            rounds=list(rec.rounds),
        ),
        reconciled=[reconciled_view(r) for r in found.reconciled],
        missing=found.missing,
    )


def day_csv(day: DayPublic) -> str:
    """The day as ``section,item,value`` lines: the figures a spreadsheet or the cage reads."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["section", "item", "value"])
    writer.writerow(["period", "table_id", day.table_id])
    writer.writerow(["period", "gaming_day", day.gaming_day.isoformat()])
    writer.writerow(["period", "shift", day.shift or ""])
    writer.writerow(["period", "time_zone", day.time_zone])
    for section, model in (
        ("account", day.account),
        ("theory", day.theory),
        ("reconciliation", day.reconciliation),
    ):
        if model is None:
            writer.writerow([section, "missing", " ".join(day.missing) or "no round with a theoretical win"])
            continue
        for name, value in model.model_dump().items():
            shown = (
                " ".join(str(v) for v in value) if isinstance(value, list) else "" if value is None else value
            )
            writer.writerow([section, name, shown])
    for slip in day.slips:
        writer.writerow(["slip", f"{slip.kind} {slip.number}", f"{slip.state} {slip.value_cents}"])
    for line in day.lines:
        writer.writerow(["line", line.name, line.amount_cents])
    return out.getvalue()


# --------------------------------------------------------------------------- commands


@router.post("/counts", status_code=201, response_model=CountPublic, responses=responses(404, 409, 503))
async def enter_count(
    body: CountCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> CountPublic:
    """The pit supervisor (the caller) enters the opener or closer, naming the dealer who signs
    it; it counts once signed. 404: no enabled person of that name. 409: the kind entered already
    for the period, a closer before a signed opener. 422: a denomination not in use, a negative
    count, the dealer being the caller."""
    desk = _desk(settings)
    return count_view(
        await store_.run(
            desk_ops.enter_count,
            store_.engine,
            desk,
            kind=CountKind(body.kind),
            day=_day(desk, body.gaming_day),
            shift=body.shift,
            chips=_chips(body.chips),
            supervisor=who.name,
            dealer=body.dealer,
        )
    )


@router.post("/counts/{count_id}/sign", response_model=CountPublic, responses=responses(404, 409, 503))
async def sign_count(count_id: CountId, who: SignDep, settings: SettingsDep, store_: StoreDep) -> CountPublic:
    """The dealer the count names signs it (the second signature). 403 ``two-person-rule`` for
    the supervisor who entered it or anyone else, chained; 409 when signed already."""
    return count_view(
        await store_.run(
            desk_ops.sign_count, store_.engine, _desk(settings), count_id=count_id, signer=who.name
        )
    )


@router.post("/slips", status_code=201, response_model=SlipPublic, responses=responses(404, 503))
async def request_slip(
    body: SlipCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> SlipPublic:
    """A fill (cage to table) or credit (table to cage) slip, numbered by the store."""
    return slip_view(
        await store_.run(
            desk_ops.request_slip,
            store_.engine,
            _desk(settings),
            kind=SlipKind(body.kind),
            chips=_chips(body.chips),
            requested_by=who.name,
        )
    )


@router.get("/slips/{number}", response_model=SlipPublic, responses=responses(404))
async def get_slip(number: Number, _: AuditDep, settings: SettingsDep, store_: StoreDep) -> SlipPublic:
    """One slip (the printable slip page reads it)."""
    table_id = settings.table_id
    return slip_view(
        await store_.read(lambda session: store.get_slip(session, table_id=table_id, number=number))
    )


@router.post("/slips/{number}/deliver", response_model=SlipPublic, responses=responses(404, 409, 503))
async def deliver_slip(
    number: Number, body: DeliveryCreate, who: SignDep, settings: SettingsDep, store_: StoreDep
) -> SlipPublic:
    """The chips delivered: the runner named, the caller signs for the table (two people).
    409 for a slip delivered or voided already."""
    return slip_view(
        await store_.run(
            desk_ops.deliver_slip,
            store_.engine,
            _desk(settings),
            number=number,
            runner=body.runner,
            table_signer=who.name,
        )
    )


@router.post("/slips/{number}/void", response_model=SlipPublic, responses=responses(404, 409, 503))
async def ask_void(
    number: Number, body: VoidCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> SlipPublic:
    """Ask to void a slip, with a reason: done when a second pit user confirms. 409 for a slip
    voided already or a void waiting."""
    return slip_view(
        await store_.run(
            desk_ops.ask_void,
            store_.engine,
            _desk(settings),
            number=number,
            asked_by=who.name,
            reason=body.reason,
        )
    )


@router.post("/slips/{number}/void/confirm", response_model=SlipPublic, responses=responses(404, 409, 503))
async def confirm_void(
    number: Number, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> SlipPublic:
    """A second pit user confirms the void; 403 ``two-person-rule`` for the one who asked."""
    return slip_view(
        await store_.run(
            desk_ops.confirm_void, store_.engine, _desk(settings), number=number, approved_by=who.name
        )
    )


@router.post("/drop", status_code=201, response_model=list[DropPublic], responses=responses(404, 409, 503))
async def enter_drop(
    body: DropCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> list[DropPublic]:
    """Cash from the soft count, or a marker when it is issued at the table (its number once a day)."""
    desk = _desk(settings)
    found = await store_.run(
        desk_ops.enter_drop,
        store_.engine,
        desk,
        day=_day(desk, body.gaming_day),
        shift=body.shift,
        kind=DropKind(body.kind),
        amount=body.amount_cents,
        reference=body.reference,
        entered_by=who.name,
    )
    return [drop_view(d) for d in found]


@router.post(
    "/drop/count-file",
    status_code=201,
    response_model=ImportPublic,
    responses=responses(404, 409, 503),
    openapi_extra={
        "requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string"}}}}
    },
)
async def import_count_file(
    request: Request, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> ImportPublic:
    """The count room's CSV file (docs/accounting.md, "The count room's file") as the body:
    taken whole or refused whole (422 naming every bad line); this table's lines are kept."""
    raw = await request.body()
    if len(raw) > MAX_FILE_BYTES:
        return JSONResponse(  # type: ignore[return-value]
            status_code=422,
            content={"error": "invalid-request", "detail": f"the file is above {MAX_FILE_BYTES} bytes"},
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return JSONResponse(  # type: ignore[return-value]
            status_code=422, content={"error": "invalid-request", "detail": "the file is not UTF-8 text"}
        )
    found = await store_.run(
        desk_ops.import_count_file, store_.engine, _desk(settings), text=text, entered_by=who.name
    )
    return ImportPublic(
        file_sha256=found.sha256,
        entries=[drop_view(d) for d in found.entries],
        other_tables=found.other_tables,
    )


@router.post("/lines", status_code=201, response_model=LinePublic, responses=responses(404, 503))
async def enter_line(
    body: LineCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> LinePublic:
    """A named variance line: money the counted win holds that no round does (tips from the
    tray -, a side wager the controller does not track +)."""
    desk = _desk(settings)
    return line_view(
        await store_.run(
            desk_ops.enter_line,
            store_.engine,
            desk,
            day=_day(desk, body.gaming_day),
            shift=body.shift,
            name=body.name,
            amount=body.amount_cents,
            entered_by=who.name,
        )
    )


@router.post("/day/reconcile", response_model=DayPublic, responses=responses(404, 409, 503))
async def reconcile_day(
    body: PeriodCreate, who: AccountDep, settings: SettingsDep, store_: StoreDep
) -> DayPublic:
    """Reconcile the day (or shift) now and keep it, chained (``day.reconciled``); a variance
    above ``accounting.alert_above_cents`` raises the ``accounting-variance`` alert to the pit
    and surveillance. 409 until the opener and the closer are signed."""
    desk = _desk(settings)
    found, _kept = await store_.run(
        desk_ops.reconcile_day,
        store_.engine,
        desk,
        day=_day(desk, body.gaming_day),
        shift=body.shift,
        reconciled_by=who.name,
    )
    return day_view(found, desk.calendar.zone)


# --------------------------------------------------------------------------- reads


async def _read_day(store_: StoreDep, settings: Any, day: date | None, shift: str | None) -> DayPublic:
    desk = _desk(settings)
    chosen = _day(desk, day)

    def read(session: Session) -> DayPublic:
        return day_view(desk_ops.day_accounting(session, desk, day=chosen, shift=shift), desk.calendar.zone)

    # the accounting is read on the primary: a pit user reads right after entering
    return await store_.read_current(read)


@router.get("/day", response_model=DayPublic, responses=responses(404))
async def day(
    _: AuditDep,
    settings: SettingsDep,
    store_: StoreDep,
    gaming_day: DayQuery = None,
    shift: ShiftQuery = None,
) -> DayPublic:
    """The gaming day's (or shift's) counts, slips, drop and lines; its win and hold, the
    theoretical and its band beside them, and the reconciliation with the computed result."""
    return await _read_day(store_, settings, gaming_day, shift)


@router.get("/day.csv", response_class=Response, responses={**responses(404), **_CSV})
async def day_as_csv(
    _: AuditDep,
    settings: SettingsDep,
    store_: StoreDep,
    gaming_day: DayQuery = None,
    shift: ShiftQuery = None,
) -> Response:
    """The day as CSV."""
    found = await _read_day(store_, settings, gaming_day, shift)
    shift_part = f"-{found.shift}" if found.shift else ""
    name = f"{found.table_id}-accounting-{found.gaming_day.isoformat()}{shift_part}"
    return Response(
        day_csv(found),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


# --------------------------------------------------------------------------- errors


def install_accounting_errors(app: FastAPI) -> None:
    """The accounting's typed refusals as answers: a bad count file 422 with every line, a slip
    out of its order, a number twice or records that do not match 409, the day refusing now 409,
    no such count, slip, person or shift 404, any other bad input (chips, amounts, signatures, shift) 422."""

    def _json(status: int, body: Any) -> JSONResponse:
        return JSONResponse(status_code=status, content=body.model_dump(mode="json", exclude_none=True))

    @app.exception_handler(CountFileError)
    async def _file(_: Request, error: CountFileError) -> JSONResponse:
        problems = [
            FieldProblem(loc=["body", f"line {p.line}", *([p.column] if p.column else [])], msg=p.reason)
            for p in error.problems
        ]
        return _json(422, ValidationBody(error="invalid-count-file", detail=str(error), errors=problems))

    @app.exception_handler(SlipError)
    @app.exception_handler(DuplicateError)
    @app.exception_handler(MismatchError)
    @app.exception_handler(AccountingConflictError)
    async def _conflict(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="accounting-refused", detail=str(error)))

    @app.exception_handler(AccountingNotFoundError)
    @app.exception_handler(UnknownShiftError)
    async def _missing(_: Request, error: Exception) -> JSONResponse:
        return _json(404, ErrorBody(error="not-found", detail=str(error)))

    @app.exception_handler(AccountingError)
    async def _invalid(_: Request, error: Exception) -> JSONResponse:
        return _json(422, ValidationBody(error="invalid-request", detail=str(error)))


__all__ = ["install_accounting_errors", "router"]
