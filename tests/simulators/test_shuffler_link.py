"""The device side of the link (simulators/device_link.py) as the shuffler speaks it, byte by
byte against docs/protocols/link.md, with a fake clock. Frames are built here from the
document's layout with binascii's CRC, not with the project's framer."""

from __future__ import annotations

import binascii
import struct

import pytest

from simulators.device_link import DeviceLink, DeviceLinkConfig, DeviceLinkState, SimulatedIdentity
from simulators.faults import Fault, LinkFaultInjector, UnknownFaultError

HOST_SESSION = 0x12345678
DEVICE_SESSION = 0x0BADCAFE


def frame(seq: int, msg_type: int, payload: bytes) -> bytes:
    body = bytes((len(payload), seq, msg_type)) + payload
    return b"\xa5" + body + binascii.crc_hqx(body, 0xFFFF).to_bytes(2, "big")


def host_hello(session: int = HOST_SESSION, heartbeat_ms: int = 100, major: int = 1) -> bytes:
    return frame(0, 0x01, struct.pack(">BBHI", major, 0, heartbeat_ms, session) + b"\x02tc\x00\x010")


def parse(stream: bytes) -> list[tuple[int, int, bytes]]:
    """(seq, type, payload) of each frame in ``stream``; asserts every CRC."""
    out = []
    while stream:
        assert stream[0] == 0xA5, stream.hex()
        length = stream[1]
        raw = stream[: 6 + length]
        assert binascii.crc_hqx(raw[1:-2], 0xFFFF) == int.from_bytes(raw[-2:], "big"), raw.hex()
        out.append((raw[2], raw[3], raw[4:-2]))
        stream = stream[6 + length :]
    return out


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


TEST_LINK = DeviceLinkConfig(ack_timeout=0.25, max_retransmissions=3)


class Device:
    def __init__(self, injectors=(), config=TEST_LINK, resend_refused=False):
        self.clock = Clock()
        self.written = bytearray()
        self.commands: list[tuple[int, int, bytes]] = []
        self.link = DeviceLink(
            SimulatedIdentity("SHF-7", "A1234", "2.3.1"),
            lambda t, i, b: self.commands.append((t, i, b)),
            write=self.written.extend,
            config=config,
            clock=self.clock,
            session_id=DEVICE_SESSION,
            injectors=injectors,
            resend_refused=resend_refused,
        )

    def take(self) -> list[tuple[int, int, bytes]]:
        frames = parse(bytes(self.written))
        self.written.clear()
        return frames

    def after(self, seconds: float) -> None:
        self.clock.now += seconds
        self.link.poll()


def up(device: Device) -> None:
    device.link.receive(host_hello())
    device.take()


def test_nothing_but_a_hello_is_answered_before_the_hello():
    device = Device()
    device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    device.link.receive(frame(0, 0x04, b""))
    device.after(1.0)
    assert device.take() == []
    assert device.link.state is DeviceLinkState.WAITING_FOR_HELLO


def test_hello_reply_echoes_the_heartbeat_and_names_the_device():
    device = Device()
    device.link.receive(host_hello(heartbeat_ms=100))
    [(_seq, msg_type, payload)] = device.take()
    assert msg_type == 0x01
    # protocol 1.1: a refused event is never re-sent (link.md 3.1)
    assert payload == struct.pack(">BBHI", 1, 1, 100, DEVICE_SESSION) + b"\x05SHF-7\x05A1234\x052.3.1"
    assert device.link.connected and device.link.heartbeat == 0.1


def test_wrong_major_gets_a_hello_but_no_link():
    device = Device()
    device.link.receive(host_hello(major=2))
    assert [f[1] for f in device.take()] == [0x01]
    assert not device.link.connected


def test_events_go_one_at_a_time_with_their_ids_until_acked():
    device = Device()
    up(device)
    first = device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    second = device.link.send_event(0x22, b"\x00")
    assert (first, second) == (1, 2)
    device.link.poll()
    frames = device.take()
    assert [(t, p) for _, t, p in frames] == [(0x21, b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01\x35")]
    device.link.receive(frame(1, 0x02, struct.pack(">I", 2)))  # an ACK for the wrong id changes nothing
    device.link.poll()
    assert [t for _, t, _ in device.take()] == []
    device.link.receive(frame(2, 0x02, struct.pack(">I", 1)))
    device.link.poll()
    assert [(t, p[:4]) for _, t, p in device.take()] == [(0x22, b"\x00\x00\x00\x02")]
    assert device.link.unacknowledged == 1


def test_retransmission_after_ack_timeout_is_byte_identical_and_bounded():
    device = Device()
    up(device)
    device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    device.link.poll()
    original = device.written.hex()
    device.take()
    resent = []
    for _ in range(3):
        device.after(0.25)
        resent += [f for f in device.take() if f[1] == 0x21]
        device.link.receive(frame(0, 0x04, b""))  # the host is alive, only the ACKs are missing
    assert len(resent) == 3 and all(bytes.fromhex(original)[4:-2] == f[2] for f in resent)
    device.after(0.25)
    assert device.link.state is DeviceLinkState.WAITING_FOR_HELLO  # 3 retransmissions: link lost
    device.link.receive(host_hello())
    device.link.poll()
    frames = device.take()
    assert [f[1] for f in frames] == [0x01, 0x21] and frames[1][2][:4] == b"\x00\x00\x00\x01"  # same id


def test_nak_gets_an_immediate_retransmission():
    device = Device()
    up(device)
    device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    device.link.poll()
    device.take()
    device.link.receive(frame(3, 0x03, b"\x01\x05"))
    assert [f[1] for f in device.take()] == [0x21]


def test_commands_are_acked_every_time_and_handled_once_per_host_session():
    device = Device()
    up(device)
    command = frame(1, 0x10, struct.pack(">I", 1) + b"\x35")
    device.link.receive(command + command)
    assert [(t, p) for _, t, p in device.take()] == [(0x02, b"\x00\x00\x00\x01")] * 2
    assert device.commands == [(0x10, 1, b"\x35")]
    device.link.receive(host_hello(session=0x99))  # a restarted host: its ids start again
    device.link.receive(command)
    assert device.commands == [(0x10, 1, b"\x35")] * 2


def test_bad_crc_and_missing_id_are_naked():
    device = Device()
    up(device)
    good = frame(9, 0x10, struct.pack(">I", 1) + b"\x35")
    device.link.receive(good[:-1] + bytes((good[-1] ^ 1,)))
    device.link.receive(frame(10, 0x10, b"\x00\x01"))
    assert [(t, p) for _, t, p in device.take()] == [(0x03, b"\x01\x09"), (0x03, b"\x02\x0a")]
    assert device.commands == []


def test_heartbeat_after_a_silent_period_and_loss_after_three():
    device = Device()
    up(device)  # heartbeat 100 ms
    device.after(0.0625)
    assert device.take() == []
    device.after(0.0375)  # t = 0.1: one silent period
    assert [f[1:] for f in device.take()] == [(0x04, b"")]
    device.after(0.1875)  # t = 0.2875: no frame from the host for less than 3 periods
    assert device.link.state is DeviceLinkState.UP
    device.after(0.025)  # t = 0.3125: more than 3 periods
    assert device.link.state is DeviceLinkState.WAITING_FOR_HELLO


def link_with(fault: Fault, cut=lambda: None) -> Device:
    injector = LinkFaultInjector(fault, lambda t, body: t == 0x22, on_cut=cut)
    device = Device(injectors=[injector])
    up(device)
    device.link.send_event(0x21, b"first")
    device.link.send_event(0x22, b"second")
    device.link.poll()
    device.link.receive(frame(1, 0x02, struct.pack(">I", 1)))
    device.link.poll()
    return device


def test_corrupted_frame_fault_breaks_the_crc_of_the_chosen_event_once():
    device = link_with(Fault.CORRUPTED_FRAME)
    stream = bytes(device.written)
    second = stream[stream.rindex(b"\xa5\x0a") :]
    assert second[3] == 0x22
    assert binascii.crc_hqx(second[1:-2], 0xFFFF) != int.from_bytes(second[-2:], "big")
    device.written.clear()
    device.after(0.25)  # the retransmission is clean
    assert [f[1] for f in device.take()] == [0x22]


def test_dropped_and_duplicated_frame_faults():
    dropped = link_with(Fault.DROPPED_FRAME)
    assert [f[1] for f in dropped.take()] == [0x21]
    duplicated = link_with(Fault.DUPLICATED_FRAME)
    frames = duplicated.take()
    assert [f[1] for f in frames] == [0x21, 0x22, 0x22] and frames[1] == frames[2]


def test_link_cut_fault_cuts_after_the_frame_is_written():
    seen = []
    device = Device()
    injector = LinkFaultInjector(
        Fault.LINK_CUT, lambda t, body: True, on_cut=lambda: seen.append(bytes(device.written))
    )
    device.link.injectors = [injector]
    up(device)
    device.link.send_event(0x21, b"x")
    device.link.poll()
    assert len(seen) == 1 and parse(seen[0])[-1][1] == 0x21


def test_link_fault_injector_refuses_device_faults():
    with pytest.raises(UnknownFaultError):
        LinkFaultInjector(Fault.JAM, lambda t, b: True)


def test_send_event_refuses_link_types():
    with pytest.raises(ValueError):
        Device().link.send_event(0x02, b"")


def test_a_refused_event_is_dropped_not_resent_and_the_next_goes():
    """link.md 3: NAK(REFUSED) for the event in flight: the same bytes would be refused again."""
    device = Device()
    up(device)
    device.link.send_event(0x22, b"\x00\x00\x00\x02\x03\x09")  # a PILE claiming 9 cards
    device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    device.link.poll()
    (sent,) = device.take()
    device.link.receive(frame(4, 0x03, bytes((0x03, sent[0]))))
    device.after(0.01)
    frames = device.take()
    assert [f[1] for f in frames] == [0x21] and frames[0][2][:4] == b"\x00\x00\x00\x02"
    device.after(1.0)
    assert all(f[1] != 0x22 for f in device.take())


def test_naks_of_one_burst_get_one_resend_per_ack_timeout():
    device = Device()
    up(device)
    device.link.send_event(0x21, b"\x00\x00\x00\x01\x35")
    device.link.poll()
    device.take()
    device.link.receive(frame(3, 0x03, b"\x01\x05") * 3)  # three NAKs for one burst
    assert [f[1] for f in device.take()] == [0x21]
    assert device.link.stats.retransmissions == 1


def test_one_nak_per_burst_of_noise_from_the_host():
    device = Device()
    up(device)
    good = frame(9, 0x10, struct.pack(">I", 1) + b"\x35")
    bad = good[:-1] + bytes((good[-1] ^ 1,))
    device.link.receive(bad + bad + bad)
    assert [(t, p) for _, t, p in device.take()] == [(0x03, b"\x01\x09")]


def test_the_protocol_1_0_mode_says_1_0_and_re_sends_after_a_refusal():
    """The older device (``protocol-1.0``, link.md 3.1): its HELLO names 1.0 and it re-sends its
    event after NAK(REFUSED) as after any NAK, same bytes, until ACKed or out of retries."""
    device = Device(resend_refused=True)
    device.link.receive(host_hello())
    [(_, _, hello)] = device.take()
    assert hello[:2] == b"\x01\x00"
    device.link.send_event(0x22, b"\x00\x00\x00\x02\x03\x09")
    device.link.poll()
    (sent,) = device.take()
    device.link.receive(frame(4, 0x03, bytes((0x03, sent[0]))))  # NAK REFUSED
    resent = device.take()
    assert [(f[1], f[2]) for f in resent] == [(0x22, sent[2])]
    assert device.link.stats.events_refused == 0 and device.link.unacknowledged == 1


def test_a_burst_of_noise_received_a_few_bytes_at_a_time_is_one_log_line():
    """link.md 2.3 (a device SHOULD log one line per burst): 40 bytes without a SYNC, received
    two at a time, then a quiet poll."""
    from structlog.testing import capture_logs

    device = Device()
    up(device)
    noise = bytes(range(0x10, 0x38))
    with capture_logs() as logs:
        for start in range(0, len(noise), 2):
            device.link.receive(noise[start : start + 2])
        device.after(0.01)  # bytes came since the last poll: the burst goes on
        device.after(0.01)  # a quiet poll: the burst is over
    lines = [entry for entry in logs if entry["event"] == "sim.link.noise"]
    assert len(lines) == 1 and lines[0]["skipped"] == 20
