"""Serving the API with uvicorn (the daemon mounts it; tests and the benchmark use it too).

``ApiServer`` ends the live streams before uvicorn waits for open connections to finish, so a
stop (Ctrl-C, SIGTERM) is not held up by terminals following ``/api/stream``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI


class ApiServer(uvicorn.Server):
    """A uvicorn server that closes the app's event hub first when it shuts down.

    It leaves the process's signals to its owner (the daemon stops it by ``should_exit``).
    """

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def shutdown(self, sockets: Any = None) -> None:
        app = self.config.app
        hub = getattr(getattr(app, "state", None), "hub", None)
        if hub is not None:
            await hub.close()
        await super().shutdown(sockets=sockets)


def make_server(app: FastAPI, host: str = "127.0.0.1", port: int = 8080, **options: Any) -> ApiServer:
    """An :class:`ApiServer` for ``app`` (logging is left to the daemon's structlog setup)."""
    config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False, timeout_graceful_shutdown=5, **options
    )
    return ApiServer(config)


@contextmanager
def serving(app: FastAPI, host: str = "127.0.0.1", port: int = 0, **options: Any) -> Iterator[str]:
    """Run ``app`` in a thread on ``host`` (port 0: a free one) and yield its base URL."""
    server = make_server(app, host=host, port=port, **options)
    thread = threading.Thread(target=server.run, name="api-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()
    try:
        yield f"http://{bound[0]}:{bound[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


__all__ = ["ApiServer", "make_server", "serving"]
