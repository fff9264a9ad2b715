"""Granular modes and how the flavor scan compares them (FAS-6, FAS-9, FAS-10).

A *granular mode* is a preemption mode (``noFit < noCandidates < preempt < reclaim < fit``)
plus a borrowing level. The scan keeps the *preferred* one (FAS-9) and stops early unless the
ClusterQueue's ``flavorFungibility`` says to try the next flavor (FAS-10).
"""

from __future__ import annotations

import enum

import attrs

from kueue_preempt.model.flavors import FlavorFungibility, FlavorPreference, FungibilityPolicy
from kueue_preempt.model import FlavorAssignmentMode

__all__ = [
    "PreemptionMode",
    "PreemptionPossibility",
    "GranularMode",
    "is_preferred",
    "should_try_next_flavor",
    "api_mode",
    "possibility_of",
    "mode_of_possibility",
]


class PreemptionMode(enum.IntEnum):
    """FAS-6's preemption modes, in rank order (higher is better)."""

    NO_FIT = 0
    NO_CANDIDATES = 1
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4

    @property
    def label(self) -> str:
        """Kueue's spelling (``noFit``, ``noCandidates``, ``preempt``, ``reclaim``, ``fit``)."""
        return _LABELS[self]


_LABELS = {
    PreemptionMode.NO_FIT: "noFit",
    PreemptionMode.NO_CANDIDATES: "noCandidates",
    PreemptionMode.PREEMPT: "preempt",
    PreemptionMode.RECLAIM: "reclaim",
    PreemptionMode.FIT: "fit",
}


class PreemptionPossibility(str, enum.Enum):
    """What the preemption oracle found (FA-6), as Kueue names it in attempts (FAS-10a)."""

    NO_CANDIDATES = "NoCandidates"
    PREEMPT = "Preempt"
    RECLAIM = "Reclaim"

    def __str__(self) -> str:
        return self.value


@attrs.frozen(order=False)
class GranularMode:
    """A preemption mode with a borrowing level (FAS-6 notation ``(pm, b)``)."""

    preemption_mode: PreemptionMode
    borrowing_level: int = 0

    def __str__(self) -> str:
        return f"({self.preemption_mode.label}, {self.borrowing_level})"


def is_preferred(a: GranularMode, b: GranularMode, preference: FlavorPreference | None = None) -> bool:
    """FAS-9: is granular mode ``a`` strictly better than ``b`` under ``preference``?

    ``None`` behaves as ``BorrowingOverPreemption`` (FAS-8). Equal modes are not preferred.
    """
    pa, pb = a.preemption_mode, b.preemption_mode
    if pa is PreemptionMode.NO_FIT:
        return False  # noFit is never better
    if pb is PreemptionMode.NO_FIT:
        return True  # anything beats noFit
    if pa is PreemptionMode.NO_CANDIDATES and pb is not PreemptionMode.NO_CANDIDATES:
        return False
    if pb is PreemptionMode.NO_CANDIDATES and pa is not PreemptionMode.NO_CANDIDATES:
        return True  # preempt, reclaim or fit beats noCandidates
    if preference is FlavorPreference.PREEMPTION_OVER_BORROWING:
        if a.borrowing_level != b.borrowing_level:
            return a.borrowing_level < b.borrowing_level
        return pa > pb
    if pa != pb:
        return pa > pb
    return a.borrowing_level < b.borrowing_level


def should_try_next_flavor(rep: GranularMode, fungibility: FlavorFungibility) -> bool:
    """FAS-10 (a)-(c): does the scan go on after a flavor whose representative mode is ``rep``?"""
    pm = rep.preemption_mode
    if pm in (PreemptionMode.NO_FIT, PreemptionMode.NO_CANDIDATES):
        return True  # (a)
    if pm in (PreemptionMode.PREEMPT, PreemptionMode.RECLAIM) and (
        fungibility.when_can_preempt is FungibilityPolicy.TRY_NEXT_FLAVOR
    ):
        return True  # (b)
    return rep.borrowing_level > 0 and fungibility.when_can_borrow is FungibilityPolicy.TRY_NEXT_FLAVOR  # (c)


def api_mode(pm: PreemptionMode) -> FlavorAssignmentMode:
    """FAS-6: fit -> Fit; noCandidates, preempt, reclaim -> Preempt; noFit -> NoFit."""
    if pm is PreemptionMode.FIT:
        return FlavorAssignmentMode.FIT
    if pm is PreemptionMode.NO_FIT:
        return FlavorAssignmentMode.NO_FIT
    return FlavorAssignmentMode.PREEMPT


def possibility_of(pm: PreemptionMode) -> PreemptionPossibility | None:
    """FAS-10a ``possibility(pm)``: the oracle's outcome, null for fit and noFit."""
    return _POSSIBILITY.get(pm)


def mode_of_possibility(p: PreemptionPossibility) -> PreemptionMode:
    """The preemption mode an oracle outcome gives (FAS-6)."""
    return _MODE[p]


_POSSIBILITY = {
    PreemptionMode.NO_CANDIDATES: PreemptionPossibility.NO_CANDIDATES,
    PreemptionMode.PREEMPT: PreemptionPossibility.PREEMPT,
    PreemptionMode.RECLAIM: PreemptionPossibility.RECLAIM,
}
_MODE = {v: k for k, v in _POSSIBILITY.items()}
