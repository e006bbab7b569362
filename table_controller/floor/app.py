"""The floor's app factory: ``create_floor_app(settings, engine)`` (docs/floor.md).

The pit and surveillance terminals for every table of the floor, through the same API
conventions as one table's (api/app.py): the same middlewares in front (``install_edge``:
security headers, proxy headers, access log, HTTP edge, authentication and its slow-down of bad
tokens), the same error answers, roles and tokens, ``/api/me``, browser sessions
(``/api/session``: signed in once, the floor's links to its reports and — with the tables'
session key file — to each table's own pages keep the session), offline interactive docs; the
floor's reports and shifts besides (docs/floor-reports.md). The lifespan starts the floor's
event hub (one poller of every table's chain for all streams). Answers read from a replica say
how far behind it is (``api/read_lag.py``), as a table's do.

Pages under ``/ui/``: the floor's own (``floor/static``) first, then the table's
(``api/static``), so the floor serves the table's history and round pages and its shared
``app.js`` (they read a table's history from ``/api/floor/tables/ID/...`` given ``?table=ID``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.engine import Engine

from ..api.api_docs import mount_api_docs
from ..api.app import API_VERSION, STATIC_DIR, document_roles, install_edge
from ..api.deps import Store
from ..api.errors import install_error_handlers
from ..api.read_lag import install_read_lag
from ..api.routers import me, session
from ..api.sessions import Sessions
from ..api.tokens import DEFAULT_TTL_SECONDS, TokenCache
from ..storage.open_alerts import OpenAlerts
from .hub import FloorHub
from .routers import alerts, reports, shifts, stream, tables
from .settings import FloorSettings

FLOOR_STATIC_DIR = Path(__file__).resolve().parent / "static"
TABLE_PAGES_PACKAGE = "table_controller.api"  # whose static/ (api/app.py STATIC_DIR) the floor also serves

DESCRIPTION = """\
The pit and surveillance terminals of every table of the floor, on the store the tables write to.

Every request carries `Authorization: Bearer <token>` (a person's token, as at a table). Who sees
what: surveillance (and admin) every table, a pit user the tables of their pit, a dealer only
their table; a pit user with no pit or a dealer with no table is refused (403 `no-scope`). A
table outside a person's scope answers 404, as a table that does not exist. Each operation
lists its roles under `x-roles`.

Money is integer cents. Refusals: 401 credentials, 403 role, scope or a two-person rule, 404 not
found, 409 refused now, 422 malformed request, 429 too many bad tokens, 503 store unavailable;
never a 500.
"""


ROUTERS = (
    tables.router,
    alerts.router,
    stream.router,
    reports.router,
    shifts.router,
    me.router,
    session.router,
)


def create_floor_app(
    settings: FloorSettings,
    engine: Engine,
    read_engine: Engine | None = None,
    *,
    token_ttl: float = DEFAULT_TTL_SECONDS,
) -> FastAPI:
    """The floor's API and pages on the store ``engine`` (migrated by the caller); ``read_engine``
    a read-only replica its reads use (``settings.read_db_url``). The stream's poller reads the
    primary: a replica may be behind, and the stream must never skip ahead of what it sent."""
    hub = FloorHub(engine, poll_interval=settings.poll_interval)

    app = FastAPI(
        title="Pai Gow Poker floor",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lambda _: hub.running(),
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.store = Store(engine, read_engine)
    app.state.tokens = TokenCache(token_ttl)
    # browser sessions: with the tables' key file (http.session_secret_file) the tables accept them
    app.state.sessions = Sessions.from_settings(settings.http)
    app.state.hub = hub  # ApiServer closes the streams at shutdown (api/server.py)
    app.state.open_alerts = OpenAlerts()
    install_error_handlers(app)
    for router in ROUTERS:
        document_roles(router)
        app.include_router(router)
    # the floor's own pages first, then the table's (api/static)
    pages = StaticFiles(
        directory=FLOOR_STATIC_DIR, packages=[(TABLE_PAGES_PACKAGE, STATIC_DIR.name)], html=True
    )
    app.mount("/ui", pages, name="ui")
    mount_api_docs(app)

    @app.get("/", include_in_schema=False)
    def _home() -> RedirectResponse:
        return RedirectResponse("/ui/")

    install_read_lag(app, engine, read_engine, warn_seconds=settings.read_lag_warn_seconds)
    install_edge(app, settings.http)
    return app


__all__ = ["FLOOR_STATIC_DIR", "ROUTERS", "create_floor_app"]
