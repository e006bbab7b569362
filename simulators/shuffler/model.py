"""The shuffler as a machine: a deck inside, a door, a feeder that can jam, a card reader.

It answers commands and produces events through ``emit(msg_type, body)`` (the device link),
and deals piles at its own pace from ``tick()``. It shuffles with ``secrets.SystemRandom``
unless given a seeded ``random.Random``. Deal order: pile 1 is cards 1-7 of the shuffled deck,
pile 2 cards 8-14, ..., pile 7 cards 43-49, then the unused cards (4 of a 53-card deck, 5 of
a 54-card deck; 000_f88fa0f023e5142c.txt, 003_4dcc2fceebc6e4af.txt).

Fault scenarios (simulators/faults.py), each as documented in docs/protocols/shuffler.md,
section 7: device faults here, link faults in the device link.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import structlog

from drivers.shuffler.msgtypes import ShufflerMsg

from ..faults import Fault
from . import wire
from .wire import FaultCode, Reject, State

log = structlog.get_logger()

# the card codes as docs/protocols/shuffler.md gives them, written here rather than taken from the
# driver's codec: the simulator is the device side, written from the document alone, so that
# the two meet only on the wire (tests/drivers/test_link.py checks the imports)
RANKS = "23456789TJQKA"
SUITS = "shdc"
JOKER = "JK"
NATURALS = tuple(rank + suit for rank in RANKS for suit in SUITS)
PILES = 7
PILE_SIZE = 7

# where each scenario strikes (docs/protocols/shuffler.md, section 7)
JAM_AFTER_PILE = 3
DOOR_OPENS_AFTER_PILE = 2
UNREADABLE_AT = (2, 4)  # pile, position
SHORT_PILE = 4  # missing-card: this pile comes out one card short
DUPLICATE = ("Kd", "2c")  # duplicated-card: a second Kd instead of the 2c ...
DUPLICATE_PILE_POSITIONS = (2, 6)  # ... and both Kd land in pile 5 at these positions
DUPLICATE_PILE = 5
EXTRA_JOKER_REPLACES = "3d"  # wrong-joker-count: one joker too many, in place of the 3d
WRONG_COUNT_MISSING = "7h"  # wrong-card-count: the 7h is not in the deck
LONG_PILE = 3  # long-pile: this pile's frame is one byte too long

Emit = Callable[[int, bytes], int]


def full_deck(jokers: int) -> list[str]:
    """52 natural cards then the jokers, in a fixed order."""
    return list(NATURALS) + [JOKER] * jokers


@dataclass(slots=True)
class _Deal:
    command_id: int
    piles: list[list[str]]
    unused: list[str]
    next_pile: int = 1
    next_at: float = 0.0


@dataclass(slots=True)
class ShufflerModel:
    """The machine. Not thread-safe: the simulator's lock serialises every call."""

    emit: Emit
    rng: random.Random
    faults: frozenset[Fault] = frozenset()
    jokers: int = 1
    pile_interval: float = 0.0
    clock: Callable[[], float] = time.monotonic
    deck: list[str] | None = None
    order: list[str] | None = None
    door_open: bool = False
    jammed: bool = False
    count_fault: bool = False
    deals: int = 0
    dealing: _Deal | None = None
    _fired: set[Fault] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.jokers not in (1, 2):
            raise ValueError("a shuffler deck has 1 or 2 jokers")
        if self.deck is None and Fault.DECK_NOT_PRESENT not in self.faults:
            self.deck = self._scenario_deck()

    # -- power-up -------------------------------------------------------------------------------

    def power_on(self) -> None:
        """Report standing conditions (queued until the host says hello)."""
        if self.deck is None:
            self._emit(wire.fault(FaultCode.DECK_NOT_PRESENT))

    def _scenario_deck(self) -> list[str]:
        deck = full_deck(self.jokers)
        if Fault.WRONG_CARD_COUNT in self.faults:
            deck.remove(WRONG_COUNT_MISSING)
        if Fault.DUPLICATED_CARD in self.faults:
            deck[deck.index(DUPLICATE[1])] = DUPLICATE[0]
        if Fault.WRONG_JOKER_COUNT in self.faults:
            deck[deck.index(EXTRA_JOKER_REPLACES)] = JOKER
        return deck

    # -- the operator's hands (tests and the command line) --------------------------------------

    def open_door(self) -> None:
        if self.door_open:
            return
        self.door_open = True
        self._emit(wire.fault(FaultCode.DOOR_OPEN))
        self._abort(FaultCode.DOOR_OPEN)

    def close_door(self) -> None:
        if self.door_open:
            self.door_open = False
            self._emit(wire.fault_cleared(FaultCode.DOOR_OPEN))

    def jam(self) -> None:
        if self.jammed:
            return
        self.jammed = True
        self._emit(wire.fault(FaultCode.JAM))
        self._abort(FaultCode.JAM)

    def clear_jam(self) -> None:
        if self.jammed:
            self.jammed = False
            self._emit(wire.fault_cleared(FaultCode.JAM))

    def remove_deck(self) -> None:
        if self.deck is not None and self.dealing is None:
            self.deck = None
            self.order = None
            self._emit(wire.fault(FaultCode.DECK_NOT_PRESENT))

    def load_deck(self, cards: Sequence[str] | None = None) -> None:
        """Put a deck in (a full one by default); clears DECK_NOT_PRESENT."""
        was_missing = self.deck is None
        self.deck = list(cards) if cards is not None else full_deck(self.jokers)
        self.order = None
        if was_missing:
            self._emit(wire.fault_cleared(FaultCode.DECK_NOT_PRESENT))

    # -- commands -------------------------------------------------------------------------------

    def on_command(self, msg_type: int, command_id: int, body: bytes) -> None:
        if msg_type == ShufflerMsg.STATUS_REQUEST:
            if body:
                self._emit(wire.rejected(command_id, Reject.BAD_ARGUMENT))
                return
            self._emit(wire.status(command_id, self.state, self.fault_bits, len(self.deck or ())))
            return
        handlers: dict[int, Callable[[int, bytes], None]] = {
            ShufflerMsg.SHUFFLE: self._shuffle,
            ShufflerMsg.DEAL: self._deal,
            ShufflerMsg.DECK_CHECK: self._deck_check,
        }
        handler = handlers.get(msg_type)
        if handler is None:
            self._emit(wire.rejected(command_id, Reject.UNKNOWN_COMMAND))
            return
        refusal = self._refusal()
        if refusal is not None:
            self._emit(wire.rejected(command_id, refusal))
            return
        handler(command_id, body)

    @property
    def state(self) -> State:
        if self.door_open or self.jammed or self.deck is None:
            return State.FAULT
        if self.dealing is not None:
            return State.DEALING
        return State.READY if self.order is not None else State.IDLE

    @property
    def fault_bits(self) -> int:
        standing = {
            FaultCode.DOOR_OPEN: self.door_open,
            FaultCode.JAM: self.jammed,
            FaultCode.DECK_NOT_PRESENT: self.deck is None,
            FaultCode.WRONG_CARD_COUNT: self.count_fault,
        }
        return sum(wire.FAULT_BIT[code] for code, active in standing.items() if active)

    def _refusal(self) -> Reject | None:
        if self.dealing is not None:
            return Reject.BUSY
        if self.door_open:
            return Reject.DOOR_OPEN
        if self.jammed:
            return Reject.JAM
        if self.deck is None:
            return Reject.DECK_NOT_PRESENT
        return None

    def _deck_size(self, command_id: int, body: bytes) -> int | None:
        if len(body) != 1 or body[0] not in (53, 54):
            self._emit(wire.rejected(command_id, Reject.BAD_ARGUMENT))
            return None
        return body[0]

    def _shuffle(self, command_id: int, body: bytes) -> None:
        expected = self._deck_size(command_id, body)
        if expected is None:
            return
        assert self.deck is not None
        counted = len(self.deck)
        if counted != expected:
            self.order = None
            if not self.count_fault:
                self.count_fault = True
                self._emit(wire.fault(FaultCode.WRONG_CARD_COUNT, counted=counted, expected=expected))
            self._emit(wire.rejected(command_id, Reject.WRONG_CARD_COUNT))
            return
        if self.count_fault:
            self.count_fault = False
            self._emit(wire.fault_cleared(FaultCode.WRONG_CARD_COUNT))
        order = list(self.deck)
        self.rng.shuffle(order)
        if Fault.DUPLICATED_CARD in self.faults and self._once(Fault.DUPLICATED_CARD):
            self._gather_duplicates(order)
        self.order = order
        self._emit(wire.shuffled(command_id, counted))

    def _gather_duplicates(self, order: list[str]) -> None:
        """Put both copies of the duplicated card into one pile, so the pile shows it twice."""
        card = DUPLICATE[0]
        targets = [(DUPLICATE_PILE - 1) * PILE_SIZE + pos - 1 for pos in DUPLICATE_PILE_POSITIONS]
        for target in targets:
            if order[target] != card:
                source = next(i for i, code in enumerate(order) if code == card and i not in targets)
                order[source], order[target] = order[target], order[source]

    def _deal(self, command_id: int, body: bytes) -> None:
        if body:
            self._emit(wire.rejected(command_id, Reject.BAD_ARGUMENT))
            return
        if self.order is None:
            self._emit(wire.rejected(command_id, Reject.NOT_SHUFFLED))
            return
        order = self.order
        piles = [order[i * PILE_SIZE : (i + 1) * PILE_SIZE] for i in range(PILES)]
        unused = order[PILES * PILE_SIZE :]
        self.deals += 1
        self.dealing = _Deal(command_id, piles, unused, next_at=self.clock())
        self.order = None
        self.tick()

    def _deck_check(self, command_id: int, body: bytes) -> None:
        deck_size = self._deck_size(command_id, body)
        if deck_size is None:
            return
        assert self.deck is not None
        seen = Counter(self.deck)
        expected = Counter({code: 1 for code in NATURALS})
        expected[JOKER] = deck_size - len(NATURALS)
        missing: list[str] = []
        duplicated: list[tuple[str, int]] = []
        for code in (*NATURALS, JOKER):
            short = expected[code] - seen[code]
            missing.extend([code] * max(short, 0))
            if seen[code] > max(expected[code], 1):
                duplicated.append((code, seen[code]))
        self.order = None  # the cards went through the reader: shuffle again before a deal
        self._emit(wire.deck_checked(command_id, deck_size, len(self.deck), 0, missing, duplicated))

    # -- dealing --------------------------------------------------------------------------------

    def tick(self) -> None:
        """Deal the piles that are due (all at once when ``pile_interval`` is 0)."""
        while self.dealing is not None and self.clock() >= self.dealing.next_at:
            deal = self.dealing
            number = deal.next_pile
            if number <= PILES:
                if self._strikes(Fault.JAM, number == JAM_AFTER_PILE + 1):
                    self.jam()
                    return
                if self._strikes(Fault.DOOR_OPEN, number == DOOR_OPENS_AFTER_PILE + 1):
                    self.open_door()
                    return
                cards = list(deal.piles[number - 1])
                if self._strikes(Fault.UNREADABLE_CARD, number == UNREADABLE_AT[0]):
                    position = UNREADABLE_AT[1]
                    self._emit(wire.fault(FaultCode.CARD_UNREADABLE, pile=number, position=position))
                    cards[position - 1] = wire.UNREADABLE
                if self._strikes(Fault.MISSING_CARD, number == SHORT_PILE):
                    stuck = cards.pop()  # a misfeed: the card stays inside the machine
                    log.info("sim.shuffler.card_stuck", pile=number, card=stuck)
                msg_type, body = wire.pile(deal.command_id, number, cards)
                if self._strikes(Fault.LONG_PILE, number == LONG_PILE):
                    body += b"\x00"  # one byte more than COUNT says: the host must refuse the frame
                self.emit(msg_type, body)
            else:
                self._emit(wire.unused(deal.command_id, deal.unused))
                self.dealing = None
                return
            deal.next_pile += 1
            deal.next_at += self.pile_interval

    def _abort(self, reason: FaultCode) -> None:
        deal, self.dealing = self.dealing, None
        self.order = None
        if deal is not None:
            self._emit(wire.deal_aborted(deal.command_id, deal.next_pile - 1, reason))

    def _strikes(self, fault: Fault, here: bool) -> bool:
        """True once: the scenario is on, this is the place, and it has not struck yet (first deal)."""
        return fault in self.faults and here and self.deals == 1 and self._once(fault)

    def _once(self, fault: Fault) -> bool:
        if fault in self._fired:
            return False
        self._fired.add(fault)
        return True

    def _emit(self, message: tuple[int, bytes]) -> int:
        return self.emit(*message)
