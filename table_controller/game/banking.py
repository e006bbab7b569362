"""Who banks a round: the house or a seated player, and the terms of a player's bank.

Rules implemented (docs/settlement.md, section 8, gives every choice where they are silent):

- "While the dealer is most frequently the house, many casinos allow for players to take
  turns as the banker" (001_c9adb19db438d99f.txt); "everyone has to deal an equal number of
  times" (000_f88fa0f023e5142c.txt). The bank is offered in turn, counter-clockwise, by the
  table's ``BankingPolicy``; a player may decline and the house banks then.
- "Betting positions are assigned a number from 1 to 7, starting with whichever player is
  acting as banker that hand, and counting counter-clockwise" (004_60e2fc6346e3399b.txt).
  The table's places are *seats*, numbered 1..7 counter-clockwise from the dealer's (seat 1),
  so that a house-banked round's positions are its seats. ``position_of_seat`` and
  ``seat_of_position`` convert for a player-banked round.
- A player may bank only when the bank covers every wager against it: the sum a full loss
  would pay (``BankNotCovered`` names the shortfall).
- Co-banking with the house: "the player's hand must also be set in the house way" (004);
  the bank's result, commission included, is split in the agreed share (``split_bank``).
- Double Joker: "The Dealer is always considered position #1" (003_4dcc2fceebc6e4af.txt): a
  player banks there only when the table's setting allows it.

Pure: no I/O. Amounts are integer cents; shares are integer basis points.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Final

from .cards import Game
from .money import BASIS_POINTS, Cents, format_cents
from .table_rules import TableRules

DEALER_SEAT: Final = 1  # the dealer's place; the table's seats count counter-clockwise from it
SEATS: Final = tuple(range(1, 8))
PLAYER_SEATS: Final = tuple(range(2, 8))
DEFAULT_CO_BANK_SHARE_BP: Final = 5_000  # the house's share of a co-banked bank: 50/50


class BankingPolicy(enum.StrEnum):
    """When the bank is offered to a player (000, 001: players "take turns as the banker")."""

    NEVER = "never"  # the house banks every round (the default: as before)
    ALTERNATE = "alternate"  # every other round, alternating with the house
    ROTATION = "rotation"  # each seated player once per rotation, the house once


class HouseWagerPolicy(enum.StrEnum):
    """What the house's own hand wagers against a player-banker."""

    NONE = "none"  # the house's hand does not play
    BANKER_LAST_WAGER = "banker-last-wager"  # the banker's last main wager as a player (default)
    TABLE_MINIMUM = "table-minimum"


class BankingError(ValueError):
    """Base class of every refusal of a player's bank."""


class BankingNotAllowed(BankingError):
    """The table's settings do not let this player bank this round."""


class BankTermsError(BankingError):
    """A bank's terms that cannot be: a seat, a share or an amount out of range."""


class BankNotCovered(BankingError):
    """The declared bank does not cover the action against it; ``shortfall`` says by how much."""

    def __init__(self, seat: int, amount: Cents, required: Cents) -> None:
        self.seat = seat
        self.amount = amount
        self.required = required
        self.shortfall = required - amount
        super().__init__(
            f"seat {seat}'s bank of {format_cents(amount)} does not cover the action against it: "
            f"{format_cents(required)} needed, short by {format_cents(self.shortfall)}"
        )


def position_of_seat(seat: int, banker_seat: int) -> int:
    """The position (1 = the banker, counter-clockwise, 004) of ``seat`` this round."""
    _check_seat(seat)
    _check_seat(banker_seat)
    return (seat - banker_seat) % 7 + 1


def seat_of_position(position: int, banker_seat: int) -> int:
    """The seat at ``position`` (1 = the banker) when ``banker_seat`` banks."""
    if position not in SEATS:
        raise BankTermsError(f"a position is 1..7, got {position!r}")
    _check_seat(banker_seat)
    return (banker_seat - 1 + position - 1) % 7 + 1


def _check_seat(seat: int) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in SEATS:
        raise BankTermsError(f"a seat is 1..7 (the dealer's is {DEALER_SEAT}), got {seat!r}")


@dataclass(frozen=True, slots=True)
class Bank:
    """A player's bank for one round.

    ``seat`` banks (position 1 this round); ``amount`` is the bank declared (cents);
    ``house_wager`` is what the house's own hand wagers against it (0: it does not play);
    ``house_share_bp`` is the house's share of a co-banked bank in basis points (None: the
    player banks alone).
    """

    seat: int
    amount: Cents
    house_wager: Cents = 0
    house_share_bp: int | None = None

    def __post_init__(self) -> None:
        if self.seat not in PLAYER_SEATS or isinstance(self.seat, bool):
            raise BankTermsError(f"a player banks from seat 2..7, got {self.seat!r}")
        for what, value in (("bank", self.amount), ("house wager", self.house_wager)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise BankTermsError(f"the {what} must be whole cents, 0 or more, got {value!r}")
        share = self.house_share_bp
        if share is not None and (
            isinstance(share, bool) or not isinstance(share, int) or not 0 < share < BASIS_POINTS
        ):
            raise BankTermsError(
                f"the house's co-banking share must be 1..{BASIS_POINTS - 1} basis points, got {share!r}"
            )

    @property
    def co_banked(self) -> bool:
        return self.house_share_bp is not None

    @property
    def banker_share_bp(self) -> int:
        """The player-banker's share of the bank's result (all of it when not co-banked)."""
        return BASIS_POINTS - (self.house_share_bp or 0)

    @property
    def house_position(self) -> int:
        """Where the dealer's seven cards sit this round (position numbered from the banker, 004)."""
        return position_of_seat(DEALER_SEAT, self.seat)


def check_banking_allowed(game: Game, policy: BankingPolicy, *, allow_in_double_joker: bool) -> None:
    """Refuse a player's bank the table does not offer (policy ``never``; Double Joker, 003)."""
    if policy is BankingPolicy.NEVER:
        raise BankingNotAllowed("the table's banking policy is 'never': the house banks every round")
    if game is Game.DOUBLE_JOKER and not allow_in_double_joker:
        raise BankingNotAllowed(
            "Double Joker: 'The Dealer is always considered position #1' (003); the table does not "
            "allow player banking (setting banking.allow_in_double_joker)"
        )


def next_bank_offer(
    policy: BankingPolicy,
    seats: Collection[int],
    *,
    last_offer: int | None,
    last_player_offer: int | None,
) -> int | None:
    """The seat the bank is offered to this round, or None: the house's turn.

    ``seats`` are the occupied player seats; ``last_offer`` is the seat the bank was offered
    to last round (None: the house's turn, or no round yet); ``last_player_offer`` the last
    seat it was offered to at all. An offer moves on whether it was taken or declined.

    - ``never``: always the house.
    - ``alternate``: after a player's turn, the house's; after the house's, the next occupied
      seat counter-clockwise after the last player offered.
    - ``rotation``: counter-clockwise seat by seat through the occupied seats, the dealer's
      seat (the house) taking its turn once per rotation (000: "everyone has to deal an equal
      number of times").
    """
    occupied = sorted(s for s in set(seats) if s in PLAYER_SEATS)
    if policy is BankingPolicy.NEVER or not occupied:
        return None
    if policy is BankingPolicy.ALTERNATE:
        if last_offer is not None:
            return None
        return _next_after(occupied, last_player_offer)
    if last_offer is None:  # the house had its turn (or no round yet): the rotation starts
        return occupied[0]
    later = [seat for seat in occupied if seat > last_offer]
    return later[0] if later else None


def _next_after(occupied: list[int], seat: int | None) -> int:
    """The first occupied seat counter-clockwise after ``seat`` (after the dealer's when None)."""
    for candidate in occupied:
        if seat is None or candidate > seat:
            return candidate
    return occupied[0]


def main_exposure(rules: TableRules, wagers: Mapping[int, Cents]) -> Cents:
    """The most the bank could pay on these main wagers: even money each, or the Double
    Joker premium multiple when the overqualifier is on (003)."""
    multiple = rules.premium_multiple if rules.game is Game.DOUBLE_JOKER and rules.overqualifier else 1
    return sum(multiple * amount for amount in wagers.values())


def required_bank(rules: TableRules, wagers: Mapping[int, Cents], bank: Bank) -> Cents:
    """What the player's bank must hold: the whole exposure (wagers against the bank and the
    house's wager), or, co-banking, the player's share of it rounded up to the cent (the house
    covers its own share)."""
    exposure = main_exposure(rules, {**wagers, 0: bank.house_wager})
    return -(-exposure * bank.banker_share_bp // BASIS_POINTS)


def check_bank_covers(rules: TableRules, wagers: Mapping[int, Cents], bank: Bank) -> Cents:
    """Return the bank required, or raise BankNotCovered naming the shortfall."""
    required = required_bank(rules, wagers, bank)
    if bank.amount < required:
        raise BankNotCovered(bank.seat, bank.amount, required)
    return required


def house_wager_for(
    policy: HouseWagerPolicy, *, banker_last_wager: Cents | None, table_minimum: Cents
) -> Cents:
    """The house hand's wager against a player-banker by the table's policy.

    ``banker-last-wager`` uses the banker's last main wager as a player; a banker who has
    not wagered yet at this table gets the table minimum.
    """
    if policy is HouseWagerPolicy.NONE:
        return 0
    if policy is HouseWagerPolicy.TABLE_MINIMUM or not banker_last_wager:
        return table_minimum
    return banker_last_wager


@dataclass(frozen=True, slots=True)
class BankHistory:
    """What the next offer of the bank depends on: the seat offered last round (None: the
    house's turn), the last seat offered at all, and each seat's last main wager as a player
    (for the ``banker-last-wager`` house wager)."""

    last_offer: int | None = None
    last_player_offer: int | None = None
    last_wagers: Mapping[int, Cents] = field(default_factory=dict)

    def after(self, offer: int | None, wagers_by_seat: Mapping[int, Cents]) -> BankHistory:
        """The history once a round opened with ``offer`` and these main wagers (by seat)."""
        return BankHistory(
            last_offer=offer,
            last_player_offer=offer if offer is not None else self.last_player_offer,
            last_wagers={**self.last_wagers, **wagers_by_seat},
        )


@dataclass(frozen=True, slots=True)
class BankingTerms:
    """The table's banking settings, as the game core needs them."""

    policy: BankingPolicy = BankingPolicy.NEVER
    house_wager: HouseWagerPolicy = HouseWagerPolicy.BANKER_LAST_WAGER
    co_bank_share_bp: int = DEFAULT_CO_BANK_SHARE_BP
    allow_in_double_joker: bool = False


@dataclass(frozen=True, slots=True)
class BankPlan:
    """Who banks a round about to open: ``bank`` (None: the house) and the seat the bank was
    offered to (None: the house's turn); ``seats`` maps each wagering position to its seat."""

    bank: Bank | None
    offer: int | None
    seats: Mapping[int, int]


def plan_bank(
    rules: TableRules,
    terms: BankingTerms,
    history: BankHistory,
    wagers: Mapping[int, Cents],
    *,
    banker_seat: int | None,
    amount: Cents = 0,
    co_bank: bool = False,
    table_minimum: Cents,
) -> BankPlan:
    """Check a request to open a round banked by ``banker_seat`` (None: the house) and give its
    bank. ``wagers`` are the main wagers by position, numbered from that banker (004).

    Refused (BankingError): a policy or game that allows no player bank, a seat the bank is
    not offered to this round, a wager at the dealer's seat, a bank that does not cover the
    action (BankNotCovered, with the shortfall). The house may always bank: a player offered
    the bank may decline it.
    """
    if banker_seat is None:
        seats = {position: position for position in wagers}
    else:
        _check_seat(banker_seat)
        seats = {position: seat_of_position(position, banker_seat) for position in wagers}
    occupied = set(seats.values()) | ({banker_seat} if banker_seat is not None else set())
    offer = next_bank_offer(
        terms.policy, occupied, last_offer=history.last_offer, last_player_offer=history.last_player_offer
    )
    if banker_seat is None:
        return BankPlan(bank=None, offer=offer, seats=seats)
    check_banking_allowed(rules.game, terms.policy, allow_in_double_joker=terms.allow_in_double_joker)
    if offer != banker_seat:
        turn = "it is the house's turn to bank" if offer is None else f"the bank is offered to seat {offer}"
        raise BankingNotAllowed(f"{turn} this round, not to seat {banker_seat} ({terms.policy.value})")
    house_wager = house_wager_for(
        terms.house_wager, banker_last_wager=history.last_wagers.get(banker_seat), table_minimum=table_minimum
    )
    share = terms.co_bank_share_bp if co_bank else None
    bank = Bank(seat=banker_seat, amount=amount, house_wager=house_wager, house_share_bp=share)
    if bank.house_position in wagers:
        raise BankTermsError(
            f"position {bank.house_position} is the dealer's seat when seat {banker_seat} banks: "
            "no player wagers there"
        )
    check_bank_covers(rules, wagers, bank)
    return BankPlan(bank=bank, offer=offer, seats=seats)


def split_bank(result: Cents, house_share_bp: int | None) -> tuple[Cents, Cents]:
    """A co-banked bank's result as (the player-banker's part, the house's part).

    The player's part is ``result * player's share`` rounded down to the cent (towards minus
    infinity), so an odd cent always goes to the house, win or loss; the two parts always add
    up to ``result``. Not co-banked: all of it is the player's.
    """
    if house_share_bp is None:
        return result, 0
    player = result * (BASIS_POINTS - house_share_bp) // BASIS_POINTS
    return player, result - player


__all__ = [
    "DEALER_SEAT",
    "DEFAULT_CO_BANK_SHARE_BP",
    "PLAYER_SEATS",
    "SEATS",
    "Bank",
    "BankHistory",
    "BankNotCovered",
    "BankPlan",
    "BankTermsError",
    "BankingError",
    "BankingNotAllowed",
    "BankingPolicy",
    "BankingTerms",
    "HouseWagerPolicy",
    "check_bank_covers",
    "check_banking_allowed",
    "house_wager_for",
    "main_exposure",
    "next_bank_offer",
    "plan_bank",
    "position_of_seat",
    "required_bank",
    "seat_of_position",
    "split_bank",
]
