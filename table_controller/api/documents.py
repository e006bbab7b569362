"""A report answered as a document: CSV, the printable page or a PDF, by the path's suffix
(docs/api.md, docs/floor-reports.md). One answer for every report that has the three forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import structlog
from fastapi.responses import Response

from ..floor.report_page import Paper, page_policy
from .errors import ApiError

log = structlog.get_logger()

Format = Literal["json", "csv", "html", "pdf"]
MEDIA = {"csv": "text/csv; charset=utf-8", "html": "text/html; charset=utf-8", "pdf": "application/pdf"}


def document_responses(description: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI 200 of a report's document forms."""
    content = {media.split(";")[0]: {"schema": {"type": "string"}} for media in MEDIA.values()}
    return {200: {"description": description, "content": content}}


async def document_answer(
    store: Any,
    found: Any,
    fmt: Literal["csv", "html", "pdf"],
    name: str,
    *,
    paper: Paper,
    csv: Callable[[Any], str],
    page: Callable[..., str],
    pdf: Callable[..., bytes],
    source: str,
) -> Response:
    """``found`` as ``fmt``, the file named ``name``: the CSV attached, the page and the PDF
    inline. The page carries a policy allowing its own inline style only; the PDF (WeasyPrint)
    is made off the event loop, and a host without WeasyPrint or its Pango library answers 503
    (logged as ``SOURCE.pdf_unavailable``)."""
    headers = {
        "Content-Disposition": f'{"attachment" if fmt == "csv" else "inline"}; filename="{name}.{fmt}"'
    }
    body: str | bytes
    if fmt == "csv":
        body = csv(found)
    elif fmt == "html":
        body = page(found, paper=paper)
        headers["Content-Security-Policy"] = page_policy(body)
    else:
        try:
            body = await store.run(pdf, found, paper=paper)
        except (ImportError, OSError) as error:
            log.error(f"{source}.pdf_unavailable", error=str(error))
            raise ApiError(503, f"the PDF cannot be made on this host: {error}", "pdf-unavailable") from None
    return Response(body, media_type=MEDIA[fmt], headers=headers)


__all__ = ["MEDIA", "Format", "document_answer", "document_responses"]
