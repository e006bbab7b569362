"""The host side of the link (docs/protocols/link.md, sections 3-6), against a hand-written device.

A fake transport and a fake clock make every timing exact: the device here is a few lines
of bytes written from the document, not the simulator, so the link is tested on its own.
"""

import struct
import textwrap
import threading
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from drivers.crc import crc16
from drivers.errors import DriverInitError, DriverIOError, DriverTimeoutError, ProtocolError
from drivers.framing import FrameDecoder
from drivers.link import HostIdentity, HostLink, LinkConfig
from drivers.messages import Hello, decode_hello, encode_hello
from drivers.transport import Transport

pytest_plugins = ["pytester"]

CONFIG = LinkConfig(
    heartbeat_interval=1.0,
    ack_timeout=0.25,
    max_retransmissions=3,
    hello_timeout=0.5,
    hello_attempts=3,
    backoff_initial=0.1,
    backoff_factor=2.0,
    backoff_max=5.0,
    poll_interval=0.01,
)
DEVICE_SESSION = 0xCAFEF00D


def frame(seq: int, msg_type: int, payload: bytes) -> bytes:
    """A frame built from the document's layout (not drivers.framing.encode_frame)."""
    body = bytes((len(payload), seq, msg_type)) + payload
    return b"\xa5" + body + struct.pack(">H", crc16(body))


def device_hello(session: int = DEVICE_SESSION, major: int = 1, heartbeat_ms: int = 1000) -> bytes:
    payload = struct.pack(">BBHI", major, 0, heartbeat_ms, session)
    payload += b"\x05SHF-7" + b"\x05A1234" + b"\x052.3.1"
    return frame(0, 0x01, payload)


def event(seq: int, msg_id: int, msg_type: int = 0x21, body: bytes = b"\x00\x00\x00\x01\x35") -> bytes:
    return frame(seq, msg_type, struct.pack(">I", msg_id) + body)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeTransport(Transport):
    """Bytes the test queues are read; reads with nothing queued let time pass."""

    def __init__(self, clock: Clock, device=None) -> None:
        self.clock = clock
        self.device = device  # called with each written frame; may queue replies
        self.incoming = bytearray()
        self.written: list[bytes] = []
        self.opened = 0
        self.open_failures = 0
        self.fail_reads = False
        self._open = False

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        if self.open_failures:
            self.open_failures -= 1
            raise DriverInitError("no such port")
        self.opened += 1
        self._open = True

    def close(self) -> None:
        self._open = False

    def write(self, data: bytes) -> None:
        if not self._open:
            raise DriverIOError("closed")
        self.written.append(bytes(data))
        if self.device is not None:
            self.device(self, bytes(data))

    def read(self, size: int, timeout: float) -> bytes:
        if self.fail_reads:
            raise DriverIOError("port vanished")
        if self.incoming:
            data = bytes(self.incoming[:size])
            del self.incoming[:size]
            return data
        self.clock.now += timeout
        return b""

    def frames(self, msg_type: int | None = None):
        decoder = FrameDecoder()
        found = [f for chunk in self.written for f in decoder.feed(chunk) if hasattr(f, "msg_type")]
        return [f for f in found if msg_type is None or f.msg_type == msg_type]


def answering_device(session: int = DEVICE_SESSION, major: int = 1):
    """Answers every HELLO with a HELLO, nothing else."""

    def device(transport: FakeTransport, data: bytes) -> None:
        if data[3] == 0x01:
            transport.incoming += device_hello(session, major)

    return device


class Recorder:
    def __init__(self, clock=None) -> None:
        self.calls: list[tuple] = []
        self.clock = clock
        self.lost_at: list[float] = []

    def link_up(self, hello, *, restored, device_restarted):
        self.calls.append(("up", hello.session_id, restored, device_restarted))

    def link_lost(self, error):
        self.lost_at.append(self.clock.now if self.clock else 0.0)
        self.calls.append(("lost", type(error).__name__, error))

    def message(self, msg_type, msg_id, body, frame):
        self.calls.append(("message", msg_type, msg_id, body))

    def commands_dropped(self, msg_ids, reason):
        self.calls.append(("dropped", msg_ids, reason))

    def link_error(self, error):
        self.calls.append(("error", type(error).__name__, error))

    def kinds(self, kind):
        return [call for call in self.calls if call[0] == kind]


class Stop:
    """A stop flag that sets itself when ``until()`` holds or when time runs out."""

    def __init__(self, clock: Clock, until=lambda: False, limit: float = 30.0) -> None:
        self.clock = clock
        self.until = until
        self.deadline = clock.now + limit
        self.waits: list[float] = []

    def is_set(self) -> bool:
        return self.until() or self.clock.now >= self.deadline

    def wait(self, delay: float) -> bool:
        self.waits.append(round(delay, 6))
        self.clock.now += delay
        return self.is_set()


def make_link(device=None, config=CONFIG):
    clock = Clock()
    transport = FakeTransport(clock, device or answering_device())
    recorder = Recorder(clock)
    identity = HostIdentity("table-controller", "", "0.1.0")
    link = HostLink(transport, recorder, config=config, identity=identity, clock=clock)
    link.session_id = 0x12345678
    return link, transport, recorder, clock


# -- hello ------------------------------------------------------------------------------------------


def test_connect_sends_the_documented_hello_and_reads_the_device():
    link, transport, recorder, _ = make_link()
    hello = link.connect()
    assert transport.written[0] == bytes.fromhex(
        "A5 20 00 01 01 01 03 E8 12 34 56 78 10 74 61 62 6C 65 2D 63 6F 6E 74 72 6F 6C 6C 65 72"
        " 00 05 30 2E 31 2E 30 07 8F"
    )  # protocol 1.1: a device never re-sends a refused message (link.md 3.1)
    assert hello == Hello(1, 0, 1000, DEVICE_SESSION, "SHF-7", "A1234", "2.3.1")
    assert recorder.calls == [("up", DEVICE_SESSION, False, False)]


def test_wrong_major_version_is_an_init_error_carrying_the_hello():
    link, transport, _, _ = make_link(answering_device(major=2))
    with pytest.raises(DriverInitError) as info:
        link.connect()
    assert info.value.raw == device_hello(major=2)
    assert "protocol 2.0" in str(info.value)
    assert not transport.is_open


def test_silent_device_gets_three_hellos_then_an_init_error():
    link, transport, _, clock = make_link(device=lambda t, d: None)
    start = clock.now
    with pytest.raises(DriverInitError) as info:
        link.connect()
    assert isinstance(info.value.__cause__, DriverTimeoutError)
    assert len(transport.frames(0x01)) == 3
    assert clock.now - start == pytest.approx(1.5, abs=0.06)  # 3 attempts x 500 ms


def test_port_that_cannot_open_is_an_init_error():
    link, transport, _, _ = make_link()
    transport.open_failures = 1
    with pytest.raises(DriverInitError):
        link.connect()


def test_hello_payload_decodes_and_refuses_zero_heartbeat():
    hello = Hello(1, 0, 50, 7, "m", "s", "f")
    assert decode_hello(encode_hello(hello)) == hello
    with pytest.raises(ProtocolError):
        decode_hello(encode_hello(Hello(1, 0, 0, 7, "m", "s", "f")))
    with pytest.raises(ProtocolError):
        decode_hello(encode_hello(hello) + b"\x00")


# -- receiving events ---------------------------------------------------------------------------------


def run_until(link, transport, clock, until, limit=30.0):
    """Run the link until ``until()``; ``run`` closes the port when it ends, so a later phase reopens it."""
    transport._open = True
    stop = Stop(clock, until, limit)
    link.run(stop)
    return stop


def test_event_is_acked_with_its_id_and_delivered_once():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.incoming += event(1, 1)
    run_until(link, transport, clock, lambda: recorder.kinds("message"))
    assert recorder.kinds("message") == [("message", 0x21, 1, b"\x00\x00\x00\x01\x35")]
    assert [f.payload for f in transport.frames(0x02)] == [b"\x00\x00\x00\x01"]


def test_duplicate_event_id_is_acked_again_and_dropped():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.incoming += event(1, 1) + event(1, 1) + event(2, 2)
    run_until(link, transport, clock, lambda: len(recorder.kinds("message")) == 2)
    assert [call[2] for call in recorder.kinds("message")] == [1, 2]
    acks = [f.payload for f in transport.frames(0x02)]
    assert acks == [bytes.fromhex(x) for x in ("00000001", "00000001", "00000002")]
    assert link.stats.duplicates_dropped == 1


def test_skipped_event_id_is_delivered_and_reported():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.incoming += event(1, 1) + event(2, 3)
    run_until(link, transport, clock, lambda: len(recorder.kinds("message")) == 2)
    errors = recorder.kinds("error")
    assert len(errors) == 1 and errors[0][1] == "ProtocolError" and "ids skipped" in str(errors[0][2])
    assert errors[0][2].raw == event(2, 3)


def test_bad_crc_is_answered_with_nak_and_logged_with_the_raw_frame():
    link, transport, recorder, clock = make_link()
    link.connect()
    good = event(5, 1)
    bad = good[:-1] + bytes((good[-1] ^ 0xFF,))
    transport.incoming += bad
    with capture_logs() as logs:
        run_until(link, transport, clock, lambda: link.stats.noise_bursts == 1)  # the line went quiet
    assert [f.payload for f in transport.frames(0x03)] == [bytes((0x01, 5))]  # NAK BAD_CRC, seq 5
    noise = [entry for entry in logs if entry["event"] == "link.noise"]  # one line for the burst
    assert len(noise) == 1 and noise[0]["raw"] == bad.hex() and noise[0]["log_level"] == "warning"
    assert noise[0]["crc_errors"] == 1 and noise[0]["naked"] is True
    assert recorder.kinds("message") == []


def test_application_frame_without_message_id_is_naked_malformed():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.incoming += frame(3, 0x21, b"\x00\x01")
    run_until(link, transport, clock, lambda: recorder.kinds("error"))
    assert [f.payload for f in transport.frames(0x03)] == [bytes((0x02, 3))]
    assert recorder.kinds("error")[0][1] == "ProtocolError"


def test_reserved_message_type_is_a_protocol_error():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.incoming += frame(3, 0x70, b"")
    run_until(link, transport, clock, lambda: recorder.kinds("error"))
    assert "0x70" in str(recorder.kinds("error")[0][2])


# -- sending commands ---------------------------------------------------------------------------------


def test_command_is_framed_with_its_id_and_retransmitted_after_ack_timeout_same_bytes():
    link, transport, _recorder, clock = make_link()
    link.connect()
    msg_id = link.send(0x10, b"\x35")
    assert msg_id == 1
    run_until(link, transport, clock, lambda: len(transport.frames(0x10)) == 2)
    sent = [f.raw for f in transport.frames(0x10)]
    assert sent[0] == sent[1]
    assert sent[0][4:][:5] == b"\x00\x00\x00\x01\x35"


def test_ack_stops_retransmission_and_releases_the_next_command():
    def device(transport, data):
        if data[3] == 0x01:
            transport.incoming += device_hello()
        elif data[3] == 0x10:  # ACK the command by its id
            transport.incoming += frame(9, 0x02, data[4:8])

    link, transport, _recorder, clock = make_link(device)
    link.connect()
    link.send(0x10, b"\x35")
    link.send(0x11, b"")
    run_until(link, transport, clock, lambda: False, limit=0.6)
    assert len(transport.frames(0x10)) == 1  # acknowledged: never re-sent
    assert len(transport.frames(0x11)) == 3  # never acknowledged: sent, re-sent at 250 and 500 ms


def test_nak_triggers_an_immediate_retransmission():
    naks = []

    def device(transport, data):
        if data[3] == 0x01:
            transport.incoming += device_hello()
        elif data[3] == 0x10 and not naks:
            naks.append(data)
            transport.incoming += frame(9, 0x03, bytes((0x01, data[2])))
        elif data[3] == 0x10:
            transport.incoming += frame(10, 0x02, data[4:8])

    link, transport, _recorder, clock = make_link(device)
    link.connect()
    link.send(0x10, b"\x35")
    start = clock.now
    run_until(link, transport, clock, lambda: len(transport.frames(0x10)) == 2)
    assert clock.now - start < CONFIG.ack_timeout
    assert link.stats.naks_received == 1 and link.stats.retransmissions == 1


def test_three_retransmissions_without_ack_lose_the_link_and_keep_the_command():
    link, transport, recorder, clock = make_link()
    link.connect()
    link.send(0x10, b"\x35")
    run_until(link, transport, clock, lambda: recorder.kinds("lost"))
    lost = recorder.kinds("lost")[0]
    assert lost[1] == "DriverTimeoutError"
    assert lost[2].raw == transport.frames(0x10)[0].raw
    assert len(transport.frames(0x10)) == 4  # 1 + 3 retransmissions


def test_command_in_flight_is_resent_after_reconnect_with_the_same_bytes():
    link, transport, recorder, clock = make_link()
    link.connect()
    link.send(0x10, b"\x35")
    run_until(link, transport, clock, lambda: len(recorder.kinds("up")) == 2)
    run_until(link, transport, clock, lambda: len(transport.frames(0x10)) == 5)
    sent = {f.raw for f in transport.frames(0x10)}
    assert len(sent) == 1


# -- heartbeat, loss, reconnection --------------------------------------------------------------------


def test_heartbeat_is_sent_after_one_silent_period():
    link, transport, _recorder, clock = make_link()
    link.connect()
    start = clock.now
    run_until(link, transport, clock, lambda: transport.frames(0x04))
    assert transport.frames(0x04)[0].payload == b""
    assert 0 <= clock.now - start <= 0.02  # first heartbeat at once (nothing sent since the hello's reply)
    run_until(link, transport, clock, lambda: len(transport.frames(0x04)) == 2)
    assert clock.now - start == pytest.approx(1.0, abs=0.02)


def test_silence_for_three_heartbeats_loses_the_link_then_it_reconnects():
    link, transport, recorder, clock = make_link()
    link.connect()
    start = clock.now
    run_until(link, transport, clock, lambda: recorder.kinds("lost"))
    assert recorder.kinds("lost")[0][1] == "DriverTimeoutError"
    assert recorder.lost_at[0] - start == pytest.approx(3.0, abs=0.02)  # 3 heartbeat periods
    run_until(link, transport, clock, lambda: len(recorder.kinds("up")) == 2)
    assert recorder.calls[-1] == ("up", DEVICE_SESSION, True, False)
    assert link.stats.reconnects == 1


def test_device_heartbeats_keep_the_link_up():
    link, transport, recorder, clock = make_link()
    link.connect()
    for second in range(10):
        run_until(link, transport, clock, lambda: False, limit=0.9)
        transport.incoming += frame(second, 0x04, b"")
    assert recorder.kinds("lost") == []


class SlowDelivery(Recorder):
    """A driver whose delivery (decode and journal, before the ACK) takes ``takes`` seconds;
    ``meanwhile`` bytes arrive from the device while it runs (read only afterwards)."""

    def __init__(self, clock: Clock, transport: FakeTransport, takes: float, meanwhile: bytes = b"") -> None:
        super().__init__(clock)
        self.transport = transport
        self.takes = takes
        self.meanwhile = meanwhile
        self.delivered_at: list[float] = []

    def message(self, msg_type, msg_id, body, frame):
        self.clock.now += self.takes
        self.transport.incoming += self.meanwhile
        self.delivered_at.append(self.clock.now)
        super().message(msg_type, msg_id, body, frame)


def slow_link(takes: float, meanwhile: bytes = b""):
    clock = Clock()
    transport = FakeTransport(clock, answering_device())
    recorder = SlowDelivery(clock, transport, takes, meanwhile)
    return HostLink(transport, recorder, config=CONFIG, clock=clock), transport, recorder, clock


def test_a_delivery_longer_than_the_loss_window_is_not_silence_silence_counts_from_its_end():
    link, transport, recorder, clock = slow_link(takes=5.0)  # the loss window is 3 s
    link.connect()
    transport.incoming += event(1, 1)
    run_until(link, transport, clock, lambda: recorder.kinds("lost"))
    assert [call[2] for call in recorder.kinds("message")] == [1]
    assert [f.payload for f in transport.frames(0x02)] == [b"\x00\x00\x00\x01"]  # acknowledged
    assert recorder.lost_at[0] - recorder.delivered_at[0] == pytest.approx(3.0, abs=0.02)  # 3 s of silence
    assert "no frame from the device for 3.0" in str(recorder.kinds("lost")[0][2])


def test_an_ack_that_came_during_a_delivery_is_not_late():
    link, transport, recorder, clock = slow_link(takes=1.0, meanwhile=frame(2, 0x02, b"\x00\x00\x00\x01"))
    link.connect()
    assert link.send(0x10, b"\x35") == 1
    run_until(link, transport, clock, lambda: transport.frames(0x10))
    transport.incoming += event(1, 1)  # the device's event; its ACK of our command comes during the delivery
    run_until(link, transport, clock, lambda: link._in_flight is None and not link._outbox)
    assert len(transport.frames(0x10)) == 1 and link.stats.retransmissions == 0
    assert recorder.kinds("lost") == []


def test_last_received_is_the_last_valid_frame_heartbeats_included_bad_crc_not():
    link, transport, _recorder, clock = make_link()
    assert link.last_received is None
    link.connect()
    assert link.last_received == clock.now  # the device's HELLO
    assert link.loss_window == 3.0  # 3 heartbeat periods of 1 s
    run_until(link, transport, clock, lambda: False, limit=0.5)
    transport.incoming += frame(1, 0x04, b"")
    heartbeat_at = clock.now
    run_until(link, transport, clock, lambda: link.stats.frames_received == 2)
    assert link.last_received == heartbeat_at
    run_until(link, transport, clock, lambda: False, limit=0.5)
    good = frame(2, 0x04, b"")
    transport.incoming += good[:-1] + bytes((good[-1] ^ 0xFF,))
    run_until(link, transport, clock, lambda: link.stats.crc_errors == 1)
    assert link.last_received == heartbeat_at


def test_port_error_loses_the_link_at_once_and_reconnects():
    link, transport, recorder, clock = make_link()
    link.connect()
    transport.fail_reads = True
    start = clock.now
    original = transport.open

    def open_then_heal():
        original()
        transport.fail_reads = False

    transport.open = open_then_heal
    run_until(link, transport, clock, lambda: len(recorder.kinds("up")) == 2)
    assert recorder.kinds("lost")[0][1] == "DriverIOError"
    assert recorder.lost_at[0] == start  # no waiting for heartbeats


def test_reconnect_backoff_doubles_up_to_the_limit():
    config = LinkConfig(
        heartbeat_interval=1.0,
        backoff_initial=0.1,
        backoff_factor=2.0,
        backoff_max=0.5,
        hello_timeout=0.5,
        hello_attempts=1,
    )
    link, transport, recorder, clock = make_link(config=config)
    link.connect()
    transport.fail_reads = True
    transport.open_failures = 5
    stop = Stop(clock, lambda: len(recorder.kinds("up")) == 2)
    original = transport.open

    def open_then_heal():
        original()
        transport.fail_reads = False

    transport.open = open_then_heal
    link.run(stop)
    assert stop.waits[:6] == [0.1, 0.2, 0.4, 0.5, 0.5, 0.5]


def test_restarted_device_resets_ids_and_drops_unacknowledged_commands():
    sessions = [DEVICE_SESSION, 0xBEEF]

    def device(transport, data):
        if data[3] == 0x01:
            transport.incoming += device_hello(sessions[0])

    link, transport, recorder, clock = make_link(device)
    link.connect()
    transport.incoming += event(1, 1) + event(2, 2)
    run_until(link, transport, clock, lambda: len(recorder.kinds("message")) == 2)
    command = link.send(0x11, b"")
    sessions.pop(0)  # the device power-cycles: silent, then a new session
    run_until(link, transport, clock, lambda: len(recorder.kinds("up")) == 2)
    assert recorder.kinds("up")[-1] == ("up", 0xBEEF, True, True)
    assert recorder.kinds("dropped") == [("dropped", (command,), "device restarted")]
    transport.incoming += event(3, 1)  # ids start again at 1: delivered, not a duplicate
    run_until(link, transport, clock, lambda: len(recorder.kinds("message")) == 3)
    assert recorder.kinds("message")[-1][2] == 1


def test_send_refuses_link_message_types():
    link, *_ = make_link()
    with pytest.raises(ValueError):
        link.send(0x02, b"")


def test_send_is_thread_safe_and_ids_are_unique():
    link, *_ = make_link()
    ids = []

    def worker():
        ids.extend(link.send(0x10, b"\x35") for _ in range(200))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(ids) == list(range(1, 801))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"heartbeat_interval": 0},
        {"ack_timeout": -1},
        {"loss_after_heartbeats": 1},
        {"hello_attempts": 0},
        {"backoff_max": 0.01},
        {"heartbeat_interval": 70.0},
        {"backoff_factor": 0.5},
    ],
)
def test_link_config_refuses_unsafe_values(kwargs):
    with pytest.raises(ValueError):
        LinkConfig(**kwargs)


# -- the leak fixture (tests/leaks.py) fails what it should ----------------------------------------


@pytest.mark.slow  # a pytest run in a new interpreter
def test_leak_fixture_fails_a_leaked_thread_port_pty_and_task(pytester, monkeypatch):
    pytester.makeconftest((Path(__file__).parents[1] / "leaks.py").read_text())
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        textwrap.dedent("""
        import asyncio, os, threading, serial
        KEEP = []
        async def test_task():
            asyncio.get_running_loop().create_task(asyncio.sleep(1), name="leaky-task")
        def test_thread():
            stop = threading.Event()
            KEEP.append(stop)
            threading.Thread(target=stop.wait, args=(2,), name="leaky-thread", daemon=True).start()
        def test_port():
            KEEP.append(serial.serial_for_url("loop://"))
        def test_pty():
            KEEP.append(os.openpty())
        async def test_clean():
            await asyncio.sleep(0)
    """)
    )
    monkeypatch.setenv("TABLE_TEST_LEAK_GRACE", "0.05")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=5, errors=4)
    result.stdout.fnmatch_lines(
        ["*leaky-task*", "*leaky-thread*", "*1 serial port(s) left open*", "*file descriptors left open*"]
    )


# -- the layers (docs/design.md, "Layers": each arrow points one way) ---------------------------------

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(package: str):
    import ast

    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                yield path, node.module


def test_drivers_import_neither_simulators_nor_the_controller():
    bad = [
        (str(path.relative_to(ROOT)), name)
        for path, name in imported_modules("drivers")
        if name.split(".")[0] in ("simulators", "table_controller")
    ]
    assert bad == []


def test_simulators_use_only_the_framer_crc_and_message_constants_of_the_drivers():
    allowed = {"drivers.framing", "drivers.crc", "drivers.messages"}
    bad = [
        (str(path.relative_to(ROOT)), name)
        for path, name in imported_modules("simulators")
        if (name.split(".")[0] == "drivers" and name not in allowed and not name.endswith(".msgtypes"))
        or name.split(".")[0] == "table_controller"
    ]
    assert bad == []


@pytest.mark.slow  # a new interpreter
def test_registry_loads_drivers_lazily_by_name():
    import subprocess
    import sys

    code = (
        "import sys, drivers; "
        "assert 'serial' not in sys.modules and 'drivers.shuffler' not in sys.modules; "
        "cls = drivers.load_driver('shuffler'); print(cls.__module__, cls.__name__, cls.name)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["drivers.shuffler.driver", "ShufflerDriver", "shuffler"]


@pytest.mark.slow  # a new interpreter
def test_the_daemon_reaches_the_drivers_only_through_the_registry():
    """Importing the daemon and its conductor loads no driver module: the device is opened by
    name (``drivers.load_driver``), as configuration names it."""
    import subprocess
    import sys

    code = (
        "import sys, table_controller.daemon.run, table_controller.conductor; "
        "print(*sorted(m for m in sys.modules if m.startswith('drivers.') and m.endswith('.driver')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_registry_refuses_an_unknown_name():
    import drivers

    assert set(drivers.available_drivers()) == {"shuffler", "dice-shaker"}
    with pytest.raises(DriverInitError, match="unknown driver 'roulette'"):
        drivers.load_driver("roulette")


# -- frames the host cannot use, NAK counting (link.md 3) --------------------------------------------


class RefusingRecorder(Recorder):
    """A listener whose codec refuses message id 1 (as a ROLL with a die showing 7 is refused)."""

    def message(self, msg_type, msg_id, body, frame):
        if msg_id == 1:
            raise ProtocolError("die 3 shows 7", raw=frame.raw)
        super().message(msg_type, msg_id, body, frame)


def test_a_frame_the_host_cannot_use_is_naked_refused_never_acked_and_its_copy_too():
    link, transport, _, clock = make_link()
    recorder = RefusingRecorder(clock)
    link.listener = recorder
    link.connect()
    transport.incoming += event(5, 1) + event(5, 1) + event(6, 2)
    run_until(link, transport, clock, lambda: recorder.kinds("message"))
    assert [f.payload for f in transport.frames(0x03)] == [bytes((0x03, 5))] * 2  # NAK REFUSED, seq 5
    assert [f.payload for f in transport.frames(0x02)] == [b"\x00\x00\x00\x02"]  # only id 2 is ACKed
    assert [call[2] for call in recorder.kinds("message")] == [2]
    assert recorder.kinds("error") == []  # id 2 after a refused id 1 is not "skipped"


def test_a_command_the_device_refuses_is_dropped_not_resent():
    def device(transport, data):
        if data[3] == 0x01:
            transport.incoming += device_hello()
        elif data[3] == 0x10:
            transport.incoming += frame(9, 0x03, bytes((0x03, data[2])))  # NAK REFUSED

    link, transport, recorder, clock = make_link(device)
    link.connect()
    link.send(0x10, b"\x99")
    run_until(link, transport, clock, lambda: recorder.kinds("dropped"), limit=2.0)
    assert len(transport.frames(0x10)) == 1
    assert recorder.kinds("dropped")[0][1] == (1,) and "REFUSED" in recorder.kinds("dropped")[0][2]


def test_naks_of_one_burst_resend_once_and_every_resend_counts_toward_the_three():
    naks = []

    def device(transport, data):
        if data[3] == 0x01:
            transport.incoming += device_hello()
        elif data[3] == 0x10:  # three NAKs for every transmission, as a noisy line would give
            naks.append(data)
            transport.incoming += frame(9, 0x03, bytes((0x01, data[2]))) * 3

    link, transport, recorder, clock = make_link(device)
    link.connect()
    link.send(0x10, b"\x35")
    start = clock.now
    run_until(link, transport, clock, lambda: recorder.kinds("lost"))
    assert len(transport.frames(0x10)) == 4  # 3 retransmissions, NAK-triggered ones included
    # at most one re-send per ACK timeout: the 4 transmissions span at least 3 ACK timeouts
    assert recorder.lost_at[0] - start >= 3 * CONFIG.ack_timeout


def test_a_refused_message_re_sent_is_refused_once_more_then_acked_as_used_up_and_reported_once():
    """link.md 3.1: a device that follows the 1.0 text re-sends after any NAK. Its refused
    message is refused once more, then ACKed as used up (never delivered), so that it goes on
    with its next message instead of spending its retries and losing the link for ever; the
    controller hears of it once, with the frame."""
    link, transport, _, clock = make_link()
    recorder = RefusingRecorder(clock)
    link.listener = recorder
    link.connect()
    transport.incoming += event(5, 1) * 4 + event(6, 2)
    run_until(link, transport, clock, lambda: recorder.kinds("message"))
    assert [f.payload for f in transport.frames(0x03)] == [bytes((0x03, 5))] * 2  # refused, then its copy
    acks = [f.payload for f in transport.frames(0x02)]
    assert acks == [bytes.fromhex(x) for x in ("00000001", "00000001", "00000002")]
    assert [call[2] for call in recorder.kinds("message")] == [2]  # id 1 never delivered
    [(_, name, error)] = recorder.kinds("error")
    assert name == "RefusedResentError" and error.raw == event(5, 1) and error.msg_id == 1
    assert "protocol 1.0" in str(error)
    assert recorder.kinds("lost") == [] and link.stats.refused_resent == 1


def test_a_refused_message_re_sent_after_a_reconnect_is_not_refused_for_ever():
    """The same session's device sends its message in flight again after the HELLO: a copy
    past the one refused again is ACKed, never a loop of link losses."""
    link, transport, _, clock = make_link()
    recorder = RefusingRecorder(clock)
    link.listener = recorder
    link.connect()
    transport.incoming += event(5, 1) * 2
    run_until(link, transport, clock, lambda: len(transport.frames(0x03)) == 2)
    link.connect()  # the link was lost meanwhile; the device comes back in the same session
    transport.incoming += event(5, 1)
    run_until(link, transport, clock, lambda: recorder.kinds("error"))
    assert transport.frames(0x02)[-1].payload == b"\x00\x00\x00\x01"
    assert [call[1] for call in recorder.kinds("error")] == ["RefusedResentError"]


class Trickle(FakeTransport):
    """A serial line: each read returns the few bytes that have arrived, not a whole write."""

    def read(self, size: int, timeout: float) -> bytes:
        return super().read(min(size, 2), timeout)


def test_a_burst_of_noise_read_a_few_bytes_at_a_time_is_one_log_line():
    """link.md 2.3: a burst (40 bytes without a SYNC, read 2 bytes at a time) is one
    ``link.noise`` line, not one per read."""
    clock = Clock()
    transport = Trickle(clock, answering_device())
    recorder = Recorder(clock)
    link = HostLink(transport, recorder, config=CONFIG, clock=clock)
    link.connect()
    noise = bytes(range(0x10, 0x38))
    assert len(noise) == 40 and 0xA5 not in noise
    transport.incoming += noise
    with capture_logs() as logs:
        run_until(link, transport, clock, lambda: not transport.incoming and link.stats.noise_bursts, limit=1)
    lines = [entry for entry in logs if entry["event"] == "link.noise"]
    assert len(lines) == 1 and lines[0]["garbage_bytes"] == 40 and lines[0]["raw"] == noise.hex()


def _package_imports(package: str):
    """(file, imported table_controller package) for every import in ``table_controller/<package>``,
    relative ones resolved, those inside functions and under TYPE_CHECKING included."""
    import ast

    for path in sorted((ROOT / "table_controller" / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        here = parts[:-1]  # the package a relative import starts from (for __init__.py too)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = list(here[: len(here) - node.level + 1])
                names = [node.module] if node.module else [alias.name for alias in node.names]
                targets = [".".join([*base, *name.split(".")]) for name in names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                split = target.split(".")
                if split[0] == "table_controller" and len(split) > 1:
                    yield str(path.relative_to(ROOT)), split[1]


# docs/design.md, "Layers": inside table_controller the imports point down, never up
ABOVE = {
    "record": {"table", "conductor", "daemon", "cli", "api", "floor"},
    "table": {"conductor", "daemon", "cli", "api", "floor"},
    "conductor": {"daemon", "cli", "api", "floor"},
    "api": {"conductor", "cli"},
    "floor": {"conductor", "cli"},
    "daemon": {"cli"},
}


@pytest.mark.parametrize("package", sorted(ABOVE))
def test_the_controllers_packages_import_only_down(package):
    bad = [(path, name) for path, name in _package_imports(package) if name in ABOVE[package]]
    assert bad == []
