"""Errors to answers: every refusal is a 4xx with its reason, never a 500 (docs/api.md, Bad input).

- 401 missing or wrong credentials (the same answer whether or not the user exists), given
  before the request's body is read (``auth.Authentication``);
- 403 the person's role may not do this, or a two-person rule refuses this person
  (``two-person-rule``: the same person confirming their own request, acknowledging the alert
  of their own act, an unconfirmed key; docs/api.md, "Two people"), or plain HTTP off the
  loopback (``https-required``, ``edge.HttpEdge``);
- 404 no such round, alert, user or page;
- 409 the table or the round refuses the command now (closed table, open fault, wrong phase,
  house-way deviation with the required setting and rule, an alert acknowledged twice);
- 422 the request is malformed (card codes, positions, amounts, limits, times);
- 429 a client that presented too many bad tokens waits (``auth.BadTokens``, ``Retry-After``);
- 431 too many or too large request headers (``edge.HttpEdge``);
- 503 the store cannot take the write (chain broken, database unreachable or busy).
"""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..game.cards import CardError
from ..game.house_way.wording import rule_wording
from ..round.machine import HouseWayDeviation, TransitionRefused
from ..storage.alerts import AlertAlreadyAcknowledgedError, AlertNotFoundError
from ..storage.approvals import ApprovalClosedError, ApprovalNotFoundError, TwoPersonRefusedError
from ..storage.errors import InvalidFieldError, RoundNotFoundError, StorageError, StoredValueError
from ..storage.users import UserConfirmError, UserExistsError, UserNotFoundError
from ..table.limits import LimitsError
from ..table.service import LimitsRefused, TableRefused
from .models.errors import (
    ErrorBody,
    FieldProblem,
    RefusalBody,
    SettingPublic,
    TwoPersonBody,
    UnreadableBody,
    ValidationBody,
)
from .patterns import pattern_words

log = structlog.get_logger()

_HTTP_CODES = {
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    422: "invalid-request",
    429: "too-many-bad-tokens",
    431: "headers-too-large",
    503: "store-unavailable",
}


class ApiError(Exception):
    """A refusal raised by the API's own code."""

    def __init__(
        self, status: int, detail: str, error: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.error = error or _HTTP_CODES.get(status, "error")
        self.headers = headers


def unauthorized() -> ApiError:
    return ApiError(
        401,
        "missing or invalid credentials: give 'Authorization: Bearer <token>'",
        headers={"WWW-Authenticate": "Bearer"},
    )


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        status_code=status, content=body.model_dump(mode="json", exclude_none=True), headers=headers
    )


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _message(error: dict[str, Any]) -> str:
    """pydantic's words for a problem, except a pattern mismatch: what was given and, in words,
    what was expected (``patterns.PATTERN_WORDS``), not the regular expression."""
    if error.get("type") == "string_pattern_mismatch":
        given = repr(error.get("input"))
        given = given if len(given) <= 40 else given[:37] + "..."
        return f"{given} is not {pattern_words(error['ctx']['pattern'])}"
    return str(error.get("msg", ""))


def _validation(errors: list[dict[str, Any]]) -> JSONResponse:
    problems = [
        FieldProblem(loc=[p if isinstance(p, int) else str(p) for p in e.get("loc", ())], msg=_message(e))
        for e in errors
    ]
    detail = (
        "; ".join(f"{_where(tuple(p.loc))}: {p.msg}" if p.loc else p.msg for p in problems)
        or "invalid request"
    )
    return _json(422, ValidationBody(error="invalid-request", detail=detail, errors=problems))


def refusal(error: Exception) -> RefusalBody:
    if isinstance(error, HouseWayDeviation):
        required = error.required
        return RefusalBody(
            error="house-way-deviation",
            detail=str(error),
            phase=error.phase.value,
            required=SettingPublic(
                high=[c.code for c in required.setting.high], low=[c.code for c in required.setting.low]
            ),
            rule_id=required.rule_id,
            rule_words=required.rule_words,
            rule_wording=rule_wording(required.rule_words),
        )
    if isinstance(error, TransitionRefused):
        return RefusalBody(error="round-refused", detail=str(error), phase=error.phase.value)
    if isinstance(error, LimitsRefused):
        return RefusalBody(error="limits-refused", detail=str(error))
    return RefusalBody(error="table-refused", detail=str(error))


def install_error_handlers(app: FastAPI) -> None:
    """Map every typed error of the table and the store to its 4xx (or 503) answer."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, error: ApiError) -> JSONResponse:
        return _json(error.status, ErrorBody(error=error.error, detail=error.detail), error.headers)

    @app.exception_handler(RequestValidationError)
    async def _request(_: Request, error: RequestValidationError) -> JSONResponse:
        return _validation(list(error.errors()))

    @app.exception_handler(ValidationError)
    async def _model(_: Request, error: ValidationError) -> JSONResponse:
        return _validation([{**e, "loc": ("body", *e.get("loc", ()))} for e in error.errors()])

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, error: StarletteHTTPException) -> JSONResponse:
        return _json(
            error.status_code,
            ErrorBody(error=_HTTP_CODES.get(error.status_code, "error"), detail=str(error.detail)),
            getattr(error, "headers", None),
        )

    @app.exception_handler(TransitionRefused)
    @app.exception_handler(TableRefused)
    async def _refused(_: Request, error: Exception) -> JSONResponse:
        return _json(409, refusal(error))

    @app.exception_handler(AlertAlreadyAcknowledgedError)
    async def _acked(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="already-acknowledged", detail=str(error)))

    @app.exception_handler(TwoPersonRefusedError)
    @app.exception_handler(UserConfirmError)
    async def _two_person(_: Request, error: Exception) -> JSONResponse:
        rule = str(getattr(error, "rule", ""))
        if rule == "already-confirmed":
            return _json(409, RefusalBody(error="already-confirmed", detail=str(error)))
        return _json(403, TwoPersonBody(error="two-person-rule", detail=str(error), rule=rule))

    @app.exception_handler(ApprovalClosedError)
    async def _closed(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="request-closed", detail=str(error)))

    @app.exception_handler(UserExistsError)
    async def _exists(_: Request, error: Exception) -> JSONResponse:
        return _json(409, RefusalBody(error="user-exists", detail=str(error)))

    @app.exception_handler(RoundNotFoundError)
    @app.exception_handler(AlertNotFoundError)
    @app.exception_handler(ApprovalNotFoundError)
    @app.exception_handler(UserNotFoundError)
    async def _missing(_: Request, error: Exception) -> JSONResponse:
        return _json(404, ErrorBody(error="not-found", detail=str(error)))

    @app.exception_handler(InvalidFieldError)
    @app.exception_handler(CardError)
    async def _invalid(_: Request, error: Exception) -> JSONResponse:
        return _json(422, ValidationBody(error="invalid-request", detail=str(error)))

    @app.exception_handler(LimitsError)
    async def _limits(_: Request, error: Exception) -> JSONResponse:
        return _json(422, ValidationBody(error="invalid-limits", detail=str(error)))

    @app.exception_handler(StoredValueError)
    async def _unreadable(_: Request, error: StoredValueError) -> JSONResponse:
        return _json(
            409,
            UnreadableBody(
                error="record-unreadable",
                detail=f"{error}; run table-controller audit verify (read failed on {error.cause})",
                findings=error.findings,
            ),
        )

    @app.exception_handler(StorageError)
    @app.exception_handler(OperationalError)
    async def _store(_: Request, error: Exception) -> JSONResponse:
        log.error("api.store_unavailable", error=str(error))
        return _json(503, ErrorBody(error="store-unavailable", detail=f"the store could not answer: {error}"))


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of an endpoint (401, 403, 422 and 429 always, the others as given)."""
    described: dict[int, tuple[type, str]] = {
        401: (ErrorBody, "Missing or invalid credentials (the same answer whether or not the user exists)."),
        403: (
            ErrorBody,
            "The person's role may not do this, a two-person rule refuses this person (`two-person-rule`,"
            " with its `rule`), the person is scoped to another pit or table (`out-of-scope`) or has"
            " no place on the floor (`no-scope`), or plain HTTP off the loopback (`https-required`).",
        ),
        404: (ErrorBody, "No such round, alert, request or user."),
        409: (RefusalBody, "The table or the round refuses the command now; nothing was changed."),
        422: (ValidationBody, "The request is malformed; the reason names the field."),
        429: (
            ErrorBody,
            "This client presented too many bad tokens, or (`analysis-busy`) has as many analysis jobs"
            " waiting as it may: retry after `Retry-After` seconds.",
        ),
        503: (ErrorBody, "The store could not take the write (chain broken, database unreachable)."),
    }
    wanted = sorted({401, 403, 422, 429, 503, *statuses})
    return {status: {"model": described[status][0], "description": described[status][1]} for status in wanted}


__all__ = ["ApiError", "install_error_handlers", "refusal", "responses", "unauthorized"]
