"""A burst of line noise in front of a device event: the host link (drivers/link.py) against the
simulators' device link (simulators/device_link.py), on one fake clock (link.md 2.3 and 3).

The burst below is the one a device vendor saw drop the link for 3.7 s: three NAKs, three
re-sends within 4 ms (the device's whole retry budget), a stall behind a false length byte,
then the link lost. Every sync byte in it is followed by a header no frame can have, so the
host must resync at once, NAK at most once for the burst, log it once, and keep the link.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from drivers.errors import ProtocolError
from drivers.link import HostIdentity, HostLink, LinkConfig
from drivers.transport import Transport
from simulators.device_link import DeviceLink, DeviceLinkConfig, SimulatedIdentity

BURST = bytes.fromhex("00 A5 07 A5 00 13 A5 01 FF 33 A5")
PILE = 0x22
# PILE(command 2, pile 1, 7h 5d 9s 4c Th 4d 2s): shuffler.md 7
PILE_BODY = bytes.fromhex("00000002 01 07") + b"7h5d9s4cTh4d2s"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class NoiseBefore:
    """Puts ``burst`` on the wire right before the first transmission of the first event of ``msg_type``."""

    def __init__(self, burst: bytes, msg_type: int) -> None:
        self.burst = burst
        self.msg_type = msg_type
        self.done = False

    def transmit(self, frame: bytes, msg_type: int, body: bytes) -> list[bytes]:
        if self.done or msg_type != self.msg_type:
            return [frame]
        self.done = True
        return [self.burst + frame]

    def written(self) -> None:
        return None


class Wire(Transport):
    """Host writes go straight into the device link; the device's bytes queue for the host.
    A read with nothing queued lets time pass and ticks the device's timers."""

    def __init__(self, clock: Clock, device: DeviceLink) -> None:
        self.clock = clock
        self.device = device
        self.incoming = bytearray()
        self._open = False
        device.write = self.incoming.extend

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True

    def close(self) -> None:
        self._open = False

    def write(self, data: bytes) -> None:
        self.device.receive(bytes(data))

    def read(self, size: int, timeout: float) -> bytes:
        if not self.incoming:
            self.clock.now += timeout
            self.device.poll()
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data


class Stop:
    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.deadline = clock.now + seconds

    def is_set(self) -> bool:
        return self.clock.now >= self.deadline

    def wait(self, delay: float) -> bool:
        self.clock.now += delay
        return self.is_set()


class Listener:
    def __init__(self) -> None:
        self.messages: list[tuple[int, int, bytes]] = []
        self.lost: list[object] = []

    def link_up(self, hello, *, restored, device_restarted) -> None:
        pass

    def link_lost(self, error) -> None:
        self.lost.append(error)

    def message(self, msg_type, msg_id, body, frame) -> None:
        self.messages.append((msg_type, msg_id, body))

    def commands_dropped(self, msg_ids, reason) -> None:
        pass

    def link_error(self, error) -> None:
        pass


def run_with_noise(burst: bytes, seconds: float = 3.0):
    """Production timings on both sides (link.md 7); the burst goes in front of one PILE."""
    clock = Clock()
    device = DeviceLink(
        SimulatedIdentity("SIM-SHUFFLER", "SIM0001", "1.0.0"),
        lambda *a: None,
        config=DeviceLinkConfig(),
        clock=clock,
        injectors=[NoiseBefore(burst, PILE)],
    )
    wire = Wire(clock, device)
    listener = Listener()
    host = HostLink(wire, listener, config=LinkConfig(), identity=HostIdentity(), clock=clock)
    host.connect()
    device.send_event(PILE, PILE_BODY)
    host.run(Stop(clock, seconds))  # type: ignore[arg-type]
    return host, device, listener


def test_the_reported_burst_loses_no_link_and_the_pile_arrives_once():
    with capture_logs() as logs:
        host, device, listener = run_with_noise(BURST)
    assert listener.lost == [] and host.stats.links_lost == 0
    assert device.stats.links_lost == 0 and device.connected
    assert listener.messages == [(PILE, 1, PILE_BODY)]
    assert device.unacknowledged == 0
    # every sync byte of this burst has an impossible header (types 0x00, 0xA5, 0x33) or claims
    # more bytes than came while a whole valid frame (the PILE) came inside them: resynced at
    # once, so nothing to NAK and nothing re-sent
    assert host.stats.naks_sent == 0 and device.stats.retransmissions == 0
    noise = [entry for entry in logs if entry["event"] == "link.noise"]
    assert len(noise) == 1 and noise[0]["raw"].startswith(BURST.hex())


def test_a_burst_of_plausible_false_frames_gets_one_nak():
    """Had the headers been plausible, a burst still gets one NAK, not one per bad byte."""
    plausible = (
        bytes.fromhex("A5 04 01 02 00") + bytes.fromhex("A5 04 02 02 00") + bytes.fromhex("A5 02 03 03")
    )
    host, device, listener = run_with_noise(plausible)
    assert listener.lost == [] and device.stats.links_lost == 0
    assert listener.messages == [(PILE, 1, PILE_BODY)]
    assert host.stats.naks_sent <= 1 and device.stats.retransmissions <= 1


noise_bytes = st.lists(st.one_of(st.just(0xA5), st.integers(0, 255)), min_size=1, max_size=48).map(bytes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noise_bytes)
def test_any_burst_before_an_event_loses_no_link(burst):
    host, device, listener = run_with_noise(burst)
    assert listener.lost == [] and host.stats.links_lost == 0
    assert device.stats.links_lost == 0
    assert [m[:2] for m in listener.messages] == [(PILE, 1)]
    assert host.stats.naks_sent <= 1  # one burst, at most one NAK


class Refusing(Listener):
    """A host whose codec refuses the device's first message (a PILE one byte too long)."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[object] = []

    def message(self, msg_type, msg_id, body, frame) -> None:
        if msg_id == 1:
            raise ProtocolError("PILE 3: one byte too many", raw=frame.raw)
        super().message(msg_type, msg_id, body, frame)

    def link_error(self, error) -> None:
        self.errors.append(error)


def test_a_protocol_1_0_device_that_re_sends_a_refused_event_goes_on_without_losing_the_link():
    """link.md 3.1: the older device re-sends after any NAK. The host refuses its event, refuses
    its copy once more, then ACKs the next copy as used up: the device goes on with its next
    event, the link stays up, and the host reports the frame once (the controller voids the
    round). Before 1.1 the two looped until the link dropped, and again after every HELLO."""
    clock = Clock()
    device = DeviceLink(
        SimulatedIdentity("SIM-SHUFFLER", "SIM0001", "1.0.0"),
        lambda *a: None,
        config=DeviceLinkConfig(),
        clock=clock,
        resend_refused=True,
    )
    wire = Wire(clock, device)
    listener = Refusing()
    host = HostLink(wire, listener, config=LinkConfig(), identity=HostIdentity(), clock=clock)
    hello = host.connect()
    assert (hello.protocol_major, hello.protocol_minor) == (1, 0)
    device.send_event(PILE, PILE_BODY + b"\x00")
    device.send_event(PILE, PILE_BODY)
    host.run(Stop(clock, 5.0))  # type: ignore[arg-type]
    assert listener.lost == [] and host.stats.links_lost == 0 and device.stats.links_lost == 0
    assert listener.messages == [(PILE, 2, PILE_BODY)]
    assert device.unacknowledged == 0
    [error] = listener.errors
    assert type(error).__name__ == "RefusedResentError" and "1.0" in str(error)
    assert host.stats.messages_refused == 1 and host.stats.refused_resent == 1
