"""Signing in once: a browser session bound to a person's token (docs/api.md, "Browser sessions").

A terminal's browser posts its token once (``POST /api/session`` with ``Authorization: Bearer``);
the answer sets a cookie, and every later request of that browser — a page's fetches, the live
stream, a report or PDF opened from a plain link — is let in by the cookie alone.

The cookie holds no token: ``NAME.ISSUED.MAC``, where ``MAC`` is an HMAC-SHA256, under a secret
this process drew at start, of the name, the issue time and the hash of the person's *current*
token. Each use recomputes the MAC with the token hash the store holds now, so the session ends
when the token does: a new key (rotation), a disabled person, a second admin's refusal. It also
ends after ``http.session_hours`` (12: a shift), on sign-out (``DELETE /api/session``: the
cookie is cleared and remembered as ended until it would have expired), and — unless the key
is kept in ``http.session_secret_file`` — when the process restarts (a new key).

Attributes: ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page or link
sends it), ``Path=/``, and ``Secure`` when the request came over HTTPS (directly, or as a trusted
proxy's ``X-Forwarded-Proto`` says). Plain HTTP is only served on the loopback (edge.py), where
a ``Secure`` cookie would not be kept by every browser; there the cookie goes without it, which
leaves nothing on a network to read.

Cross-site requests (CSRF): a request let in by the cookie that may change something (any method
but GET, HEAD, OPTIONS) must also carry ``X-Requested-With: table-controller`` — a header no
form of another site can send and that no other origin may add without a CORS pre-flight, which
this API never grants — and, when the browser sends ``Origin``, an origin equal to the request's
own. Otherwise 403 ``csrf``. A request with a bearer token is not a browser's ambient
credential and needs neither.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.types import Scope

from ..settings import HttpSettings

COOKIE_NAME = "tc-session"
DEFAULT_MAX_AGE_SECONDS = 12 * 3600  # a long shift
CSRF_HEADER = "x-requested-with"
CSRF_VALUE = "table-controller"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_ENDED = 10_000
COOKIE_MAX = 400


@dataclass(frozen=True, slots=True)
class SessionCookie:
    """A cookie as presented: whose it says it is, when it was issued, its MAC and its text."""

    name: str
    issued: int
    mac: str
    value: str


def cookie_value(scope: Scope, name: str = COOKIE_NAME) -> str | None:
    """The value of the session cookie ``name`` in the request's ``Cookie`` headers, or None."""
    for header, value in scope["headers"]:
        if header != b"cookie":
            continue
        for part in value.decode("latin-1").split(";"):
            key, _, found = part.strip().partition("=")
            if key == name and found:
                return found.strip()
    return None


def request_origin(scope: Scope) -> str:
    """``scheme://host`` of the request as it reached us (after a trusted proxy's headers)."""
    host = next((value.decode("latin-1") for name, value in scope["headers"] if name == b"host"), "")
    return f"{scope.get('scheme', 'http')}://{host}"


def csrf_refusal(scope: Scope) -> str | None:
    """Why a cookie-borne request may not change anything (this module's docstring), or None."""
    if scope.get("method", "GET") in SAFE_METHODS:
        return None
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
    if headers.get(CSRF_HEADER) != CSRF_VALUE:
        return (
            "a change made with a browser session must carry 'X-Requested-With: table-controller'"
            " (or use 'Authorization: Bearer <token>')"
        )
    origin = headers.get("origin")
    if origin is not None and origin != request_origin(scope):
        return f"a change made with a browser session must come from this origin, not {origin}"
    return None


class Sessions:
    """Issues and checks session cookies (this module's docstring); thread-safe."""

    def __init__(
        self,
        *,
        secret: bytes | None = None,
        max_age: int = DEFAULT_MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self.max_age = max_age
        self._clock = clock
        self._ended: dict[str, float] = {}  # MAC -> when the cookie would have expired
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, http: HttpSettings) -> Sessions:
        """Sessions signed with ``http.session_secret_file``'s key (made there on first use),
        or with a key drawn for this process alone."""
        max_age = round(http.session_hours * 3600)
        if http.session_secret_file is None:
            return cls(max_age=max_age)
        return cls(secret=read_or_make_secret(http.session_secret_file), max_age=max_age)

    def _mac(self, name: str, issued: int, token_hash: str) -> str:
        message = f"{name}.{issued}.{token_hash}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def issue(self, name: str, token_hash: str) -> str:
        """A new cookie value for ``name``, bound to their current ``token_hash``."""
        issued = int(self._clock())
        return f"{name}.{issued}.{self._mac(name, issued, token_hash)}"

    def parse(self, value: str) -> SessionCookie | None:
        """The cookie's parts when it is well formed, not expired and not signed out; else None.
        (Whether its MAC is right needs the person's token hash: :meth:`valid`.)"""
        if len(value) > COOKIE_MAX or not value.isascii():
            return None
        name, issued_text, mac = [*value.rsplit(".", 2), "", ""][:3]
        if not name or not issued_text.isdigit() or len(mac) != 64:
            return None
        issued = int(issued_text)
        now = self._clock()
        if not issued - 60 <= now < issued + self.max_age:
            return None
        with self._lock:
            if mac in self._ended:
                return None
        return SessionCookie(name=name, issued=issued, mac=mac, value=value)

    def valid(self, cookie: SessionCookie, token_hash: str) -> bool:
        """Whether ``cookie`` was issued for the token whose hash is ``token_hash``."""
        return hmac.compare_digest(cookie.mac, self._mac(cookie.name, cookie.issued, token_hash))

    def end(self, value: str) -> None:
        """Sign a cookie out: refused from now until it would have expired anyway."""
        cookie = self.parse(value)
        if cookie is None:
            return
        now = self._clock()
        with self._lock:
            for mac, until in list(self._ended.items()):
                if until <= now:
                    del self._ended[mac]
            if len(self._ended) >= MAX_ENDED:  # bounded; the oldest sign-outs are forgotten first
                del self._ended[next(iter(self._ended))]
            self._ended[cookie.mac] = cookie.issued + self.max_age

    def set_cookie_header(self, value: str, *, secure: bool) -> str:
        return _cookie(value, self.max_age, secure=secure)


def read_or_make_secret(path: Path) -> bytes:
    """The key in ``path``; a new random one written there (mode 0600, never replaced) when
    the file does not exist. A key shorter than 32 bytes is refused (SessionSecretError)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_bytes().strip()
    else:
        secret = secrets.token_hex(32).encode()
        with os.fdopen(fd, "wb") as out:
            out.write(secret + b"\n")
    if len(secret) < 32:
        raise SessionSecretError(f"{path}: a session key of at least 32 bytes is needed, found {len(secret)}")
    return secret


class SessionSecretError(ValueError):
    """The configured session key file holds no usable key."""


def _cookie(value: str, max_age: int, *, secure: bool) -> str:
    attributes = [f"{COOKIE_NAME}={value}", "Path=/", f"Max-Age={max_age}", "HttpOnly", "SameSite=Strict"]
    if secure:
        attributes.append("Secure")
    return "; ".join(attributes)


def clear_cookie_header(*, secure: bool) -> str:
    """A ``Set-Cookie`` that makes the browser drop the session cookie."""
    return _cookie("", 0, secure=secure)


def is_https(scope: Scope) -> bool:
    return scope.get("scheme") in ("https", "wss")


__all__ = [
    "COOKIE_NAME",
    "CSRF_HEADER",
    "CSRF_VALUE",
    "SessionCookie",
    "SessionSecretError",
    "Sessions",
    "clear_cookie_header",
    "cookie_value",
    "csrf_refusal",
    "is_https",
    "read_or_make_secret",
    "request_origin",
]
