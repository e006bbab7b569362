"""The API app factory: ``create_app(settings, service, engine)`` (docs/api.md).

Nothing is created at import time: the daemon builds the settings, the engine (migrated) and
the table service, and hands them in. The lifespan starts the live stream's event hub (one
poller of the audit chain for every terminal) and stops it. The OpenAPI document
(``/openapi.json``) is part of the product: every endpoint is typed, says which roles may
call it and lists its error answers. The web pages for the pit and surveillance terminals are
static files under ``/ui/`` (no build step).

In front of the routes, outermost first: the security headers, the reverse proxy's
``X-Forwarded-*`` (from ``http.trusted_proxies`` only), the access log, the HTTP edge (bounded
headers, no plain HTTP off the loopback: ``edge.py``), then authentication with its slow-down
of bad tokens (``auth.py``), so nothing of a request is read before its sender is known.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy.engine import Engine
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from ..settings import HttpSettings, TableSettings
from ..table.dealers import DayPaceReader, DealerDesk
from ..table.progressive_pool import SYSTEM
from ..table.rating_push import RatingWorker
from ..table.ratings import RatingDesk
from ..table.service import TableService
from .access_log import AccessLog
from .api_docs import mount_api_docs
from .auth import Authentication, BadTokens
from .deps import Store, route_permission
from .edge import HttpEdge
from .errors import install_error_handlers
from .progressive_view import PoolFeeds
from .read_lag import install_read_lag
from .roles import roles_for
from .routers import (
    accounting,
    admin,
    alerts,
    analysis,
    approvals,
    audit,
    dealers,
    devices,
    me,
    progressive,
    progressive_display,
    ratings,
    reports,
    round,
    rounds,
    session,
    stream,
    table,
)
from .security_headers import SecurityHeaders
from .sessions import Sessions
from .stream import EventHub
from .tokens import DEFAULT_TTL_SECONDS, TokenCache

STATIC_DIR = Path(__file__).resolve().parent / "static"
API_VERSION = "1.0.0"

DESCRIPTION = """\
The pit and surveillance terminals of one Pai Gow Poker table.

Every request carries `Authorization: Bearer <token>` (a person's token, from
`table-controller users add NAME --role ROLE`), or a browser's session cookie from
`POST /api/session` (a change made with the cookie also carries `X-Requested-With:
table-controller`). Roles: **dealer** (opens rounds, submits the
players' and the dealer's settings), **pit** (the dealer's commands plus void, override a
house-way deviation, acknowledge alerts, confirm another pit user's request, open and close the
table), **surveillance** (reads everything, raw device events included, changes nothing),
**admin** (configuration, user keys). Each operation lists its roles under `x-roles`.
Two people: a void or override of a round above the table's `second_pit_above` waits for a
second pit user (202 and a request to confirm); nobody confirms their own request or
acknowledges the alert of their own act; a key an admin made for someone else changes nothing
until a second admin confirms it.

Money is integer cents. Refusals: 401 credentials (before the body is read), 403 role or a
two-person rule or plain HTTP off the loopback, 404 not found, 409 the table or round refuses
now, 422 malformed request, 429 too many bad tokens, 431 headers too large, 503 store
unavailable; never a 500.
"""


ROUTERS = (
    table.router,
    progressive.router,
    progressive_display.router,
    round.router,
    rounds.router,
    alerts.router,
    reports.router,
    devices.router,
    stream.router,
    approvals.router,
    admin.router,
    me.router,
    session.router,
    analysis.router,
    audit.router,
    accounting.router,
    ratings.router,
    dealers.router,
)


def document_roles(router: APIRouter) -> None:
    """Write each operation's permission and roles into its OpenAPI entry (once per router)."""
    for route in router.routes:
        if not isinstance(route, APIRoute) or "x-roles" in (route.openapi_extra or {}):
            continue
        permission = route_permission(route)
        if permission is None:
            continue
        roles = roles_for(permission)
        route.openapi_extra = {
            **(route.openapi_extra or {}),
            "x-permission": permission.value,
            "x-roles": roles,
        }
        route.description = f"{route.description}\n\nRoles: {', '.join(roles)}.".lstrip()


def create_app(
    settings: TableSettings,
    service: TableService,
    engine: Engine,
    *,
    poll_interval: float = 0.1,
    token_ttl: float = DEFAULT_TTL_SECONDS,
    read_engine: Engine | None = None,
) -> FastAPI:
    """The API of one table. ``service`` and ``engine`` are the daemon's own (shared with the
    device conductor); ``poll_interval`` is how often the live stream looks for new events;
    ``token_ttl`` how long a token's person is remembered (``tokens.TokenCache``);
    ``read_engine`` a read-only replica the read endpoints use (``settings.read_db_url``)."""
    hub = EventHub(engine, settings.table_id, poll_interval=poll_interval)
    rating_worker = RatingWorker(engine, RatingDesk.of(settings), settings.ratings)
    # the pool's chain is where its keeper keeps it: the table's store, or a linked pool's floor
    pool_engine = engine if service.pool is None else service.pool.engine
    pool_feeds = PoolFeeds(pool_engine, poll_interval=poll_interval, system=SYSTEM)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with hub.running(), rating_worker.running(), pool_feeds.running():
                yield
        finally:  # a stop cancels the analysis jobs (analysis_jobs.py): it never waits for them
            jobs = getattr(app.state, "analysis_jobs", None)
            if jobs is not None:
                jobs.close()

    app = FastAPI(
        title=f"Pai Gow Poker table {settings.table_id}",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.engine = engine
    app.state.store = Store(engine, read_engine)
    app.state.tokens = TokenCache(token_ttl)
    app.state.hub = hub
    app.state.dealer_pace = DayPaceReader(DealerDesk.of(settings))  # GET /api/table's dealer line
    app.state.pool_feeds = pool_feeds  # the progressive displays' feeds (progressive_view.py)
    install_error_handlers(app)
    accounting.install_accounting_errors(app)
    ratings.install_rating_errors(app)
    dealers.install_dealer_errors(app)
    for router in (round.open_round_router(settings), table.limits_router(settings), *ROUTERS):
        document_roles(router)
        app.include_router(router)
    app.mount("/ui", StaticFiles(directory=STATIC_DIR, html=True), name="ui")
    mount_api_docs(app)

    @app.get("/", include_in_schema=False)
    def _home() -> RedirectResponse:
        return RedirectResponse("/ui/")

    install_read_lag(app, engine, read_engine, warn_seconds=settings.read_lag_warn_seconds)
    install_edge(app, settings.http)
    return app


def install_edge(app: FastAPI, http: HttpSettings) -> None:
    """The middlewares in front of the routes (this module's docstring), for a table's API and
    the floor's alike (floor/app.py); ``app.state`` must hold ``store`` and ``tokens``, which
    authentication reads."""
    app.state.bad_tokens = BadTokens.from_settings(http)
    app.state.sessions = Sessions.from_settings(http)  # browser sessions (sessions.py)
    app.add_middleware(Authentication, bad_tokens=app.state.bad_tokens)
    app.add_middleware(HttpEdge, settings=http)
    app.add_middleware(AccessLog)
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(http.trusted_proxies))
    app.add_middleware(SecurityHeaders)  # outermost: on every answer, errors included


__all__ = ["create_app", "document_roles", "install_edge"]
