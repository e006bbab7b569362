"""The device side of the shuffler's bytes (docs/protocols/shuffler.md), written from the document.

Independent of ``drivers/shuffler/codec.py``: only the message-type numbers are shared.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence

from drivers.shuffler.msgtypes import ShufflerMsg

UNREADABLE = "??"


class FaultCode(enum.IntEnum):
    DOOR_OPEN = 0x01
    JAM = 0x02
    CARD_UNREADABLE = 0x03
    WRONG_CARD_COUNT = 0x04
    DECK_NOT_PRESENT = 0x05


#: bits of the STATUS fault byte (CARD_UNREADABLE is an incident, not a standing condition)
FAULT_BIT = {
    FaultCode.DOOR_OPEN: 0x01,
    FaultCode.JAM: 0x02,
    FaultCode.DECK_NOT_PRESENT: 0x04,
    FaultCode.WRONG_CARD_COUNT: 0x08,
}


class Reject(enum.IntEnum):
    BUSY = 0x01
    NOT_SHUFFLED = 0x02
    BAD_ARGUMENT = 0x03
    UNKNOWN_COMMAND = 0x04
    DOOR_OPEN = 0x05
    JAM = 0x06
    DECK_NOT_PRESENT = 0x07
    WRONG_CARD_COUNT = 0x08


class State(enum.IntEnum):
    IDLE = 0x00
    READY = 0x01
    DEALING = 0x02
    FAULT = 0x03


def cards(codes: Sequence[str]) -> bytes:
    out = b"".join(code.encode("ascii") for code in codes)
    assert len(out) == 2 * len(codes), codes
    return out


def status(command_id: int, state: State, faults: int, count: int) -> tuple[int, bytes]:
    return ShufflerMsg.STATUS, struct.pack(">IBBB", command_id, state, faults, count)


def shuffled(command_id: int, counted: int) -> tuple[int, bytes]:
    return ShufflerMsg.SHUFFLED, struct.pack(">IB", command_id, counted)


def pile(command_id: int, number: int, codes: Sequence[str]) -> tuple[int, bytes]:
    return ShufflerMsg.PILE, struct.pack(">IBB", command_id, number, len(codes)) + cards(codes)


def unused(command_id: int, codes: Sequence[str]) -> tuple[int, bytes]:
    return ShufflerMsg.UNUSED_CARDS, struct.pack(">IB", command_id, len(codes)) + cards(codes)


def deal_aborted(command_id: int, piles: int, reason: FaultCode) -> tuple[int, bytes]:
    return ShufflerMsg.DEAL_ABORTED, struct.pack(">IBB", command_id, piles, reason)


def deck_checked(
    command_id: int,
    deck_size: int,
    scanned: int,
    unreadable: int,
    missing: Sequence[str],
    duplicated: Sequence[tuple[str, int]],
) -> tuple[int, bytes]:
    body = struct.pack(">IBBBB", command_id, deck_size, scanned, unreadable, len(missing)) + cards(missing)
    body += bytes((len(duplicated),)) + b"".join(cards([code]) + bytes((seen,)) for code, seen in duplicated)
    return ShufflerMsg.DECK_CHECKED, body


def fault(
    code: FaultCode, *, pile: int = 0, position: int = 0, counted: int = 0, expected: int = 0
) -> tuple[int, bytes]:
    return ShufflerMsg.FAULT, bytes((code, pile, position, counted, expected))


def fault_cleared(code: FaultCode) -> tuple[int, bytes]:
    return ShufflerMsg.FAULT_CLEARED, bytes((code,))


def rejected(command_id: int, reason: Reject) -> tuple[int, bytes]:
    return ShufflerMsg.COMMAND_REJECTED, struct.pack(">IB", command_id, reason)
