"""The table's departures from the rules documents: house options that contradict them.

A casino may choose to play otherwise than the documents say; the controller lets it, but only
by a setting that is off by default, and it names each departure wherever the table's rules are
shown (GET /api/table/rules, the table page, docs/settlement.md "Departures"). Each departure
here quotes the rule it departs from.

- ``banking.allow_in_double_joker``: 003_4dcc2fceebc6e4af.txt says "The Dealer is always
  considered position #1": a Double Joker table where a player may bank departs from it.
- ``rules.commission.rounding`` ``half-up`` or ``down``: 002_08ea07f9e4b504bc.txt says
  "Commission is rounded up to a quarter of the lowest chip denomination in the game".

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import Game
from .money import PercentCommission, RoundingMode
from .table_rules import TableRules

R002: Final = "002_08ea07f9e4b504bc.txt"
R003: Final = "003_4dcc2fceebc6e4af.txt"


@dataclass(frozen=True, slots=True)
class Departure:
    """One house option in force that contradicts a rules document.

    ``setting`` is the setting's name as the configuration spells it, ``value`` what it is set
    to, ``rule`` the document's words it departs from and ``cite`` the document's file name.
    """

    setting: str
    value: str
    rule: str
    cite: str
    words: str


def departures(rules: TableRules, *, allow_in_double_joker: bool) -> tuple[Departure, ...]:
    """The departures in force at a table with these rules and banking setting (empty by default)."""
    found: list[Departure] = []
    if allow_in_double_joker and rules.game is Game.DOUBLE_JOKER:
        found.append(
            Departure(
                setting="banking.allow_in_double_joker",
                value="true",
                rule="The Dealer is always considered position #1",
                cite=R003,
                words="a player may bank this Double Joker table, where the dealer is always position 1",
            )
        )
    commission = rules.commission
    if isinstance(commission, PercentCommission) and commission.rounding is not RoundingMode.UP:
        found.append(
            Departure(
                setting="rules.commission.rounding",
                value=commission.rounding.value,
                rule="Commission is rounded up to a quarter of the lowest chip denomination in the game",
                cite=R002,
                words=f"the commission is rounded {commission.rounding.value}, not up",
            )
        )
    return tuple(found)


__all__ = ["Departure", "departures"]
