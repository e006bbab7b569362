"""One log line per request, naming who made it (docs/api.md: "every request is logged with who made it").

A plain ASGI middleware (it does not buffer streamed answers): the line is written when the
answer starts, with the method, path, status, the person and their role (``anonymous`` before
authentication), and the time taken. The token is never logged.
"""

from __future__ import annotations

import time
from typing import Any

import structlog

log = structlog.get_logger("table_controller.api")


class AccessLog:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        scope.setdefault("state", {})

        async def logged_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                principal = scope["state"].get("principal")
                log.info(
                    "api.request",
                    method=scope["method"],
                    path=scope["path"],
                    status=message["status"],
                    user=principal.name if principal is not None else "anonymous",
                    role=principal.role.value if principal is not None else None,
                    client=(scope.get("client") or ("", 0))[0],
                    ms=round((time.perf_counter() - started) * 1000, 2),
                )
            await send(message)

        await self.app(scope, receive, logged_send)
