"""CRC-16/IBM-3740 (also called CRC-16/CCITT-FALSE), a pure function.

Parameters, in the Rocksoft/Williams model used by the CRC catalogue:
width 16, poly 0x1021, init 0xFFFF, refin false, refout false, xorout 0x0000,
check (CRC of ASCII ``123456789``) 0x29B1, residue 0x0000.

Chosen over CRC-16/KERMIT (init 0, used by SAS and ID-003) because a non-zero initial value
also detects leading zero bytes. The frame carries it big-endian (docs/protocols/link.md).
"""

from __future__ import annotations

from typing import Final

POLY: Final = 0x1021
INIT: Final = 0xFFFF
CHECK: Final = 0x29B1  # crc16(b"123456789")


def _table() -> tuple[int, ...]:
    rows = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLY) if crc & 0x8000 else (crc << 1)
        rows.append(crc & 0xFFFF)
    return tuple(rows)


_TABLE: Final = _table()


def crc16(data: bytes | bytearray | memoryview, crc: int = INIT) -> int:
    """CRC-16/IBM-3740 of ``data``; pass a previous result as ``crc`` to continue over chunks."""
    table = _TABLE
    for byte in bytes(data):
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc
