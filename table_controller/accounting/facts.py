"""A settled round's money as the accounting and the ratings read it (docs/accounting.md,
"A settled round").

``SettledRound`` is built from the game core's ``RoundSettlement`` (``settled_round``) or, by
storage, from the stored projection of the round; either way its seats are the table's seats
(game/banking.py: a player-banked round's positions are counted from the banker, its seats are
not), and its money adds up: ``house_result + sum(seat nets) + banker_net == 0`` ("money only
moves between the players and the house", game/settlement.py's ``house_result``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..game.banking import PLAYER_SEATS, seat_of_position
from ..game.money import Cents
from ..game.settlement import RoundSettlement
from .amounts import instant, whole_cents
from .errors import AmountError, RoundFactError

_PLAYER_SEATS = frozenset(PLAYER_SEATS)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's part of a round: its main and bonus wagers and its net (the player's side:
    + won, - lost; commission, fee and bonuses included)."""

    seat: int
    main_wager: Cents
    bonus_wager: Cents
    net: Cents

    @property
    def wagered(self) -> Cents:
        return self.main_wager + self.bonus_wager


@dataclass(frozen=True, slots=True)
class BankResult:
    """A player's bank this round: the seat, the bank declared and the player-banker's net
    (the player's side; commission and fee paid, the co-banking house share taken out)."""

    seat: int
    amount: Cents
    banker_net: Cents


@dataclass(frozen=True, slots=True)
class SettledRound:
    """A settled round's money. It belongs to the gaming day it was opened in (as the reports'
    rounds do, storage/reports.py); a rating sees it when it settled."""

    round_id: str
    table_id: str
    opened_at: datetime
    settled_at: datetime
    house_result: Cents
    seats: tuple[SeatResult, ...]
    bank: BankResult | None = None
    theoretical_win: Cents | None = None  # stored half-even to cents (docs/math.md)
    theoretical_variance: int | None = None  # cents squared

    def __post_init__(self) -> None:
        if not isinstance(self.round_id, str) or not self.round_id:
            raise RoundFactError(f"a round id is needed, got {self.round_id!r}")
        object.__setattr__(self, "opened_at", instant(self.opened_at, f"round {self.round_id}'s opening"))
        object.__setattr__(
            self, "settled_at", instant(self.settled_at, f"round {self.round_id}'s settlement")
        )
        if self.settled_at < self.opened_at:
            raise RoundFactError(f"round {self.round_id} settled before it opened")
        if not self._amounts_are_whole():
            self._refuse_amounts()
        seats = [seat.seat for seat in self.seats]
        if self.bank is not None:
            seats.append(self.bank.seat)
        if len(set(seats)) != len(seats) or not _PLAYER_SEATS.issuperset(seats):
            raise RoundFactError(
                f"round {self.round_id}: the seats {seats} (the banker's last) must be distinct seats "
                f"{PLAYER_SEATS[0]}..{PLAYER_SEATS[-1]}"
            )
        moved = self.house_result + sum(s.net for s in self.seats) + self.banker_net
        if moved:
            raise RoundFactError(
                f"round {self.round_id}: the house result {self.house_result}, the seats' nets and the "
                f"banker's do not add up to 0 (off by {moved} cents)"
            )

    def _amounts_are_whole(self) -> bool:
        """The common case, checked fast (a closed day folds tens of thousands of rounds): every
        amount an ``int`` (``type is int`` refuses a bool too), wagers and the bank not negative."""
        theory, variance, bank = self.theoretical_win, self.theoretical_variance, self.bank
        return (
            type(self.house_result) is int
            and (theory is None or type(theory) is int)
            and (variance is None or (type(variance) is int and variance >= 0))
            and all(
                type(s.main_wager) is int
                and s.main_wager >= 0
                and type(s.bonus_wager) is int
                and s.bonus_wager >= 0
                and type(s.net) is int
                for s in self.seats
            )
            and (
                bank is None
                or (type(bank.amount) is int and bank.amount >= 0 and type(bank.banker_net) is int)
            )
        )

    def _refuse_amounts(self) -> None:
        """Name the first amount that is not whole cents (the slow path, for the message)."""
        try:
            whole_cents(self.house_result, "the house result", minimum=None)
            if self.theoretical_win is not None:
                whole_cents(self.theoretical_win, "the theoretical win", minimum=None)
            if self.theoretical_variance is not None:
                whole_cents(self.theoretical_variance, "the theoretical variance")
            for seat in self.seats:
                whole_cents(seat.main_wager, f"seat {seat.seat}'s main wager")
                whole_cents(seat.bonus_wager, f"seat {seat.seat}'s bonus wagers")
                whole_cents(seat.net, f"seat {seat.seat}'s net", minimum=None)
            if self.bank is not None:
                whole_cents(self.bank.amount, "the bank")
                whole_cents(self.bank.banker_net, "the banker's net", minimum=None)
        except AmountError as error:
            raise RoundFactError(f"round {self.round_id}: {error}") from error
        raise AssertionError("_amounts_are_whole and whole_cents disagree")  # pragma: no cover

    @property
    def banker_net(self) -> Cents:
        return self.bank.banker_net if self.bank is not None else 0

    @property
    def wagered(self) -> Cents:
        return sum(seat.wagered for seat in self.seats)


def settled_round(
    settlement: RoundSettlement,
    *,
    round_id: str,
    table_id: str,
    opened_at: datetime,
    settled_at: datetime,
    theoretical_win: Cents | None = None,
    theoretical_variance: int | None = None,
) -> SettledRound:
    """The facts of a settlement: positions turned into seats (game/banking.py), the house's
    result as the settlement computes it."""
    bank = settlement.bank
    seats = tuple(
        SeatResult(
            seat=record.position if bank is None else seat_of_position(record.position, bank.seat),
            main_wager=record.wager,
            bonus_wager=sum(b.wager for b in record.bonuses),
            net=record.net,
        )
        for record in settlement.positions
    )
    return SettledRound(
        round_id=round_id,
        table_id=table_id,
        opened_at=opened_at,
        settled_at=settled_at,
        house_result=settlement.house_result,
        seats=tuple(sorted(seats, key=lambda s: s.seat)),
        bank=None if bank is None else BankResult(bank.seat, bank.amount, bank.banker_net),
        theoretical_win=theoretical_win,
        theoretical_variance=theoretical_variance,
    )


__all__ = ["BankResult", "SeatResult", "SettledRound", "settled_round"]
