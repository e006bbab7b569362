"""``python -m simulators shuffler``: the shuffler simulator as a process, on a pty or a TCP socket.

    python -m simulators shuffler --pty [--seed 7] [--fault jam] ...
        prints the tty path (first line of standard output); open it as a serial port
    python -m simulators shuffler --listen 127.0.0.1:7001
        prints socket://HOST:PORT, the URL the driver opens (as the dice simulator does)

Then it serves until SIGINT/SIGTERM or a ``quit`` line. Lines on standard input work the
machine: ``open-door``, ``close-door``, ``jam``, ``clear-jam``, ``remove-deck``, ``load-deck``,
``cut [seconds]``, ``restart``, ``quit``. Exit status: 0, or 2 for bad options.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Sequence

import structlog

from ..channels import PtyChannel, SocketChannel
from ..device_link import DeviceLinkConfig
from ..faults import SHUFFLER_FAULTS, UnknownFaultError, parse_faults
from ..stop_signals import StopSignals
from .simulator import ShufflerSimulator


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simulators shuffler", description=__doc__.splitlines()[0]
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pty; print its path")
    where.add_argument("--listen", type=_address, metavar="HOST:PORT", help="serve on a TCP socket")
    parser.add_argument("--seed", type=int, help="seed the shuffle (default: secrets.SystemRandom)")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME",
        help=f"fault scenario, repeatable: {', '.join(sorted(SHUFFLER_FAULTS))}",
    )
    parser.add_argument("--jokers", type=int, choices=(1, 2), default=1, help="jokers in the loaded deck")
    parser.add_argument("--pile-interval", type=float, default=0.5, metavar="S", help="seconds between piles")
    parser.add_argument("--cut", type=float, default=3.0, metavar="S", help="link-cut duration in seconds")
    parser.add_argument("--fast", action="store_true", help="short link timings (ACK timeout 40 ms)")
    return parser


COMMANDS = {
    "open-door": ShufflerSimulator.open_door,
    "close-door": ShufflerSimulator.close_door,
    "jam": ShufflerSimulator.jam,
    "clear-jam": ShufflerSimulator.clear_jam,
    "remove-deck": ShufflerSimulator.remove_deck,
    "load-deck": ShufflerSimulator.load_deck,
    "restart": ShufflerSimulator.restart,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        faults = parse_faults(args.fault, SHUFFLER_FAULTS)
    except UnknownFaultError as exc:
        parser.print_usage(sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    structlog.configure(  # standard output carries only the address and command answers
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
    )
    channel = PtyChannel() if args.pty else SocketChannel(*args.listen)
    simulator = ShufflerSimulator(
        seed=args.seed,
        faults=faults,
        jokers=args.jokers,
        pile_interval=args.pile_interval,
        cut_duration=args.cut,
        link_config=DeviceLinkConfig.fast() if args.fast else None,
        channel=channel,
    )
    done = threading.Event()  # "quit" on standard input
    with StopSignals() as stop, simulator:
        if args.pty:
            print(simulator.tty_path, flush=True)
        else:
            host, port = simulator.address
            print(f"socket://{host}:{port}", flush=True)
        reader = threading.Thread(target=_read_commands, args=(simulator, done), daemon=True, name="stdin")
        reader.start()
        stop.wait(also=done)
    return 0


def _read_commands(simulator: ShufflerSimulator, done: threading.Event) -> None:
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            done.set()
            return
        if words[0] == "cut":
            simulator.cut_link(float(words[1]) if len(words) > 1 else None)
        elif words[0] in COMMANDS:
            COMMANDS[words[0]](simulator)
        else:
            print(
                f"unknown command {words[0]!r}; known: {', '.join([*COMMANDS, 'cut', 'quit'])}",
                file=sys.stderr,
                flush=True,
            )
            continue
        print(f"ok {words[0]}", flush=True)
