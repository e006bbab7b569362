"""The dice shaker codec against the golden frames of docs/protocols/dice-shaker.md, section 5.

Expected values are read off the document's byte layouts (section 2), not off the codec.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.dice_shaker import codec
from drivers.dice_shaker.codec import DiceMsg
from drivers.dice_shaker.events import (
    DiceFault,
    DiceFaultCleared,
    DiceFaultKind,
    DiceRead,
    DiceStatus,
    RefusalReason,
    ShakeRefused,
)
from drivers.errors import ProtocolError
from drivers.framing import decode_frame, encode_frame
from drivers.messages import encode_reliable, split_reliable

GOLDEN = {
    "shake_6": "A5 04 0A 40 00 00 00 06 C7 A4",
    "fault_cocked": "A5 0E 22 51 00 00 00 02 03 02 00 00 04 11 00 00 00 06 F1 C5",
    "shake_7": "A5 04 0C 40 00 00 00 07 5A 64",
    "cleared_cocked": "A5 05 24 52 00 00 00 03 03 48 54",
    "roll_1042": "A5 0F 25 50 00 00 00 04 00 00 04 12 00 00 00 07 03 05 06 30 3C",
    "refused_cover": "A5 09 26 53 00 00 00 05 00 00 00 08 01 4A 60",
    "status_cover": "A5 0D 20 54 00 00 00 01 00 00 00 00 01 00 00 04 12 E5 23",
    "status_request_9": "A5 04 0F 41 00 00 00 09 DF 1B",
    "fault_tamper": "A5 0E 27 51 00 00 00 06 04 00 00 00 00 00 00 00 00 00 9A 85",
    "bad_face_7": "A5 0F 25 50 00 00 00 04 00 00 04 12 00 00 00 07 03 07 06 56 5E",
}


def golden(name: str) -> bytes:
    return bytes.fromhex(GOLDEN[name])


def decode_golden(name: str):
    raw = golden(name)
    consumed, frame = decode_frame(raw)
    assert consumed == len(raw) and frame is not None, "the golden frame's CRC must check"
    msg_id, body = split_reliable(frame.payload, raw=frame.raw)
    return codec.decode(frame.msg_type, msg_id, body, raw=frame.raw)


def device_frame(msg_type: int, body: bytes, msg_id: int = 4, seq: int = 0x25) -> bytes:
    return encode_frame(seq, msg_type, encode_reliable(msg_id, body))


def decode_raw(raw: bytes):
    _, frame = decode_frame(raw)
    msg_id, body = split_reliable(frame.payload, raw=frame.raw)
    return codec.decode(frame.msg_type, msg_id, body, raw=frame.raw)


# -- commands out ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "msg_type", "encode", "msg_id", "seq"),
    [
        ("shake_6", DiceMsg.SHAKE, codec.encode_shake, 6, 0x0A),
        ("shake_7", DiceMsg.SHAKE, codec.encode_shake, 7, 0x0C),
        ("status_request_9", DiceMsg.STATUS_REQUEST, codec.encode_status_request, 9, 0x0F),
    ],
)
def test_commands_encode_to_the_documented_frames(name, msg_type, encode, msg_id, seq):
    assert encode_frame(seq, msg_type, encode_reliable(msg_id, encode())) == golden(name)


def test_message_types_are_in_the_dice_range_and_split_by_direction():
    assert [int(t) for t in DiceMsg] == [0x40, 0x41, 0x50, 0x51, 0x52, 0x53, 0x54]
    assert all(0x40 <= t <= 0x4F for t in codec.HOST_TO_DEVICE)
    assert all(0x50 <= t <= 0x5F for t in set(DiceMsg) - codec.HOST_TO_DEVICE)


# -- device events in: the golden frames ------------------------------------------------------


def test_roll_golden_frame():
    assert decode_golden("roll_1042") == DiceRead(
        device="dice-shaker", event_id=4, roll_id=1042, command_id=7, faces=(3, 5, 6)
    )
    assert decode_golden("roll_1042").total == 14


def test_cocked_die_golden_frame_names_the_die_and_the_void_attempt():
    event = decode_golden("fault_cocked")
    assert event == DiceFault(
        device="dice-shaker", event_id=2, kind="die_cocked", die=2, roll_id=1041, command_id=6
    )
    assert event.fault is DiceFaultKind.DIE_COCKED and event.needs_reshake


def test_fault_cleared_golden_frame():
    event = decode_golden("cleared_cocked")
    assert event == DiceFaultCleared(device="dice-shaker", event_id=3, kind="die_cocked")
    assert event.fault is DiceFaultKind.DIE_COCKED


def test_shake_refused_golden_frame():
    event = decode_golden("refused_cover")
    assert event == ShakeRefused(device="dice-shaker", event_id=5, command_id=8, reason="cover_open")
    assert event.refusal is RefusalReason.COVER_OPEN


def test_status_golden_frame():
    assert decode_golden("status_cover") == DiceStatus(
        device="dice-shaker",
        event_id=1,
        command_id=None,
        cover_open=True,
        tamper=False,
        reshake_needed=False,
        shaking=False,
        last_roll_id=1042,
    )


def test_tamper_golden_frame_has_no_die_and_no_shake():
    event = decode_golden("fault_tamper")
    assert event == DiceFault(
        device="dice-shaker", event_id=6, kind="tamper", die=None, roll_id=None, command_id=None
    )
    assert not event.needs_reshake


def test_a_face_of_seven_is_a_protocol_error_carrying_the_raw_frame():
    with pytest.raises(ProtocolError, match="die 2 shows 7") as info:
        decode_golden("bad_face_7")
    assert info.value.raw == golden("bad_face_7")


# -- every field checked ----------------------------------------------------------------------


@pytest.mark.parametrize("faces", [(0, 1, 1), (1, 7, 1), (1, 1, 255), (0, 0, 0)])
def test_faces_outside_one_to_six_are_refused(faces):
    raw = device_frame(DiceMsg.ROLL, struct.pack(">IIBBB", 9, 3, *faces))
    with pytest.raises(ProtocolError) as info:
        decode_raw(raw)
    assert info.value.raw == raw


@settings(max_examples=60)
@given(
    roll_id=st.integers(1, 2**32 - 1),
    command_id=st.integers(1, 2**32 - 1),
    faces=st.tuples(*[st.integers(1, 6)] * 3),
)
def test_any_valid_roll_decodes_to_its_fields(roll_id, command_id, faces):
    event = decode_raw(device_frame(DiceMsg.ROLL, struct.pack(">IIBBB", roll_id, command_id, *faces)))
    assert (event.roll_id, event.command_id, event.faces) == (roll_id, command_id, faces)


@pytest.mark.parametrize(
    ("msg_type", "body", "message"),
    [
        (DiceMsg.ROLL, struct.pack(">IIBBB", 0, 3, 1, 2, 3), "roll id 0"),
        (DiceMsg.ROLL, struct.pack(">IIBBB", 5, 0, 1, 2, 3), "shake command id 0"),
        (DiceMsg.ROLL, struct.pack(">IIBB", 5, 3, 1, 2), "needs 1 more bytes"),
        (DiceMsg.ROLL, struct.pack(">IIBBBB", 5, 3, 1, 2, 3, 4), "1 unexpected trailing bytes"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x05, 0, 0, 0), "unknown fault code 0x05"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x00, 0, 0, 0), "unknown fault code 0x00"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x03, 0, 7, 2), "names die 0, expected 1..3"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x02, 4, 7, 2), "names die 4, expected 1..3"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x03, 1, 0, 2), "die_cocked roll id 0"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x02, 1, 7, 0), "die_unreadable shake command id 0"),
        (DiceMsg.FAULT, struct.pack(">BBII", 0x01, 2, 0, 0), "cover_open names die 2, expected 0"),
        (DiceMsg.FAULT, struct.pack(">BBI", 0x04, 0, 0), "needs 4 more bytes"),
        (DiceMsg.FAULT_CLEARED, bytes((0x09,)), "unknown fault code 0x09"),
        (DiceMsg.FAULT_CLEARED, b"", "needs 1 more bytes"),
        (DiceMsg.SHAKE_REFUSED, struct.pack(">IB", 8, 0x02), "unknown refusal reason 0x02"),
        (DiceMsg.SHAKE_REFUSED, struct.pack(">IB", 0, 0x01), "shake command id 0"),
        (DiceMsg.STATUS, struct.pack(">IBI", 0, 0x10, 3), "reserved bits"),
        (DiceMsg.STATUS, struct.pack(">IB", 0, 0), "needs 4 more bytes"),
        (DiceMsg.SHAKE, b"", "goes host to device"),
        (DiceMsg.STATUS_REQUEST, b"", "goes host to device"),
        (0x5F, b"", "unknown dice shaker message type 0x5F"),
        (0x10, b"", "unknown dice shaker message type 0x10"),
    ],
)
def test_bad_bodies_are_protocol_errors_with_the_raw_frame(msg_type, body, message):
    raw = device_frame(msg_type, body)
    with pytest.raises(ProtocolError, match=message) as info:
        decode_raw(raw)
    assert info.value.raw == raw


@pytest.mark.parametrize(
    ("code", "kind"),
    [(0x01, "cover_open"), (0x02, "die_unreadable"), (0x03, "die_cocked"), (0x04, "tamper")],
)
def test_fault_code_table(code, kind):
    die = 3 if kind.startswith("die") else 0
    event = decode_raw(device_frame(DiceMsg.FAULT, struct.pack(">BBII", code, die, 11, 12)))
    assert event.kind == kind
    assert event.needs_reshake is kind.startswith("die")
    cleared = decode_raw(device_frame(DiceMsg.FAULT_CLEARED, bytes((code,))))
    assert cleared.kind == kind


def test_cover_opened_mid_shake_names_the_void_attempt():
    event = decode_raw(device_frame(DiceMsg.FAULT, struct.pack(">BBII", 0x01, 0, 11, 12)))
    assert (event.kind, event.die, event.roll_id, event.command_id) == ("cover_open", None, 11, 12)


@pytest.mark.parametrize(("code", "reason"), [(0x01, "cover_open"), (0x04, "tamper"), (0x80, "busy")])
def test_refusal_reason_table(code, reason):
    assert decode_raw(device_frame(DiceMsg.SHAKE_REFUSED, struct.pack(">IB", 8, code))).reason == reason


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (0x00, (False, False, False, False)),
        (0x01, (True, False, False, False)),
        (0x02, (False, True, False, False)),
        (0x04, (False, False, True, False)),
        (0x08, (False, False, False, True)),
        (0x0F, (True, True, True, True)),
    ],
)
def test_status_flag_bits(flags, expected):
    event = decode_raw(device_frame(DiceMsg.STATUS, struct.pack(">IBI", 17, flags, 0)))
    assert (event.cover_open, event.tamper, event.reshake_needed, event.shaking) == expected
    assert (event.command_id, event.last_roll_id) == (17, None)


def test_events_are_frozen():
    event = decode_golden("roll_1042")
    with pytest.raises(AttributeError):
        event.faces = (1, 1, 1)  # type: ignore[misc]
