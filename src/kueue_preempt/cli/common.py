"""What every command shares: exit codes, the program name, the Kueue configuration flags, text tables."""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable

from kueue_preempt.cli.gates import feature_gates_of, release_of
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.config import FairSharingConfig, PreemptionConfig
from kueue_preempt.io.kueue_config import KueueConfiguration, load_kueue_config
from kueue_preempt.io.text import MAX_SECONDS, NumberTextError, float_text, int_text

EXIT_OK = 0
EXIT_NO_TARGETS = 1
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3
EXIT_IO_ERROR = 4
EXIT_MISSING_DEPENDENCY = 5
EXIT_INTERNAL_ERROR = 70

PROG = "kueue-preempt"

OUTPUT_HELP = "table: aligned text for reading (default); json: one JSON document for scripts"


class CommandLineError(ConfigurationError):
    """An option value that is wrong for the input it names (found only after reading the
    input, e.g. a ``sweep --metric`` the dump has no such column for): a usage error, exit 2."""


def kueue_config_of(args: argparse.Namespace) -> KueueConfiguration:
    """``--config FILE`` (Kueue's own Configuration file), else Kueue's defaults (API-32), as the
    ``--kueue-version`` release reads them."""
    release = release_of(args)
    return load_kueue_config(args.config, release=release) if args.config else KueueConfiguration.defaults(release)


def preemption_config_of(args: argparse.Namespace, kueue: KueueConfiguration) -> PreemptionConfig:
    """The configuration file's settings; explicit flags (``--feature-gates``, fair sharing) win
    over it, gate by gate (FG-5)."""
    overrides: dict[str, Any] = {"feature_gates": feature_gates_of(args, base=kueue.feature_gate_set())}
    if args.strategies is not None:
        overrides["fair_sharing"] = FairSharingConfig(preemption_strategies=args.strategies)
    elif args.fair_sharing and kueue.fair_sharing is None:
        overrides["fair_sharing"] = FairSharingConfig()
    return kueue.preemption_config(**overrides)


def int_flag(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type`` for an integer flag in ``[low, high]`` (ASCII digits only: Python's
    ``int()`` would also take ``"٣"`` and ``"1_000"``, and fail on 5,000 digits)."""

    def parse(value: str) -> int:
        try:
            return int_text(value, low=low, high=high)
        except NumberTextError as exc:
            raise argparse.ArgumentTypeError(exc.reason) from None

    return parse


def float_flag(low: float, high: float = math.inf, what: str = "a number") -> Callable[[str], float]:
    """An argparse ``type`` for a decimal flag in ``[low, high]`` (ASCII digits; no nan/inf)."""

    def parse(value: str) -> float:
        try:
            return float_text(value, low=low, high=high, what=what)
        except NumberTextError as exc:
            raise argparse.ArgumentTypeError(exc.reason) from None

    return parse


seconds_flag = float_flag(0.0, MAX_SECONDS, "a number of seconds")
"""An argparse ``type`` for seconds: ``>= 0`` and at most :data:`~kueue_preempt.io.text.MAX_SECONDS`."""


def table(headers: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = []
    for row in [headers] + rows:
        cells = [c.ljust(widths[i]) if i < len(row) - 1 else c for i, c in enumerate(row)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"
