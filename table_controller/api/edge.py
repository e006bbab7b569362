"""The API's HTTP edge: bounded request headers and no plain HTTP off the loopback
(docs/api.md, "TLS, limits and slow-downs").

``HttpEdge`` is pure ASGI and sits outside everything else but the security headers, so a
refused request costs no routing, no store and no body read:

- more than ``max_headers`` headers, or more than ``max_header_bytes`` of them together: 431
  (uvicorn's own parser bounds the request's head first, ``server.make_server``);
- plain HTTP from a client that is not on the loopback: 403 ``https-required``, unless the
  table allows it (``http.allow_plain_http``, a closed pit network). Behind a reverse proxy
  in ``http.trusted_proxies``, the client and the scheme are the ones its ``X-Forwarded-For``
  and ``X-Forwarded-Proto`` name (uvicorn's ``ProxyHeadersMiddleware``, installed in the app
  itself so every server and the tests see the same thing).
"""

from __future__ import annotations

import ipaddress
import json

import structlog
from starlette.types import ASGIApp, Receive, Scope, Send

from ..settings import HttpSettings

log = structlog.get_logger()


def is_loopback(client: tuple[str, int] | None) -> bool:
    """A client on this machine: a loopback address, or none at all (a Unix socket)."""
    if client is None:
        return True
    try:
        return ipaddress.ip_address(client[0]).is_loopback
    except ValueError:  # not an address (a name): not known to be local
        return False


async def answer(
    send: Send, status: int, error: str, detail: str, headers: dict[str, str] | None = None
) -> None:
    """A refusal in the API's error shape (``models.errors.ErrorBody``), sent straight from ASGI."""
    body = json.dumps({"error": error, "detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class HttpEdge:
    """Refuses oversized header sets (431) and plain HTTP from off the loopback (403)."""

    def __init__(self, app: ASGIApp, *, settings: HttpSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        size = sum(len(name) + len(value) + 4 for name, value in headers)  # "name: value\r\n"
        if len(headers) > self.settings.max_headers or size > self.settings.max_header_bytes:
            log.warning("api.headers_too_large", headers=len(headers), bytes=size, path=scope["path"])
            await answer(
                send,
                431,
                "headers-too-large",
                f"{len(headers)} headers, {size} bytes: the limit is {self.settings.max_headers} headers"
                f" and {self.settings.max_header_bytes} bytes",
            )
            return
        client = scope.get("client")
        if scope.get("scheme") == "http" and not self.settings.allow_plain_http and not is_loopback(client):
            log.warning(
                "api.plain_http_refused", client=None if client is None else client[0], path=scope["path"]
            )
            await answer(
                send,
                403,
                "https-required",
                "plain HTTP is refused off the loopback: use https:// (TLS served by the table or a"
                " reverse proxy in front of it)",
            )
            return
        await self.app(scope, receive, send)


__all__ = ["HttpEdge", "answer", "is_loopback"]
