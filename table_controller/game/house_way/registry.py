"""The registries: every name a way file may use, and how a way file's entry is compiled.

Way files name entries; nothing here knows a row of any table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import actions, predicates, selectors
from .actions import Candidates, Follow
from .errors import VocabularyError
from .selectors import Selector
from .signature import Predicate, Signature, static_value, with_static

SELECTORS: dict[str, Callable[..., Selector]] = {
    "joker": selectors.sel_joker,
    "ace": selectors.sel_ace,
    "rank": selectors.sel_rank,
    "pair": selectors.sel_pair,
    "group": selectors.sel_group,
    "singletons": selectors.sel_singletons,
    "highest": selectors.sel_highest,
    "non_flush": selectors.sel_non_flush,
    "flush_cards": selectors.sel_flush_cards,
    "non_straight": selectors.sel_non_straight,
    "run_card": selectors.sel_run_card,
    "highest_left_out_of_straight": selectors.sel_highest_left_out_of_straight,
}

PREDICATES: dict[str, Callable[..., Predicate]] = {
    "can_make": predicates.pred_can_make,
    "groups": predicates.pred_groups,
    "rank_count": predicates.pred_rank_count,
    "has_natural": predicates.pred_has_natural,
    "group_rank": predicates.pred_group_rank,
    "group_ranks": predicates.pred_group_ranks,
    "group_has_joker": predicates.pred_group_has_joker,
    "joker_unpaired": predicates.pred_joker_unpaired,
    "has_joker": predicates.pred_has_joker,
    "flush_after_removing": predicates.pred_flush_after_removing,
    "straight_after_removing": predicates.pred_straight_after_removing,
    "longest_straight_after_removing": predicates.pred_longest_straight_after_removing,
    "in_flush_suit": predicates.pred_in_flush_suit,
    "flush_size": predicates.pred_flush_size,
    "run_length": predicates.pred_run_length,
    "run_starts_with_ace": predicates.pred_run_starts_with_ace,
    "run_joker_at": predicates.pred_run_joker_at,
    "can_make_straight_of": predicates.pred_can_make_straight_of,
    "nth_highest_rank": predicates.pred_nth_highest_rank,
    "groups_adjacent": predicates.pred_groups_adjacent,
    "group_above": predicates.pred_group_above,
    "pair_beats_singletons": predicates.pred_pair_beats_singletons,
    "others_at_least": predicates.pred_others_at_least,
    "singletons_top_at_least": predicates.pred_singletons_top_at_least,
    "singleton_ranks_include": predicates.pred_singleton_ranks_include,
    "straight_or_flush_top": predicates.pred_straight_or_flush_top,
}

ACTIONS: dict[str, Callable[..., Any]] = {
    "take": actions.act_take,
    "follow": actions.act_follow,
    "best_straight_or_flush_top": actions.act_best_straight_or_flush_top,
    "strongest_legal_low": actions.act_strongest_legal_low,
}


def compile_action(spec: Any) -> tuple[str, dict[str, Any], Candidates | Follow]:
    if not isinstance(spec, dict):
        raise VocabularyError("parameter", f"an action is a table with a 'name', got {spec!r}")
    return _build(ACTIONS, "action", spec)



def _split_spec(spec: Any, kind: str) -> tuple[str, dict[str, Any]]:
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, dict) and isinstance(spec.get("name"), str):
        params = dict(spec)
        return params.pop("name"), params
    raise VocabularyError("parameter", f"a {kind} is a name or a table with a 'name', got {spec!r}")


def _build(registry: dict[str, Callable], kind: str, spec: Any) -> tuple[str, dict[str, Any], Any]:
    name, params = _split_spec(spec, kind)
    factory = registry.get(name)
    if factory is None:
        known = ", ".join(sorted(registry))
        raise VocabularyError(kind, f"unknown {kind} {name!r} (known: {known})")
    try:
        return name, params, factory(**params)
    except TypeError as error:
        raise VocabularyError("parameter", f"{kind} {name!r}: bad parameters {params!r} ({error})") from None
    except ValueError as error:
        if isinstance(error, VocabularyError):
            raise
        raise VocabularyError("parameter", f"{kind} {name!r}: {error}") from None


def compile_selectors(specs: Any) -> tuple[Selector, ...]:
    if not isinstance(specs, list) or not specs:
        raise VocabularyError("parameter", f"expected a non-empty list of card selectors, got {specs!r}")
    return tuple(_build(SELECTORS, "selector", spec)[2] for spec in specs)

def compile_predicate(spec: Any) -> tuple[str, Predicate]:
    """A condition entry: a name, or a table ``{name = ..., negate = true?, params...}``."""
    negate = False
    if isinstance(spec, dict) and "negate" in spec:
        spec = dict(spec)
        negate = spec.pop("negate")
        if not isinstance(negate, bool):
            raise VocabularyError("parameter", f"negate must be true or false, got {negate!r}")
    name, _, predicate = _build(PREDICATES, "predicate", spec)
    if negate:
        inner = predicate

        def static(sig: Signature) -> bool | None:
            value = static_value(inner, sig)
            return None if value is None else not value

        return name, with_static(lambda f: not inner(f), static)
    return name, predicate
