"""``table-controller floor`` with one endpoint more, ``GET /bench/empty`` (an empty FastAPI
endpoint first among the app's routes): the baseline bench_floor.py measures a floor request's
CPU against, on the same server. Everything else is the command as it runs (one process: with
``--workers`` above 1 the workers are fresh interpreters and have no such endpoint).

    python -m benchmarks.floor_probe floor --db-url URL --port 0
"""

from __future__ import annotations

from typing import Any

from table_controller.floor import workers


def main() -> None:
    from table_controller.cli.main import main as command

    from .bench_floor import add_empty_endpoint

    real = workers.create_floor_app

    def with_empty(*args: Any, **kwargs: Any) -> Any:
        return add_empty_endpoint(real(*args, **kwargs))

    workers.create_floor_app = with_empty
    command()


if __name__ == "__main__":
    main()
