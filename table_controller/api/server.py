"""Serving the API with uvicorn (the daemon mounts it; tests and the benchmark use it too).

``ApiServer`` ends the live streams before uvicorn waits for open connections to finish, so a
stop (Ctrl-C, SIGTERM) is not held up by terminals following ``/api/stream``.

The server's edge (docs/api.md, "TLS, limits and slow-downs"): no ``Server`` header; the h11
parser, whose bound on a request's head (``http.max_header_bytes``) refuses an oversized head
before it is buffered (httptools has none); HTTPS when the settings name a certificate and key.
The reverse proxy's ``X-Forwarded-*`` are read by the app itself (``app.create_app``), so
uvicorn's own reading of them is off.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog
import uvicorn
from fastapi import FastAPI

from ..settings import HttpSettings


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


def edge_options(http: HttpSettings) -> dict[str, Any]:
    """uvicorn's options for the table's HTTP edge."""
    options: dict[str, Any] = {
        "server_header": False,
        "proxy_headers": False,
        "http": "h11",
        "h11_max_incomplete_event_size": http.max_header_bytes,
    }
    if http.tls_certfile is not None and http.tls_keyfile is not None:
        options.update(ssl_certfile=str(http.tls_certfile), ssl_keyfile=str(http.tls_keyfile))
    return options


def make_server(
    app: FastAPI,
    host: str = "127.0.0.1",
    port: int = 8080,
    edge: HttpSettings | None = None,
    **options: Any,
) -> ApiServer:
    """An :class:`ApiServer` for ``app`` (logging is left to the daemon's structlog setup);
    ``edge`` the HTTP edge's settings (default: the app's own, else the defaults); ``options`` are
    uvicorn's, and win over the edge's."""
    if edge is None:
        settings = getattr(getattr(app, "state", None), "settings", None)
        edge = getattr(settings, "http", None) or HttpSettings()
    if edge.tls_certfile is None and not edge.allow_plain_http and not _loopback_host(host):
        structlog.get_logger().warning(
            "api.plain_http_off_loopback",
            host=host,
            detail="no [http] tls_certfile: requests from off this machine are refused (403 https-required)"
            " unless they come through a trusted reverse proxy that terminates TLS (docs/api.md)",
        )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=5,
        **{**edge_options(edge), **options},
    )
    return ApiServer(config)


def listen(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port), bound before anything else
    starts (the floor's workers, the table's devices), so that an address another process holds
    is refused at once. Raises ``OSError`` for an address it cannot have."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=backlog)


def _loopback_host(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


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
    scheme = "https" if server.config.ssl_certfile else "http"
    try:
        yield f"{scheme}://{bound[0]}:{bound[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


__all__ = ["ApiServer", "edge_options", "listen", "make_server", "serving"]
