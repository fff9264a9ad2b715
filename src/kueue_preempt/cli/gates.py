"""The CLI's ``--feature-gates`` flag and the note about ignored priority boosts (FG-1, EP-2).

The CLI's defaults are Kueue's: gate ``PriorityBoost`` is off, so a dump whose
workloads carry ``kueue.x-k8s.io/priority-boost`` is evaluated without those boosts, exactly as
Kueue with default gates would. That difference must never be silent: :func:`note_ignored_boosts`
logs one note naming how many workloads carry the annotation and how to turn the gate on.
"""

from __future__ import annotations

import argparse
import logging
from typing import Iterable

from kueue_preempt.model.config import FeatureGates
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import BOOST_ANNOTATION

__all__ = ["add_feature_gates_flag", "feature_gates_of", "note_ignored_boosts", "BOOST_FLAG"]

BOOST_FLAG = "--feature-gates PriorityBoost=true"
_log = logging.getLogger("kueue_preempt.cli")


def _gates(value: str) -> str:
    # Validated here (a typo is a usage error), applied later over the --config file's gates.
    try:
        FeatureGates.parse(value)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def add_feature_gates_flag(parser: argparse.ArgumentParser) -> None:
    """``--feature-gates NAME=BOOL,...`` with Kueue's gate names; unset gates keep Kueue's defaults."""
    parser.add_argument(
        "--feature-gates",
        type=_gates,
        default=None,
        metavar="NAME=BOOL,...",
        help="Kueue feature gates, e.g. PriorityBoost=true (default: Kueue's defaults; PriorityBoost is off)",
    )


def feature_gates_of(args: argparse.Namespace, base: FeatureGates | None = None) -> FeatureGates:
    """The gates the command line asks for over ``base`` (a ``--config`` file's gates; default:
    Kueue's defaults): an explicit flag wins, gate by gate."""
    text = getattr(args, "feature_gates", None)
    base = base if base is not None else FeatureGates()
    return FeatureGates.parse(text, base=base) if isinstance(text, str) else base


def note_ignored_boosts(workloads: Iterable[Workload], gates: FeatureGates) -> int:
    """Log one note if some workloads carry a boost annotation that the off gate ignores (EP-2).

    Returns how many workloads carry one (0 when the gate is on: nothing is ignored then).
    """
    if gates.priority_boost:
        return 0
    keys = sorted(w.key for w in workloads if w.annotations.get(BOOST_ANNOTATION, "") != "")
    if keys:
        shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        _log.warning(
            "note: %d workload(s) carry the %s annotation (%s), ignored because the PriorityBoost "
            "feature gate is off (Kueue's default); pass %s to honour it",
            len(keys),
            BOOST_ANNOTATION,
            shown,
            BOOST_FLAG,
        )
    return len(keys)
