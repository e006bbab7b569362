"""``python -m simulators dice``: the shaker's serial variant as a process, for demos and end-to-end tests.

    python -m simulators dice --pty [--seed N] [--fault NAME ...]
    python -m simulators dice --listen 127.0.0.1:PORT [--seed N] [--fault NAME ...]

Prints one line, the port a driver opens (a tty path, or ``socket://host:port``), then serves
until SIGINT or SIGTERM (or ``--duration`` seconds, or a ``quit`` line). Lines on standard input
work the machine: ``open-cover``, ``close-cover``, ``tamper``, ``reset`` (the attendant's key),
``cut [seconds]`` (the cable pulled), ``deaf`` (SHAKEs acknowledged and never done, heartbeats
still answered), ``hear`` (shaking again), ``quit``; each answered ``ok NAME`` on standard output.
Unseeded, the dice come from ``secrets.SystemRandom``. Fault names: simulators/faults.py
(``cocked-die``, ``die-unreadable``, ``cover-open``, ``tamper``, ``corrupted-frame``,
``dropped-frame``, ``duplicated-frame``, ``link-cut``).
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence

from simulators.device_link import DeviceLinkConfig
from simulators.faults import DICE_SHAKER_FAULTS, UnknownFaultError, parse_faults
from simulators.stop_signals import StopSignals

from .device import DiceShakerSimulator


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simulators dice", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pty pair; print the tty path")
    where.add_argument(
        "--listen", type=_address, metavar="HOST:PORT", help="serve on a TCP socket (port 0: any free port)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed the dice (default: SystemRandom)")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME",
        help="a fault scenario; repeat or comma-separate for several. "
        f"Known: {', '.join(sorted(f.value for f in DICE_SHAKER_FAULTS))}",
    )
    parser.add_argument("--serial-number", default="DS3-SIM-0001")
    parser.add_argument("--shake-duration", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument(
        "--cut-duration",
        type=float,
        default=0.3,
        metavar="SECONDS",
        help="how long the link-cut scenario keeps the cable pulled",
    )
    parser.add_argument(
        "--cover-close-after",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="how long the cover-open scenario keeps the cover open",
    )
    parser.add_argument(
        "--tamper-reset-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="clear a tamper fault after this long (default: latched until restart)",
    )
    parser.add_argument("--fast", action="store_true", help="short device-side ACK timeout (tests)")
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop after this long (default: until SIGINT or SIGTERM)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        faults = parse_faults(",".join(args.fault), DICE_SHAKER_FAULTS)
    except UnknownFaultError as exc:
        parser.error(str(exc))
    simulator = DiceShakerSimulator(
        seed=args.seed,
        faults=faults,
        serial_number=args.serial_number,
        link_config=DeviceLinkConfig.fast() if args.fast else None,
        shake_duration=args.shake_duration,
        cut_duration=args.cut_duration,
        cover_close_after=args.cover_close_after,
        tamper_reset_after=args.tamper_reset_after,
    )
    done = threading.Event()  # "quit" on standard input
    with StopSignals() as stop, simulator:
        if args.pty:
            print(simulator.serve_pty(), flush=True)
        else:
            host, port = simulator.serve_socket(*args.listen)
            print(f"socket://{host}:{port}", flush=True)
        reader = threading.Thread(target=_read_commands, args=(simulator, done), daemon=True, name="stdin")
        reader.start()
        stop.wait(args.duration, also=done)
    return 0


COMMANDS: dict[str, Callable[[DiceShakerSimulator], None]] = {
    "open-cover": DiceShakerSimulator.open_cover,
    "close-cover": DiceShakerSimulator.close_cover,
    "tamper": DiceShakerSimulator.trip_tamper,
    "reset": DiceShakerSimulator.attendant_reset,
    "deaf": DiceShakerSimulator.go_deaf,
    "hear": DiceShakerSimulator.hear_again,
}


def _read_commands(simulator: DiceShakerSimulator, done: threading.Event) -> None:
    try:
        for line in sys.stdin:
            if _command(simulator, line.split()):
                done.set()
                return
    except OSError:  # no standard input to read (a test runner's): nobody works the machine
        return


def _command(simulator: DiceShakerSimulator, words: list[str]) -> bool:
    """Carry out one line's command; True for ``quit``."""
    if not words:
        return False
    if words[0] == "quit":
        return True
    if words[0] == "cut":
        simulator.cut_link(float(words[1]) if len(words) > 1 else None)
    elif words[0] in COMMANDS:
        COMMANDS[words[0]](simulator)
    else:
        known = ", ".join([*COMMANDS, "cut", "quit"])
        print(f"unknown command {words[0]!r}; known: {known}", file=sys.stderr, flush=True)
        return False
    print(f"ok {words[0]}", flush=True)
    return False
