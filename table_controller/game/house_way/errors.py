"""Typed errors of the house way engine: unknown ways, malformed way files, unusable hands.

Every error is a ValueError, so a caller that treats bad input alike can catch one class;
each carries the fields a log line or an API answer needs. Hand errors (wrong size,
duplicated cards, too many jokers, unknown codes) are the CardError family of cards.py.
"""

from __future__ import annotations

from pathlib import Path


class HouseWayError(ValueError):
    """Base class of every house way error."""


class UnknownHouseWayError(HouseWayError):
    """No way file of that name in the directory."""

    def __init__(self, name: str, directory: Path, available: list[str]) -> None:
        names = ", ".join(available) or "none"
        super().__init__(f"unknown house way {name!r} in {directory} (available: {names})")
        self.name = name
        self.directory = directory
        self.available = available


class HouseWayFileError(HouseWayError):
    """A way file that cannot be used: bad TOML, a missing or wrong field, a bad reference."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"house way file {path}: {problem}")
        self.path = path
        self.problem = problem


class UnknownPredicateError(HouseWayFileError):
    """A condition names a predicate the vocabulary does not have."""


class UnknownActionError(HouseWayFileError):
    """A rule names an action (or a card selector) the vocabulary does not have."""


class DuplicateRuleIdError(HouseWayFileError):
    """Two rules (or sections, or combinations) of one way share an id."""


class NoLegalSettingError(HouseWayError):
    """No row of the way gives a legal setting for the hand: the way file has a gap."""

    def __init__(self, way: str, cards: str, section: str) -> None:
        super().__init__(
            f"house way {way!r}: no row of section {section!r} gives a legal setting for {cards}"
        )
        self.way = way
        self.cards = cards
        self.section = section


class VocabularyError(ValueError):
    """A name or parameter the vocabulary does not know (the loader adds the file and rule)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "predicate", "selector", "action" or "parameter"
