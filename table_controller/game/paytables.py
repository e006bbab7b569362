"""Bonus pay tables of Double Joker (003_4dcc2fceebc6e4af.txt) as data the casino can change.

Two bonus wagers, each settled on the cards alone, however the player set the hand (003:
"They do not have to set their HIGH hand a certain way to qualify"):

- Big Hand Bonus: the best hand the player's seven cards can make
  (``evaluator.seven_card_category``), "8888 to 1" for a natural seven-card straight flush
  down to "Flush 4 to 1"; "Straight or worse" loses.
- Joker Bonus: where the deck's two jokers are, in the player's seven cards and the
  dealer's (the banker's) seven cards: "2 Jokers, Player 15 to 1" ... "No Jokers Loss".

Files: ``config/paytables/big-hand-003.toml`` and ``joker-bonus-003.toml``. Each names its
``bonus``, the ``source`` it was taken from, and an ``[odds]`` table holding every line once:
a whole number N >= 1 for "N to 1", or the string ``"loss"``. Unknown or missing lines,
zero, negative or non-integer odds are refused with a PayTableError.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..shipped import CONFIG_DIR
from .cards import Card
from .evaluator import DEFAULT_RULES, RankingRules, SevenCardCategory, seven_card_category
from .money import Cents, check_amount

RULES_003: Final = "003_4dcc2fceebc6e4af.txt"
LOSS: Final = "loss"


class PayTableError(ValueError):
    """Base class of every error about a pay table or its file."""


class PayTableFileError(PayTableError):
    """The file is missing, unreadable or not TOML, or its top level is not as expected."""


class UnknownPayLineError(PayTableError):
    """A line name the bonus does not have."""


class MissingPayLineError(PayTableError):
    """A line of the bonus is absent from the table."""


class BadOddsError(PayTableError):
    """Odds that are not a whole number N >= 1 (for "N to 1") nor "loss"."""


class WrongBonusError(PayTableError):
    """A table for one bonus given where the other was expected."""


class Bonus(enum.StrEnum):
    """The two optional Double Joker side wagers (003)."""

    BIG_HAND = "big-hand"
    JOKER = "joker-bonus"


class JokerBonusLine(enum.StrEnum):
    """Joker Bonus lines (003), by where the jokers are."""

    TWO_JOKERS_PLAYER = "two-jokers-player"
    TWO_JOKERS_DEALER = "two-jokers-dealer"
    ONE_JOKER_PLAYER_AND_DEALER = "one-joker-player-and-dealer"
    ONE_JOKER_PLAYER = "one-joker-player"
    ONE_JOKER_DEALER = "one-joker-dealer"
    NO_JOKERS = "no-jokers"


# Big Hand Bonus line names, in the order of 003's table, and the category each pays on.
BIG_HAND_LINES: Final[Mapping[str, SevenCardCategory]] = {
    "seven-card-natural-straight-flush": SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH,
    "six-aces": SevenCardCategory.SIX_ACES,
    "seven-card-straight-flush": SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH,
    "five-aces": SevenCardCategory.FIVE_ACES,
    "royal-flush": SevenCardCategory.ROYAL_FLUSH,
    "straight-flush": SevenCardCategory.STRAIGHT_FLUSH,
    "four-of-a-kind": SevenCardCategory.FOUR_OF_A_KIND,
    "full-house": SevenCardCategory.FULL_HOUSE,
    "flush": SevenCardCategory.FLUSH,
    "straight-or-worse": SevenCardCategory.NOTHING,
}
_BIG_HAND_LINE_OF: Final = {category: name for name, category in BIG_HAND_LINES.items()}

# Joker Bonus: (jokers in the player's seven cards, jokers in the dealer's) -> line (003).
JOKER_BONUS_LINES: Final[Mapping[tuple[int, int], JokerBonusLine]] = {
    (2, 0): JokerBonusLine.TWO_JOKERS_PLAYER,
    (0, 2): JokerBonusLine.TWO_JOKERS_DEALER,
    (1, 1): JokerBonusLine.ONE_JOKER_PLAYER_AND_DEALER,
    (1, 0): JokerBonusLine.ONE_JOKER_PLAYER,
    (0, 1): JokerBonusLine.ONE_JOKER_DEALER,
    (0, 0): JokerBonusLine.NO_JOKERS,
}

LINE_NAMES: Final[Mapping[Bonus, tuple[str, ...]]] = {
    Bonus.BIG_HAND: tuple(BIG_HAND_LINES),
    Bonus.JOKER: tuple(line.value for line in JokerBonusLine),
}

DEFAULT_FILES: Final[Mapping[Bonus, str]] = {
    Bonus.BIG_HAND: "big-hand-003.toml",
    Bonus.JOKER: "joker-bonus-003.toml",
}


@dataclass(frozen=True, slots=True)
class PayLine:
    """One line of a pay table: ``odds`` N for "N to 1", or None for a loss."""

    name: str
    odds: int | None

    @property
    def pays(self) -> bool:
        return self.odds is not None

    def settle(self, wager: Cents) -> Cents:
        """The player's result on ``wager``: ``odds * wager`` won, or ``-wager`` lost."""
        check_amount(wager, "bonus wager")
        return self.odds * wager if self.odds is not None else -wager


def _check_odds(bonus: Bonus, name: str, odds: object) -> None:
    if odds is None:
        return
    if isinstance(odds, bool) or not isinstance(odds, int) or odds < 1:
        raise BadOddsError(
            f"{bonus} line {name!r}: odds must be a whole number N >= 1 (N to 1) or {LOSS!r}, got {odds!r}"
        )


@dataclass(frozen=True, slots=True)
class PayTable:
    """All the lines of one bonus, each named once, checked on construction."""

    bonus: Bonus
    lines: tuple[PayLine, ...]
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.bonus, Bonus):
            raise WrongBonusError(f"unknown bonus {self.bonus!r}, expected one of {[b.value for b in Bonus]}")
        expected = LINE_NAMES[self.bonus]
        names = [line.name for line in self.lines]
        unknown = [name for name in names if name not in expected]
        if unknown:
            raise UnknownPayLineError(
                f"{self.bonus} has no line {unknown[0]!r}; its lines are {list(expected)}"
            )
        duplicated = sorted({name for name in names if names.count(name) > 1})
        if duplicated:
            raise UnknownPayLineError(f"{self.bonus} line {duplicated[0]!r} is given more than once")
        missing = [name for name in expected if name not in names]
        if missing:
            raise MissingPayLineError(f"{self.bonus} pay table lacks line(s) {missing}")
        for line in self.lines:
            _check_odds(self.bonus, line.name, line.odds)

    def line(self, name: str) -> PayLine:
        for line in self.lines:
            if line.name == name:
                return line
        raise UnknownPayLineError(f"{self.bonus} has no line {name!r}")

    def odds(self) -> dict[str, int | None]:
        """``{line name: odds or None}`` in the table's order."""
        return {line.name: line.odds for line in self.lines}


def paytable_from_mapping(data: Mapping[str, object], bonus: Bonus, source: str = "") -> PayTable:
    """Build a PayTable of ``bonus`` from parsed TOML (``bonus``, ``source``, ``[odds]``)."""
    unknown_keys = sorted(set(data) - {"bonus", "source", "odds"})
    if unknown_keys:
        raise PayTableFileError(f"{source or 'pay table'}: unknown key(s) {unknown_keys}")
    named = data.get("bonus")
    if named != bonus.value:
        raise WrongBonusError(f"{source or 'pay table'}: bonus is {named!r}, expected {bonus.value!r}")
    odds = data.get("odds")
    if not isinstance(odds, Mapping):
        raise PayTableFileError(f"{source or 'pay table'}: missing the [odds] table")
    lines = []
    for name, value in odds.items():
        if value == LOSS:
            value = None
        elif isinstance(value, str):
            raise BadOddsError(f"{bonus} line {name!r}: odds {value!r}, expected a whole number or {LOSS!r}")
        lines.append(PayLine(name=str(name), odds=value))
    cited = data.get("source", source)
    return PayTable(bonus=bonus, lines=tuple(lines), source=str(cited))


def paytables_dir() -> Path:
    """The pay tables shipped with the controller (``config/paytables``)."""
    return CONFIG_DIR / "paytables"


def load_paytable(bonus: Bonus, path: Path | str | None = None) -> PayTable:
    """Read and check one pay table file; the default is the 003 table in
    ``config/paytables``."""
    file = Path(path) if path is not None else paytables_dir() / DEFAULT_FILES[bonus]
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise PayTableFileError(f"cannot read pay table {file}: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise PayTableFileError(f"pay table {file} is not valid TOML: {error}") from error
    table = paytable_from_mapping(data, bonus, source=str(file))
    return table


def big_hand_line(table: PayTable, cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> PayLine:
    """The Big Hand Bonus line the player's seven cards pay on (003, all seven cards count)."""
    if table.bonus is not Bonus.BIG_HAND:
        raise WrongBonusError(f"expected a {Bonus.BIG_HAND} pay table, got {table.bonus}")
    return table.line(_BIG_HAND_LINE_OF[seven_card_category(cards, rules)])


def joker_bonus_line_name(player_jokers: int, dealer_jokers: int) -> JokerBonusLine:
    """Which Joker Bonus line the joker counts give (003); at most two jokers in all."""
    line = JOKER_BONUS_LINES.get((player_jokers, dealer_jokers))
    if line is None:
        raise PayTableError(
            f"{player_jokers} joker(s) with the player and {dealer_jokers} with the dealer: "
            "the Double Joker deck holds two"
        )
    return line


def joker_bonus_line(table: PayTable, player_cards: Sequence[Card], dealer_cards: Sequence[Card]) -> PayLine:
    """The Joker Bonus line for the player's and the dealer's seven cards (003)."""
    if table.bonus is not Bonus.JOKER:
        raise WrongBonusError(f"expected a {Bonus.JOKER} pay table, got {table.bonus}")
    player = sum(1 for card in player_cards if card.is_joker)
    dealer = sum(1 for card in dealer_cards if card.is_joker)
    return table.line(joker_bonus_line_name(player, dealer).value)


__all__ = [
    "BIG_HAND_LINES",
    "DEFAULT_FILES",
    "JOKER_BONUS_LINES",
    "LINE_NAMES",
    "LOSS",
    "BadOddsError",
    "Bonus",
    "JokerBonusLine",
    "MissingPayLineError",
    "PayLine",
    "PayTable",
    "PayTableError",
    "PayTableFileError",
    "UnknownPayLineError",
    "WrongBonusError",
    "big_hand_line",
    "joker_bonus_line",
    "joker_bonus_line_name",
    "load_paytable",
    "paytable_from_mapping",
    "paytables_dir",
]
