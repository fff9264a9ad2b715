"""What every command shares: exit codes, the program name, the Kueue configuration flags, text tables."""

from __future__ import annotations

import argparse
from typing import Any

from kueue_preempt.cli.gates import feature_gates_of, release_of
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.config import FairSharingConfig, PreemptionConfig
from kueue_preempt.io.kueue_config import KueueConfiguration, load_kueue_config

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


def table(headers: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = []
    for row in [headers] + rows:
        cells = [c.ljust(widths[i]) if i < len(row) - 1 else c for i, c in enumerate(row)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"
