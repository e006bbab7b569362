"""The house way: how the banker's seven cards must be set, and the rule that set them.

The default way is the House Way table of 002_08ea07f9e4b504bc.txt read per
docs/house-way.md, Readings (``config/house_ways/house-way-002.toml``); a casino may load its own
(``strong-004.toml`` holds the "strong house way" sheet of 004_60e2fc6346e3399b.txt).
Pure: no I/O but reading way files. See docs/house-way.md.
"""

from .engine import Action, Combination, Condition, HouseWay, HouseWayResult, Rule, Section
from .errors import (
    DuplicateRuleIdError,
    HouseWayError,
    HouseWayFileError,
    NoLegalSettingError,
    UnknownActionError,
    UnknownHouseWayError,
    UnknownPredicateError,
)
from .loader import (
    DEFAULT_WAY,
    WAYS_DIRECTORY,
    available_house_ways,
    build_house_way,
    load_house_way,
    set_house_way,
)
from .registry import ACTIONS, PREDICATES, SELECTORS

__all__ = [
    "ACTIONS",
    "DEFAULT_WAY",
    "PREDICATES",
    "SELECTORS",
    "WAYS_DIRECTORY",
    "Action",
    "Combination",
    "Condition",
    "DuplicateRuleIdError",
    "HouseWay",
    "HouseWayError",
    "HouseWayFileError",
    "HouseWayResult",
    "NoLegalSettingError",
    "Rule",
    "Section",
    "UnknownActionError",
    "UnknownHouseWayError",
    "UnknownPredicateError",
    "available_house_ways",
    "build_house_way",
    "load_house_way",
    "set_house_way",
]
