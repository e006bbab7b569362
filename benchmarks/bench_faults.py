"""The long run of the fault machine (tests/daemon/fault_machine.py): faults across processes for
as many sequences and steps as asked, and every wedge it finds with the steps that led to it.

    .venv/bin/python -m benchmarks.bench_faults --sequences 20 --steps 12 [--seed 1]
        [--store sqlite|postgresql|both] [--db-url URL] [--unfixed NAME|all ...] [--keep DIR]

Each sequence is one Hypothesis example (seeded from ``--seed`` and its number, so a run is
repeatable) on a table of its own: the daemon, both simulators and a store (SQLite in a
temporary folder, or a schema of its own in the PostgreSQL database at ``--db-url``, reached
through a proxy that can be cut; dropped after). A wedge ends its sequence and the next one goes
on. ``--unfixed NAME`` runs the steps and checks that ``KNOWN_WEDGES`` switches off for NAME
(``all``: for every one), to see a known wedge found, or a fix proven. Prints sequences, steps,
faults injected by kind, daemon starts, rounds settled after the pit's clearing, the wedges
found (each with its invariant, what was seen and its steps), wall and CPU time. Exit 1 when a
wedge was found. Each sequence takes a minute or two of wall time (the steps wait on processes).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.daemon import fault_machine
from tests.daemon.fault_machine import Stats, Wedge, run_machine
from tests.db_fixtures import DEFAULT_POSTGRES_URL


def cpu_seconds() -> float:
    """CPU of this process and of its children that were waited for (the daemons, the consoles)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def reproduce_known(args: argparse.Namespace) -> int:
    """Each known wedge's sequence on its store: found (its invariant) or not."""
    found = 0
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        for name, what in list(fault_machine.KNOWN_WEDGES.items()):
            folder = base / f"reproduce-{name}"
            folder.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            wedge = fault_machine.reproduce(name, folder, args.db_url)
            kind = fault_machine.STORE_OF.get(name, "sqlite")
            took = time.perf_counter() - started
            print(f"\n=== {name} ({what[:60]}...), {kind}, {took:.0f} s")
            if wedge is None:
                print("not found: the sequence ran clean (fixed? remove it from KNOWN_WEDGES)")
            else:
                found += 1
                print(wedge)
    print(f"\nknown wedges found again: {found} of {len(fault_machine.KNOWN_WEDGES)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sequences", type=int, default=10, help="sequences to run (each a table of its own)"
    )
    parser.add_argument("--steps", type=int, default=10, help="steps per sequence (at most)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (the same seed, the same steps)")
    parser.add_argument("--store", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--db-url", default=DEFAULT_POSTGRES_URL, help="the PostgreSQL server for --store")
    parser.add_argument(
        "--unfixed",
        action="append",
        default=[],
        metavar="NAME",
        help="run what KNOWN_WEDGES switches off for NAME (all: every one): "
        + ", ".join(fault_machine.KNOWN_WEDGES),
    )
    parser.add_argument("--keep", type=Path, help="keep the logs of every sequence in this folder")
    parser.add_argument(
        "--reproduce",
        action="store_true",
        help="instead: run each known wedge's shortest sequence (REPRODUCTIONS) with its switch off",
    )
    args = parser.parse_args(argv)
    if args.reproduce:
        return reproduce_known(args)
    names = list(fault_machine.KNOWN_WEDGES) if "all" in args.unfixed else args.unfixed
    for name in names:
        if name not in fault_machine.KNOWN_WEDGES:
            parser.error(f"not a known wedge: {name}")
        del fault_machine.KNOWN_WEDGES[name]
    kinds = ["sqlite", "postgresql"] if args.store == "both" else [args.store]
    stats = Stats()
    found: list[tuple[int, str, Wedge]] = []
    errors: Counter[str] = Counter()
    started, cpu = time.perf_counter(), cpu_seconds()
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        for number in range(args.sequences):
            kind = kinds[number % len(kinds)]
            folder = base / f"run-{args.seed}-{number}"
            folder.mkdir(parents=True, exist_ok=True)
            before = len(stats.wedges)
            try:
                run_machine(
                    folder,
                    kind,
                    postgres_url=args.db_url if kind == "postgresql" else None,
                    steps=args.steps,
                    seed_=args.seed * 100_003 + number,
                    stats=stats,
                )
            except Wedge:
                found.extend((number, kind, wedge) for wedge in stats.wedges[before:])
            except Exception as error:  # the rig itself failed: said, counted, and the run goes on
                errors[f"{type(error).__name__}: {str(error)[:200]}"] += 1
            print(
                f"sequence {number + 1}/{args.sequences} ({kind}): "
                f"{'WEDGE' if len(stats.wedges) > before else 'ok'}",
                flush=True,
            )
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    print(
        f"\nfault machine, seed {args.seed}, up to {args.steps} steps a sequence, stores: {', '.join(kinds)}"
    )
    print(f"  unfixed (switched on again): {', '.join(names) or 'none'}")
    print(f"  sequences: {stats.sequences}   steps: {stats.steps}   daemon starts: {stats.starts}")
    kinds_of_faults = ", ".join(f"{k} {v}" for k, v in sorted(stats.faults.items()))
    print(f"  faults injected: {sum(stats.faults.values())}  ({kinds_of_faults})")
    print(f"  rounds settled after the pit put everything right: {stats.settled}")
    print(f"  wedges found: {len(found)}")
    by_invariant = Counter(wedge.invariant for _, _, wedge in found)
    for invariant, count in sorted(by_invariant.items()):
        print(f"    {invariant}: {count}")
    if errors:
        print(f"  rig errors (not wedges): {sum(errors.values())}")
        for error, count in errors.items():
            print(f"    {count} x {error}")
    print(
        f"  wall time: {wall:.0f} s   CPU: the daemons {stats.daemon_cpu:.0f} s, "
        f"this process and the processes it waited for {cpu:.0f} s"
    )
    for number, kind, wedge in found:
        print(f"\n--- sequence {number + 1} ({kind}) ---\n{wedge}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
