"""CRC-16/IBM-3740 (docs/protocols/link.md, 2.1): check value, test vectors, independent oracles."""

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.crc import CHECK, crc16


def bitwise_crc(data: bytes) -> int:
    """The textbook bit-at-a-time CRC: poly 0x1021, init 0xFFFF, no reflection, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def test_catalogue_check_value_of_123456789_is_29b1():
    assert CHECK == 0x29B1
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"123456789", 0x29B1),
        (b"", 0xFFFF),  # the initial value, untouched
        (b"A", 0xB915),
        (bytes.fromhex("000004"), 0x8C18),  # LEN SEQ TYPE of a heartbeat with seq 0
        (bytes.fromhex("00000000"), 0x84C0),
        (bytes.fromhex("FFFFFFFF"), 0x1D0F),
    ],
)
def test_documented_test_vectors(data, expected):
    assert crc16(data) == expected
    assert binascii.crc_hqx(data, 0xFFFF) == expected


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_table_driven_crc_equals_bitwise_and_binascii(data):
    assert crc16(data) == bitwise_crc(data) == binascii.crc_hqx(data, 0xFFFF)


@settings(max_examples=100)
@given(st.binary(max_size=100), st.binary(max_size=100))
def test_crc_continues_over_chunks(head, tail):
    assert crc16(tail, crc16(head)) == crc16(head + tail)


def test_leading_zero_bytes_change_the_crc():
    """Why not CRC-16/KERMIT: with init 0xFFFF a zero byte added in front is detected."""
    assert crc16(b"\x00" + b"123456789") != crc16(b"123456789")


@settings(max_examples=100)
@given(st.binary(min_size=1, max_size=64), st.data())
def test_every_single_bit_error_is_detected(data, draw):
    bit = draw.draw(st.integers(0, len(data) * 8 - 1))
    damaged = bytearray(data)
    damaged[bit // 8] ^= 1 << (bit % 8)
    assert crc16(bytes(damaged)) != crc16(data)
