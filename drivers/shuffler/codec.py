"""The shuffler codec: commands to bytes, event bytes to typed events (docs/protocols/shuffler.md).

Pure functions. Card codes are checked here with the codec's own small rule (rank
``23456789TJQKA`` + suit ``shdc``, or ``JK``; ``??`` for an unreadable card where the
document allows it): drivers know nothing of the game. Anything else is a ProtocolError
carrying the raw frame.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeVar, overload

from ..base import CommandRejected, DriverEvent, FaultCleared
from ..errors import ProtocolError
from ..messages import PayloadReader
from .events import (
    DealAborted,
    DeckChecked,
    FaultKind,
    PileRead,
    RejectReason,
    Shuffled,
    ShufflerFault,
    ShufflerState,
    ShufflerStatus,
    UnusedCards,
)
from .msgtypes import ShufflerMsg

DEVICE: Final = "shuffler"
RANKS: Final = "23456789TJQKA"
SUITS: Final = "shdc"
JOKER: Final = "JK"
UNREADABLE: Final = "??"
DECK_SIZES: Final = (53, 54)
PILES: Final = 7
CARDS_PER_PILE: Final = 7

FAULT_CODES: Final = MappingProxyType(
    {
        0x01: FaultKind.DOOR_OPEN,
        0x02: FaultKind.JAM,
        0x03: FaultKind.CARD_UNREADABLE,
        0x04: FaultKind.WRONG_CARD_COUNT,
        0x05: FaultKind.DECK_NOT_PRESENT,
    }
)
FAULT_BITS: Final = MappingProxyType(
    {
        0x01: FaultKind.DOOR_OPEN,
        0x02: FaultKind.JAM,
        0x04: FaultKind.DECK_NOT_PRESENT,
        0x08: FaultKind.WRONG_CARD_COUNT,
    }
)
REJECT_CODES: Final = MappingProxyType(
    {
        0x01: RejectReason.BUSY,
        0x02: RejectReason.NOT_SHUFFLED,
        0x03: RejectReason.BAD_ARGUMENT,
        0x04: RejectReason.UNKNOWN_COMMAND,
        0x05: RejectReason.DOOR_OPEN,
        0x06: RejectReason.JAM,
        0x07: RejectReason.DECK_NOT_PRESENT,
        0x08: RejectReason.WRONG_CARD_COUNT,
    }
)
STATE_CODES: Final = MappingProxyType(
    {
        0x00: ShufflerState.IDLE,
        0x01: ShufflerState.READY,
        0x02: ShufflerState.DEALING,
        0x03: ShufflerState.FAULT,
    }
)


def is_card_code(code: str) -> bool:
    """True for a two-character card code: rank + suit, or ``JK``."""
    return code == JOKER or (len(code) == 2 and code[0] in RANKS and code[1] in SUITS)


# -- commands ---------------------------------------------------------------------------------------


def _deck_size(deck_size: int) -> bytes:
    if deck_size not in DECK_SIZES:
        raise ValueError(f"deck size {deck_size!r}: the shuffler takes 53 or 54 cards")
    return bytes((deck_size,))


def encode_shuffle(deck_size: int) -> bytes:
    """SHUFFLE body: the deck size the machine must count (53 standard, 54 Double Joker)."""
    return _deck_size(deck_size)


def encode_deal() -> bytes:
    return b""


def encode_deck_check(deck_size: int) -> bytes:
    return _deck_size(deck_size)


def encode_status_request() -> bytes:
    return b""


# -- events -----------------------------------------------------------------------------------------


@overload
def _card(reader: PayloadReader, *, unreadable_allowed: Literal[False]) -> str: ...
@overload
def _card(reader: PayloadReader, *, unreadable_allowed: bool) -> str | None: ...
def _card(reader: PayloadReader, *, unreadable_allowed: bool) -> str | None:
    data = reader.take(2)
    code = data.decode("ascii", errors="replace")
    if code == UNREADABLE and unreadable_allowed:
        return None
    if not is_card_code(code):
        raise reader.error(f"unknown card code {data!r}")
    return code


@overload
def _cards(reader: PayloadReader, count: int, *, unreadable_allowed: Literal[False]) -> tuple[str, ...]: ...
@overload
def _cards(reader: PayloadReader, count: int, *, unreadable_allowed: bool) -> tuple[str | None, ...]: ...
def _cards(reader: PayloadReader, count: int, *, unreadable_allowed: bool) -> tuple[str | None, ...]:
    return tuple(_card(reader, unreadable_allowed=unreadable_allowed) for _ in range(count))


_V = TypeVar("_V")


def _lookup(table: Mapping[int, _V], code: int, what: str, reader: PayloadReader) -> _V:
    try:
        return table[code]
    except KeyError:
        raise reader.error(f"unknown {what} 0x{code:02X}") from None


def _optional(value: int) -> int | None:
    return value or None


def _status(r: PayloadReader, event_id: int) -> ShufflerStatus:
    command_id, state, bits, cards = r.u32(), r.u8(), r.u8(), r.u8()
    unknown = bits & ~sum(FAULT_BITS)
    if unknown:
        raise r.error(f"unknown fault bits 0x{unknown:02X}")
    faults = frozenset(kind for bit, kind in FAULT_BITS.items() if bits & bit)
    return ShufflerStatus(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id,
        state=_lookup(STATE_CODES, state, "state", r),
        faults=faults,
        cards=cards,
    )


def _shuffled(r: PayloadReader, event_id: int) -> Shuffled:
    return Shuffled(device=DEVICE, event_id=event_id, command_id=r.u32(), cards_counted=r.u8())


def _pile(r: PayloadReader, event_id: int) -> PileRead:
    command_id, pile, count = r.u32(), r.u8(), r.u8()
    if not 1 <= pile <= PILES:
        raise r.error(f"pile {pile} out of 1..{PILES}")
    if count > CARDS_PER_PILE:
        raise r.error(f"{count} cards in pile {pile}, at most {CARDS_PER_PILE}")
    cards = _cards(r, count, unreadable_allowed=True)
    return PileRead(device=DEVICE, event_id=event_id, command_id=command_id, pile=pile, cards=cards)


def _unused(r: PayloadReader, event_id: int) -> UnusedCards:
    command_id, count = r.u32(), r.u8()
    return UnusedCards(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id,
        cards=_cards(r, count, unreadable_allowed=True),
    )


def _aborted(r: PayloadReader, event_id: int) -> DealAborted:
    command_id, piles, reason = r.u32(), r.u8(), r.u8()
    if piles > PILES:
        raise r.error(f"{piles} piles dealt, at most {PILES}")
    return DealAborted(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id,
        piles_dealt=piles,
        reason=_lookup(FAULT_CODES, reason, "fault", r),
    )


def _deck_checked(r: PayloadReader, event_id: int) -> DeckChecked:
    command_id, deck_size, scanned, unreadable = r.u32(), r.u8(), r.u8(), r.u8()
    missing = _cards(r, r.u8(), unreadable_allowed=False)
    duplicated: list[tuple[str, int]] = []
    for _ in range(r.u8()):
        code = _card(r, unreadable_allowed=False)
        seen = r.u8()
        if seen < 2:
            raise r.error(f"card {code} listed as duplicated but seen {seen} time(s)")
        duplicated.append((code, seen))
    return DeckChecked(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id,
        deck_size=deck_size,
        scanned=scanned,
        unreadable=unreadable,
        missing=missing,
        duplicated=tuple(duplicated),
    )


def _fault(r: PayloadReader, event_id: int) -> ShufflerFault:
    kind = _lookup(FAULT_CODES, r.u8(), "fault", r)
    pile, position, counted, expected = r.u8(), r.u8(), r.u8(), r.u8()
    return ShufflerFault(
        device=DEVICE,
        event_id=event_id,
        kind=kind,
        pile=_optional(pile),
        position=_optional(position),
        counted=_optional(counted),
        expected=_optional(expected),
    )


def _fault_cleared(r: PayloadReader, event_id: int) -> FaultCleared:
    return FaultCleared(device=DEVICE, event_id=event_id, kind=_lookup(FAULT_CODES, r.u8(), "fault", r))


def _rejected(r: PayloadReader, event_id: int) -> CommandRejected:
    command_id, reason = r.u32(), r.u8()
    return CommandRejected(
        device=DEVICE,
        event_id=event_id,
        command_id=command_id,
        reason=_lookup(REJECT_CODES, reason, "reject reason", r),
    )


_DECODERS: Final[dict[int, Callable[[PayloadReader, int], DriverEvent]]] = {
    ShufflerMsg.STATUS: _status,
    ShufflerMsg.SHUFFLED: _shuffled,
    ShufflerMsg.PILE: _pile,
    ShufflerMsg.UNUSED_CARDS: _unused,
    ShufflerMsg.DEAL_ABORTED: _aborted,
    ShufflerMsg.DECK_CHECKED: _deck_checked,
    ShufflerMsg.FAULT: _fault,
    ShufflerMsg.FAULT_CLEARED: _fault_cleared,
    ShufflerMsg.COMMAND_REJECTED: _rejected,
}


def decode_event(msg_type: int, event_id: int, body: bytes, *, raw: bytes | None = None) -> DriverEvent:
    """One shuffler event from its message type, id and body; ProtocolError (with raw) if bad."""
    decoder = _DECODERS.get(msg_type)
    if decoder is None:
        raise ProtocolError(f"message type 0x{msg_type:02X} is not a shuffler event", raw=raw)
    name = ShufflerMsg(msg_type).name
    reader = PayloadReader(body, raw=raw, what=name)
    event = decoder(reader, event_id)
    reader.end()
    return event
