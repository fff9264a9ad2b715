"""The CLI's ``--feature-gates`` and ``--kueue-version`` flags, and the notes about what the chosen
Kueue release ignores: priority boosts with the gate off (FG-1, EP-2), annotations of gates the
release does not have (kueue-api-fields.md §3.4).

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
from kueue_preempt.model.releases import DEFAULT_RELEASE, KueueRelease, first_release_with, kueue_release
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import BOOST_ANNOTATION

__all__ = [
    "add_feature_gates_flag",
    "feature_gates_of",
    "note_ignored_boosts",
    "note_release",
    "release_of",
    "release_notes",
    "BOOST_FLAG",
]

BOOST_FLAG = "--feature-gates PriorityBoost=true"
_log = logging.getLogger("kueue_preempt.cli")


def _gates(value: str) -> str:
    # Validated here (a typo is a usage error), applied later over the --config file's gates.
    try:
        FeatureGates.parse(value)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _release(value: str) -> KueueRelease:
    try:
        return kueue_release(value)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_feature_gates_flag(parser: argparse.ArgumentParser) -> None:
    """``--feature-gates NAME=BOOL,...`` with Kueue's gate names, and ``--kueue-version`` for the
    release whose defaults the gates not set keep."""
    parser.add_argument(
        "--feature-gates",
        type=_gates,
        default=None,
        metavar="NAME=BOOL,...",
        help="Kueue feature gates, e.g. PriorityBoost=true (default: the --kueue-version release's defaults; PriorityBoost is off)",
    )
    parser.add_argument(
        "--kueue-version",
        type=_release,
        default=None,
        metavar="RELEASE",
        help=f"the Kueue release whose feature-gate defaults to use: 0.16 to 0.19 (a line means its latest "
        f"patch) or a patch such as 0.18.4 (default: {DEFAULT_RELEASE.label})",
    )


def release_of(args: argparse.Namespace) -> KueueRelease:
    """``--kueue-version``, else the default release."""
    value = getattr(args, "kueue_version", None)
    return value if isinstance(value, KueueRelease) else DEFAULT_RELEASE


def feature_gates_of(args: argparse.Namespace, base: FeatureGates | None = None) -> FeatureGates:
    """The gates the command line asks for over ``base`` (a ``--config`` file's gates; default:
    the ``--kueue-version`` release's defaults): an explicit flag wins, gate by gate."""
    text = getattr(args, "feature_gates", None)
    base = base if base is not None else FeatureGates.for_release(release_of(args))
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


# Workload annotations that act only with a gate (kueue-api-fields.md §1.9).
_GATED_ANNOTATIONS = (
    (BOOST_ANNOTATION, "PriorityBoost"),
    ("kueue.x-k8s.io/admission-gated-by", "AdmissionGatedBy"),
    ("kueue.x-k8s.io/workload-allowed-resource-flavors", "ConcurrentAdmission"),
    ("kueue.x-k8s.io/elastic-job", "ElasticJobsViaWorkloadSlices"),
)


def release_notes(workloads: Iterable[Workload], release: KueueRelease) -> list[str]:
    """One line per gated annotation that ``release`` does not know: the dump (or the incoming
    workload) was written for another Kueue release, and this one ignores the annotation."""
    notes = []
    items = list(workloads)
    for annotation, gate in _GATED_ANNOTATIONS:
        if release.has_gate(gate):
            continue
        keys = sorted(w.key for w in items if annotation in w.annotations)
        if keys:
            shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
            notes.append(
                f"{len(keys)} workload(s) carry the {annotation} annotation ({shown}), which needs "
                f"Kueue {first_release_with(gate)} or later (gate {gate}); {release.label} ignores it"
            )
    return notes


def note_release(workloads: Iterable[Workload], release: KueueRelease) -> list[str]:
    """Log :func:`release_notes` as warnings and return them."""
    notes = release_notes(workloads, release)
    for line in notes:
        _log.warning("note: %s", line)
    return notes
