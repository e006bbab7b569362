"""The shuffler simulator as a process (``python -m simulators shuffler``), its URL handler,
and the socket channel: the same driver over ``socket://``."""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path

import pytest
import serial

from drivers.base import LinkUp
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import FaultKind, PileRead, ShufflerFault, UnusedCards
from simulators.__main__ import main as simulators_main
from simulators.channels import SocketChannel
from simulators.device_link import DeviceLinkConfig
from simulators.shuffler import ShufflerSimulator
from simulators.shuffler.protocol_simshuffler import simulator_from_url

REPO = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "simulators", *args],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_line(process: subprocess.Popen, timeout: float = 10) -> str:
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "no output from the simulator"
    return process.stdout.readline().strip()


def finish(process: subprocess.Popen) -> int:
    if process.poll() is None:
        process.terminate()
    code = process.wait(5)
    for stream in (process.stdin, process.stdout, process.stderr):
        stream.close()
    return code


def test_dispatcher_usage_and_unknown_device(capsys):
    assert simulators_main([]) == 2
    assert simulators_main(["--help"]) == 0
    assert simulators_main(["roulette"]) == 2
    assert "unknown device 'roulette'" in capsys.readouterr().err


def test_bad_fault_name_exits_2():
    process = start("shuffler", "--pty", "--fault", "jammed")
    try:
        assert process.wait(10) == 2
        assert "unknown fault 'jammed'" in process.stderr.read()
    finally:
        finish(process)


def test_pty_or_listen_is_required():
    with pytest.raises(SystemExit) as info:
        simulators_main(["shuffler"])
    assert info.value.code == 2


async def test_listen_serves_the_driver_over_a_socket_and_obeys_stdin():
    process = start("shuffler", "--listen", "127.0.0.1:0", "--seed", "7", "--fast", "--pile-interval", "0")
    try:
        url = first_line(process)  # the URL to open, in the dice simulator's form
        host, port = url.removeprefix("socket://").rsplit(":", 1)
        assert url.startswith("socket://") and host == "127.0.0.1" and int(port) > 0
        driver = ShufflerDriver.from_url(url, link_config=LinkConfig.fast())
        async with driver:
            assert isinstance(await driver.next_event(2), LinkUp)
            driver.shuffle(53)
            driver.deal()
            events = [await driver.next_event(2) for _ in range(9)]
            assert [type(e) for e in events[1:]] == [PileRead] * 7 + [UnusedCards]
            process.stdin.write("open-door\n")
            process.stdin.flush()
            fault = await driver.next_event(2)
            assert isinstance(fault, ShufflerFault) and fault.kind is FaultKind.DOOR_OPEN
            assert first_line(process) == "ok open-door"
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(5) == 0
    finally:
        finish(process)


async def test_socket_channel_in_process_survives_a_host_reconnect():
    sim = ShufflerSimulator(seed=7, link_config=DeviceLinkConfig.fast(), channel=SocketChannel())
    with sim:
        host, port = sim.address
        for _ in range(2):  # a second host connection finds the same device session
            driver = ShufflerDriver.from_url(f"socket://{host}:{port}", link_config=LinkConfig.fast())
            async with driver:
                up = await driver.next_event(2)
                assert isinstance(up, LinkUp) and up.hello.session_id == sim.link.session_id


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("simshuffler://?colour=red", "unknown option"),
        ("simshuffler://?seed=seven", "invalid literal"),
        ("simshuffler://?fault=cocked-die", "does not apply"),
        ("simshuffler://?jokers=3", "1 or 2 jokers"),
        ("simshuffler://nobody", "no running shuffler simulator"),
        ("loop://", "expected a simshuffler"),
    ],
)
def test_bad_simulator_urls_are_serial_exceptions(url, message):
    with pytest.raises(serial.SerialException) as info:
        simulator_from_url(url)
    assert message in str(info.value)


@pytest.fixture
def url_handler(monkeypatch):
    """pyserial finds ``simshuffler://`` (restored after the test)."""
    packages = [*serial.protocol_handler_packages, "simulators.shuffler"]
    monkeypatch.setattr(serial, "protocol_handler_packages", packages)


def test_a_named_simulator_takes_one_host_at_a_time_and_no_options(url_handler):
    with ShufflerSimulator(seed=1) as sim:
        port = serial.serial_for_url(sim.url, timeout=0.1)
        try:
            with pytest.raises(serial.SerialException, match="already has a host"):
                serial.serial_for_url(sim.url)
            with pytest.raises(serial.SerialException, match="takes no options"):
                serial.serial_for_url(sim.url + "?seed=2")
        finally:
            port.close()
        again = serial.serial_for_url(sim.url, timeout=0.1)  # free again once closed
        again.close()


def test_cut_link_refuses_to_open_the_port_until_restored(url_handler):
    with ShufflerSimulator(seed=1) as sim:
        sim.cut_link(0.2)
        with pytest.raises(serial.SerialException, match="cut"):
            serial.serial_for_url(sim.url)


def test_url_of_a_pty_simulator_is_a_type_error():
    from simulators.channels import PtyChannel

    sim = ShufflerSimulator(channel=PtyChannel())
    try:
        with pytest.raises(TypeError):
            _ = sim.url  # a pty-served simulator has no pyserial URL
        assert sim.tty_path.startswith("/dev/")
    finally:
        sim.stop()
