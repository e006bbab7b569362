"""The Fortune Bonus and its Envy Bonus: the hand of a position's seven cards, the pay
tables as data, and the settlement of one round's Fortune wagers (progressive-research.md,
§1.2-§1.4 and §1.8; docs/progressive.md gives every reading).

- The Fortune hand is the best line the position's **seven** cards make, however the hand is
  set (progressive-research.md §1.1: "how the player sets the hand does not matter"), in the
  pay table's order, where three of a kind stands above a straight because it pays more
  (3 to 1 against 2 to 1): each hand is "paid once, at its highest line" (§1.2). The five-card
  categories are the evaluator's (the joker an Ace, or completing a straight, flush or
  straight flush, 001_c9adb19db438d99f.txt); the seven-card straight flush is
  ``evaluator.seven_card_category``'s, natural or with the joker filling.
- Royal flush + royal match: a royal flush (natural or with the joker) and a natural K and Q
  of one other suit among the two cards left: 12 natural + 60 joker royals = the 72 hands of
  §1.2, so the joker never stands in the royal match.
- The Fortune is a 53-card game: a hand with two jokers is refused (TooManyJokersError).
- Envy (§1.3): a fixed amount per qualifying hand, paid to every *other* eligible position
  (Fortune wager at least the minimum, $5 by default), once per qualifying hand; the
  dealer's hand never qualifies; a player-banker's hand by ``EnvyRules``.

Pure: no I/O. Amounts are integer cents; the Fortune pays "N to 1" (``PayLine.settle``).
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from .cards import ACE, KING, QUEEN, TEN, Card, Game, TooManyJokersError
from .evaluator import (
    DEFAULT_RULES,
    HighCategory,
    LabelledCategory,
    RankingRules,
    SevenCardCategory,
    card_ints,
    high_category,
    rank_high_ints,
    seven_card_category,
)
from .money import Cents, check_amount
from .paytables import (
    LOSS,
    BadOddsError,
    MissingPayLineError,
    PayLine,
    PayTableError,
    PayTableFileError,
    UnknownPayLineError,
    paytables_dir,
)

RESEARCH: Final = "progressive-research.md"
FORTUNE_BONUS: Final = "fortune"
DEFAULT_ENVY_MINIMUM: Final[Cents] = 500  # §1.3: "a Fortune wager of at least $5"
FORTUNE_GAME: Final = Game.STANDARD  # the 53-card deck (§1.2: counts over C(53, 7))
DEFAULT_FORTUNE_FILE: Final = "fortune-a.toml"


class FortuneHand(LabelledCategory):
    """The Fortune Bonus lines, lowest first; the order is the pay table's (§1.2)."""

    NOTHING = 0
    STRAIGHT = 1
    THREE_OF_A_KIND = 2  # above the straight: it pays more (3 to 1 against 2 to 1)
    FLUSH = 3
    FULL_HOUSE = 4
    FOUR_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    ROYAL_FLUSH = 7
    FIVE_ACES = 8
    SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER = 9
    ROYAL_FLUSH_WITH_ROYAL_MATCH = 10
    SEVEN_CARD_NATURAL_STRAIGHT_FLUSH = 11


# The pay table's lines top first, as a file writes them.
FORTUNE_LINES: Final[tuple[FortuneHand, ...]] = tuple(sorted(FortuneHand, reverse=True))

_FORTUNE_OF_FIVE: Final[Mapping[HighCategory, FortuneHand]] = {
    HighCategory.FIVE_ACES: FortuneHand.FIVE_ACES,
    HighCategory.ROYAL_FLUSH: FortuneHand.ROYAL_FLUSH,
    HighCategory.STRAIGHT_FLUSH: FortuneHand.STRAIGHT_FLUSH,
    HighCategory.FOUR_OF_A_KIND: FortuneHand.FOUR_OF_A_KIND,
    HighCategory.FULL_HOUSE: FortuneHand.FULL_HOUSE,
    HighCategory.FLUSH: FortuneHand.FLUSH,
    HighCategory.THREE_OF_A_KIND: FortuneHand.THREE_OF_A_KIND,
    HighCategory.STRAIGHT: FortuneHand.STRAIGHT,
    HighCategory.TWO_PAIR: FortuneHand.NOTHING,
    HighCategory.ONE_PAIR: FortuneHand.NOTHING,
    HighCategory.HIGH_CARD: FortuneHand.NOTHING,
}
_ROYAL_RANKS: Final = frozenset(range(TEN, ACE + 1))


def _royal_match(cards: Sequence[Card]) -> bool:
    """A natural K and Q of a suit other than the royal's (§1.2, 72 hands)."""
    jokers = sum(1 for card in cards if card.is_joker)
    by_suit: dict[str, set[int]] = {}
    for card in cards:
        if not card.is_joker:
            by_suit.setdefault(card.suit, set()).add(card.rank)
    royal_suits = [suit for suit, ranks in by_suit.items() if len(ranks & _ROYAL_RANKS) >= 5 - jokers]
    if not royal_suits:
        return False
    return any({KING, QUEEN} <= ranks for suit, ranks in by_suit.items() if suit not in royal_suits)


def fortune_hand(cards: Sequence[Card], rules: RankingRules = DEFAULT_RULES) -> FortuneHand:
    """The Fortune Bonus line of a position's seven cards (module docstring).

    Raises the evaluator's typed errors (HandSizeError, UnknownCardError, DuplicateCardError)
    and TooManyJokersError for a second joker (the Fortune is dealt from 53 cards).
    """
    seven = seven_card_category(cards, rules)  # checks the seven cards
    jokers = sum(1 for card in cards if card.is_joker)
    if jokers > FORTUNE_GAME.jokers:
        raise TooManyJokersError(jokers, FORTUNE_GAME.jokers)
    if seven is SevenCardCategory.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH:
        return FortuneHand.SEVEN_CARD_NATURAL_STRAIGHT_FLUSH
    if seven is SevenCardCategory.SEVEN_CARD_STRAIGHT_FLUSH:
        return FortuneHand.SEVEN_CARD_STRAIGHT_FLUSH_WITH_JOKER
    # The best line among the 21 five-card hands, in the Fortune's order (trips over a straight).
    best = max(
        _FORTUNE_OF_FIVE[high_category(rank_high_ints(five, rules))]
        for five in combinations(card_ints(cards), 5)
    )
    if best is FortuneHand.ROYAL_FLUSH and _royal_match(cards):
        return FortuneHand.ROYAL_FLUSH_WITH_ROYAL_MATCH
    return best


# --- the pay table as data --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FortunePayTable:
    """A Fortune Bonus pay table: "N to 1" odds per line and the Envy amount per line.

    Checked on construction: every line once; odds a whole number N >= 1 or a loss; odds
    never rise down the table (so the hand's first line is its highest-paying one, §1.2 "paid
    once, at its highest line"); envy amounts whole cents >= 0, 0 where a line pays no envy.
    """

    name: str
    odds: Mapping[FortuneHand, int | None]
    envy: Mapping[FortuneHand, Cents]
    source: str = ""

    def __post_init__(self) -> None:
        for what, mapping in (("odds", self.odds), ("envy", self.envy)):
            missing = [hand.label for hand in FORTUNE_LINES if hand not in mapping]
            if missing:
                raise MissingPayLineError(f"fortune pay table {self.name!r}: {what} lacks line(s) {missing}")
        previous: int | None = None
        for hand in FORTUNE_LINES:
            odds = self.odds[hand]
            if odds is not None and (isinstance(odds, bool) or not isinstance(odds, int) or odds < 1):
                raise BadOddsError(
                    f"fortune line {hand.label!r}: odds must be a whole number N >= 1 (N to 1) or "
                    f"{LOSS!r}, got {odds!r}"
                )
            if odds is not None and hand is not FORTUNE_LINES[0] and (previous is None or odds > previous):
                raise BadOddsError(
                    f"fortune line {hand.label!r} pays {odds} to 1, more than the line above it "
                    f"({previous if previous is not None else LOSS}): the table must not rise downwards"
                )
            previous = odds
            envy = self.envy[hand]
            if isinstance(envy, bool) or not isinstance(envy, int) or envy < 0:
                raise BadOddsError(
                    f"fortune line {hand.label!r}: envy must be whole cents >= 0, got {envy!r}"
                )

    def line(self, hand: FortuneHand) -> PayLine:
        """The pay line of ``hand`` (``PayLine.settle`` gives the result on a wager)."""
        return PayLine(name=hand.label, odds=self.odds[hand])

    def envy_of(self, hand: FortuneHand) -> Cents:
        return self.envy[hand]

    @property
    def envy_lines(self) -> tuple[FortuneHand, ...]:
        """The lines that pay envy to the other positions, top first."""
        return tuple(hand for hand in FORTUNE_LINES if self.envy[hand] > 0)


def _lines(table: object, what: str, name: str) -> dict[FortuneHand, object]:
    if not isinstance(table, Mapping):
        raise PayTableFileError(f"fortune pay table {name!r}: missing the [{what}] table")
    labels = FortuneHand.by_label()
    lines: dict[FortuneHand, object] = {}
    for label, value in table.items():
        hand = labels.get(str(label))
        if hand is None:
            raise UnknownPayLineError(
                f"fortune pay table {name!r} [{what}]: no line {label!r}; its lines are "
                f"{[line.label for line in FORTUNE_LINES]}"
            )
        lines[FortuneHand(hand)] = value
    return lines


def fortune_paytable_from_mapping(data: Mapping[str, object], source: str = "") -> FortunePayTable:
    """A FortunePayTable from parsed TOML: ``bonus = "fortune"``, ``name``, ``source``,
    ``[odds]`` ("N to 1" or ``"loss"``) and ``[envy]`` (cents; a line left out pays none)."""
    unknown = sorted(set(data) - {"bonus", "name", "source", "odds", "envy"})
    if unknown:
        raise PayTableFileError(f"{source or 'fortune pay table'}: unknown key(s) {unknown}")
    if data.get("bonus") != FORTUNE_BONUS:
        raise PayTableFileError(
            f"{source or 'pay table'}: bonus is {data.get('bonus')!r}, expected {FORTUNE_BONUS!r}"
        )
    name = str(data.get("name", Path(source).stem if source else "fortune"))
    odds: dict[FortuneHand, int | None] = {}
    for hand, value in _lines(data.get("odds"), "odds", name).items():
        if value == LOSS:
            odds[hand] = None
        elif isinstance(value, int) and not isinstance(value, bool):
            odds[hand] = value
        else:
            raise BadOddsError(
                f"fortune line {hand.label!r}: odds {value!r}, expected a whole number or {LOSS!r}"
            )
    envy: dict[FortuneHand, Any] = {hand: 0 for hand in FortuneHand}  # checked by FortunePayTable
    for hand, value in _lines(data.get("envy", {}), "envy", name).items():
        envy[hand] = value
    return FortunePayTable(name=name, odds=odds, envy=envy, source=str(data.get("source", source)))


def load_fortune_paytable(path: Path | str | None = None) -> FortunePayTable:
    """Read and check a Fortune pay table file (default: table A in ``config/paytables``)."""
    file = Path(path) if path is not None else paytables_dir() / DEFAULT_FORTUNE_FILE
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise PayTableFileError(f"cannot read pay table {file}: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise PayTableFileError(f"pay table {file} is not valid TOML: {error}") from error
    return fortune_paytable_from_mapping(data, source=str(file))


# --- the envy rules and one round's settlement --------------------------------------------------


class EnvyEligibility(enum.StrEnum):
    """Which wager makes a position eligible for envy (§1.8 question 1)."""

    FORTUNE = "fortune"  # a Fortune wager of at least the minimum (most sources; the default)
    FORTUNE_OR_PROGRESSIVE = "fortune-or-progressive"  # or any progressive wager (PA § 688a.1)


@dataclass(frozen=True, slots=True)
class EnvyRules:
    """The configurable envy questions of §1.8 (docs/progressive.md gives the defaults' reasons)."""

    minimum_wager: Cents = DEFAULT_ENVY_MINIMUM
    eligibility: EnvyEligibility = EnvyEligibility.FORTUNE
    # §1.8 question 2: sources exclude only the dealer's hand, so a player-banker's counts.
    player_banker_hand_qualifies: bool = True
    # §1.8 question 3: "another player ... holds": no side wager needed to trigger envy.
    trigger_needs_wager: bool = False

    def __post_init__(self) -> None:
        check_amount(self.minimum_wager, "envy minimum wager")


DEFAULT_ENVY_RULES: Final = EnvyRules()


class FortuneSettlementError(PayTableError):
    """Wagers or hands that cannot be settled (a wager without a hand, a dealer's wager)."""


class Reason(enum.StrEnum):
    """Why an amount is paid or taken."""

    FORTUNE_WIN = "fortune-win"
    FORTUNE_LOSS = "fortune-loss"
    ENVY = "envy"


@dataclass(frozen=True, slots=True)
class FortuneAmount:
    """One amount for one position, with its reason: the line it paid on, or for envy the
    position whose hand triggered it."""

    reason: Reason
    amount: Cents  # won (> 0) or lost (< 0) by the position
    hand: FortuneHand
    odds: int | None = None
    from_position: int | None = None  # envy: whose hand


@dataclass(frozen=True, slots=True)
class FortunePosition:
    """A position's Fortune result: its hand, its wager's result, the envy it received."""

    position: int
    hand: FortuneHand
    wager: Cents
    envy_eligible: bool
    amounts: tuple[FortuneAmount, ...]

    @property
    def total(self) -> Cents:
        return sum(amount.amount for amount in self.amounts)

    @property
    def envy(self) -> Cents:
        return sum(amount.amount for amount in self.amounts if amount.reason is Reason.ENVY)


@dataclass(frozen=True, slots=True)
class FortuneSettlement:
    """Every position's Fortune result for one round, in position order."""

    table: str
    positions: tuple[FortunePosition, ...]
    qualifying: Mapping[int, FortuneHand] = field(default_factory=dict)  # envy-triggering hands

    def of(self, position: int) -> FortunePosition:
        for result in self.positions:
            if result.position == position:
                return result
        raise KeyError(position)

    @property
    def total(self) -> Cents:
        """The players' total (positive: the house pays out)."""
        return sum(result.total for result in self.positions)


def settle_fortune(
    hands: Mapping[int, Sequence[Card]],
    fortune_wagers: Mapping[int, Cents],
    table: FortunePayTable,
    *,
    dealer_position: int,
    player_banker_position: int | None = None,
    progressive_wagers: Mapping[int, Cents] | None = None,
    rules: EnvyRules = DEFAULT_ENVY_RULES,
    ranking: RankingRules = DEFAULT_RULES,
) -> FortuneSettlement:
    """Settle one round's Fortune and Envy wagers (§1.2-§1.4, §1.8).

    ``hands``: the seven cards of every occupied position and of the dealer's (the unoccupied
    ones are discarded before, §1.8 question 3). ``fortune_wagers``: cents per position that
    placed one; a position with a wager and no hand, or a wager at the dealer's position, is
    refused (FortuneSettlementError). Each Fortune wager wins ``odds * wager`` or loses
    itself; each envy-eligible position then receives the envy amount of every *other*
    qualifying hand, once per hand. Bonus first, envy second (§1.3 payment order).
    """
    progressive = progressive_wagers or {}
    for position, wager in [*fortune_wagers.items(), *progressive.items()]:
        check_amount(wager, f"fortune or progressive wager at position {position}")
        if position == dealer_position:
            raise FortuneSettlementError(f"position {position} is the dealer's: it places no Fortune wager")
        if position not in hands:
            raise FortuneSettlementError(f"position {position} has a wager but no seven cards")
    line_of = {position: fortune_hand(cards, ranking) for position, cards in hands.items()}

    def triggers(position: int) -> bool:
        if position == dealer_position or table.envy_of(line_of[position]) == 0:
            return False
        if position == player_banker_position and not rules.player_banker_hand_qualifies:
            return False
        return not rules.trigger_needs_wager or position in fortune_wagers or position in progressive

    def eligible(position: int) -> bool:
        if fortune_wagers.get(position, 0) >= rules.minimum_wager:
            return True
        return rules.eligibility is EnvyEligibility.FORTUNE_OR_PROGRESSIVE and position in progressive

    qualifying = {position: line_of[position] for position in sorted(hands) if triggers(position)}
    results = []
    for position in sorted(set(fortune_wagers) | {p for p in progressive if eligible(p)}):
        hand = line_of[position]
        amounts: list[FortuneAmount] = []
        wager = fortune_wagers.get(position, 0)
        if wager:
            line = table.line(hand)
            reason = Reason.FORTUNE_WIN if line.pays else Reason.FORTUNE_LOSS
            amounts.append(FortuneAmount(reason, line.settle(wager), hand, line.odds))
        is_eligible = eligible(position)
        if is_eligible:
            for other, other_hand in qualifying.items():
                if other != position:
                    amounts.append(
                        FortuneAmount(Reason.ENVY, table.envy_of(other_hand), other_hand, from_position=other)
                    )
        results.append(FortunePosition(position, hand, wager, is_eligible, tuple(amounts)))
    return FortuneSettlement(table.name, tuple(results), qualifying)


__all__ = [
    "DEFAULT_ENVY_MINIMUM",
    "DEFAULT_ENVY_RULES",
    "DEFAULT_FORTUNE_FILE",
    "FORTUNE_BONUS",
    "FORTUNE_GAME",
    "FORTUNE_LINES",
    "EnvyEligibility",
    "EnvyRules",
    "FortuneAmount",
    "FortuneHand",
    "FortunePayTable",
    "FortunePosition",
    "FortuneSettlement",
    "FortuneSettlementError",
    "Reason",
    "fortune_hand",
    "fortune_paytable_from_mapping",
    "load_fortune_paytable",
    "settle_fortune",
]
