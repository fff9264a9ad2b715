"""Kueue releases and their feature-gate defaults (the only copy of the per-release table).

Source: kueue-api-fields.md §3.4 "Gate defaults per Kueue release" (read from each release's
gate registry, ``pkg/features/kube_features.go``, at the latest patch tag v0.16.9, v0.17.8,
v0.18.6, v0.19.2, and at the reference commit ``ff69552e``, Kueue's main branch after v0.19).
As in API-39, the last listed stage of a gate is its default. Only gates that change
scheduling, flavor assignment or preemption are in the table; every other gate keeps its
default at the reference commit.

A release is named by its line (``0.18``: its latest patch), a patch (``0.18.4``), or the
reference commit (``0.20-dev``, also ``ff69552e``); a leading ``v`` is accepted.
:data:`DEFAULT_RELEASE` is the reference commit, the one the library reproduces by default.
"""

from __future__ import annotations

import enum
import re
from typing import Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError

__all__ = [
    "DEFAULT_RELEASE",
    "GateState",
    "KueueRelease",
    "REFERENCE_COMMIT",
    "RELEASE_LINES",
    "first_release_with",
    "kueue_release",
    "known_release_names",
]

REFERENCE_COMMIT = "ff69552e"
_DEV = "0.20-dev"


class GateState(enum.Enum):
    """A gate that a release does not have: never there yet, or removed (its feature always on)."""

    ABSENT = "absent"
    REMOVED = "removed"


_A = GateState.ABSENT
_R = GateState.REMOVED
Cell = bool | GateState

RELEASE_LINES: tuple[tuple[str, int], ...] = (("0.16", 9), ("0.17", 8), ("0.18", 6), ("0.19", 2))
"""Each release line with its latest patch in the table (the patch a bare line names)."""

_LINES = tuple(line for line, _ in RELEASE_LINES) + (_DEV,)

# gate -> its default per line at the latest patch: 0.16, 0.17, 0.18, 0.19, 0.20-dev (§3.4).
_TABLE: dict[str, tuple[Cell, Cell, Cell, Cell, Cell]] = {
    **{
        gate: (True, True, True, True, True)
        for gate in (
            "PrioritySortingWithinCohort",
            "FairSharingPrioritizeNonBorrowing",
            "FairSharingPreemptWithinNominal",
            "AdmissionFairSharing",
            "FlavorFungibility",
            "PartialAdmission",
            "ReclaimablePods",
            "TopologyAwareScheduling",
        )
    },
    "PriorityBoost": (_A, False, False, False, False),
    "SchedulingEquivalenceHashing": (False, False, True, True, True),
    "FlavorFungibilityPreserveScanProgress": (_A, _A, True, True, True),
    "RecomputeAssignmentUponPreemptionTargetsOverlap": (_A, _A, False, False, True),
    "PrioritizePreemptorWorkloads": (_A, _A, False, False, False),
    "WorkloadPriorityClassDefaulting": (_A, _A, False, False, True),
    "QuotaCheckStrategy": (_A, _A, False, True, True),
    "AdmissionGatedBy": (_A, False, False, True, True),
    "ConcurrentAdmission": (_A, _A, False, False, False),
    "FlavorFungibilityImplicitPreferenceDefault": (False, _A, _A, _A, _A),
    "LendingLimit": (True, True, True, _R, _R),
    "LocalQueueDefaulting": (True, True, True, _R, _R),
    "HierarchicalCohorts": (True, True, True, True, _R),
    "ElasticJobsViaWorkloadSlices": (False, False, True, True, True),
    "TASRecomputeAssignmentWithinSchedulingCycle": (_A, True, True, True, True),
    "TASHandleOverlappingFlavors": (False, False, True, True, True),
    "TASMultiLayerTopology": (_A, False, False, True, True),
}

# Defaults that moved between patches of one line (§3.4): (line, gate) -> ((first patch, value), ...);
# a patch before the first step does not have the gate.
_PATCH_STEPS: dict[tuple[str, str], tuple[tuple[int, Cell], ...]] = {
    ("0.16", "FairSharingPrioritizeNonBorrowing"): ((2, True),),
    ("0.16", "FairSharingPreemptWithinNominal"): ((3, True),),
    ("0.16", "SchedulingEquivalenceHashing"): ((0, False), (3, True), (4, False)),
    ("0.17", "TASRecomputeAssignmentWithinSchedulingCycle"): ((6, True),),
    ("0.18", "FlavorFungibilityPreserveScanProgress"): ((5, True),),
    ("0.18", "RecomputeAssignmentUponPreemptionTargetsOverlap"): ((5, False),),
    ("0.18", "PrioritizePreemptorWorkloads"): ((6, False),),
    ("0.19", "FlavorFungibilityPreserveScanProgress"): ((1, True),),
    ("0.19", "RecomputeAssignmentUponPreemptionTargetsOverlap"): ((1, False),),
    ("0.19", "PrioritizePreemptorWorkloads"): ((2, False),),
}


def _cells(value: Mapping[str, Cell]) -> FrozenMap[str, Cell]:
    return frozen_map(value)


@attrs.frozen
class KueueRelease:
    """One Kueue release: its name and the defaults of the gates in the table (§3.4)."""

    name: str
    """``0.18.6``, or ``0.20-dev`` for the reference commit."""
    line: str
    """``0.18`` (``0.20-dev`` for the reference commit)."""
    patch: int | None
    """The patch number; ``None`` for the reference commit."""
    gates: FrozenMap[str, Cell] = attrs.field(converter=_cells)
    """Every gate of the table: its default, or why the release has no such gate."""

    @property
    def label(self) -> str:
        """How output names the release: ``Kueue 0.18.6`` or ``Kueue 0.20-dev (main at ff69552e)``."""
        if self.patch is None:
            return f"Kueue {self.name} (main at {REFERENCE_COMMIT})"
        return f"Kueue {self.name}"

    @property
    def is_reference(self) -> bool:
        return self.patch is None

    @property
    def wait_for_pods_ready_by_default(self) -> bool:
        """From 0.19 a Configuration without a ``waitForPodsReady`` block has it on (§3.4)."""
        return self.line not in ("0.16", "0.17", "0.18")

    def has_gate(self, gate: str) -> bool:
        """False when the table says this release lacks the gate (not yet there, or removed);
        True for every other name (a gate outside the table keeps its reference presence)."""
        return not isinstance(self.gates.get(gate, True), GateState)

    def default(self, gate: str) -> bool | None:
        """The gate's default in this release when the table lists it (a gate the release lacks
        is off, except a removed gate whose feature is always on), else ``None``."""
        cell = self.gates.get(gate)
        if cell is None:
            return None
        if isinstance(cell, GateState):
            return cell is GateState.REMOVED
        return cell


def _cell(line: str, patch: int | None, gate: str) -> Cell:
    base = _TABLE[gate][_LINES.index(line)]
    steps = _PATCH_STEPS.get((line, gate))
    if steps is None or patch is None:
        return base
    cell: Cell = GateState.ABSENT
    for first, value in steps:
        if patch >= first:
            cell = value
    return cell


def _build(line: str, patch: int | None) -> KueueRelease:
    name = line if patch is None else f"{line}.{patch}"
    return KueueRelease(name, line, patch, {gate: _cell(line, patch, gate) for gate in _TABLE})


DEFAULT_RELEASE: KueueRelease = _build(_DEV, None)
"""The reference commit ``ff69552e`` (0.20 in development): the defaults of ``FeatureGates()``."""

_NAME = re.compile(r"v?(0\.1[6-9])(?:\.([0-9]{1,3}))?")


def known_release_names() -> list[str]:
    """The names a user may give, newest first: lines, their patch range, the reference."""
    return [f"{_DEV} (or {REFERENCE_COMMIT})"] + [f"{line} ({line}.0-{line}.{last})" for line, last in reversed(RELEASE_LINES)]


def kueue_release(value: str | KueueRelease | None) -> KueueRelease:
    """The release ``value`` names (``None``: :data:`DEFAULT_RELEASE`); :class:`ConfigurationError`
    listing the known names for anything else."""
    if value is None:
        return DEFAULT_RELEASE
    if isinstance(value, KueueRelease):
        return value
    if not isinstance(value, str):
        raise ConfigurationError(f"Kueue release: expected a release name such as 0.19, got {type(value).__name__}")
    text = value.strip()
    if text in (_DEV, "v" + _DEV, REFERENCE_COMMIT):
        return DEFAULT_RELEASE
    m = _NAME.fullmatch(text)
    if m is not None:
        line, patch_text = m.group(1), m.group(2)
        last = dict(RELEASE_LINES)[line]
        if patch_text is None:
            return _build(line, last)
        if int(patch_text) <= last:
            return _build(line, int(patch_text))
    raise ConfigurationError(
        f"Kueue release {value[:40]!r} is not one this library has gate defaults for; known: "
        + ", ".join(known_release_names())
    )


def first_release_with(gate: str) -> str | None:
    """The oldest release (patch precision) that has ``gate``, or ``None`` when none has it
    (or the table does not list it)."""
    if gate not in _TABLE:
        return None
    for line, last in RELEASE_LINES:
        for patch in range(last + 1):
            if not isinstance(_cell(line, patch, gate), GateState):
                return f"{line}.{patch}"
    return _DEV if not isinstance(_cell(_DEV, None, gate), GateState) else None
