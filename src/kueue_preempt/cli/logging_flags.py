"""The CLI's logging flags: ``-v/--verbose`` and ``-q/--quiet``, and one line per library warning.

The library only *logs*, so applications can route or silence its messages: it never prints.
The CLI is the application, so it owns the handler: records of the ``kueue_preempt`` logger go
to stderr as one line each, ``kueue-preempt: warning: <message>``, whatever newlines the message
holds. The handler is installed for one :func:`~kueue_preempt.cli.main.main` call and removed
afterwards, so embedding the CLI (or calling ``main`` in tests) leaves the process's logging as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from typing import Iterable, Iterator

__all__ = ["add_logging_flags", "level_for", "cli_logging", "LOGGER_NAME"]

LOGGER_NAME = "kueue_preempt"

# -q: errors only; default: warnings (EP-5 invalid boosts, notes); -v: info; -vv: debug.
_LEVELS = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO}


def add_logging_flags(parser: argparse.ArgumentParser, subparsers: Iterable[argparse.ArgumentParser] = ()) -> None:
    """Add ``-v/--verbose`` (repeatable) and ``-q/--quiet`` to ``parser`` and every subcommand.

    On the subcommands the defaults are suppressed, so ``kueue-preempt -v explain ...`` and
    ``kueue-preempt explain ... -v`` both work and the subcommand does not reset the global value.
    """
    for p, default in [(parser, 0)] + [(s, argparse.SUPPRESS) for s in subparsers]:
        group = p.add_mutually_exclusive_group()
        group.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=default,
            help="more log output on stderr: -v info, -vv debug (default: warnings and notes)",
        )
        group.add_argument(
            "-q",
            "--quiet",
            action="store_true",
            default=False if default == 0 else argparse.SUPPRESS,
            help="errors only: hide warnings and notes on stderr",
        )


def level_for(args: argparse.Namespace) -> int:
    """The logging level ``args`` ask for (``-q`` wins over ``-v`` if both reach the namespace)."""
    if getattr(args, "quiet", False):
        return _LEVELS[-1]
    verbose = int(getattr(args, "verbose", 0) or 0)
    return logging.DEBUG if verbose >= 2 else _LEVELS[min(verbose, 1)]


class _OneLineFormatter(logging.Formatter):
    """``kueue-preempt: warning: message`` on one line (newlines and tracebacks folded in)."""

    def __init__(self, prog: str) -> None:
        super().__init__()
        self.prog = prog

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            message += " | " + self.formatException(record.exc_info)
        text = " | ".join(line.strip() for line in message.splitlines() if line.strip())
        if text.startswith("note: "):
            return f"{self.prog}: {text}"  # a note is a warning-level record that is not a problem
        return f"{self.prog}: {record.levelname.lower()}: {text}"


@contextlib.contextmanager
def cli_logging(level: int, prog: str) -> Iterator[logging.Logger]:
    """Route the library's log records to stderr at ``level`` for the duration of the block."""
    logger = logging.getLogger(LOGGER_NAME)
    handler = logging.StreamHandler(sys.stderr)  # the current stderr, so tests can capture it
    handler.setFormatter(_OneLineFormatter(prog))
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(level)
    # Not also to the root logger: an application's own root handler would print a second copy.
    logger.propagate = False
    try:
        yield logger
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
