"""A query string read as one pydantic model in one validation (docs/api.md, Speed).

FastAPI reads a ``Query()`` model field by field on every request, working out each field's
annotation again each time: for the round history's 17 filters that was the largest part of
the API's own cost per page, more than turning the page into JSON. ``query_reader(Model)`` is
the dependency that validates ``request.query_params`` with ``Model.model_validate`` instead,
with the same result: the last value of a repeated name, names the model does not know
ignored, a refusal in FastAPI's own form (``RequestValidationError``, each ``loc`` starting
with ``"query"``, so a 422 reads as before). ``query_parameters(Model)`` documents the same
parameters in the OpenAPI document (the route's ``openapi_extra``), from the model's JSON
Schema, with its enumerations written in place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def query_reader(model: type[M]) -> Callable[[Request], Awaitable[M]]:
    """The dependency that reads the request's query string as ``model``
    (``Annotated[Model, Depends(query_reader(Model))]``)."""

    async def read_query(request: Request) -> M:
        try:
            return model.model_validate(dict(request.query_params))
        except ValidationError as error:
            problems = error.errors(include_url=False)
            raise RequestValidationError(
                [{**problem, "loc": ("query", *problem["loc"])} for problem in problems]
            ) from None

    return read_query


def _in_place(node: Any, definitions: dict[str, Any]) -> Any:
    """``node`` with every ``{"$ref": "#/$defs/Name"}`` replaced by that definition."""
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return _in_place(definitions[reference.removeprefix("#/$defs/")], definitions)
        return {key: _in_place(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_in_place(value, definitions) for value in node]
    return node


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The OpenAPI ``parameters`` of ``model`` read from the query string, as FastAPI writes
    them for a ``Query()`` model (one per field, its schema and description)."""
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    required = set(schema.get("required", ()))
    parameters = []
    for name, field in schema["properties"].items():
        parameter: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": name in required,
            # pydantic leaves out the title of a field whose type is a definition; FastAPI does not
            "schema": {"title": name.replace("_", " ").title(), **_in_place(field, definitions)},
        }
        if "description" in field:
            parameter["description"] = field["description"]
        parameters.append(parameter)
    return parameters


__all__ = ["query_parameters", "query_reader"]
