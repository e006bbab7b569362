"""An HTTP client for the tests' live servers that does not race the server's keep-alive.

uvicorn closes a connection left idle for 5 s (``timeout_keep_alive``), and httpx keeps an idle
connection for 5 s (``keepalive_expiry``). A request sent at that instant goes out on a connection
the server is closing and fails with "connection reset by peer": httpx does not send it again. A
browser test that waits on the page for 5 s between two API calls met it. This client drops an
idle connection long before the server would, so each request finds an open connection or opens
one.
"""

from __future__ import annotations

from typing import Any

import httpx

KEEPALIVE_EXPIRY = 1.0  # seconds; uvicorn's default ``timeout_keep_alive`` is 5


def live_client(**options: Any) -> httpx.Client:
    """An ``httpx.Client`` (``options`` are its own) for a server the test started."""
    return httpx.Client(limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY), **options)
