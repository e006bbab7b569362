"""The simulated dice shaker: its mechanism model, its pyusb backend and its serial variant.

Byte layouts are checked against docs/protocols/dice-shaker.md (sections 2 and 5), the same
document the driver's codec is checked against, so the two sides meet only through the text.
"""

from __future__ import annotations

import ast
import errno
import pathlib
import random
import select
import subprocess
import sys
import time

import pytest
import usb.core
import usb.util

from drivers.dice_shaker.driver import DiceShakerDriver, ShakeFailed
from drivers.link import LinkConfig
from simulators.device_link import DeviceLinkConfig
from simulators.dice_shaker import DiceShakerSimulator, cli
from simulators.dice_shaker import model as m
from simulators.dice_shaker.model import DiceShakerModel, UnknownCommandError
from simulators.faults import Fault, UnknownFaultError

ROOT = pathlib.Path(__file__).resolve().parents[2]


class ScriptedDice:
    """Stands in for the model's random source: returns the values given, in order."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randint(self, low: int, high: int) -> int:
        value = self.values.pop(0)
        assert low <= value <= high
        return value


def model(*, dice=(), **options) -> DiceShakerModel:
    shaker = DiceShakerModel(**options)
    if dice:
        shaker.rng = ScriptedDice(*dice)
    return shaker


# -- the model's bytes are the document's bytes ------------------------------------------------


def test_roll_body_is_the_documented_layout():
    shaker = model(dice=(3, 5, 6), first_roll_id=1042)
    shaker.command(m.SHAKE, 7, b"", now=0.0)
    # docs section 5: ROLL roll 1042, command 7, dice 3 5 6 (body after the message id)
    assert shaker.take_events() == [(0x50, bytes.fromhex("00000412 00000007 030506"))]
    assert shaker.rolls == [(1042, (3, 5, 6))]


def test_cocked_die_voids_the_attempt_and_the_reshake_clears_it_then_rolls():
    shaker = model(dice=(2, 3, 5, 6), first_roll_id=1041, faults=[Fault.COCKED_DIE])
    shaker.command(m.SHAKE, 6, b"", now=0.0)
    assert shaker.take_events() == [(0x51, bytes.fromhex("03 02 00000411 00000006"))]
    assert shaker.status_event()[1][4] == m.FLAG_RESHAKE_NEEDED
    shaker.command(m.SHAKE, 7, b"", now=1.0)
    assert shaker.take_events() == [
        (0x52, bytes.fromhex("03")),
        (0x50, bytes.fromhex("00000412 00000007 030506")),
    ]
    assert shaker.rolls == [(1042, (3, 5, 6))]


def test_unreadable_die_behaves_like_a_cocked_one_with_its_own_code():
    shaker = model(dice=(1, 4, 4, 4), faults=[Fault.DIE_UNREADABLE])
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    assert shaker.take_events() == [(0x51, bytes.fromhex("02 01 00000001 00000001"))]
    shaker.command(m.SHAKE, 2, b"", now=0.0)
    assert shaker.take_events() == [(0x52, b"\x02"), (0x50, bytes.fromhex("00000002 00000002 040404"))]


def test_cover_open_refuses_then_closes_after_its_delay():
    shaker = model(dice=(1, 2, 3), faults=[Fault.COVER_OPEN], cover_close_after=0.05)
    shaker.command(m.SHAKE, 8, b"", now=10.0)
    assert shaker.take_events() == [
        (0x51, bytes.fromhex("01 00 00000000 00000000")),
        (0x53, bytes.fromhex("00000008 01")),
    ]
    shaker.tick(10.04)
    assert shaker.take_events() == []
    shaker.tick(10.05)
    assert shaker.take_events() == [(0x52, b"\x01")]
    shaker.command(m.SHAKE, 9, b"", now=10.1)
    assert shaker.take_events() == [(0x50, bytes.fromhex("00000001 00000009 010203"))]


def test_tamper_is_latched_until_the_attendant_key():
    shaker = model(dice=(6, 6, 6), faults=[Fault.TAMPER])
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    assert shaker.take_events() == [
        (0x51, bytes.fromhex("04 00 00000000 00000000")),
        (0x53, bytes.fromhex("00000001 04")),
    ]
    shaker.tick(1e6)
    shaker.command(m.SHAKE, 2, b"", now=1e6)
    assert shaker.take_events() == [(0x53, bytes.fromhex("00000002 04"))]
    shaker.attendant_reset()
    shaker.command(m.SHAKE, 3, b"", now=1e6)
    assert shaker.take_events() == [(0x52, b"\x04"), (0x50, bytes.fromhex("00000001 00000003 060606"))]


def test_tamper_reset_after_a_delay_when_configured():
    shaker = model(faults=[Fault.TAMPER], tamper_reset_after=2.0)
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    shaker.take_events()
    shaker.tick(1.9)
    assert shaker.take_events() == []
    shaker.tick(2.0)
    assert shaker.take_events() == [(0x52, b"\x04")]


def test_refusal_precedence_is_tamper_then_cover():
    shaker = model()
    shaker.open_cover()
    shaker.trip_tamper()
    shaker.take_events()
    shaker.command(m.SHAKE, 5, b"", now=0.0)
    assert shaker.take_events() == [(0x53, bytes.fromhex("00000005 04"))]


def test_a_deaf_shaker_takes_shakes_and_does_nothing_until_it_hears_again():
    """The broken shaker of the fault machine (tests/daemon/fault_machine.py): no roll, no refusal."""
    shaker = model(dice=(2, 4, 6))
    shaker.deaf = True
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    shaker.tick(60.0)
    assert shaker.take_events() == [] and shaker.rolls == []
    shaker.deaf = False
    shaker.command(m.SHAKE, 2, b"", now=61.0)
    assert shaker.take_events() == [(0x50, bytes.fromhex("00000001 00000002 020406"))]


def test_the_cli_works_the_machine_from_its_standard_input(capsys):
    with DiceShakerSimulator() as sim:
        assert cli._command(sim, ["deaf"]) is False and sim.model.deaf
        assert cli._command(sim, ["open-cover"]) is False and sim.model.cover_open
        assert cli._command(sim, ["hear"]) is False and not sim.model.deaf
        assert cli._command(sim, ["shake-it"]) is False
        assert cli._command(sim, ["quit"]) is True
    captured = capsys.readouterr()
    assert captured.out.split("\n")[:3] == ["ok deaf", "ok open-cover", "ok hear"]
    assert "unknown command 'shake-it'" in captured.err


def test_a_shake_while_shaking_is_refused_busy_and_the_first_completes():
    shaker = model(dice=(2, 2, 2), shake_duration=1.0)
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    assert shaker.status_event()[1][4] == m.FLAG_SHAKING
    shaker.command(m.SHAKE, 2, b"", now=0.5)
    assert shaker.take_events() == [(0x53, bytes.fromhex("00000002 80"))]
    shaker.tick(1.0)
    assert shaker.take_events() == [(0x50, bytes.fromhex("00000001 00000001 020202"))]


def test_cover_opened_mid_shake_voids_the_attempt():
    shaker = model(shake_duration=1.0)
    shaker.command(m.SHAKE, 4, b"", now=0.0)
    shaker.open_cover()
    shaker.tick(2.0)
    assert shaker.take_events() == [(0x51, bytes.fromhex("01 00 00000001 00000004"))]
    assert shaker.rolls == []


def test_status_body_and_flags():
    shaker = model(dice=(1, 1, 1), first_roll_id=1042)
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    shaker.take_events()
    shaker.open_cover()
    shaker.take_events()
    shaker.command(m.STATUS_REQUEST, 9, b"", now=0.0)
    # docs section 2.8: command id 9, flags bit 0 (cover open), last roll 1042
    assert shaker.take_events() == [(0x54, bytes.fromhex("00000009 01 00000412"))]


def test_roll_ids_wrap_past_zero():
    shaker = model(dice=(1, 1, 1, 2, 2, 2), first_roll_id=0xFFFFFFFF)
    shaker.command(m.SHAKE, 1, b"", now=0.0)
    shaker.command(m.SHAKE, 2, b"", now=0.0)
    assert [roll_id for roll_id, _ in shaker.rolls] == [0xFFFFFFFF, 1]


@pytest.mark.parametrize(("msg_type", "body"), [(0x42, b""), (0x10, b""), (m.SHAKE, b"\x00")])
def test_unknown_commands_are_refused(msg_type, body):
    with pytest.raises(UnknownCommandError):
        model().command(msg_type, 1, body, now=0.0)


def test_first_roll_id_zero_is_refused():
    with pytest.raises(ValueError, match="first_roll_id"):
        DiceShakerModel(first_roll_id=0)


def test_seeded_dice_repeat_and_unseeded_dice_use_the_system_rng():
    def rolls(seed):
        shaker = DiceShakerModel(seed=seed)
        for command in range(1, 6):
            shaker.command(m.SHAKE, command, b"", now=0.0)
        return shaker.rolls

    assert rolls(11) == rolls(11)
    assert rolls(11) != rolls(12)
    assert isinstance(DiceShakerModel().rng, random.SystemRandom)


def test_the_model_and_the_codec_agree_on_the_tables():
    """Two tables written apart from the same document: a typo in either shows here."""
    from drivers.dice_shaker import codec

    assert {t.name: int(t) for t in codec.DiceMsg} == {
        "SHAKE": m.SHAKE,
        "STATUS_REQUEST": m.STATUS_REQUEST,
        "ROLL": m.ROLL,
        "FAULT": m.FAULT,
        "FAULT_CLEARED": m.FAULT_CLEARED,
        "SHAKE_REFUSED": m.SHAKE_REFUSED,
        "STATUS": m.STATUS,
    }
    assert {v.value: k for k, v in codec.FAULT_CODES.items()} == {
        "cover_open": m.COVER_OPEN,
        "die_unreadable": m.DIE_UNREADABLE,
        "die_cocked": m.DIE_COCKED,
        "tamper": m.TAMPER,
    }
    assert codec.REFUSAL_CODES[m.BUSY].value == "busy"


def test_unknown_fault_name_is_refused():
    with pytest.raises(UnknownFaultError):
        DiceShakerSimulator(faults=["jam"])  # a shuffler fault


# -- the pyusb backend ---------------------------------------------------------------------------


@pytest.fixture
def sim():
    shaker = DiceShakerSimulator(seed=1, serial_number="DS3-TEST-9", cut_duration=0.2)
    yield shaker
    shaker.close()


def test_pyusb_finds_the_documented_descriptors(sim):
    backend = sim.usb_backend()
    device = usb.core.find(backend=backend, idVendor=0x1209, idProduct=0x0007)
    assert device is not None
    try:
        assert (device.bcdUSB, device.bDeviceClass, device.bMaxPacketSize0, device.bNumConfigurations) == (
            0x0200,
            0x00,
            64,
            1,
        )
        configuration = device[0]
        assert (configuration.bConfigurationValue, configuration.bmAttributes, configuration.bMaxPower) == (
            1,
            0xC0,
            50,
        )
        interface = configuration[(0, 0)]
        assert (
            interface.bInterfaceNumber,
            interface.bInterfaceClass,
            interface.bInterfaceSubClass,
            interface.bInterfaceProtocol,
            interface.bNumEndpoints,
        ) == (0, 0xFF, 0x44, 0x01, 2)
        endpoints = [
            (e.bEndpointAddress, usb.util.endpoint_type(e.bmAttributes), e.wMaxPacketSize) for e in interface
        ]
        assert endpoints == [(0x01, usb.util.ENDPOINT_TYPE_BULK, 64), (0x81, usb.util.ENDPOINT_TYPE_BULK, 64)]
        assert (device.manufacturer, device.product, device.serial_number) == (
            "Table Devices (simulated)",
            "DS-3 dice shaker",
            "DS3-TEST-9",
        )
        assert usb.util.get_string(device, interface.iInterface) == "Dice shaker link"
    finally:
        usb.util.dispose_resources(device)
    assert backend.open_handles == 0


def test_unplugged_device_disappears_and_comes_back_with_stale_handles(sim):
    backend = sim.usb_backend()
    device = usb.core.find(backend=backend, idVendor=0x1209)
    device.set_configuration(1)
    usb.util.claim_interface(device, 0)
    sim.cut_link()
    assert usb.core.find(backend=backend, idVendor=0x1209) is None
    with pytest.raises(usb.core.USBError) as info:
        device.read(0x81, 64, 10)
    assert info.value.errno == errno.ENODEV
    time.sleep(0.25)
    again = usb.core.find(backend=backend, idVendor=0x1209)
    assert again is not None
    with pytest.raises(usb.core.USBError) as info:  # the old handle belongs to the old attachment
        device.write(0x01, b"x", 10)
    assert info.value.errno == errno.ENODEV
    usb.util.dispose_resources(device)
    usb.util.dispose_resources(again)
    assert backend.open_handles == 0


def test_a_read_that_is_not_whole_packets_overflows_like_a_real_bus(sim):
    backend = sim.usb_backend()
    device = usb.core.find(backend=backend, idVendor=0x1209)
    try:
        device.set_configuration(1)
        with sim.lock:  # 70 bytes waiting on bulk IN: a HELLO answer
            sim.link.write(bytes(70))
        with pytest.raises(usb.core.USBError) as info:
            device.read(0x81, 10, 50)
        assert info.value.errno == errno.EOVERFLOW
    finally:
        usb.util.dispose_resources(device)


def test_unsupported_control_requests_stall(sim):
    backend = sim.usb_backend()
    device = usb.core.find(backend=backend, idVendor=0x1209)
    try:
        with pytest.raises(usb.core.USBError) as info:
            device.ctrl_transfer(0xC0, 0x01, 0, 0, 8)  # a vendor request: none is defined
        assert info.value.errno == errno.EPIPE
        with pytest.raises(usb.core.USBError) as info:
            usb.util.get_string(device, 3, langid=0x0407)  # only US English strings
        assert info.value.errno == errno.EPIPE
    finally:
        usb.util.dispose_resources(device)


def test_bulk_transfers_need_a_claimed_interface_on_the_right_endpoint(sim):
    backend = sim.usb_backend()
    device = usb.core.find(backend=backend, idVendor=0x1209)
    try:
        with pytest.raises(usb.core.USBError) as info:  # unconfigured: nothing to claim
            usb.util.claim_interface(device, 0)
        assert info.value.errno == errno.ENOENT
        device.set_configuration(1)
        with pytest.raises(ValueError, match="Invalid endpoint address 0x2"):
            device.write(0x02, b"x")
    finally:
        usb.util.dispose_resources(device)


# -- the serial variant ----------------------------------------------------------------------------


async def test_serial_variant_over_a_socket_rolls():
    with DiceShakerSimulator(seed=5, link_config=DeviceLinkConfig.fast()) as sim:
        host, port = sim.serve_socket()
        url = f"socket://{host}:{port}"
        async with DiceShakerDriver.over_serial(url, link_config=LinkConfig.fast()) as driver:
            roll = await driver.roll()
        assert sim.model.rolls == [(roll.roll_id, roll.faces)]


def test_a_simulator_serves_one_channel():
    with DiceShakerSimulator() as sim:
        sim.serve_pty()
        with pytest.raises(RuntimeError, match="already serving"):
            sim.serve_socket()


def test_cli_prints_the_tty_path(capsys):
    assert cli.main(["--pty", "--seed", "3", "--duration", "0.05"]) == 0
    assert capsys.readouterr().out.strip().startswith("/dev/")


def test_cli_prints_the_socket_url(capsys):
    assert cli.main(["--listen", "127.0.0.1:0", "--duration", "0.05"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("socket://127.0.0.1:") and int(out.rsplit(":", 1)[1]) > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pty", "--fault", "jam"], "does not apply"),
        (["--pty", "--fault", "nonsense"], "unknown fault"),
        (["--listen", "localhost"], "expected HOST:PORT"),
        ([], "one of the arguments --pty --listen is required"),
    ],
)
def test_cli_refuses_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
async def test_the_simulator_runs_as_a_process_over_a_pty():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simulators",
            "dice",
            "--pty",
            "--seed",
            "4",
            "--fault",
            "cocked-die",
            "--fast",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 10)
        assert ready, "the simulator printed no tty path"
        path = process.stdout.readline()
        async with DiceShakerDriver.over_serial(path.strip(), link_config=LinkConfig.fast()) as driver:
            with pytest.raises(ShakeFailed) as info:
                await driver.roll()
            assert info.value.needs_reshake and info.value.event.roll_id == 1
            assert (await driver.roll()).roll_id == 2
    finally:
        process.terminate()
        assert process.wait(5) == 0
        process.stdout.close()


# -- layering ----------------------------------------------------------------------------------------


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_dice_simulator_shares_only_framing_crc_and_constants_with_the_drivers():
    allowed = {"drivers.framing", "drivers.crc", "drivers.messages"}
    for path in (ROOT / "simulators" / "dice_shaker").glob("*.py"):
        used = {name for name in _imports(path) if name.split(".")[0] == "drivers"}
        assert used <= allowed, f"{path.name} imports {used - allowed}"


def test_the_dice_driver_never_imports_simulators_or_the_game():
    paths = [*(ROOT / "drivers" / "dice_shaker").glob("*.py"), ROOT / "drivers" / "usb_transport.py"]
    for path in paths:
        used = {name.split(".")[0] for name in _imports(path)}
        assert not used & {"simulators", "table_controller"}, path.name
