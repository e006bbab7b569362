"""A query string read as one model (api/query.py): the same values, refusals and documentation
as FastAPI's own ``Query()`` model, which it replaces for speed (docs/api.md, Speed)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from fastapi import Depends, FastAPI, Query
from fastapi.testclient import TestClient

from table_controller.api.query import query_parameters, query_reader
from table_controller.api.routers.rounds import HistoryParams

FastQuery = Annotated[HistoryParams, Depends(query_reader(HistoryParams))]


def _apps() -> tuple[FastAPI, FastAPI]:
    """FastAPI's ``Query()`` model and ``query_reader``, side by side, answering what they read."""
    fastapi_way, ours = FastAPI(), FastAPI()

    @fastapi_way.get("/rounds")
    async def read_fastapis(query: Annotated[HistoryParams, Query()]) -> dict[str, Any]:
        return query.model_dump(mode="json")

    @ours.get("/rounds", openapi_extra={"parameters": query_parameters(HistoryParams)})
    async def read_ours(query: FastQuery) -> dict[str, Any]:
        return query.model_dump(mode="json")

    return fastapi_way, ours


def _inline(node: Any, components: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str):
            return _inline(components[reference.rsplit("/", 1)[1]], components)
        return {key: _inline(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, components) for value in node]
    return node


def test_the_parameters_are_documented_as_fastapi_documents_a_query_model():
    fastapi_way, ours = (app.openapi() for app in _apps())
    theirs = fastapi_way["paths"]["/rounds"]["get"]["parameters"]
    mine = ours["paths"]["/rounds"]["get"]["parameters"]
    assert [p["name"] for p in mine] == list(HistoryParams.model_fields)
    assert mine == _inline(theirs, fastapi_way["components"]["schemas"])


@pytest.mark.parametrize(
    "query",
    [
        "",
        "limit=7&order=oldest&voided=true&position=3",
        "limit=7&limit=9",  # a repeated name: its last value
        "unknown=1&dealer=dee",  # a name the model does not know: ignored
        "card=as&high_category=full-house&opened_from=2026-01-02T03:04:05%2B00:00",
        "limit=0",
        "limit=abc&position=9",
        "order=sideways&voided=maybe",
        "opened_from=yesterday",
    ],
)
def test_values_and_refusals_are_fastapis(query: str):
    fastapi_way, ours = (TestClient(app) for app in _apps())
    theirs, mine = fastapi_way.get(f"/rounds?{query}"), ours.get(f"/rounds?{query}")
    assert (mine.status_code, mine.json()) == (theirs.status_code, theirs.json())
