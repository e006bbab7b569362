"""Structured logging (structlog): JSON lines in production, a readable console on a terminal.

Context variables (``table_id``, ``round_id``) are merged into every line, so each line of a
round carries its round id (bind them with ``structlog.contextvars.bind_contextvars``).
Standard-library loggers (uvicorn, sqlalchemy, alembic) go through the same renderer.
Logs go to standard error; standard output stays free for command results.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Literal

import structlog

LogFormat = Literal["auto", "json", "console"]

# Alembic says these at INFO every time it looks at a schema (a start, ``audit verify``):
# they tell an operator nothing. "Running upgrade ..." lines, which do, stay.
_ALEMBIC_CHATTER = ("Context impl ", "Will assume ")


def _not_alembic_chatter(record: logging.LogRecord) -> bool:
    return not (isinstance(record.msg, str) and record.msg.startswith(_ALEMBIC_CHATTER))


def configure_logging(fmt: LogFormat = "auto", level: str = "INFO") -> None:
    """Configure structlog and the standard library once, at program start."""
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer(colors=False)
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    migration = logging.getLogger("alembic.runtime.migration")
    if _not_alembic_chatter not in migration.filters:
        migration.addFilter(_not_alembic_chatter)
    # "setup plugin ..." at INFO for each of Alembic's plugins, when it is first imported (the
    # store's commands import it after logging is set up): chatter too
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        cache_logger_on_first_use=False,
    )


_DRIVER_PREFIX = re.compile(r"^\((?:[\w.]+)\)\s*")  # SQLAlchemy's "(psycopg.OperationalError) "
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def error_text(error: BaseException) -> str:
    """What went wrong as a person reads it in an alert, a hold or a page: the error's own
    message (its first line, at most 200 characters), never a Python class name (the log line
    carries the class and the traceback). An error without a message is named in words:
    ``RoundClosedError()`` -> ``round closed``."""
    lines = str(error).strip().splitlines()
    first = _DRIVER_PREFIX.sub("", lines[0]).strip()[:200] if lines else ""
    if isinstance(error, json.JSONDecodeError):  # its message alone does not say what was wrong
        return f"not JSON ({first})"
    if first:
        return first
    name = type(error).__name__.removesuffix("Error").removesuffix("Exception")
    return _CAMEL.sub(" ", name).lower() or "an unexpected failure"
