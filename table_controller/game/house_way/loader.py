"""Loading way files: ``config/house_ways/<name>.toml``, validated completely at load.

A way file (docs/house-way.md "Writing a way file") holds ``name``, ``title``, ``source``,
an optional ``section_order`` (the order sections are tried, G1; default: as listed), then
``[[section]]``, ``[[combination]]`` and ``[[rule]]`` tables in the table's order (rules
grouped by section, sections in the order listed). Every predicate, selector and action
name must be in the vocabulary, every parameter valid (the typed models of registry.py:
pydantic's error is reported), every id unique and every reference resolved, or loading
fails with a HouseWayFileError naming the file and the entry.

Ways are looked up in ``config/house_ways/`` by default, or in an explicit
directory; loaded ways are cached per (name, directory) (``load_house_way.cache_clear()``
after editing a file in a running process).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from ...shipped import CONFIG_DIR
from ..cards import Card, parse_cards
from ..evaluator import DEFAULT_RULES, RankingRules
from .engine import Action, Combination, Condition, HouseWay, HouseWayResult, Rule, Section
from .errors import (
    DuplicateRuleIdError,
    HouseWayFileError,
    UnknownActionError,
    UnknownHouseWayError,
    UnknownPredicateError,
    VocabularyError,
)
from .registry import compile_action, compile_predicate

DEFAULT_WAY = "house-way-002"
WAYS_DIRECTORY = CONFIG_DIR / "house_ways"

_ID = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")
_NAME = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_TOP_KEYS = {"name", "title", "source", "section_order", "section", "combination", "rule", "last_resort"}
_LAST_RESORT_KEYS = {"id", "details", "split", "action", "reason"}
_SECTION_KEYS = {"id", "words", "when", "run", "note"}
_COMBINATION_KEYS = {"id", "section", "words", "when", "note"}
_RULE_KEYS = {
    "id",
    "combination",
    "details",
    "split",
    "when",
    "action",
    "reachable",
    "reason",
    "added_by",
    "note",
}
_RUNS = ("straight", "straight-flush")


def _directory(directory: Path | str | None) -> Path:
    return WAYS_DIRECTORY if directory is None else Path(directory).resolve()


def available_house_ways(directory: Path | None = None) -> list[str]:
    """Names of the way files in ``directory`` (default ``config/house_ways``), sorted."""
    folder = _directory(directory)
    if not folder.is_dir():
        return []
    return sorted(path.stem for path in folder.glob("*.toml"))


def load_house_way(name: str = DEFAULT_WAY, directory: Path | None = None) -> HouseWay:
    """The way ``name`` from ``directory`` (default ``config/house_ways``), cached.

    Raises UnknownHouseWayError for a name with no file, HouseWayFileError (or a subclass:
    UnknownPredicateError, UnknownActionError, DuplicateRuleIdError) for a file that is not
    a valid way.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UnknownHouseWayError(str(name), _directory(directory), available_house_ways(directory))
    return _load(name, _directory(directory))


@lru_cache(maxsize=32)
def _load(name: str, folder: Path) -> HouseWay:
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise UnknownHouseWayError(name, folder, available_house_ways(folder))
    try:
        with path.open("rb") as stream:
            data = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise HouseWayFileError(path, f"not valid TOML: {error}") from None
    way = build_house_way(data, path)
    if way.name != name:
        raise HouseWayFileError(path, f"the file names the way {way.name!r}, not {name!r}")
    return way


load_house_way.cache_clear = lambda: _load.cache_clear()  # type: ignore[attr-defined]  # a function's attribute


def set_house_way(
    cards: Sequence[Card] | str,
    way: str | HouseWay = DEFAULT_WAY,
    ranking: RankingRules = DEFAULT_RULES,
) -> HouseWayResult:
    """Set seven cards (Card objects, or codes as one string) by the named or given way."""
    if isinstance(cards, str):
        cards = parse_cards(cards)
    house = way if isinstance(way, HouseWay) else load_house_way(way)
    return house.set(cards, ranking)


# -- building a way from parsed TOML ---------------------------------------------------------


class _Checker:
    """Collects the context (file, entry) for error messages."""

    def __init__(self, path: Path | str) -> None:
        self.path = path

    def fail(self, where: str, problem: str, kind: type[HouseWayFileError] = HouseWayFileError) -> NoReturn:
        raise kind(self.path, f"{where}: {problem}")

    def table(self, value: Any, where: str, keys: set[str], required: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, "expected a table")
        unknown = set(value) - keys
        if unknown:
            self.fail(where, f"unknown key(s) {sorted(unknown)}")
        missing = [key for key in required if key not in value]
        if missing:
            self.fail(where, f"missing key(s) {missing}")
        return value

    def text(self, value: Any, where: str, key: str, allow_empty: bool = True) -> str:
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            self.fail(where, f"{key} must be a{'' if allow_empty else ' non-empty'} string")
        return value

    def ident(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not _ID.match(value):
            self.fail(where, f"bad id {value!r} (lowercase words joined by '.' or '-')")
        return value

    def condition(self, value: Any, where: str) -> Condition:
        if not isinstance(value, list):
            self.fail(where, "'when' must be a list of predicates")
        entries = []
        for spec in value:
            try:
                entries.append(compile_predicate(spec)[2])
            except VocabularyError as error:
                kind = UnknownPredicateError if error.kind == "predicate" else HouseWayFileError
                self.fail(where, str(error), kind)
        return Condition(
            specs=tuple(value), tests=tuple(entry.compiled for entry in entries), entries=tuple(entries)
        )

    def action(self, value: Any, where: str) -> Action:
        try:
            name, params, run, entry = compile_action(value)
        except VocabularyError as error:
            kind = UnknownActionError if error.kind in ("action", "selector") else HouseWayFileError
            self.fail(where, str(error), kind)
        return Action(name=name, params=params, run=run, entry=entry)


def build_house_way(data: dict[str, Any], path: Path | str = "<memory>") -> HouseWay:
    """Validate parsed way-file data completely and build the HouseWay (module docstring)."""
    check = _Checker(path)
    top = check.table(
        data, "top level", _TOP_KEYS, ("name", "title", "source", "section", "combination", "rule")
    )
    name = top["name"]
    if not isinstance(name, str) or not _NAME.match(name):
        check.fail("top level", f"bad way name {name!r}")
    title = check.text(top["title"], "top level", "title")
    source = check.text(top["source"], "top level", "source")
    for key in ("section", "combination", "rule"):
        if not isinstance(top[key], list) or not top[key]:
            check.fail("top level", f"[[{key}]] tables are required")

    sections: list[Section] = []
    for number, raw in enumerate(top["section"], start=1):
        where = f"section #{number}"
        entry = check.table(raw, where, _SECTION_KEYS, ("id", "words", "when"))
        where = f"section {entry['id']!r}"
        run = entry.get("run", "straight")
        if run not in _RUNS:
            check.fail(where, f"run must be one of {_RUNS}, got {run!r}")
        sections.append(
            Section(
                id=check.ident(entry["id"], where),
                words=check.text(entry["words"], where, "words", allow_empty=False),
                condition=check.condition(entry["when"], where),
                run=run,
            )
        )
    _unique([section.id for section in sections], "section", check)
    section_ids = [section.id for section in sections]
    order = top.get("section_order", section_ids)
    if (
        not isinstance(order, list)
        or sorted(map(str, order)) != sorted(section_ids)
        or len(order) != len(section_ids)
    ):
        check.fail("top level", f"section_order must list every section id once, got {order!r}")
    by_section = {section.id: section for section in sections}
    tried = [by_section[section_id] for section_id in order]

    combinations: list[Combination] = []
    for number, raw in enumerate(top["combination"], start=1):
        entry = check.table(
            raw, f"combination #{number}", _COMBINATION_KEYS, ("id", "section", "words", "when")
        )
        where = f"combination {entry['id']!r}"
        if entry["section"] not in section_ids:
            check.fail(where, f"unknown section {entry['section']!r}")
        combinations.append(
            Combination(
                id=check.ident(entry["id"], where),
                section=entry["section"],
                words=check.text(entry["words"], where, "words"),
                condition=check.condition(entry["when"], where),
            )
        )
    _unique([combination.id for combination in combinations], "combination", check)
    by_combination = {combination.id: combination for combination in combinations}
    words_of_section = {section.id: section.words for section in sections}

    rules: list[Rule] = []
    for number, raw in enumerate(top["rule"], start=1):
        entry = check.table(
            raw, f"rule #{number}", _RULE_KEYS, ("id", "combination", "details", "split", "when", "action")
        )
        where = f"rule {entry['id']!r}"
        rule_id = check.ident(entry["id"], where)
        combination = by_combination.get(entry["combination"])
        if combination is None:
            check.fail(where, f"unknown combination {entry['combination']!r}")
        reachable = entry.get("reachable", True)
        if not isinstance(reachable, bool):
            check.fail(where, "reachable must be true or false")
        reason = check.text(entry.get("reason", ""), where, "reason")
        if not reachable and not reason.strip():
            check.fail(where, "a rule with reachable = false needs a reason")
        rules.append(
            Rule(
                id=rule_id,
                section=combination.section,
                combination=combination.id,
                hand_ranks=words_of_section[combination.section],
                hand_combinations=combination.words,
                more_hand_details=check.text(entry["details"], where, "details"),
                split=check.text(entry["split"], where, "split", allow_empty=False),
                condition=check.condition(entry["when"], where),
                action=check.action(entry["action"], where),
                reachable=reachable,
                reason=reason,
                added_by=check.text(entry.get("added_by", ""), where, "added_by"),
            )
        )
    _unique([rule.id for rule in rules], "rule", check)
    _check_order(rules, section_ids, check)
    _check_follows(rules, by_combination, check)
    last_resort = None
    if "last_resort" in top:
        entry = check.table(
            top["last_resort"],
            "last_resort",
            _LAST_RESORT_KEYS,
            ("id", "details", "split", "action", "reason"),
        )
        where = f"last_resort {entry['id']!r}"
        action = check.action(entry["action"], where)
        if action.follows:
            check.fail(where, "the last resort cannot follow other rows")
        last_resort = Rule(
            id=check.ident(entry["id"], where),
            section="",
            combination="",
            hand_ranks="",
            hand_combinations="",
            more_hand_details=check.text(entry["details"], where, "details"),
            split=check.text(entry["split"], where, "split", allow_empty=False),
            condition=Condition(specs=(), tests=()),
            action=action,
            reason=check.text(entry["reason"], where, "reason", allow_empty=False),
            added_by=source,
        )
        _unique([rule.id for rule in rules] + [last_resort.id], "rule", check)
    used = {rule.combination for rule in rules}
    for combination in combinations:
        if combination.id not in used:
            check.fail(f"combination {combination.id!r}", "no rule belongs to it")
    return HouseWay(
        name=name,
        title=title,
        source=source,
        sections=tried,
        combinations=combinations,
        rules=rules,
        last_resort=last_resort,
    )


def _unique(ids: list[str], kind: str, check: _Checker) -> None:
    seen: set[str] = set()
    for value in ids:
        if value in seen:
            check.fail(f"{kind} {value!r}", f"duplicate {kind} id", DuplicateRuleIdError)
        seen.add(value)


def _check_order(rules: list[Rule], section_ids: list[str], check: _Checker) -> None:
    """Rules are grouped by section, sections in the order they are tried (the table's order)."""
    position = {section: index for index, section in enumerate(section_ids)}
    last = -1
    for rule in rules:
        index = position[rule.section]
        if index < last:
            check.fail(
                f"rule {rule.id!r}", f"section {rule.section!r} rows must come before the next section's"
            )
        last = index
    missing = set(section_ids) - {rule.section for rule in rules}
    if missing:
        check.fail("top level", f"section(s) without rules: {sorted(missing)}")


def _check_follows(rules: list[Rule], combinations: dict[str, Combination], check: _Checker) -> None:
    """A followed combination exists, has rules, and its rules do not follow again."""
    for rule in rules:
        target = rule.action.follows
        if target is None:
            continue
        if target not in combinations:
            check.fail(f"rule {rule.id!r}", f"follows unknown combination {target!r}")
        steps = [step for step in rules if step.combination == target]
        if any(step.action.follows for step in steps):
            check.fail(f"rule {rule.id!r}", f"combination {target!r} has rows that follow again")
