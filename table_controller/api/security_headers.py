"""Security headers on every answer (docs/api.md: the terminal pages run in a browser).

A plain ASGI middleware, like ``access_log.py``: it only rewrites the ``http.response.start``
message, so streamed answers (the live stream, ``/api/stream``) still go out as they are made.

- ``Content-Security-Policy``: scripts, styles, fetches and images from this origin only
  (images may also be ``data:``); no inline script or style, no frames, no ``<base>``, forms
  post here only. The pages keep all their code in ``static/*.js`` and ``static/*.css``. The
  API documentation pages (``/docs``, ``/redoc``) may also have inline styles, ``blob:`` images
  and a ``blob:`` worker, which their renderers make at run time; never an inline script.
- An answer that carries its own ``Content-Security-Policy`` keeps it: a self-contained
  printable page (floor/report_page.py) allows its one inline style by its hash, and nothing else.
- ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY``.
- ``Cache-Control: no-store`` on ``/api/`` answers: table state, rounds and new tokens are not
  to be kept by a browser or a proxy (it replaces the stream's ``no-cache``, which is weaker).
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import MutableHeaders

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    )
)

# /docs and /redoc (api_docs.py): the same, but styles may be inline and ReDoc may start its
# search worker from a blob: both renderers write style elements at run time. Scripts stay
# 'self' only. (ReDoc's "API docs by Redocly" logo, on a CDN, is not asked for: api_docs.py.)
DOCS_CONTENT_SECURITY_POLICY = "; ".join(
    (
        CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace(
            "img-src 'self' data:", "img-src 'self' data: blob:"
        ),
        "worker-src 'self' blob:",
    )
)
DOCS_PATHS = ("/docs", "/redoc")  # Swagger UI and ReDoc, served by api_docs.py

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
API_PREFIX = "/api/"


class SecurityHeaders:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith(API_PREFIX)
        docs = scope["path"] in DOCS_PATHS

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                own = headers.get("Content-Security-Policy")  # a document's own, for its inline style
                for name, value in HEADERS.items():
                    headers[name] = value
                if docs:
                    headers["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY
                if own is not None:
                    headers["Content-Security-Policy"] = own
                if api:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DOCS_CONTENT_SECURITY_POLICY",
    "DOCS_PATHS",
    "HEADERS",
    "SecurityHeaders",
]
