"""Settle one round: each position's main wager against the banker, bonuses, commission, fees.

Rules implemented (see docs/settlement.md for every choice made where the rules are silent):

- High hand against high hand, low against low; a copy (tie) goes to the banker
  (000_f88fa0f023e5142c.txt, 001_c9adb19db438d99f.txt). Both won: win; one won and one
  lost: push; one won and one copied: push; both lost, one lost and one copied, or both
  copied: lose (001 rules 1-5).
- A win is paid even money less the table's commission (002_08ea07f9e4b504bc.txt); a flat
  fee is charged per hand played, win or lose (004_60e2fc6346e3399b.txt).
- A foul (low hand outranking the high hand, wrong number of cards in a hand, or no setting)
  is forfeited or re-set by the house way, as the table says (004; 001 "they lose their bet").
- Double Joker (003_4dcc2fceebc6e4af.txt): decided first from the dealer's seven cards
  alone. No pair or better: every main wager pushes. Four of a kind or better with the
  overqualifier on: every main wager is paid the premium multiple. Otherwise compared as above.
  The Big Hand and Joker bonuses are settled on the cards, independent of the main result.
- A player-banker (001, 004; game/banking.py): every position plays against the banker's
  hand, ties to the banker; positions that win pay commission as against the house; the
  dealer's own seven cards play for the house against the bank with the house wager; the
  bank pays commission on its net win (what it won from every position less what it paid),
  none on a net loss; a flat-fee table charges the banker its fee per hand; a co-banked
  bank's result, commission included, is split with the house (docs/settlement.md, 8).
  Bonus wagers stay between each player and the house.
- A player-banker's foul (001: "If anybody does present a 2-card hand higher than their
  5-card hand, it is a foul"; 004: "re-arrangement of the hand according to house rules or
  forfeiture of the hand"): by ``TableRules.banker_fouls`` the banker's seven cards are re-set
  by the house way and every position compared with that, or the bank forfeits: every wager
  against it is paid even money (the positions paying their usual commission), a position
  that fouled too under the forfeit rule pushes. The dealer's hand and a co-banker's are set
  by the house way and never a foul (``BankerHandError``).

All amounts are integer cents. Input errors raise a SettlementError subclass.
"""

from __future__ import annotations

import enum
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Final

from .banking import Bank, split_bank
from .cards import Card, Game, codes
from .deal import BANKER_POSITION, PLAYER_POSITIONS
from .evaluator import HighCategory, RankingRules, best_five_category, compare, rank_high, rank_low
from .money import (
    Cents,
    CommissionExceedsWinError,
    InvalidAmountError,
    MoneyError,
    NoCommission,
    check_amount,
)
from .paytables import Bonus, big_hand_line, joker_bonus_line
from .setting import Setting, SettingError, check_setting, is_legal
from .side_wagers import SideSettlement
from .table_rules import FoulRule, TableRules

R000: Final = "000_f88fa0f023e5142c.txt"
R001: Final = "001_c9adb19db438d99f.txt"
R002: Final = "002_08ea07f9e4b504bc.txt"
R003: Final = "003_4dcc2fceebc6e4af.txt"
R004: Final = "004_60e2fc6346e3399b.txt"

HouseWayReset = Callable[[tuple[Card, ...]], Setting]
"""Re-sets seven cards by the house way; injected (the house way engine lives elsewhere)."""


# --- errors -------------------------------------------------------------------------------


class SettlementError(ValueError):
    """Base class of every error about the input to a settlement."""


class PositionError(SettlementError):
    """A position outside 2..7, given twice, or no position at all."""


class WagerError(SettlementError):
    """A wager that is not a positive whole number of cents."""


class BonusNotOfferedError(SettlementError):
    """A bonus wager where the table offers no such bonus (e.g. in the standard game)."""


class HandError(SettlementError):
    """Seven cards expected, or a setting that is not made of the hand's own cards."""


class DeckError(SettlementError):
    """The round's hands could not all come from one deck of the table's game."""


class BankerHandError(SettlementError):
    """The banker's setting does not use the banker's cards, or is a foul where the house way
    sets the banker's hand (the dealer's, a co-banker's)."""


class HouseWaySettingError(SettlementError):
    """The house way was needed but not given, or returned an unusable setting."""


class SettlementMoneyError(SettlementError):
    """The money policy refused an amount (e.g. a win smaller than the commission unit)."""


class BankError(SettlementError):
    """A player-banked round whose bank and house hand do not fit together."""


# --- vocabulary ---------------------------------------------------------------------------


class HandResult(enum.StrEnum):
    """One hand (high or low) from the player's point of view."""

    WIN = "win"
    LOSE = "lose"
    COPY = "copy"  # a tie: goes to the banker (000, 001)


class Outcome(enum.StrEnum):
    """What happened to a position's main wager."""

    WIN = "win"  # paid even money, less commission
    PUSH = "push"  # returned
    LOSE = "lose"  # taken
    NOT_QUALIFIED = "not-qualified"  # Double Joker: the dealer did not qualify; returned (003)
    PREMIUM = "premium"  # Double Joker: the dealer overqualified; paid the premium multiple (003)


class DealerQualification(enum.StrEnum):
    """The Double Joker dealer's qualification, from the dealer's seven cards (003)."""

    NOT_APPLICABLE = "not-applicable"  # the standard game has no qualification
    NOT_QUALIFIED = "not-qualified"  # cannot make a pair or better
    QUALIFIED = "qualified"
    OVERQUALIFIED = "overqualified"  # can make four of a kind or better, overqualifier on


class FoulKind(enum.StrEnum):
    """Why a position's hand is a foul (001, 004)."""

    NOT_SET = "not-set"  # no setting was given
    WRONG_CARD_COUNT = "wrong-card-count"  # not five behind and two in front (004)
    LOW_OUTRANKS_HIGH = "low-outranks-high"  # 001


@dataclass(frozen=True, slots=True)
class SettlementRule:
    """A settlement rule: a stable id for the audit record, its result, and where it comes from."""

    id: str
    outcome: Outcome
    cite: str


RULES: Final[Mapping[str, SettlementRule]] = {
    rule.id: rule
    for rule in (
        SettlementRule("both-hands-won", Outcome.WIN, f"{R001} rule 1; {R000}"),
        SettlementRule("one-hand-each", Outcome.PUSH, f"{R001} rule 3; {R000}"),
        SettlementRule("won-one-copy-goes-to-banker", Outcome.PUSH, f"{R001} rule 5; {R000}"),
        SettlementRule("both-hands-lost", Outcome.LOSE, f"{R001} rule 2; {R000}"),
        SettlementRule("lost-one-copy-goes-to-banker", Outcome.LOSE, f"{R001} rule 4; {R000}"),
        SettlementRule("both-hands-copied", Outcome.LOSE, f"{R001} rule 4; {R000}"),
        SettlementRule("foul-forfeit", Outcome.LOSE, f"{R001}; {R004}"),
        SettlementRule("banker-foul-forfeit", Outcome.WIN, f"{R001}; {R004}; table rule banker_foul_rule"),
        SettlementRule("both-fouled", Outcome.PUSH, f"{R001}; {R004}; docs/settlement.md, 8"),
        SettlementRule("dealer-not-qualified", Outcome.NOT_QUALIFIED, R003),
        SettlementRule("premium-overqualifier", Outcome.PREMIUM, R003),
    )
}

# (high hand, low hand) -> the rule deciding the main wager (001 rules 1-5). The order of
# the table is the table of 001; every one of the nine pairs is here.
_W, _L, _C = HandResult.WIN, HandResult.LOSE, HandResult.COPY
COMPARISON_RULES: Final[Mapping[tuple[HandResult, HandResult], SettlementRule]] = {
    (_W, _W): RULES["both-hands-won"],
    (_W, _L): RULES["one-hand-each"],
    (_L, _W): RULES["one-hand-each"],
    (_W, _C): RULES["won-one-copy-goes-to-banker"],
    (_C, _W): RULES["won-one-copy-goes-to-banker"],
    (_L, _L): RULES["both-hands-lost"],
    (_L, _C): RULES["lost-one-copy-goes-to-banker"],
    (_C, _L): RULES["lost-one-copy-goes-to-banker"],
    (_C, _C): RULES["both-hands-copied"],
}


class BonusRule(enum.StrEnum):
    """What decided a bonus wager."""

    PAY_TABLE = "bonus-pay-table"  # paid or taken by the pay table line (003)
    FOUL_FORFEIT = "bonus-foul-forfeit"  # the table forfeits a fouled hand's bonuses
    HAND_NOT_SET = "bonus-hand-not-set"  # 003: "did not set their hand, collect those bets"


BONUS_CITES: Final[Mapping[BonusRule, str]] = {
    BonusRule.PAY_TABLE: R003,
    BonusRule.FOUL_FORFEIT: f"table rule foul_forfeits_bonuses; {R004}",
    BonusRule.HAND_NOT_SET: R003,
}


# --- input --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BankerHand:
    """The banker's (dealer's) seven cards and how they are set."""

    cards: tuple[Card, ...]
    setting: Setting


@dataclass(frozen=True, slots=True)
class PositionHand:
    """One player position's seven cards, setting (None: not set) and wagers in cents."""

    position: int
    cards: tuple[Card, ...]
    setting: Setting | None
    wager: Cents
    big_hand_wager: Cents | None = None
    joker_bonus_wager: Cents | None = None

    def bonus_wagers(self) -> tuple[tuple[Bonus, Cents], ...]:
        """The bonus wagers made, Big Hand first."""
        made = ((Bonus.BIG_HAND, self.big_hand_wager), (Bonus.JOKER, self.joker_bonus_wager))
        return tuple((bonus, wager) for bonus, wager in made if wager is not None)


# --- output -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BonusResult:
    """One bonus wager settled: the line the cards made, its odds (None: loss) and the result.

    ``line`` and ``odds`` are the cards' line even when the wager was forfeited; ``rule``
    says what decided it and ``net`` is what the player got (+odds x wager or -wager).
    """

    bonus: Bonus
    wager: Cents
    line: str
    odds: int | None
    net: Cents
    rule: BonusRule
    cite: str

    @property
    def won(self) -> Cents:
        return max(self.net, 0)

    @property
    def lost(self) -> Cents:
        return max(-self.net, 0)


@dataclass(frozen=True, slots=True)
class PositionSettlement:
    """The audit record of one position (amounts in cents, ``net`` from the player's side).

    ``setting`` is the setting compared with the banker's: the player's own, or the house
    way's when a foul was re-set (``house_way_reset``); ``high``/``low`` are None when no
    comparison was made (foul forfeited, dealer not qualified or overqualified).
    """

    position: int
    outcome: Outcome
    rule: str
    cite: str
    high: HandResult | None
    low: HandResult | None
    foul: FoulKind | None
    house_way_reset: bool
    setting: Setting | None
    wager: Cents
    win: Cents
    commission: Cents
    fee: Cents
    bonuses: tuple[BonusResult, ...]
    net: Cents

    @property
    def main_net(self) -> Cents:
        """The main wager's result alone: win less commission, 0, or -wager."""
        return self.net - sum(b.net for b in self.bonuses) + self.fee

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = _plain(self)
        return record


@dataclass(frozen=True, slots=True)
class BankSettlement:
    """A player's bank this round (cents; ``gross``, ``net`` and the parts from the bank's side).

    ``setting`` is the banker's setting every position was compared with: the banker's own,
    or the house way's when the banker's foul was re-set (``house_way_reset``); ``foul`` says
    why the banker's own setting was a foul (None: it was not; a forfeited bank paid every
    position, ``docs/settlement.md`` 8). ``house_hand`` is the dealer's seven cards played for
    the house against the bank (its
    ``net`` from the house's side; no commission, no fee: the house pays none to itself), or
    None when the house wagered nothing. ``gross`` is what the bank won from every position,
    the house's hand included, less what it paid; ``commission`` is charged on a positive
    gross only; ``net = gross - commission - fee``; ``banker_net`` and ``house_share`` are
    the co-banking split of ``net`` (``house_share`` 0 when not co-banked).
    """

    seat: int
    amount: Cents
    house_share_bp: int | None
    house_position: int
    house_hand: PositionSettlement | None
    gross: Cents
    commission: Cents
    fee: Cents
    net: Cents
    banker_net: Cents
    house_share: Cents
    setting: Setting | None = None
    foul: FoulKind | None = None
    house_way_reset: bool = False


BANKER_FOUL_FIELDS: Final = ("setting", "foul", "house_way_reset")
"""Recorded in a bank's record only when the banker fouled: a bank that did not keeps the
record it always had, so rounds stored before the foul rule replay to the same record."""


@dataclass(frozen=True, slots=True)
class RoundSettlement:
    """A settled round: per-position records and the round's totals (cents).

    ``bank`` is None when the house banked: such a round's record (``as_dict``) is exactly
    what it was before player banking existed, so old stored settlements still compare equal.
    """

    game: Game
    qualification: DealerQualification
    positions: tuple[PositionSettlement, ...]
    bank: BankSettlement | None = None
    # the Fortune, envy and progressive wagers (game/side_wagers.py), None where none were made:
    # their money is apart from ``house_result`` (the base game's), in ``side.house_result``
    side: SideSettlement | None = None

    @property
    def main_wagered(self) -> Cents:
        return sum(p.wager for p in self.positions)

    @property
    def bonus_wagered(self) -> Cents:
        return sum(b.wager for p in self.positions for b in p.bonuses)

    @property
    def total_wagered(self) -> Cents:
        return self.main_wagered + self.bonus_wagered

    @property
    def main_paid(self) -> Cents:
        """Gross main-wager wins paid to players (before commission)."""
        return sum(p.win for p in self.positions)

    @property
    def main_collected(self) -> Cents:
        """Main wagers taken by the house."""
        return sum(p.wager for p in self.positions if p.outcome is Outcome.LOSE)

    @property
    def commission(self) -> Cents:
        return sum(p.commission for p in self.positions)

    @property
    def fees(self) -> Cents:
        return sum(p.fee for p in self.positions)

    @property
    def bonuses_paid(self) -> Cents:
        return sum(b.won for p in self.positions for b in p.bonuses)

    @property
    def bonuses_collected(self) -> Cents:
        return sum(b.lost for p in self.positions for b in p.bonuses)

    @property
    def banker_result(self) -> Cents:
        """What a player-banker gained (negative: lost) with the bank; 0 when the house banked."""
        return self.bank.banker_net if self.bank is not None else 0

    @property
    def house_result(self) -> Cents:
        """What the house gained (negative: lost) this round: minus the sum of the players' nets,
        the player-banker's included (money only moves between the players and the house)."""
        return -sum(p.net for p in self.positions) - self.banker_result

    def position(self, number: int) -> PositionSettlement:
        for record in self.positions:
            if record.position == number:
                return record
        raise PositionError(f"position {number} did not play this round")

    def totals(self) -> dict[str, Cents]:
        """``main_paid`` and ``main_collected`` are the positions' main wagers paid and taken by
        whoever banked; a player-banked round adds the bank's figures."""
        totals = {
            name: getattr(self, name)
            for name in (
                "main_wagered",
                "bonus_wagered",
                "total_wagered",
                "main_paid",
                "main_collected",
                "commission",
                "fees",
                "bonuses_paid",
                "bonuses_collected",
                "house_result",
            )
        }
        if self.bank is not None:
            hand = self.bank.house_hand
            totals["bank_gross"] = self.bank.gross
            totals["bank_commission"] = self.bank.commission
            totals["bank_fee"] = self.bank.fee
            totals["banker_result"] = self.banker_result
            totals["house_hand_result"] = hand.net if hand is not None else 0
        if self.side is not None:
            totals.update(self.side.totals())
        return totals

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = _plain(self)
        if self.bank is None:
            del record["bank"]  # a house-banked round's record is what it always was
        elif self.bank.foul is None:
            for name in BANKER_FOUL_FIELDS:
                del record["bank"][name]
        if self.side is None:
            del record["side"]  # so is a round without side wagers
        else:
            record["side"] = self.side.as_dict()
        record["totals"] = self.totals()
        return record


def _plain(value: Any) -> Any:
    """Records to JSON-ready data: enums to values, cards to codes."""
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Setting):
        return {"high": codes(value.high), "low": codes(value.low)}
    if isinstance(value, enum.Enum):
        return value.value
    if is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


# --- the rules ----------------------------------------------------------------------------


def dealer_qualification(rules: TableRules, banker_cards: Sequence[Card]) -> DealerQualification:
    """Double Joker qualification from the dealer's seven cards, however they are set (003).

    Qualifies: the seven cards make one pair or better (a joker with an Ace, or two jokers,
    is a pair of Aces; a straight or flush is better than a pair). Overqualifies: four of a
    kind or better (four of a kind, straight flush, royal flush, five Aces) with the
    table's overqualifier on.
    """
    if rules.game is not Game.DOUBLE_JOKER:
        return DealerQualification.NOT_APPLICABLE
    best = best_five_category(banker_cards, rules.ranking)
    if rules.overqualifier and best >= HighCategory.FOUR_OF_A_KIND:
        return DealerQualification.OVERQUALIFIED
    if best >= HighCategory.ONE_PAIR:
        return DealerQualification.QUALIFIED
    return DealerQualification.NOT_QUALIFIED


def compare_settings(
    player: Setting, banker: Setting, ranking: RankingRules
) -> tuple[HandResult, HandResult]:
    """High with high, low with low; equal scores are a copy (000, 001)."""

    def result(sign: int) -> HandResult:
        return {1: HandResult.WIN, -1: HandResult.LOSE, 0: HandResult.COPY}[sign]

    high = compare(rank_high(player.high, ranking), rank_high(banker.high, ranking))
    low = compare(rank_low(player.low, ranking), rank_low(banker.low, ranking))
    return result(high), result(low)


def foul_kind(setting: Setting | None, ranking: RankingRules) -> FoulKind | None:
    """None when the setting is legal, else why it is a foul (001, 004)."""
    if setting is None:
        return FoulKind.NOT_SET
    if len(setting.high) != 5 or len(setting.low) != 2:
        return FoulKind.WRONG_CARD_COUNT
    if not is_legal(setting, ranking):
        return FoulKind.LOW_OUTRANKS_HIGH
    return None


def _house_way_setting(
    reset: HouseWayReset | None, cards: tuple[Card, ...], who: str, ranking: RankingRules
) -> Setting:
    """``cards`` re-set by the house way for a foul (004), checked: the same seven, legal."""
    if reset is None:
        raise HouseWaySettingError("the table re-sets fouls by the house way, but no house way was given")
    setting = reset(tuple(cards))
    if not isinstance(setting, Setting):
        raise HouseWaySettingError(f"{who}: the house way returned {setting!r}, not a Setting")
    try:
        check_setting(cards, setting.high, setting.low)
    except SettingError as error:
        raise HouseWaySettingError(f"{who}: the house way setting is wrong: {error}") from error
    if not is_legal(setting, ranking):
        raise HouseWaySettingError(f"{who}: the house way setting {setting.as_dict()} is a foul")
    return setting


def _commission(rules: TableRules, win: Cents, position: int) -> Cents:
    try:
        return rules.commission.commission_on(win)
    except MoneyError as error:
        raise SettlementMoneyError(f"position {position}: {error}") from error


def _settle_bonuses(
    rules: TableRules, hand: PositionHand, banker: BankerHand, foul: FoulKind | None
) -> tuple[BonusResult, ...]:
    results = []
    for bonus, wager in hand.bonus_wagers():
        table = rules.paytable(bonus)
        assert table is not None  # checked with the input
        if bonus is Bonus.BIG_HAND:
            line = big_hand_line(table, hand.cards, rules.ranking)
        else:
            line = joker_bonus_line(table, hand.cards, banker.cards)
        if foul is FoulKind.NOT_SET:
            rule, net = BonusRule.HAND_NOT_SET, -wager
        elif foul is not None and rules.foul_forfeits_bonuses:
            rule, net = BonusRule.FOUL_FORFEIT, -wager
        else:
            rule, net = BonusRule.PAY_TABLE, line.settle(wager)
        results.append(BonusResult(bonus, wager, line.name, line.odds, net, rule, BONUS_CITES[rule]))
    return tuple(results)


def _settle_position(
    rules: TableRules,
    banker: BankerHand,
    qualification: DealerQualification,
    hand: PositionHand,
    reset: HouseWayReset | None,
    banker_forfeits: bool = False,
) -> PositionSettlement:
    foul = foul_kind(hand.setting, rules.ranking)
    bonuses = _settle_bonuses(rules, hand, banker, foul)
    fee = rules.commission.fee_per_hand
    setting = hand.setting
    high = low = None
    house_way_reset = False
    if qualification is DealerQualification.NOT_QUALIFIED:
        rule = RULES["dealer-not-qualified"]
    elif qualification is DealerQualification.OVERQUALIFIED:
        rule = RULES["premium-overqualifier"]
    elif banker_forfeits:
        # the banker's fouled hand forfeits: no comparison; a position that forfeits its own
        # foul too meets a bank that forfeits, and neither takes the other's wager
        own_forfeit = foul is not None and rules.foul_rule is FoulRule.FORFEIT
        rule = RULES["both-fouled" if own_forfeit else "banker-foul-forfeit"]
    elif foul is not None and rules.foul_rule is FoulRule.FORFEIT:
        rule = RULES["foul-forfeit"]
    else:
        if foul is not None:
            setting = _house_way_setting(reset, hand.cards, f"position {hand.position}", rules.ranking)
            house_way_reset = True
        assert setting is not None
        high, low = compare_settings(setting, banker.setting, rules.ranking)
        rule = COMPARISON_RULES[(high, low)]

    win = commission = 0
    if rule.outcome is Outcome.WIN:
        win = hand.wager
    elif rule.outcome is Outcome.PREMIUM:
        win = rules.premium_multiple * hand.wager
    if win:
        commission = _commission(rules, win, hand.position)
    main_net = -hand.wager if rule.outcome is Outcome.LOSE else win - commission
    net = main_net + sum(b.net for b in bonuses) - fee
    return PositionSettlement(
        position=hand.position,
        outcome=rule.outcome,
        rule=rule.id,
        cite=rule.cite,
        high=high,
        low=low,
        foul=foul,
        house_way_reset=house_way_reset,
        setting=setting,
        wager=hand.wager,
        win=win,
        commission=commission,
        fee=fee,
        bonuses=bonuses,
        net=net,
    )


# --- input checks -------------------------------------------------------------------------


def _check_seven(cards: object, who: str) -> None:
    if not isinstance(cards, Sequence) or len(cards) != 7 or not all(isinstance(c, Card) for c in cards):
        raise HandError(f"{who}: seven cards expected, got {cards!r}")


def _check_banker(rules: TableRules, banker: BankerHand, bank: Bank | None) -> FoulKind | None:
    """None, or why a player-banker's setting is a foul; the house way sets the dealer's and
    a co-banker's hands, so a foul there is refused (BankerHandError)."""
    if not isinstance(banker, BankerHand):
        raise BankerHandError(f"the banker's hand must be a BankerHand, got {banker!r}")
    _check_seven(banker.cards, "banker")
    if not isinstance(banker.setting, Setting):
        raise BankerHandError(f"the banker's hand must be set, got {banker.setting!r}")
    try:
        check_setting(banker.cards, banker.setting.high, banker.setting.low)
    except SettingError as error:
        raise BankerHandError(f"banker: {error}") from error
    if is_legal(banker.setting, rules.ranking):
        return None
    if bank is None or bank.co_banked:
        who = "the dealer's" if bank is None else "a co-banker's"
        raise BankerHandError(
            f"banker: the setting {banker.setting.as_dict()} is a foul; {who} hand is set by the house way"
        )
    return FoulKind.LOW_OUTRANKS_HIGH


def _banker_reset(reset: HouseWayReset | None, banker: BankerHand, ranking: RankingRules) -> BankerHand:
    """The player-banker's fouled hand re-set by the house way (004 "re-arrangement")."""
    setting = _house_way_setting(reset, banker.cards, "the banker", ranking)
    return BankerHand(cards=banker.cards, setting=setting)


def _check_wager(amount: object, what: str) -> None:
    try:
        check_amount(amount, what)
    except InvalidAmountError as error:
        raise WagerError(str(error)) from error


def _check_position(rules: TableRules, hand: PositionHand) -> None:
    if not isinstance(hand, PositionHand):
        raise PositionError(f"a position's hand must be a PositionHand, got {hand!r}")
    number = hand.position
    if isinstance(number, bool) or not isinstance(number, int) or number not in PLAYER_POSITIONS:
        raise PositionError(
            f"position {number!r} is not a player position "
            f"({min(PLAYER_POSITIONS)}..{max(PLAYER_POSITIONS)}; the banker is position {BANKER_POSITION})"
        )
    who = f"position {number}"
    _check_seven(hand.cards, who)
    setting = hand.setting
    if setting is not None:
        if not isinstance(setting, Setting):
            raise HandError(f"{who}: setting must be a Setting or None, got {setting!r}")
        if Counter(setting.high) + Counter(setting.low) != Counter(hand.cards):
            raise HandError(
                f"{who}: setting {codes(setting.high)} / {codes(setting.low)} is not made of the "
                f"position's cards {codes(hand.cards)}"
            )
    _check_wager(hand.wager, f"{who} main wager")
    for bonus, wager in hand.bonus_wagers():
        if rules.game is not Game.DOUBLE_JOKER or rules.paytable(bonus) is None:
            raise BonusNotOfferedError(f"{who}: the {rules.game.value} table offers no {bonus.value} wager")
        _check_wager(wager, f"{who} {bonus.value} wager")


def _settle_house_hand(
    rules: TableRules,
    banker: BankerHand,
    qualification: DealerQualification,
    hand: PositionHand,
    banker_forfeits: bool,
) -> PositionSettlement:
    """The dealer's seven cards for the house against a player-banker: like any position, but
    the house pays itself no commission and no fee."""
    house_rules = rules.model_copy(update={"commission": NoCommission()})
    return _settle_position(house_rules, banker, qualification, hand, None, banker_forfeits)


def _main_gross(record: PositionSettlement) -> Cents:
    """A position's main result before commission, from the position's side."""
    if record.outcome is Outcome.LOSE:
        return -record.wager
    return record.win


def _settle_bank(
    rules: TableRules,
    bank: Bank,
    records: Sequence[PositionSettlement],
    house_hand: PositionSettlement | None,
    banker: BankerHand,
    foul: FoulKind | None,
) -> BankSettlement:
    """The bank's net against every position; commission on a net win only (docs/settlement.md, 8).
    ``banker`` is the setting compared with (the house way's when a foul was re-set)."""
    everyone = [*records, *([house_hand] if house_hand is not None else [])]
    gross = -sum(_main_gross(record) for record in everyone)
    commission = 0
    if gross > 0:
        try:
            commission = rules.commission.commission_on(gross)
        except CommissionExceedsWinError:
            # a net win below the rounding unit (wagers of odd cents: $5.01 against $5.00): the
            # commission rounded up would exceed it; the bank pays all of it and keeps nothing,
            # rather than holding a round whose every wager was within the limits
            commission = gross
        except MoneyError as error:
            raise SettlementMoneyError(f"the bank (seat {bank.seat}): {error}") from error
    fee = rules.commission.fee_per_hand
    net = gross - commission - fee
    banker_net, house_share = split_bank(net, bank.house_share_bp)
    return BankSettlement(
        seat=bank.seat,
        amount=bank.amount,
        house_share_bp=bank.house_share_bp,
        house_position=bank.house_position,
        house_hand=house_hand,
        gross=gross,
        commission=commission,
        fee=fee,
        net=net,
        banker_net=banker_net,
        house_share=house_share,
        setting=banker.setting,
        foul=foul,
        house_way_reset=foul is not None and rules.banker_fouls is FoulRule.HOUSE_WAY,
    )


def _check_bank(
    rules: TableRules, bank: Bank, hands: Sequence[PositionHand], house_hand: PositionHand | None
) -> None:
    if not isinstance(bank, Bank):
        raise BankError(f"the bank must be a Bank, got {bank!r}")
    where = bank.house_position
    if any(hand.position == where for hand in hands):
        raise BankError(f"position {where} holds the house's hand this round (seat {bank.seat} banks)")
    if (house_hand is None) != (bank.house_wager == 0):
        raise BankError(
            f"the house wagers {bank.house_wager} cents against the bank: its hand must be given "
            "exactly when that is above 0"
        )
    if house_hand is None:
        return
    _check_position(rules, house_hand)
    if house_hand.position != where or house_hand.wager != bank.house_wager:
        raise BankError(
            f"the house's hand plays at position {where} for {bank.house_wager} cents, got position "
            f"{house_hand.position} for {house_hand.wager}"
        )
    if house_hand.bonus_wagers():
        raise BankError("the house's hand makes no bonus wager")
    if house_hand.setting is None or foul_kind(house_hand.setting, rules.ranking) is not None:
        raise HouseWaySettingError("the house's hand is set by the house way and is never a foul")


def _check_one_deck(rules: TableRules, banker: BankerHand, hands: Sequence[PositionHand]) -> None:
    holders: dict[Card, list[str]] = defaultdict(list)
    for who, cards in [("banker", banker.cards)] + [(f"position {h.position}", h.cards) for h in hands]:
        for card in cards:
            holders[card].append(who)
    for card, seats in holders.items():
        if not card.is_joker and len(seats) > 1:
            raise DeckError(f"card {card} dealt more than once: {', '.join(seats)}")
    jokers = [who for card, holders_ in holders.items() if card.is_joker for who in holders_]
    if len(jokers) > rules.game.jokers:
        raise DeckError(
            f"{len(jokers)} jokers dealt ({', '.join(jokers)}); the {rules.game.value} deck holds "
            f"{rules.game.jokers}"
        )


def settle_round(
    rules: TableRules,
    banker: BankerHand,
    hands: Sequence[PositionHand],
    reset_by_house_way: HouseWayReset | None = None,
    *,
    bank: Bank | None = None,
    house_hand: PositionHand | None = None,
) -> RoundSettlement:
    """Settle every position that played against the banker; records come in position order.

    ``reset_by_house_way`` is required when the table re-sets fouls by the house way.
    ``bank`` is a player's bank (None: the house banks); ``house_hand`` is then the dealer's
    seven cards, set by the house way, wagering ``bank.house_wager`` for the house.
    """
    if not isinstance(rules, TableRules):
        raise SettlementError(f"rules must be TableRules, got {rules!r}")
    if bank is not None and not isinstance(bank, Bank):
        raise BankError(f"the bank must be a Bank, got {bank!r}")
    banker_foul = _check_banker(rules, banker, bank)
    if not hands and house_hand is None:
        raise PositionError("no position played: nothing to settle")
    seen: set[int] = set()
    for hand in hands:
        _check_position(rules, hand)
        if hand.position in seen:
            raise PositionError(f"position {hand.position} is given twice")
        seen.add(hand.position)
    if bank is None and house_hand is not None:
        raise BankError("a house hand plays only against a player's bank")
    if bank is not None:
        _check_bank(rules, bank, hands, house_hand)
    _check_one_deck(rules, banker, [*hands, *([house_hand] if house_hand is not None else [])])
    if rules.foul_rule is FoulRule.HOUSE_WAY and reset_by_house_way is None:
        raise HouseWaySettingError("the table re-sets fouls by the house way: give reset_by_house_way")
    qualification = dealer_qualification(rules, banker.cards)
    forfeits = banker_foul is not None and rules.banker_fouls is FoulRule.FORFEIT
    if banker_foul is not None and not forfeits:
        banker = _banker_reset(reset_by_house_way, banker, rules.ranking)
    records = tuple(
        _settle_position(rules, banker, qualification, hand, reset_by_house_way, forfeits)
        for hand in sorted(hands, key=lambda h: h.position)
    )
    banked = None
    if bank is not None:
        house = (
            None
            if house_hand is None
            else _settle_house_hand(rules, banker, qualification, house_hand, forfeits)
        )
        banked = _settle_bank(rules, bank, records, house, banker, banker_foul)
    return RoundSettlement(game=rules.game, qualification=qualification, positions=records, bank=banked)


__all__ = [
    "BANKER_FOUL_FIELDS",
    "BONUS_CITES",
    "COMPARISON_RULES",
    "RULES",
    "BankError",
    "BankSettlement",
    "BankerHand",
    "BankerHandError",
    "BonusNotOfferedError",
    "BonusResult",
    "BonusRule",
    "DealerQualification",
    "DeckError",
    "FoulKind",
    "HandError",
    "HandResult",
    "HouseWayReset",
    "HouseWaySettingError",
    "Outcome",
    "PositionError",
    "PositionHand",
    "PositionSettlement",
    "RoundSettlement",
    "SettlementError",
    "SettlementMoneyError",
    "SettlementRule",
    "WagerError",
    "compare_settings",
    "dealer_qualification",
    "foul_kind",
    "settle_round",
]
