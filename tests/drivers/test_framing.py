"""Framing (docs/protocols/link.md, section 2): golden frames whole, in halves, byte by byte,
with garbage before and after, and with bad CRCs (pymodbus framer habit)."""

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import FrameError
from drivers.framing import (
    SYNC,
    CrcMismatchError,
    FalseSyncError,
    Frame,
    FrameDecoder,
    GarbageError,
    StaleFrameError,
    decode_frame,
    encode_frame,
)
from drivers.messages import plausible_header

# (seq, type, payload, frame) written from the document; the CRC of each is checked below
# against binascii.crc_hqx, independently of drivers.crc.
GOLDEN = [
    pytest.param(0x00, 0x04, b"", "A5 00 00 04 8C 18", id="heartbeat"),
    pytest.param(0x07, 0x02, bytes.fromhex("00000001"), "A5 04 07 02 00 00 00 01 AC EB", id="ack-1"),
    pytest.param(0x10, 0x03, bytes.fromhex("0103"), "A5 02 10 03 01 03 14 2A", id="nak-bad-crc"),
    pytest.param(
        0x00,
        0x01,
        bytes.fromhex("01 01 03 E8 12 34 56 78") + b"\x10table-controller" + b"\x00" + b"\x050.1.0",
        "A5 20 00 01 01 01 03 E8 12 34 56 78 10 74 61 62 6C 65 2D 63 6F 6E 74 72 6F 6C 6C 65 72"
        " 00 05 30 2E 31 2E 30 07 8F",
        id="host-hello",
    ),
    pytest.param(  # shuffler PILE 1 of command 2, event id 2 (docs/protocols/shuffler.md)
        0x04,
        0x22,
        bytes.fromhex("00000002 00000002 01 07") + b"7h5d9s4cTh4d2s",
        "A5 18 04 22 00 00 00 02 00 00 00 02 01 07 37 68 35 64 39 73 34 63 54 68 34 64 32 73 80 8C",
        id="shuffler-pile",
    ),
    pytest.param(0xFF, 0x13, bytes.fromhex("00000009"), "A5 04 FF 13 00 00 00 09 1F 16", id="status-request"),
]


def frame_bytes(text: str) -> bytes:
    return bytes.fromhex(text)


@pytest.mark.parametrize(("seq", "msg_type", "payload", "text"), GOLDEN)
def test_golden_frame_crc_is_right_by_an_independent_crc(seq, msg_type, payload, text):
    raw = frame_bytes(text)
    crc = binascii.crc_hqx(raw[1:-2], 0xFFFF)
    assert raw[-2:] == bytes((crc >> 8, crc & 0xFF))
    assert raw[0] == SYNC and raw[1] == len(payload) and raw[2] == seq and raw[3] == msg_type


@pytest.mark.parametrize(("seq", "msg_type", "payload", "text"), GOLDEN)
def test_encode_gives_the_golden_frame(seq, msg_type, payload, text):
    assert encode_frame(seq, msg_type, payload) == frame_bytes(text)


@pytest.mark.parametrize(("seq", "msg_type", "payload", "text"), GOLDEN)
def test_decode_whole_golden_frame(seq, msg_type, payload, text):
    raw = frame_bytes(text)
    assert decode_frame(raw) == (len(raw), Frame(seq, msg_type, payload, raw))


@pytest.mark.parametrize(("seq", "msg_type", "payload", "text"), GOLDEN)
def test_decode_needs_more_bytes_for_every_proper_prefix(seq, msg_type, payload, text):
    raw = frame_bytes(text)
    for cut in range(len(raw)):
        assert decode_frame(raw[:cut]) == (0, None)


@pytest.mark.parametrize(("seq", "msg_type", "payload", "text"), GOLDEN)
def test_decoder_fed_in_halves_and_byte_by_byte(seq, msg_type, payload, text):
    raw = frame_bytes(text)
    expected = [Frame(seq, msg_type, payload, raw)]
    halves = FrameDecoder()
    half = len(raw) // 2
    assert halves.feed(raw[:half]) == []
    assert halves.feed(raw[half:]) == expected
    single = FrameDecoder()
    got = [item for byte in raw for item in single.feed(bytes((byte,)))]
    assert got == expected
    assert single.pending == 0


def test_garbage_before_and_after_is_skipped_and_reported():
    raw = frame_bytes("A5 04 07 02 00 00 00 01 AC EB")
    before, after = b"\x00\x13\x37", b"\xde\xad"
    decoder = FrameDecoder()
    items = decoder.feed(before + raw + after)
    assert [type(item) for item in items] == [GarbageError, Frame, GarbageError]
    assert items[0].raw == before and items[1].raw == raw and items[2].raw == after
    assert decoder.pending == 0


def test_decode_frame_skips_garbage_then_decodes():
    raw = frame_bytes("A5 00 00 04 8C 18")
    buffer = b"xyz" + raw
    assert decode_frame(buffer) == (3, None)
    assert decode_frame(buffer[3:]) == (len(raw), Frame(0, 4, b"", raw))
    assert decode_frame(b"no sync here") == (12, None)
    assert decode_frame(b"") == (0, None)


def test_bad_crc_skips_only_the_sync_byte():
    good = frame_bytes("A5 00 00 04 8C 18")
    bad = good[:-1] + bytes((good[-1] ^ 0x01,))
    assert decode_frame(bad) == (1, None)
    items = FrameDecoder().feed(bad + good)
    assert [type(item) for item in items] == [CrcMismatchError, GarbageError, Frame]
    assert items[0].raw == bad  # the error carries the whole candidate frame
    assert items[2].raw == good


@pytest.mark.parametrize("position", range(1, 10))
def test_any_damaged_byte_is_refused_and_the_next_frame_still_decodes(position):
    good = frame_bytes("A5 04 07 02 00 00 00 01 AC EB")
    damaged = bytearray(good)
    damaged[position] ^= 0x40
    now = [0.0]
    decoder = FrameDecoder(stale_after=0.5, clock=lambda: now[0])
    items = decoder.feed(bytes(damaged) + good)
    now[0] = 1.0  # a damaged LEN byte makes the frame look longer: it goes stale
    items += decoder.expire()
    frames = [item for item in items if isinstance(item, Frame)]
    assert frames == [Frame(7, 2, bytes.fromhex("00000001"), good)]
    assert any(isinstance(item, FrameError) for item in items)


def test_frame_starting_inside_a_bad_frame_is_found():
    """Resync: the real frame begins inside the bytes of a false one."""
    good = frame_bytes("A5 00 00 04 8C 18")
    false_start = bytes((SYNC, 0x03, 0x00))  # claims 3 payload bytes, swallowing the real frame's start
    frames = [item for item in FrameDecoder().feed(false_start + good + good) if isinstance(item, Frame)]
    assert frames[-1].raw == good and len(frames) >= 1


def test_stale_partial_frame_is_given_up():
    now = [0.0]
    decoder = FrameDecoder(stale_after=0.5, clock=lambda: now[0])
    good = frame_bytes("A5 00 00 04 8C 18")
    assert decoder.feed(bytes((SYNC, 0xFF)) + good) == []  # a false SYNC claiming 255 bytes holds the stream
    now[0] = 0.4
    assert decoder.expire() == []
    now[0] = 0.6
    items = decoder.expire()
    assert isinstance(items[0], StaleFrameError)
    assert [item for item in items if isinstance(item, Frame)] == [Frame(0, 4, b"", good)]


def test_clear_forgets_a_partial_frame():
    decoder = FrameDecoder()
    decoder.feed(bytes.fromhex("A5 04 07"))
    decoder.clear()
    assert decoder.pending == 0


@pytest.mark.parametrize(
    ("seq", "msg_type", "payload"), [(256, 1, b""), (-1, 1, b""), (0, 256, b""), (0, 1, bytes(256))]
)
def test_encode_refuses_out_of_range_fields(seq, msg_type, payload):
    with pytest.raises(ValueError):
        encode_frame(seq, msg_type, payload)


def test_largest_frame_round_trips():
    raw = encode_frame(0xFF, 0x5F, bytes(range(255)))
    assert len(raw) == 261
    assert decode_frame(raw) == (261, Frame(0xFF, 0x5F, bytes(range(255)), raw))


frames = st.tuples(st.integers(0, 255), st.integers(1, 0x5F), st.binary(max_size=40))
garbage = st.binary(max_size=12).map(lambda b: b.replace(bytes((SYNC,)), b""))


@settings(max_examples=150)
@given(st.lists(st.tuples(garbage, frames), max_size=6), garbage, st.data())
def test_any_stream_of_frames_and_garbage_decodes_in_order(pieces, tail, data):
    stream = b"".join(junk + encode_frame(*frame) for junk, frame in pieces) + tail
    decoder = FrameDecoder()
    got = []
    position = 0
    while position < len(stream):  # fed in random-sized chunks
        size = data.draw(st.integers(1, 50))
        got += [item for item in decoder.feed(stream[position : position + size]) if isinstance(item, Frame)]
        position += size
    assert [(f.seq, f.msg_type, f.payload) for f in got] == [frame for _, frame in pieces]


# -- resync on impossible headers (link.md 2.3) -------------------------------------------------------


HEARTBEAT = frame_bytes("A5 00 00 04 8C 18")


@pytest.mark.parametrize(
    "header",
    [
        "A5 07 A5 00",  # type 0x00: unassigned
        "A5 00 13 A5",  # type 0xA5: reserved
        "A5 01 FF 33",  # type 0x33: unassigned in the shuffler's range
        "A5 A5 18 04",  # a HEARTBEAT claiming 165 payload bytes (it has none)
        "A5 07 00 02",  # an ACK claiming 7 bytes (it has 4)
    ],
)
def test_a_sync_byte_with_an_impossible_header_is_skipped_at_once_without_waiting(header):
    decoder = FrameDecoder(stale_after=0.5, clock=lambda: 0.0, header_ok=plausible_header)
    items = decoder.feed(frame_bytes(header))
    assert items and isinstance(items[0], FalseSyncError) and items[0].raw == b"\xa5"
    assert decoder.feed(HEARTBEAT)[-1] == Frame(0, 4, b"", HEARTBEAT)  # no clock needed


def test_a_partial_frame_is_given_up_when_a_whole_valid_frame_arrives_inside_it():
    decoder = FrameDecoder(stale_after=0.5, clock=lambda: 0.0, header_ok=plausible_header)
    items = decoder.feed(bytes.fromhex("A5 A5 18 01") + HEARTBEAT)  # a HELLO claiming 165 bytes
    assert [item for item in items if isinstance(item, Frame)] == [Frame(0, 4, b"", HEARTBEAT)]
    assert not any(isinstance(item, CrcMismatchError) for item in items)  # noise, nothing to NAK


def test_the_stale_clock_starts_when_the_sync_byte_arrives_so_a_burst_stalls_once():
    now = [0.0]
    decoder = FrameDecoder(stale_after=0.5, clock=lambda: now[0], header_ok=plausible_header)
    # two false SYNCs of one burst, each a plausible HELLO header claiming 255 bytes
    assert decoder.feed(bytes.fromhex("A5 FF 00 01 A5 FF 00 01")) == []
    now[0] = 0.3
    assert decoder.feed(bytes.fromhex("00")) == []  # more bytes do not restart the clock
    now[0] = 0.6
    items = decoder.expire()  # both went stale together: the second does not wait 0.5 s more
    assert sum(isinstance(item, StaleFrameError) for item in items) == 2
    assert decoder.pending == 0
