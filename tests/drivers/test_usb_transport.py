"""UsbTransport over pyusb, against the simulated shaker's IBackend (docs/protocols/dice-shaker.md, "USB").

pyusb's own find/Device/Configuration/Endpoint code runs unchanged; only the backend is simulated.
"""

from __future__ import annotations

import threading
import time

import pytest

from drivers.errors import DriverInitError, DriverIOError
from drivers.usb_transport import UsbConfig, UsbTransport
from simulators.dice_shaker.usb_backend import SimulatedUsbBackend

VID, PID = 0x1209, 0x0007


class Loopback:
    """A device function that sends back what it receives (the BulkFunction the backend serves)."""

    manufacturer = "Test"
    product = "Loopback"
    serial_number = "LOOP-1"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buffer = bytearray()
        self.plugged = 1  # attachment number, None while unplugged

    def attachment(self):
        return self.plugged

    def receive(self, data: bytes) -> None:
        with self.lock:
            self.buffer += data

    def transmit(self, max_bytes: int) -> bytes:
        with self.lock:
            data = bytes(self.buffer[:max_bytes])
            del self.buffer[:max_bytes]
            return data


@pytest.fixture
def loopback():
    return Loopback()


@pytest.fixture
def backend(loopback):
    return SimulatedUsbBackend(loopback)


@pytest.fixture
def transport(backend):
    port = UsbTransport(UsbConfig(VID, PID), backend=backend)
    port.open()
    yield port
    port.close()


def test_open_claims_the_interface_and_reads_the_packet_size(transport, backend):
    assert transport.is_open
    assert transport.packet_size == 64
    assert transport.serial_number == "LOOP-1"
    assert backend.open_handles == 1


def test_close_releases_everything_and_is_idempotent(transport, backend):
    transport.close()
    transport.close()
    assert not transport.is_open and backend.open_handles == 0
    with pytest.raises(DriverIOError, match="not open"):
        transport.read(10, 0.01)
    with pytest.raises(DriverIOError, match="not open"):
        transport.write(b"x")


def test_bytes_come_back_in_order_across_packets_and_small_reads(transport):
    data = bytes(range(256)) * 2  # 512 bytes: eight 64-byte packets
    transport.write(data)
    received = bytearray()
    sizes = [1, 5, 63, 64, 65, 100, 3, 4096]
    while len(received) < len(data):
        chunk = transport.read(sizes[len(received) % len(sizes)], 0.2)
        assert chunk, "the loopback holds bytes, a read must return some"
        received += chunk
    assert bytes(received) == data


def test_a_short_read_never_overflows_a_packet(transport):
    transport.write(b"A" * 100)
    assert transport.read(1, 0.2) == b"A"  # the transport asked for a whole packet and kept the rest
    assert transport.read(200, 0.2) == b"A" * 63  # the rest of that first packet, no new transfer
    assert transport.read(200, 0.2) == b"A" * 36


def test_read_times_out_with_empty_bytes(transport):
    started = time.monotonic()
    assert transport.read(64, 0.05) == b""
    assert 0.04 <= time.monotonic() - started < 0.5


def test_trace_sees_every_chunk(backend):
    seen = []
    port = UsbTransport(UsbConfig(VID, PID), backend=backend, trace=lambda d, data: seen.append((d, data)))
    port.open()
    try:
        port.write(b"hello")
        assert port.read(64, 0.2) == b"hello"
    finally:
        port.close()
    assert seen == [("tx", b"hello"), ("rx", b"hello")]


def test_unplugged_device_is_an_io_error_on_read_and_write(transport, loopback):
    loopback.plugged = None
    with pytest.raises(DriverIOError, match="No such device"):
        transport.read(64, 0.05)
    with pytest.raises(DriverIOError, match="No such device"):
        transport.write(b"x")


def test_replugged_device_is_found_again(transport, loopback, backend):
    loopback.plugged = None
    transport.close()
    with pytest.raises(DriverInitError, match="no USB device 1209:0007"):
        transport.open()
    loopback.plugged = 2
    transport.open()
    transport.write(b"back")
    assert transport.read(64, 0.2) == b"back"
    assert backend.open_handles == 1


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (UsbConfig(VID, 0x0008), "no USB device 1209:0008"),
        (UsbConfig(0x1234, PID), "no USB device 1234:0007"),
        (UsbConfig(VID, PID, serial_number="OTHER"), "no USB device 1209:0007 serial 'OTHER'"),
        (UsbConfig(VID, PID, interface=1), "has no interface 1"),
        (UsbConfig(VID, PID, alternate_setting=1), "alternate setting 1"),
        (UsbConfig(VID, PID, endpoint_out=0x02), "has no endpoint 0x02"),
        (UsbConfig(VID, PID, endpoint_in=0x82), "has no endpoint 0x82"),
        (UsbConfig(VID, PID, configuration=2), "Invalid configuration 2"),
    ],
)
def test_open_refuses_what_the_descriptors_do_not_offer(backend, config, message):
    port = UsbTransport(config, backend=backend)
    with pytest.raises(DriverInitError, match=message):
        port.open()
    assert not port.is_open and backend.open_handles == 0


def test_serial_number_selects_the_device(backend):
    port = UsbTransport(UsbConfig(VID, PID, serial_number="LOOP-1"), backend=backend)
    port.open()
    try:
        assert port.serial_number == "LOOP-1"
    finally:
        port.close()


def test_a_second_host_cannot_claim_a_claimed_interface(transport, backend):
    second = UsbTransport(UsbConfig(VID, PID), backend=backend)
    with pytest.raises(DriverInitError, match="Resource busy"):
        second.open()
    assert backend.open_handles == 1


def test_no_device_on_the_real_bus_is_an_init_error():
    """Without a backend pyusb uses libusb (or finds none): either way a typed DriverInitError."""
    port = UsbTransport(UsbConfig(VID, PID, serial_number="no-such-serial-number"))
    with pytest.raises(DriverInitError):
        port.open()
    assert not port.is_open


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1209:0007", UsbConfig(0x1209, 0x0007)),
        ("1209:7", UsbConfig(0x1209, 0x0007)),
        ("abcd:EF01:DS3-0042", UsbConfig(0xABCD, 0xEF01, "DS3-0042")),
        (" 1209:0007 ", UsbConfig(0x1209, 0x0007)),
    ],
)
def test_parse_vid_pid_serial(text, expected):
    assert UsbConfig.parse(text) == expected


@pytest.mark.parametrize("text", ["", "1209", "1209:", "12345:0007", "xyz:0007", "1209-0007"])
def test_parse_refuses_malformed_ids(text):
    with pytest.raises(ValueError, match="vid:pid"):
        UsbConfig.parse(text)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"vendor_id": 0x10000},
        {"product_id": -1},
        {"configuration": 0},
        {"endpoint_out": 0x81},
        {"endpoint_in": 0x01},
        {"interface": 256},
    ],
)
def test_config_refuses_impossible_values(kwargs):
    base = {"vendor_id": VID, "product_id": PID} | kwargs
    with pytest.raises(ValueError):
        UsbConfig(**base)


def test_write_timeout_must_be_positive():
    with pytest.raises(ValueError, match="write_timeout"):
        UsbTransport(UsbConfig(VID, PID), write_timeout=0)
