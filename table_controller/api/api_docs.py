"""The interactive API documentation, offline (docs/api.md, "Interactive documentation").

Swagger UI at ``/docs`` and ReDoc at ``/redoc``, their scripts and styles served from the
``fastapi-offline`` package's copy under ``/docs-assets/``: a casino network has no CDN. The
pages hold no inline script (Swagger UI is started by ``static/api-docs.js``), so the pages'
Content-Security-Policy applies to them; only their styles may be inline (security_headers.py),
because both renderers write style elements at run time. ReDoc's script is served without the
logo it would fetch from a CDN (``DocsAssets``), so ``/redoc`` loads with nothing blocked.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

from .security_headers import DOCS_PATHS

ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS_PATH = "/docs-assets"
SWAGGER_PATH, REDOC_PATH = DOCS_PATHS

_SWAGGER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - API</title>
<link rel="icon" href="{assets}/favicon.png">
<link rel="stylesheet" href="{assets}/swagger-ui.css"></head>
<body><div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="/ui/api-docs.js"></script></body></html>
"""

_REDOC = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - API reference</title>
<link rel="icon" href="{assets}/favicon.png"></head>
<body><redoc spec-url="{openapi}"></redoc>
<script src="{assets}/redoc.standalone.js"></script></body></html>
"""


REDOC_SCRIPT = "redoc.standalone.js"
# ReDoc always draws "API docs by Redocly" with a logo from this CDN, whatever its options; a
# casino network has no CDN and the pages' policy allows no other origin, so the browser would
# report a blocked image on every visit. The served copy asks for an empty image instead (a
# ``data:`` URL, which the policy allows); the words and the link stay.
REDOC_CDN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"


class DocsAssets(StaticFiles):
    """The package's assets as they are, but ReDoc's script without its CDN logo (above)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory)
        script = (directory / REDOC_SCRIPT).read_bytes()
        if REDOC_CDN_LOGO not in script:  # another ReDoc: look again at what it fetches
            raise RuntimeError(f"{REDOC_SCRIPT} no longer names {REDOC_CDN_LOGO.decode()}: check api_docs.py")
        self._redoc = script.replace(REDOC_CDN_LOGO, EMPTY_IMAGE)

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path == REDOC_SCRIPT:
            return Response(self._redoc, media_type="text/javascript")
        return await super().get_response(path, scope)


def mount_api_docs(app: FastAPI) -> None:
    """``/docs`` (try the API with a bearer token) and ``/redoc`` (read it), with their assets."""
    fields = {"title": app.title, "assets": ASSETS_PATH, "openapi": app.openapi_url or "/openapi.json"}
    swagger, redoc = _SWAGGER.format(**fields), _REDOC.format(**fields)
    app.mount(ASSETS_PATH, DocsAssets(ASSETS_DIR), name="docs-assets")

    @app.get(SWAGGER_PATH, include_in_schema=False)
    def _swagger() -> HTMLResponse:
        return HTMLResponse(swagger)

    @app.get(REDOC_PATH, include_in_schema=False)
    def _redoc() -> HTMLResponse:
        return HTMLResponse(redoc)


__all__ = ["ASSETS_DIR", "mount_api_docs"]
