"""Signing in once and signing out: a browser session (api/sessions.py, docs/api.md,
"Browser sessions"), for any authenticated person.

``POST /api/session`` takes the token in the ``Authorization`` header — once — and answers who
it is (as ``/api/me``) with a ``Set-Cookie`` of a session bound to that token; ``DELETE
/api/session`` ends the browser's session and clears its cookie.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ...storage.users import hash_token
from ..auth import Credential, forget_credential
from ..deps import RoleDep
from ..errors import ApiError, responses
from ..sessions import Sessions, clear_cookie_header, is_https
from .me import ALL_ROLES, MePublic, me

router = APIRouter(prefix="/api", tags=["me"])

_ANY_ROLE = {"x-permission": "authenticated", "x-roles": ALL_ROLES}


def _credential(request: Request) -> Credential | None:
    given: Credential | None = getattr(request.state, "credential", None)
    return given


@router.post(
    "/session",
    response_model=MePublic,
    responses={status: answer for status, answer in responses().items() if status in (401, 403, 503)},
    openapi_extra=_ANY_ROLE,
)
async def sign_in(request: Request, response: Response, who: RoleDep) -> MePublic:
    """Sign this browser in: the token goes in ``Authorization: Bearer``, this once; the answer
    is who it belongs to, and a cookie (``HttpOnly``, ``SameSite=Strict``, ``Secure`` over
    HTTPS) that lets the browser in until the token is replaced or its person disabled, the
    browser signs out, the daemon restarts, or 12 hours pass. A session cookie alone does not
    sign in again: 401. 403 only for a change sent with a session cookie from another site
    (``csrf``) or a person of another pit or table (``out-of-scope``).

    Roles: admin, dealer, pit, surveillance."""
    given = _credential(request)
    if given is None or given.token is None:
        raise ApiError(
            401, "sign in with the token itself: 'Authorization: Bearer <token>'", error="unauthorized"
        )
    sessions: Sessions = request.app.state.sessions
    value = sessions.issue(who.name, hash_token(given.token))
    response.headers["Set-Cookie"] = sessions.set_cookie_header(value, secure=is_https(request.scope))
    return await me(who)


@router.delete(
    "/session",
    status_code=204,
    response_class=Response,
    responses={status: answer for status, answer in responses().items() if status in (401, 403, 503)},
    openapi_extra=_ANY_ROLE,
)
async def sign_out(request: Request, who: RoleDep) -> Response:
    """Sign this browser out: its session cookie is refused from now on and cleared. (A token
    stays valid: only an admin's new key or disabling the person ends it.) 403 only for a
    session cookie sent from another site (``csrf``) or a person of another pit or table.

    Roles: admin, dealer, pit, surveillance."""
    given = _credential(request)
    sessions: Sessions = request.app.state.sessions
    if given is not None and given.cookie is not None:
        sessions.end(given.cookie)
        forget_credential(request.app.state, given)
    cleared = clear_cookie_header(secure=is_https(request.scope))
    return Response(status_code=204, headers={"Set-Cookie": cleared})


__all__ = ["router"]
