"""Feature gates and switches that act on one scheduling cycle (SC-CFG-1, SC-SCOPE-2).

Every gate of the spec's §2 is a field with Kueue's default at the reference commit, so a
cycle built with ``CycleConfig()`` behaves like a freshly installed Kueue. The preemption
side (fair sharing, strategies, AFS, boost, timestamps) lives in the embedded
:class:`~kueue_preempt.config.PreemptionConfig`, which ``get_targets`` already reads.
"""

from __future__ import annotations

import attrs

from ..config import PreemptionConfig, RequeuingTimestamp

__all__ = ["CycleConfig"]


def _kueue_preemption() -> PreemptionConfig:
    # SC-CFG-2: the requeuing timestamp defaults to Eviction in the queue manager and the
    # scheduler; PriorityBoost is off by default in Kueue (FG-1).
    return PreemptionConfig(priority_boost=False, pods_ready_requeuing_timestamp=RequeuingTimestamp.EVICTION)


@attrs.frozen
class CycleConfig:
    """Gates of SC-CFG-1 (Kueue's defaults) plus the preemption configuration.

    ``preemption.fair_sharing`` switches both the entry order (SC-FS-*) and the preemption
    algorithm (SC-FS-6); ``preemption.priority_sorting_within_cohort`` is the gate
    ``PrioritySortingWithinCohort`` and is read from there (it also changes QOT, POL-5(c)).
    """

    preemption: PreemptionConfig = attrs.field(factory=_kueue_preemption)
    fair_sharing_prioritize_non_borrowing: bool = True
    """``FairSharingPrioritizeNonBorrowing`` (SC-FS-4 criterion 2)."""
    prioritize_preemptor_workloads: bool = False
    """``PrioritizePreemptorWorkloads`` (SC-ORD-1 criterion 2, SC-FS-4 criterion 1, SC-PE-2)."""
    recompute_on_targets_overlap: bool = True
    """``RecomputeAssignmentUponPreemptionTargetsOverlap`` (SC-PE-3)."""
    preserve_scan_progress: bool = True
    """``FlavorFungibilityPreserveScanProgress`` (SC-FR-3, SC-FR-5)."""
    scheduling_equivalence_hashing: bool = True
    """``SchedulingEquivalenceHashing`` (SC-RQ-8)."""
    partial_admission: bool = True
    """``PartialAdmission`` (SC-NOM-2, FAS-14)."""
    flavor_fungibility: bool = True
    """``FlavorFungibility`` (FAS-10, SC-FR-2)."""
    unadmitted_workloads_observability: bool = True
    """``UnadmittedWorkloadsObservability`` (SC-MSG-1, SC-MSG-3); changes no decision."""
    ignore_undeclared_resources: bool = False
    """Quota-check strategy ``IgnoreUndeclared`` (FAS-3); the default is ``BlockUndeclared``."""

    @property
    def fair_sharing(self) -> bool:
        return self.preemption.fair_sharing is not None

    @property
    def priority_sorting_within_cohort(self) -> bool:
        return self.preemption.priority_sorting_within_cohort
