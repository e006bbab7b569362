"""Who is asking, decided before anything else is read (docs/api.md, "Who may do what").

``Authentication`` is pure ASGI in front of every ``/api`` route: it reads only the
``Authorization`` header (or, without one, a browser session's cookie: sessions.py, which also
says how a cookie-borne change is kept from other sites: 403 ``csrf``), so a request without
valid credentials is answered 401 before its
body is read or parsed (an anonymous body of invalid UTF-8 or truncated JSON is a 401, not a
400 or 422), and the person it finds is handed to the endpoints' dependencies
(``deps.authenticate``) through the request's state.

``BadTokens`` slows down a client that keeps presenting tokens that are not valid: after
``bad_tokens_free`` of them within ``bad_token_window`` seconds, the client is answered 429
with ``Retry-After`` — 1 s, then doubling with each further bad token, up to
``bad_token_max_delay`` — without its token being looked at. A 256-bit token cannot be
guessed; this keeps a misconfigured terminal or a scanner from filling the store's log of
lookups and the audit logs. Memory only (a restart forgets), bounded.

Scope (docs/api.md, "Who sees what"): at a table's own API a pit user scoped to another pit, or
a dealer scoped to another table, is answered 403 ``out-of-scope`` on every ``/api`` route but
``/api/me`` (which tells a terminal who it is, and so where it belongs), here where the person
is found, so no route can forget it (``floor.scope.may_use_table``). Unscoped people work as on
a single table. Logged, not chained: like a refusal by role it changes nothing, and a terminal
of another pit polling every second must not fill the table's chain.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog
from sqlalchemy.exc import OperationalError
from sqlmodel import Session
from starlette.types import ASGIApp, Receive, Scope, Send

from ..floor.scope import may_use_table
from ..settings import HttpSettings, TableSettings
from ..storage.errors import StorageError
from ..storage.users import Role, user_for_session, user_for_token
from .edge import answer
from .sessions import Sessions, cookie_value, csrf_refusal
from .tokens import Principal, TokenCache

log = structlog.get_logger()

TOKEN_MAX = 200
MAX_CLIENTS = 10_000
UNAUTHORIZED_DETAIL = "missing or invalid credentials: give 'Authorization: Bearer <token>'"
CSRF = "csrf"
SESSION_KEY_PREFIX = "session "  # how a session's person is remembered in the token cache
OUT_OF_SCOPE = "out-of-scope"
ANY_SCOPE_PATHS = frozenset({"/api/me"})  # a scoped person may ask who they are at any table


def bearer_token(scope: Scope) -> str | None:
    """The bearer token of the request's ``Authorization`` header, or None (no header, another
    scheme, an empty, over-long or non-ASCII token)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token or len(token) > TOKEN_MAX or not token.isascii():
                return None
            return token
    return None


def has_credentials(scope: Scope) -> bool:
    return any(name == b"authorization" for name, _ in scope["headers"])


@dataclass(frozen=True, slots=True)
class Credential:
    """What a request presents: a bearer token, or else a browser session's cookie
    (sessions.py); never both (the header wins)."""

    token: str | None = None
    cookie: str | None = None


def credential(scope: Scope) -> Credential | None:
    """The request's bearer token, or else its session cookie, or None."""
    token = bearer_token(scope)
    if token is not None or has_credentials(scope):
        return None if token is None else Credential(token=token)
    cookie = cookie_value(scope)
    return None if cookie is None else Credential(cookie=cookie)


@dataclass
class _Client:
    failures: deque[float] = field(default_factory=deque)
    until: float = 0.0


class BadTokens:
    """Bad tokens per client address, and how long each client must wait (thread-safe enough:
    used on the event loop only)."""

    def __init__(
        self,
        free: int = 10,
        window: float = 60.0,
        max_delay: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.free, self.window, self.max_delay = free, window, max_delay
        self.clock = clock
        self._max_clients = max_clients
        self._clients: OrderedDict[str, _Client] = OrderedDict()

    @classmethod
    def from_settings(cls, settings: HttpSettings) -> BadTokens:
        return cls(settings.bad_tokens_free, settings.bad_token_window, settings.bad_token_max_delay)

    def wait(self, client: str) -> float:
        """Seconds ``client`` must still wait before a token of theirs is looked at (0: none)."""
        found = self._clients.get(client)
        return 0.0 if found is None else max(0.0, found.until - self.clock())

    def failed(self, client: str) -> float:
        """Count a bad token from ``client``; returns the wait it now has (0 while within the free count)."""
        now = self.clock()
        found = self._clients.pop(client, None) or _Client()
        self._clients[client] = found  # the most recent client last: the oldest is forgotten first
        while len(self._clients) > self._max_clients:
            self._clients.popitem(last=False)
        while found.failures and found.failures[0] <= now - self.window:
            found.failures.popleft()
        found.failures.append(now)
        over = len(found.failures) - self.free
        while len(found.failures) > self.free + 64:  # enough to keep doubling to any max_delay
            found.failures.popleft()
        if over <= 0:
            return 0.0
        delay = min(self.max_delay, 2.0 ** min(over - 1, 32))
        found.until = now + delay
        return delay


def _person(session: Session, token: str) -> Principal | None:
    user = user_for_token(session, token=token)
    if user is None:
        return None
    return Principal(
        name=user.name, role=user.role, confirmed=user.confirmed, pit=user.pit, table_id=user.table_id
    )


async def lookup(app_state: object, token: str) -> Principal | None:
    """The person holding ``token`` (remembered for a few seconds, ``tokens.TokenCache``), or None."""
    tokens: TokenCache = app_state.tokens  # type: ignore[attr-defined]
    principal = tokens.get(token)
    if principal is None:
        principal = await app_state.store.read_current(_person, token)  # type: ignore[attr-defined]
        if principal is not None:
            tokens.put(token, principal)
    return principal


def _session_person(session: Session, name: str) -> tuple[Principal, str] | None:
    found = user_for_session(session, name=name)
    if found is None:
        return None
    user, token_hash = found
    person = Principal(
        name=user.name, role=user.role, confirmed=user.confirmed, pit=user.pit, table_id=user.table_id
    )
    return person, token_hash


async def lookup_session(app_state: object, value: str) -> Principal | None:
    """The person a session cookie was issued to, while it is theirs (sessions.py), or None.
    Expiry and sign-out are checked on every use; the person, as for a token, is remembered
    for a few seconds."""
    sessions: Sessions = app_state.sessions  # type: ignore[attr-defined]
    cookie = sessions.parse(value)
    if cookie is None:
        return None
    tokens: TokenCache = app_state.tokens  # type: ignore[attr-defined]
    key = SESSION_KEY_PREFIX + value
    principal = tokens.get(key)
    if principal is None:
        found = await app_state.store.read_current(_session_person, cookie.name)  # type: ignore[attr-defined]
        if found is None or not sessions.valid(cookie, found[1]):
            return None
        principal = found[0]
        tokens.put(key, principal)
    return principal


async def lookup_credential(app_state: object, given: Credential) -> Principal | None:
    """The person behind a token or a session cookie, or None."""
    if given.token is not None:
        return await lookup(app_state, given.token)
    return None if given.cookie is None else await lookup_session(app_state, given.cookie)


def forget_credential(app_state: object, given: Credential) -> None:
    """Drop a remembered person, so the next lookup reads the store."""
    tokens: TokenCache = app_state.tokens  # type: ignore[attr-defined]
    if given.token is not None:
        tokens.forget(given.token)
    elif given.cookie is not None:
        tokens.forget(SESSION_KEY_PREFIX + given.cookie)


def _under_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def this_table(app_state: object) -> TableSettings | None:
    """The settings of the one table an app serves (its ``service`` and ``settings``, as
    ``create_app`` sets them), or None for an app that serves no one table."""
    settings = getattr(app_state, "settings", None)
    if getattr(app_state, "service", None) is None or not isinstance(settings, TableSettings):
        return None
    return settings


def out_of_scope(principal: Principal, table: TableSettings) -> str | None:
    """Why ``principal`` may not use ``table``'s API (their pit or table is another), or None."""
    if may_use_table(
        principal.role, principal.pit, principal.table_id, table=table.table_id, table_pit=table.pit
    ):
        return None
    if principal.role is Role.PIT:
        return (
            f"{principal.name} is a pit user of pit {principal.pit}: table {table.table_id} is in"
            f" {'no pit' if table.pit is None else 'pit ' + table.pit}"
        )
    return f"{principal.name} is the dealer of table {principal.table_id}, not of table {table.table_id}"


class Authentication:
    """401 (or 429 for a client that must wait) before any ``/api`` route reads its request."""

    def __init__(self, app: ASGIApp, *, bad_tokens: BadTokens) -> None:
        self.app = app
        self.bad_tokens = bad_tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _under_api(scope["path"]):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = "" if client is None else str(client[0])
        wait = self.bad_tokens.wait(address)
        if wait > 0:
            seconds = math.ceil(wait)
            await answer(
                send,
                429,
                "too-many-bad-tokens",
                f"too many invalid tokens from {address or 'this client'}: retry in {seconds} s",
                {"Retry-After": str(seconds)},
            )
            return
        given = credential(scope)
        try:
            principal = None if given is None else await lookup_credential(scope["app"].state, given)
        except (StorageError, OperationalError) as error:  # as errors.py answers a store away: 503
            log.error("api.store_unavailable", error=str(error), path=scope["path"])
            await answer(send, 503, "store-unavailable", f"the store could not answer: {error}")
            return
        if principal is None:
            if has_credentials(scope):
                delay = self.bad_tokens.failed(address)
                log.warning("api.bad_token", client=address, path=scope["path"], wait_s=delay or None)
            await answer(send, 401, "unauthorized", UNAUTHORIZED_DETAIL, {"WWW-Authenticate": "Bearer"})
            return
        table = this_table(scope["app"].state)
        if table is not None and scope["path"] not in ANY_SCOPE_PATHS:
            refused = out_of_scope(principal, table)
            if refused is not None:
                log.warning(
                    "api.out_of_scope",
                    user=principal.name,
                    role=principal.role.value,
                    pit=principal.pit,
                    table=principal.table_id,
                    path=scope["path"],
                )
                await answer(send, 403, OUT_OF_SCOPE, refused)
                return
        if given is not None and given.cookie is not None:
            refused = csrf_refusal(scope)
            if refused is not None:
                log.warning(
                    "api.csrf_refused", user=principal.name, path=scope["path"], method=scope["method"]
                )
                await answer(send, 403, CSRF, refused)
                return
        scope.setdefault("state", {})["principal"] = principal
        scope["state"]["credential"] = given
        await self.app(scope, receive, send)


__all__ = [
    "ANY_SCOPE_PATHS",
    "CSRF",
    "OUT_OF_SCOPE",
    "Authentication",
    "BadTokens",
    "Credential",
    "bearer_token",
    "credential",
    "forget_credential",
    "lookup",
    "lookup_credential",
    "lookup_session",
    "out_of_scope",
    "this_table",
]
