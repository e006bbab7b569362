"""Ratings: one player's stay at one seat, folded from the table's seat events and settled rounds
(docs/accounting.md, "Ratings").

Each seat is in one phase; an event either moves it by ``TRANSITIONS`` or is refused with a
RatingError (sitting on a taken seat, leaving an empty one). Before any event at time ``t``,
every open rating whose last activity (its start, a round, a buy-in) is more than
``idle_after`` before ``t`` is closed at that last activity (end reason ``idle``); with
``idle_rounds``, so is a rating whose seat sat out that many of the table's settled rounds in a
row since its last activity. The player stays seated, and their next round or buy-in opens a new
rating. A player seen sitting at
another seat closes the first seat's rating (``seat-change``). An anonymous player, or a
wager at a seat nobody sat at, plays unrated.

Figures are from the house's side: ``actual_win`` is minus what the player's wagers netted
(commission, fees and bonuses in), ``theoretical_win`` the seat's share of each round's
theoretical win (``apportion``: by the seat's wagers, largest remainder, so the seats' shares
add up to the round's exactly); a player's banks are counted apart (``banks``,
``bank_actual_win``: minus the player-banker's net). The average wager is the total wagered
over the rounds, half-even to the cent. An adjustment keeps the recorded figure and records
the old and new values, the reason and the actor.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Final

from ..game.banking import PLAYER_SEATS
from ..game.money import Cents
from .amounts import instant, person, whole_cents
from .errors import AdjustmentError, AmountError, RatingError, SignatureError
from .facts import SettledRound

PLAYER_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,39}")
"""A player's card number as typed, scanned or given by a card reader."""
DEFAULT_IDLE_AFTER: Final = timedelta(minutes=30)


def _seat(seat: object) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in PLAYER_SEATS:
        raise RatingError(f"a player's seat is {PLAYER_SEATS[0]}..{PLAYER_SEATS[-1]}, got {seat!r}")
    return seat


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A player sits at ``seat``: ``player`` is their card number, None when anonymous. On a seat
    an anonymous player holds, a card number identifies that player (a card put in)."""

    at: datetime
    seat: int
    player: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", instant(self.at, "the sitting's time"))
        _seat(self.seat)
        if self.player is not None and (
            not isinstance(self.player, str) or not PLAYER_ID.fullmatch(self.player)
        ):
            raise RatingError(f"a player's card number is 1..40 letters, digits or '-', got {self.player!r}")


@dataclass(frozen=True, slots=True)
class SeatLeft:
    at: datetime
    seat: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", instant(self.at, "the leaving's time"))
        _seat(self.seat)


class BuyInKind(enum.StrEnum):
    CASH = "cash"
    CHIPS = "chips"  # chips brought from the cage or another table
    MARKER = "marker"


@dataclass(frozen=True, slots=True)
class BuyIn:
    """A buy-in at ``seat``, entered by the pit."""

    at: datetime
    seat: int
    kind: BuyInKind
    amount: Cents

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", instant(self.at, "the buy-in's time"))
        _seat(self.seat)
        if not isinstance(self.kind, BuyInKind):
            raise RatingError(f"a buy-in is cash, chips or a marker, got {self.kind!r}")
        try:
            whole_cents(self.amount, "a buy-in", minimum=1)
        except AmountError as error:
            raise RatingError(str(error)) from error


@dataclass(frozen=True, slots=True)
class TableClosed:
    at: datetime

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", instant(self.at, "the table's closing time"))


SeatEvent = SeatTaken | SeatLeft | BuyIn | TableClosed | SettledRound
"""What the builder folds; a SettledRound happens at its ``settled_at``."""


_EVENTS = (SettledRound, SeatTaken, SeatLeft, BuyIn, TableClosed)


def event_time(event: SeatEvent) -> datetime:
    return event.settled_at if isinstance(event, SettledRound) else event.at


# --- the seat's phases ----------------------------------------------------------------------


class SeatPhase(enum.StrEnum):
    EMPTY = "empty"
    ANONYMOUS = "anonymous"  # someone plays unrated
    RATED = "rated"  # a rated player, rating open
    IDLE = "idle"  # a rated player still seated, rating closed by the idle time


class Act(enum.StrEnum):
    SIT = "sit"
    SIT_ANONYMOUS = "sit-anonymous"
    CARD_IN = "card-in"  # a card number given on an anonymous seat
    LEAVE = "leave"
    PLAY = "play"  # a round's wager or bank at the seat, or a buy-in
    IDLE = "idle"
    CLOSE = "close"
    MOVE_AWAY = "move-away"  # the seat's player sat down at another seat


class EndReason(enum.StrEnum):
    SEAT_CHANGE = "seat-change"
    LEFT = "left"
    TABLE_CLOSED = "table-closed"
    IDLE = "idle"


@dataclass(frozen=True, slots=True)
class Transition:
    to: SeatPhase
    opens: bool = False  # a new rating starts
    closes: EndReason | None = None  # the open rating ends


_E, _A, _R, _I = SeatPhase.EMPTY, SeatPhase.ANONYMOUS, SeatPhase.RATED, SeatPhase.IDLE
TRANSITIONS: Final[Mapping[tuple[SeatPhase, Act], Transition]] = {
    (_E, Act.SIT): Transition(_R, opens=True),
    (_E, Act.SIT_ANONYMOUS): Transition(_A),
    (_E, Act.PLAY): Transition(_E),  # a wager where nobody sat: unrated
    (_E, Act.CLOSE): Transition(_E),
    (_A, Act.CARD_IN): Transition(_R, opens=True),
    (_A, Act.PLAY): Transition(_A),
    (_A, Act.LEAVE): Transition(_E),
    (_A, Act.CLOSE): Transition(_E),
    (_R, Act.PLAY): Transition(_R),
    (_R, Act.LEAVE): Transition(_E, closes=EndReason.LEFT),
    (_R, Act.CLOSE): Transition(_E, closes=EndReason.TABLE_CLOSED),
    (_R, Act.IDLE): Transition(_I, closes=EndReason.IDLE),
    (_R, Act.MOVE_AWAY): Transition(_E, closes=EndReason.SEAT_CHANGE),
    (_I, Act.PLAY): Transition(_R, opens=True),
    (_I, Act.LEAVE): Transition(_E),
    (_I, Act.CLOSE): Transition(_E),
    (_I, Act.MOVE_AWAY): Transition(_E),
}
"""(seat phase, act) -> what happens; a pair not here is refused."""


# --- ratings --------------------------------------------------------------------------------


class AdjustableField(enum.StrEnum):
    BUY_IN_CASH = "buy_in_cash"
    BUY_IN_CHIPS = "buy_in_chips"
    BUY_IN_MARKERS = "buy_in_markers"
    SECONDS_PLAYED = "seconds_played"
    AVERAGE_WAGER = "average_wager"
    ACTUAL_WIN = "actual_win"
    THEORETICAL_WIN = "theoretical_win"


@dataclass(frozen=True, slots=True)
class Adjustment:
    """A pit user's change of one figure: both values, the reason, who and when."""

    field: AdjustableField
    old_value: int | None
    new_value: int
    reason: str
    actor: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's stay at one seat (cents; wins from the house's side)."""

    rating_id: str
    table_id: str
    player: str
    seat: int
    start: datetime
    end: datetime | None  # None while open
    end_reason: EndReason | None
    rounds: int
    main_wagered: Cents
    bonus_wagered: Cents
    actual_win: Cents
    theoretical_win: Cents  # over the rounds that carry one (``theoretical_rounds``)
    theoretical_rounds: int
    buy_in_cash: Cents
    buy_in_chips: Cents
    buy_in_markers: Cents
    banks: int
    bank_actual_win: Cents
    round_ids: tuple[str, ...]
    adjustments: tuple[Adjustment, ...] = ()

    @property
    def total_wagered(self) -> Cents:
        return self.main_wagered + self.bonus_wagered

    @property
    def average_wager(self) -> Cents | None:
        """Total wagered / rounds, half-even to the cent; None before a round."""
        return round(Fraction(self.total_wagered, self.rounds)) if self.rounds else None

    @property
    def seconds_played(self) -> int | None:
        """Whole seconds from start to end (rounded down); None while open."""
        return None if self.end is None else int((self.end - self.start).total_seconds())

    def recorded(self, name: AdjustableField) -> int | None:
        """A figure as the rounds and the pit's entries made it, before any adjustment."""
        value: int | None = getattr(self, name.value)
        return value

    def value(self, name: AdjustableField) -> int | None:
        """A figure as shown: the last adjustment of it, else as recorded."""
        for adjustment in reversed(self.adjustments):
            if adjustment.field is name:
                return adjustment.new_value
        return self.recorded(name)


def adjust(
    rating: Rating,
    name: AdjustableField,
    new_value: int,
    *,
    reason: str,
    actor: str,
    at: datetime,
    expected_old: int | None = None,
) -> Rating:
    """The rating with one more adjustment. ``expected_old``, when given, must be the value shown
    now (a second pit user's change in between is refused, not overwritten)."""
    if not isinstance(name, AdjustableField):
        raise AdjustmentError(f"{name!r} is not an adjustable figure of a rating")
    if rating.end is None:
        raise AdjustmentError(f"rating {rating.rating_id} is still open: adjust it once closed")
    if isinstance(new_value, bool) or not isinstance(new_value, int):
        raise AdjustmentError(f"{name.value} must be a whole number, got {new_value!r}")
    if new_value < 0 and name not in (AdjustableField.ACTUAL_WIN, AdjustableField.THEORETICAL_WIN):
        raise AdjustmentError(f"{name.value} cannot be negative, got {new_value}")
    if not isinstance(reason, str) or not reason.strip():
        raise AdjustmentError("an adjustment needs a reason")
    try:
        who = person(actor, "the adjusting pit user")
    except SignatureError as error:
        raise AdjustmentError(str(error)) from error
    old = rating.value(name)
    if expected_old is not None and expected_old != old:
        raise AdjustmentError(f"{name.value} of rating {rating.rating_id} is {old}, not {expected_old}")
    change = Adjustment(name, old, new_value, reason.strip(), who, instant(at, "the adjustment's time"))
    return replace(rating, adjustments=(*rating.adjustments, change))


def apportion(total: int, weights: Mapping[int, int]) -> dict[int, int]:
    """``total`` split in proportion to ``weights`` (key -> weight >= 0), whole units that add up
    to ``total`` exactly: each key gets floor(total x weight / sum); the units left go one each
    to the largest remainders, ties to the smaller key (the largest-remainder rule)."""
    whole = sum(weights.values())
    if whole == 0:
        return dict.fromkeys(weights, 0)
    shares = {key: total * weight // whole for key, weight in weights.items()}
    left = total - sum(shares.values())
    order = sorted(weights, key=lambda key: (-(total * weights[key] % whole), key))
    for key in order[:left]:
        shares[key] += 1
    return shares


@dataclass
class _Open:
    """A rating being built (internal, mutable while the fold runs)."""

    player: str
    seat: int
    start: datetime
    last: datetime
    rounds: int = 0
    main_wagered: int = 0
    bonus_wagered: int = 0
    actual_win: int = 0
    theoretical_win: int = 0
    theoretical_rounds: int = 0
    buy_ins: dict[BuyInKind, int] = field(default_factory=lambda: dict.fromkeys(BuyInKind, 0))
    banks: int = 0
    bank_actual_win: int = 0
    round_ids: list[str] = field(default_factory=list)
    missed: int = 0  # the table's settled rounds in a row the seat sat out since its last activity

    def rating(self, table_id: str, end: datetime | None, reason: EndReason | None) -> Rating:
        return Rating(
            rating_id=f"{table_id}/seat-{self.seat}/{self.start:%Y%m%dT%H%M%S%fZ}",
            table_id=table_id,
            player=self.player,
            seat=self.seat,
            start=self.start,
            end=end,
            end_reason=reason,
            rounds=self.rounds,
            main_wagered=self.main_wagered,
            bonus_wagered=self.bonus_wagered,
            actual_win=self.actual_win,
            theoretical_win=self.theoretical_win,
            theoretical_rounds=self.theoretical_rounds,
            buy_in_cash=self.buy_ins[BuyInKind.CASH],
            buy_in_chips=self.buy_ins[BuyInKind.CHIPS],
            buy_in_markers=self.buy_ins[BuyInKind.MARKER],
            banks=self.banks,
            bank_actual_win=self.bank_actual_win,
            round_ids=tuple(self.round_ids),
        )


@dataclass
class _Seat:
    phase: SeatPhase = SeatPhase.EMPTY
    player: str | None = None
    open: _Open | None = None


class RatingBuilder:
    """Folds one table's events, in time order, into ratings. ``feed`` returns the ratings the
    event closed; ``open_ratings`` shows those still open. No I/O: the state is this object's."""

    def __init__(
        self, table_id: str, *, idle_after: timedelta = DEFAULT_IDLE_AFTER, idle_rounds: int | None = None
    ) -> None:
        if not isinstance(idle_after, timedelta) or idle_after <= timedelta(0):
            raise RatingError(f"the idle time must be a positive duration, got {idle_after!r}")
        if idle_rounds is not None and (
            isinstance(idle_rounds, bool) or not isinstance(idle_rounds, int) or idle_rounds < 1
        ):
            raise RatingError(f"the idle rounds must be a whole number above 0, got {idle_rounds!r}")
        self.table_id = table_id
        self.idle_after = idle_after
        self.idle_rounds = idle_rounds
        self._seats = {seat: _Seat() for seat in PLAYER_SEATS}
        self._last: datetime | None = None
        self._rounds: set[str] = set()

    def phase(self, seat: int) -> SeatPhase:
        return self._seats[_seat(seat)].phase

    def open_ratings(self) -> tuple[Rating, ...]:
        return tuple(
            s.open.rating(self.table_id, None, None) for s in self._seats.values() if s.open is not None
        )

    def feed(self, event: SeatEvent) -> tuple[Rating, ...]:
        """Apply ``event``; refused (RatingError, nothing changed): an event earlier than the last,
        a round of another table or given twice, a move the seat's phase does not allow."""
        if not isinstance(event, _EVENTS):
            raise RatingError(f"not a seat event: {event!r}")
        at = event_time(event)
        if self._last is not None and at < self._last:
            raise RatingError(
                f"{type(event).__name__} at {at.isoformat()} is before {self._last.isoformat()}"
            )
        self._check(event)
        closed = list(self._idle_until(at))
        self._last = at
        if isinstance(event, SeatTaken):
            closed += self._sit(event)
        elif isinstance(event, SeatLeft):
            closed += self._step(event.seat, Act.LEAVE, at)
        elif isinstance(event, TableClosed):
            for seat in PLAYER_SEATS:
                closed += self._step(seat, Act.CLOSE, at)
        elif isinstance(event, BuyIn):
            current = self._play(event.seat, at)
            if current is not None:
                current.buy_ins[event.kind] += event.amount
                current.missed = 0
        else:
            closed += self._round(event)
        return tuple(closed)

    def resume_idle(self, seat: int, player: str, at: datetime) -> None:
        """Start the fold with ``player`` seated at ``seat`` in the idle phase from ``at``: how a
        store that keeps the ratings it closed carries on after an idle end (their next round or
        buy-in opens a new rating). Refused on a seat that is not empty, or before the last event."""
        moment = instant(at, "the time")
        here = self._seats[_seat(seat)]
        if not isinstance(player, str) or not PLAYER_ID.fullmatch(player):
            raise RatingError(f"a player's card number is 1..40 letters, digits or '-', got {player!r}")
        if here.phase is not SeatPhase.EMPTY:
            raise RatingError(f"seat {seat} is taken ({here.phase.value})")
        if self._last is not None and moment < self._last:
            raise RatingError(f"{moment.isoformat()} is before {self._last.isoformat()}")
        here.phase, here.player = SeatPhase.IDLE, player
        self._last = moment

    def idle_until(self, at: datetime) -> tuple[Rating, ...]:
        """Close the ratings idle at ``at`` (the end of the data, or a clock tick)."""
        moment = instant(at, "the time")
        if self._last is not None and moment < self._last:
            raise RatingError(f"{moment.isoformat()} is before {self._last.isoformat()}")
        closed = tuple(self._idle_until(moment))
        self._last = moment
        return closed

    # -- steps --

    def _check(self, event: SeatEvent) -> None:
        """Refuse an event before anything changes (the fold never stops half-applied)."""
        if isinstance(event, SettledRound):
            if event.table_id != self.table_id:
                raise RatingError(
                    f"round {event.round_id} is of table {event.table_id!r}, not {self.table_id!r}"
                )
            if event.round_id in self._rounds:
                raise RatingError(f"round {event.round_id} is given twice")
        elif isinstance(event, SeatTaken):
            here = self._seats[event.seat]
            if here.phase is not SeatPhase.EMPTY and not (
                here.phase is SeatPhase.ANONYMOUS and event.player is not None
            ):
                raise RatingError(
                    f"seat {event.seat} is taken ({here.phase.value}); record the leaving first"
                )
        elif isinstance(event, SeatLeft) and self._seats[event.seat].phase is SeatPhase.EMPTY:
            raise RatingError(f"seat {event.seat} is empty: nobody can leave it")

    def _step(self, seat: int, act: Act, at: datetime) -> list[Rating]:
        here = self._seats[seat]
        move = TRANSITIONS.get((here.phase, act))
        if move is None:  # pragma: no cover - _check refuses these first
            raise RatingError(f"seat {seat}: {act.value} is not possible when {here.phase.value}")
        closed = []
        if move.closes is not None and here.open is not None:
            end = here.open.last if move.closes is EndReason.IDLE else at
            closed.append(here.open.rating(self.table_id, end, move.closes))
            here.open = None
        if move.opens:
            assert here.player is not None
            here.open = _Open(player=here.player, seat=seat, start=at, last=at)
        elif here.open is not None:
            here.open.last = at
        here.phase = move.to
        if move.to is SeatPhase.EMPTY:
            here.player = None
        return closed

    def _sit(self, event: SeatTaken) -> list[Rating]:
        here = self._seats[event.seat]
        closed: list[Rating] = []
        if event.player is None:
            return self._step(event.seat, Act.SIT_ANONYMOUS, event.at)
        for seat, other in self._seats.items():
            if seat != event.seat and other.player == event.player:
                closed += self._step(seat, Act.MOVE_AWAY, event.at)
        act = Act.CARD_IN if here.phase is SeatPhase.ANONYMOUS else Act.SIT
        here.player = event.player
        closed += self._step(event.seat, act, event.at)
        return closed

    def _play(self, seat: int, at: datetime) -> _Open | None:
        """A round or buy-in at ``seat``: the open rating it counts in, if any. A rated seat stays
        rated (TRANSITIONS' (rated, play)), taken without the table's lookup: a closed day folds
        tens of thousands of rounds."""
        here = self._seats[seat]
        if here.phase is SeatPhase.RATED and here.open is not None:
            here.open.last = at
        else:
            self._step(seat, Act.PLAY, at)
        return here.open

    def _round(self, played: SettledRound) -> list[Rating]:
        self._rounds.add(played.round_id)
        at = played.settled_at
        theory = None
        if played.theoretical_win is not None:
            theory = apportion(
                played.theoretical_win, {s.seat: s.main_wager + s.bonus_wager for s in played.seats}
            )
        for result in played.seats:
            current = self._play(result.seat, at)
            if current is None:
                continue
            current.rounds += 1
            current.main_wagered += result.main_wager
            current.bonus_wagered += result.bonus_wager
            current.actual_win -= result.net
            if theory is not None:
                current.theoretical_win += theory[result.seat]
                current.theoretical_rounds += 1
            current.round_ids.append(played.round_id)
        if played.bank is not None:
            current = self._play(played.bank.seat, at)
            if current is not None:
                current.banks += 1
                current.bank_actual_win -= played.bank.banker_net
                current.round_ids.append(played.round_id)
        return self._sat_out(played)

    def _sat_out(self, played: SettledRound) -> list[Rating]:
        """Count the round against each open rating whose seat did not play it; with
        ``idle_rounds``, the rating that reaches it ends (idle) at its last activity."""
        if self.idle_rounds is None:
            return []
        seats = {result.seat for result in played.seats}
        if played.bank is not None:
            seats.add(played.bank.seat)
        closed: list[Rating] = []
        for seat, here in self._seats.items():
            if here.open is None:
                continue
            if seat in seats:
                here.open.missed = 0
                continue
            here.open.missed += 1
            if here.open.missed >= self.idle_rounds:
                closed += self._step(seat, Act.IDLE, played.settled_at)
        return closed

    def _idle_until(self, at: datetime) -> list[Rating]:
        closed: list[Rating] = []
        oldest = at - self.idle_after
        for seat, here in self._seats.items():
            if here.open is not None and here.open.last < oldest:
                closed += self._step(seat, Act.IDLE, at)
        return closed


@dataclass(frozen=True, slots=True)
class BuiltRatings:
    closed: tuple[Rating, ...]
    open: tuple[Rating, ...]


def build_ratings(
    table_id: str,
    events: Iterable[SeatEvent],
    *,
    idle_after: timedelta = DEFAULT_IDLE_AFTER,
    idle_rounds: int | None = None,
    until: datetime | None = None,
) -> BuiltRatings:
    """Fold ``events`` (in time order) into ratings: those closed, in the order they closed, and
    those still open; ``until`` applies the idle time at that moment last."""
    builder = RatingBuilder(table_id, idle_after=idle_after, idle_rounds=idle_rounds)
    closed: list[Rating] = []
    for event in events:
        closed += builder.feed(event)
    if until is not None:
        closed += builder.idle_until(until)
    return BuiltRatings(closed=tuple(closed), open=builder.open_ratings())


__all__ = [
    "DEFAULT_IDLE_AFTER",
    "PLAYER_ID",
    "TRANSITIONS",
    "Act",
    "AdjustableField",
    "Adjustment",
    "BuiltRatings",
    "BuyIn",
    "BuyInKind",
    "EndReason",
    "Rating",
    "RatingBuilder",
    "SeatEvent",
    "SeatLeft",
    "SeatPhase",
    "SeatTaken",
    "TableClosed",
    "Transition",
    "apportion",
    "build_ratings",
    "event_time",
]
