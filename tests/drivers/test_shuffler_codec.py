"""The shuffler codec against the golden frames of docs/protocols/shuffler.md, section 7."""

import binascii

import pytest

from drivers.base import CommandRejected, FaultCleared
from drivers.errors import ProtocolError
from drivers.framing import decode_frame, encode_frame
from drivers.messages import split_reliable
from drivers.shuffler import codec
from drivers.shuffler.events import (
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
from drivers.shuffler.msgtypes import ShufflerMsg

S = "shuffler"

COMMANDS = [
    pytest.param(
        1, 1, ShufflerMsg.SHUFFLE, codec.encode_shuffle(53), "A5 05 01 10 00 00 00 01 35 8E A2", id="shuffle"
    ),
    pytest.param(2, 2, ShufflerMsg.DEAL, codec.encode_deal(), "A5 04 02 11 00 00 00 02 35 01", id="deal"),
    pytest.param(
        3,
        3,
        ShufflerMsg.DECK_CHECK,
        codec.encode_deck_check(54),
        "A5 05 03 12 00 00 00 03 36 33 00",
        id="deck-check",
    ),
    pytest.param(
        4,
        4,
        ShufflerMsg.STATUS_REQUEST,
        codec.encode_status_request(),
        "A5 04 04 13 00 00 00 04 9C A5",
        id="status-request",
    ),
]

EVENTS = [
    pytest.param(
        "A5 0B 05 20 00 00 00 05 00 00 00 04 01 00 35 32 45",
        ShufflerStatus(
            device=S, event_id=5, command_id=4, state=ShufflerState.READY, faults=frozenset(), cards=53
        ),
        id="status",
    ),
    pytest.param(
        "A5 09 02 21 00 00 00 01 00 00 00 01 35 7A B8",
        Shuffled(device=S, event_id=1, command_id=1, cards_counted=53),
        id="shuffled",
    ),
    pytest.param(
        "A5 18 04 22 00 00 00 02 00 00 00 02 01 07 37 68 35 64 39 73 34 63 54 68 34 64 32 73 80 8C",
        PileRead(
            device=S, event_id=2, command_id=2, pile=1, cards=("7h", "5d", "9s", "4c", "Th", "4d", "2s")
        ),
        id="pile",
    ),
    pytest.param(
        "A5 18 06 22 00 00 00 03 00 00 00 02 02 07 51 73 41 64 36 73 3F 3F 36 68 34 73 4A 63 AA 64",
        PileRead(
            device=S, event_id=3, command_id=2, pile=2, cards=("Qs", "Ad", "6s", None, "6h", "4s", "Jc")
        ),
        id="pile-unreadable",
    ),
    pytest.param(
        "A5 11 0C 23 00 00 00 09 00 00 00 02 04 51 68 38 68 34 68 37 73 C4 A0",
        UnusedCards(device=S, event_id=9, command_id=2, cards=("Qh", "8h", "4h", "7s")),
        id="unused",
    ),
    pytest.param(
        "A5 0A 07 24 00 00 00 06 00 00 00 02 03 02 E0 B2",
        DealAborted(device=S, event_id=6, command_id=2, piles_dealt=3, reason=FaultKind.JAM),
        id="aborted",
    ),
    pytest.param(
        "A5 12 08 25 00 00 00 07 00 00 00 03 35 35 00 01 33 64 01 4A 4B 02 31 E9",
        DeckChecked(
            device=S,
            event_id=7,
            command_id=3,
            deck_size=53,
            scanned=53,
            unreadable=0,
            missing=("3d",),
            duplicated=(("JK", 2),),
        ),
        id="deck-checked",
    ),
    pytest.param(
        "A5 09 09 26 00 00 00 08 03 02 04 00 00 7E 69",
        ShufflerFault(device=S, event_id=8, kind=FaultKind.CARD_UNREADABLE, pile=2, position=4),
        id="fault-unreadable",
    ),
    pytest.param(
        "A5 09 09 26 00 00 00 08 04 00 00 34 35 87 B2",
        ShufflerFault(device=S, event_id=8, kind=FaultKind.WRONG_CARD_COUNT, counted=52, expected=53),
        id="fault-count",
    ),
    pytest.param(
        "A5 05 0A 27 00 00 00 0A 02 B8 0E",
        FaultCleared(device=S, event_id=10, kind=FaultKind.JAM),
        id="fault-cleared",
    ),
    pytest.param(
        "A5 09 0B 28 00 00 00 0B 00 00 00 05 05 59 E4",
        CommandRejected(device=S, event_id=11, command_id=5, reason=RejectReason.DOOR_OPEN),
        id="rejected",
    ),
]


def body_of(text: str):
    raw = bytes.fromhex(text)
    crc = binascii.crc_hqx(raw[1:-2], 0xFFFF)  # independent check of the document's frame
    assert raw[-2:] == crc.to_bytes(2, "big")
    consumed, frame = decode_frame(raw)
    assert consumed == len(raw) and frame is not None
    msg_id, body = split_reliable(frame.payload, raw=frame.raw)
    return frame, msg_id, body


@pytest.mark.parametrize(("seq", "msg_id", "msg_type", "body", "text"), COMMANDS)
def test_commands_give_the_golden_frames(seq, msg_id, msg_type, body, text):
    assert encode_frame(seq, msg_type, msg_id.to_bytes(4, "big") + body) == bytes.fromhex(text)


@pytest.mark.parametrize(("text", "expected"), EVENTS)
def test_golden_event_frames_decode_to_typed_events(text, expected):
    frame, msg_id, body = body_of(text)
    assert codec.decode_event(frame.msg_type, msg_id, body, raw=frame.raw) == expected


def test_unreadable_positions_and_deck_check_completeness():
    pile = PileRead(
        device=S, event_id=1, command_id=1, pile=2, cards=("Qs", None, "6s", None, "6h", "4s", "Jc")
    )
    assert pile.unreadable == (2, 4)
    full = DeckChecked(
        device=S, event_id=1, command_id=1, deck_size=53, scanned=53, unreadable=0, missing=(), duplicated=()
    )
    assert full.complete
    assert not DeckChecked(
        device=S,
        event_id=1,
        command_id=1,
        deck_size=53,
        scanned=53,
        unreadable=0,
        missing=("3d",),
        duplicated=(("JK", 2),),
    ).complete


@pytest.mark.parametrize("deck_size", [52, 55, 0, "53"])
def test_deck_size_must_be_53_or_54(deck_size):
    with pytest.raises(ValueError):
        codec.encode_shuffle(deck_size)
    with pytest.raises(ValueError):
        codec.encode_deck_check(deck_size)


@pytest.mark.parametrize("code", [b"1s", b"Ax", b"as", b"AS", b"jk", b"10", b"\xff\xfe", b"XX", b"J "])
def test_unknown_card_code_is_a_protocol_error_with_the_raw_frame(code):
    body = bytes.fromhex("00000002 01 07") + b"7h5d9s4c" + code + b"4d2s"
    raw = encode_frame(4, ShufflerMsg.PILE, bytes.fromhex("00000002") + body)
    with pytest.raises(ProtocolError) as info:
        codec.decode_event(ShufflerMsg.PILE, 2, body, raw=raw)
    assert info.value.raw == raw
    assert "unknown card code" in str(info.value)


def test_unreadable_marker_is_refused_in_a_deck_check_list():
    body = bytes.fromhex("00000003 35 35 00 01") + b"??" + b"\x00"
    with pytest.raises(ProtocolError):
        codec.decode_event(ShufflerMsg.DECK_CHECKED, 7, body)


@pytest.mark.parametrize(
    ("msg_type", "body", "message"),
    [
        (ShufflerMsg.PILE, bytes.fromhex("00000002 08 07") + b"7h5d9s4cTh4d2s", "pile 8"),
        (ShufflerMsg.PILE, bytes.fromhex("00000002 00 07") + b"7h5d9s4cTh4d2s", "pile 0"),
        (ShufflerMsg.PILE, bytes.fromhex("00000002 01 08") + b"7h5d9s4cTh4d2s2h", "8 cards"),
        (ShufflerMsg.PILE, bytes.fromhex("00000002 01 07") + b"7h5d9s4cTh4d", "needs 2 more bytes"),
        (ShufflerMsg.PILE, bytes.fromhex("00000002 01 06") + b"7h5d9s4cTh4d2s", "trailing"),
        (ShufflerMsg.FAULT, bytes.fromhex("09 00 00 00 00"), "unknown fault 0x09"),
        (ShufflerMsg.COMMAND_REJECTED, bytes.fromhex("00000005 77"), "unknown reject reason"),
        (ShufflerMsg.STATUS, bytes.fromhex("00000004 07 00 35"), "unknown state"),
        (ShufflerMsg.STATUS, bytes.fromhex("00000004 01 10 35"), "unknown fault bits"),
        (ShufflerMsg.DEAL_ABORTED, bytes.fromhex("00000002 08 02"), "8 piles"),
        (ShufflerMsg.DECK_CHECKED, bytes.fromhex("00000003 35 35 00 00 01") + b"Kd\x01", "seen 1"),
        (ShufflerMsg.SHUFFLE, bytes.fromhex("35"), "not a shuffler event"),
        (0x45, b"", "not a shuffler event"),
    ],
)
def test_bad_event_bodies_are_protocol_errors(msg_type, body, message):
    with pytest.raises(ProtocolError) as info:
        codec.decode_event(msg_type, 1, body, raw=b"raw")
    assert message in str(info.value)
    assert info.value.raw == b"raw"


def test_status_fault_bits_decode_to_fault_kinds():
    body = bytes.fromhex("00000004 03 0F 00")
    status = codec.decode_event(ShufflerMsg.STATUS, 5, body)
    assert status.faults == {
        FaultKind.DOOR_OPEN,
        FaultKind.JAM,
        FaultKind.DECK_NOT_PRESENT,
        FaultKind.WRONG_CARD_COUNT,
    }
    assert status.state is ShufflerState.FAULT


@pytest.mark.parametrize(
    ("code", "valid"),
    [
        ("As", True),
        ("Td", True),
        ("2c", True),
        ("JK", True),
        ("10d", False),
        ("ad", False),
        ("Jk", False),
        ("??", False),
    ],
)
def test_card_code_rule(code, valid):
    assert codec.is_card_code(code) is valid
