"""The long run of "no command breaks the table": the state machine of
tests/test_service_stateful.py for as many sequences and steps as asked.

    .venv/bin/python -m benchmarks.bench_stateful --examples 500 --steps 60 [--seed 1] [--db-url URL]
                                                  [--batch 25] [--shrink]

Sequences run in batches of ``--batch`` (one Hypothesis run each, seeded from ``--seed`` and
the batch number, so a run is repeatable); a batch stops at its first failure, which is
counted and printed once (its sequence of commands), and the next batch goes on. The store
is SQLite in a temporary folder, or a schema of its own in the PostgreSQL database at
``--db-url`` (dropped after). ``--shrink`` lets Hypothesis shrink a failure to a minimal
sequence (slow). Prints sequences and steps run, refusals by
type, rounds settled and voided, failures, and the wall time.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import structlog
from hypothesis import HealthCheck, Phase, settings

from benchmarks.bench_round import scratch_store
from table_controller.storage import open_store
from tests.test_service_stateful import Stats, run_machine


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="sequences of commands to run")
    parser.add_argument("--steps", type=int, default=50, help="commands per sequence (at most)")
    parser.add_argument(
        "--seed", type=int, default=0, help="the run's seed (the same seed, the same sequences)"
    )
    parser.add_argument("--batch", type=int, default=25, help="sequences per Hypothesis run")
    parser.add_argument("--db-url", help="a PostgreSQL URL: the run uses a schema of its own, dropped after")
    parser.add_argument("--shrink", action="store_true", help="shrink a failure to a minimal sequence (slow)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    phases = [Phase.explicit, Phase.generate, *([Phase.shrink] if args.shrink else [])]
    stats, failures, first_failure = Stats(), 0, None
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, scratch_store(args.db_url, Path(folder)) as url:
        engine = open_store(url)
        try:
            batch = 0
            while stats.sequences < args.examples:
                size = min(args.batch, args.examples - stats.sequences)
                budget = settings(
                    max_examples=size,
                    stateful_step_count=args.steps,
                    deadline=None,
                    derandomize=False,
                    database=None,
                    phases=phases,
                    print_blob=False,
                    report_multiple_bugs=False,
                    suppress_health_check=list(HealthCheck),
                )
                random.seed(
                    f"{args.seed}:{batch}"
                )  # Hypothesis draws its seed from here when not derandomized
                before = stats.sequences
                try:
                    run_machine(engine, budget, stats)
                except Exception as error:
                    failures += 1
                    if first_failure is None:
                        notes = "\n".join(getattr(error, "__notes__", []))
                        first_failure = f"{type(error).__name__}: {error}\n{notes}"
                if stats.sequences == before:  # nothing ran (cannot happen unless Hypothesis refuses)
                    break
                batch += 1
        finally:
            engine.dispose()
    wall = time.perf_counter() - started
    print(f"store {engine.dialect.name}, seed {args.seed}, up to {args.steps} steps a sequence")
    print(
        f"  sequences run: {stats.sequences}   steps run: {stats.steps}   "
        f"({stats.steps / max(wall, 1e-9):.0f} steps/s)"
    )
    print(
        f"  rounds settled: {stats.settled}   voided: {stats.voided}   "
        f"refusals: {', '.join(f'{k} {v}' for k, v in sorted(stats.refused.items())) or 'none'}"
    )
    print(f"  failures: {failures}   wall time: {wall:.1f} s")
    if first_failure is not None:
        print("\nfirst failure:\n" + first_failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
