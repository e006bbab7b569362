"""The registries: every name a way file may use, as one discriminated union per kind.

A way file's predicate, action or card selector is a table ``{ name = ..., params... }``
(or a bare name); ``name`` picks the typed model (params.py) that validates the parameters,
builds the function the engine calls and describes the entry in words. Nothing here knows a
row of any table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union

from pydantic import BeforeValidator, Field, TypeAdapter, ValidationError

from .actions import ACTION_ENTRIES, ActionEntry, Candidates, Follow
from .errors import VocabularyError
from .predicates import PREDICATE_ENTRIES, PredicateEntry
from .selectors import SELECTOR_ENTRIES, SelectorEntry, named
from .signature import Predicate

# One discriminated union on ``name`` per kind, built from each module's tuple of entries. A type
# checker cannot read a union built from a tuple: it sees the kind's base entry instead.
if TYPE_CHECKING:
    PredicateSpec: TypeAlias = PredicateEntry
    ActionSpec: TypeAlias = ActionEntry
else:
    PredicateSpec = Annotated[Union[PREDICATE_ENTRIES], Field(discriminator="name"), BeforeValidator(named)]  # noqa: UP007
    ActionSpec = Annotated[Union[ACTION_ENTRIES], Field(discriminator="name")]  # noqa: UP007


def _by_name(entries: tuple[type[Any], ...]) -> dict[str, Any]:
    return {entry.model_fields["name"].annotation.__args__[0]: entry for entry in entries}


PREDICATES: dict[str, type[PredicateEntry]] = _by_name(PREDICATE_ENTRIES)
SELECTORS: dict[str, type[SelectorEntry]] = _by_name(SELECTOR_ENTRIES)
ACTIONS: dict[str, type[ActionEntry]] = _by_name(ACTION_ENTRIES)

_PREDICATE = TypeAdapter(PredicateSpec)
_ACTION = TypeAdapter(ActionSpec)


def _refused(error: ValidationError, kind: str, known: dict[str, Any]) -> VocabularyError:
    """pydantic's error, as the loader reports it (it adds the file and the row)."""
    for problem in error.errors(include_url=False):
        if problem["type"] in ("union_tag_invalid", "union_tag_not_found"):
            where = kind if not problem["loc"] else "selector"
            names = known if where == kind else SELECTORS
            tag = (problem.get("ctx") or {}).get("tag")
            return VocabularyError(where, f"unknown {where} {tag!r} (known: {', '.join(sorted(names))})")
    details = "; ".join(
        f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
        for problem in error.errors(include_url=False)
    )
    return VocabularyError("parameter", f"bad parameters of the {kind}: {details}")


def compile_predicate(spec: Any) -> tuple[str, Predicate, PredicateEntry]:
    """A condition entry: a name, or a table ``{name = ..., negate = true?, params...}``."""
    try:
        entry = _PREDICATE.validate_python(spec)
    except ValidationError as error:
        raise _refused(error, "predicate", PREDICATES) from None
    return entry.name, entry.compiled, entry


def compile_action(spec: Any) -> tuple[str, dict[str, Any], Candidates | Follow, ActionEntry]:
    """A row's action: a table ``{name = ..., params...}``."""
    if not isinstance(spec, dict):
        raise VocabularyError("parameter", f"an action is a table with a 'name', got {spec!r}")
    try:
        entry = _ACTION.validate_python(spec)
    except ValidationError as error:
        raise _refused(error, "action", ACTIONS) from None
    params = {key: value for key, value in spec.items() if key != "name"}
    return entry.name, params, entry.compiled, entry
