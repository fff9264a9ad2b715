"""What a scheduling cycle reads from Kueue's configuration (SC-CFG-1, SC-CFG-2, SC-SCOPE-2).

The gates of the spec's §2 are the project's :class:`~kueue_preempt.model.config.FeatureGates`
(Kueue's names and defaults), held by the embedded
:class:`~kueue_preempt.model.config.PreemptionConfig` that ``get_targets`` reads too — one source of
truth for both. ``CycleConfig()`` is a freshly installed Kueue; the properties below are the
gates the cycle reads, named as in the spec.
"""

from __future__ import annotations

from typing import Mapping

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.config import FairSharingConfig, FeatureGates, PreemptionConfig

__all__ = ["CycleConfig"]


def _seed(inst: object, attr: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ConfigurationError(f"CycleConfig.{attr.name}: must be None or an integer >= 0, got {value!r:.40}")


@attrs.frozen
class CycleConfig:
    """``preemption`` (fair sharing, strategies, AFS, requeuing timestamp and every feature gate)
    plus the quota-check strategy of ``FAS-3`` (``ignore_undeclared_resources``; Kueue's default
    is ``BlockUndeclared``).

    ``preemption.fair_sharing`` switches both the entry order (SC-FS-*) and the preemption
    algorithm (SC-FS-6).
    """

    preemption: PreemptionConfig = attrs.field(factory=PreemptionConfig)
    ignore_undeclared_resources: bool = False
    head_order_seed: int | None = attrs.field(default=None, validator=_seed)
    """``None`` (the default): a cycle lists its heads in ClusterQueue-name order (SC-CY-2 [D]),
    so heads equal on every SC-ORD-1 criterion go by name (SC-ORD-2). An integer: each
    cycle's heads are shuffled by a generator seeded with (this seed, the cycle number) before
    the stable entry sort — Kueue's heads come from a Go map, in a random order every cycle,
    and its unstable sort leaves full ties in no defined order. Same seed, same run; opt-in
    because conformance and event hashes need the deterministic order."""

    @classmethod
    def of(
        cls,
        *,
        fair_sharing: FairSharingConfig | None = None,
        feature_gates: FeatureGates | Mapping[str, bool] | None = None,
        ignore_undeclared_resources: bool = False,
    ) -> CycleConfig:
        """Build from the pieces a Kueue Configuration has: ``fairSharing`` and gates by Kueue name."""
        return cls(PreemptionConfig(fair_sharing=fair_sharing, feature_gates=feature_gates), ignore_undeclared_resources)

    @property
    def gates(self) -> FeatureGates:
        return self.preemption.feature_gates

    @property
    def fair_sharing(self) -> bool:
        return self.preemption.fair_sharing is not None

    @property
    def priority_sorting_within_cohort(self) -> bool:
        """``PrioritySortingWithinCohort`` (SC-ORD-1 criterion 4, SC-FS-4 criterion 4)."""
        return self.gates.priority_sorting_within_cohort

    @property
    def fair_sharing_prioritize_non_borrowing(self) -> bool:
        """``FairSharingPrioritizeNonBorrowing`` (SC-FS-4 criterion 2)."""
        return self.gates.fair_sharing_prioritize_non_borrowing

    @property
    def prioritize_preemptor_workloads(self) -> bool:
        """``PrioritizePreemptorWorkloads`` (SC-ORD-1 criterion 2, SC-FS-4 criterion 1, SC-PE-2)."""
        return self.gates.prioritize_preemptor_workloads

    @property
    def recompute_on_targets_overlap(self) -> bool:
        """``RecomputeAssignmentUponPreemptionTargetsOverlap`` (SC-PE-3)."""
        return self.gates.recompute_assignment_upon_preemption_targets_overlap

    @property
    def preserve_scan_progress(self) -> bool:
        """``FlavorFungibilityPreserveScanProgress`` (SC-FR-3, SC-FR-5)."""
        return self.gates.flavor_fungibility_preserve_scan_progress

    @property
    def scheduling_equivalence_hashing(self) -> bool:
        """``SchedulingEquivalenceHashing`` (SC-RQ-8)."""
        return self.gates.scheduling_equivalence_hashing

    @property
    def partial_admission(self) -> bool:
        """``PartialAdmission`` (SC-NOM-2, FAS-14)."""
        return self.gates.partial_admission

    @property
    def flavor_fungibility(self) -> bool:
        """``FlavorFungibility`` (FAS-10, SC-FR-2)."""
        return self.gates.flavor_fungibility

    @property
    def unadmitted_workloads_observability(self) -> bool:
        """``UnadmittedWorkloadsObservability`` (SC-MSG-1, SC-MSG-3); changes no decision."""
        return self.gates.unadmitted_workloads_observability
