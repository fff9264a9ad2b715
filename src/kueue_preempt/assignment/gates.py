"""Feature gates and switches the flavor assigner reads (FAS-16, FAS-3).

Kept apart from :class:`~kueue_preempt.PreemptionConfig` (preemption's own switches): the
assigner takes an :class:`AssignmentGates` keyword, defaulting to Kueue's defaults at the
reference commit.
"""

from __future__ import annotations

import enum
from typing import Mapping

import attrs

from kueue_preempt._util.checks import bool_field
from kueue_preempt.errors import ConfigurationError

__all__ = ["QuotaCheckStrategy", "AssignmentGates"]


class QuotaCheckStrategy(str, enum.Enum):
    """What to do with a request for a resource no resource group covers (FAS-3)."""

    BLOCK_UNDECLARED = "BlockUndeclared"
    IGNORE_UNDECLARED = "IgnoreUndeclared"

    def __str__(self) -> str:
        return self.value


# Kueue gate name -> AssignmentGates field. Gates without a field are accepted and ignored
# because they change nothing the library models (FAS-15).
_GATE_FIELDS = {
    "FlavorFungibility": "flavor_fungibility",
    "FlavorFungibilityPreserveScanProgress": "preserve_scan_progress",
    "PartialAdmission": "partial_admission",
    "ReclaimablePods": "reclaimable_pods",
    "UnadmittedWorkloadsObservability": "unadmitted_workloads_observability",
    "VectorizedResourceRequests": "vectorized_resource_requests",
    "QuotaCheckStrategy": "quota_check_strategy",
    "ConcurrentAdmission": "concurrent_admission",
    "TopologyAwareScheduling": "topology_aware_scheduling",
}
_IGNORED_GATES = frozenset({"RecomputeAssignmentUponPreemptionTargetsOverlap", "ElasticJobsViaWorkloadSlices"})


_BOOL = bool_field("AssignmentGates")


@attrs.frozen
class AssignmentGates:
    """Kueue feature gates read by the assigner, at their defaults (FAS-16).

    ``vectorized_resource_requests`` has no effect: resources are always visited in FNV order
    (FAS-19 [D]). Kueue refuses ``flavor_fungibility=False`` unless
    ``preserve_scan_progress`` is off too (FAS-8); so does this class.
    """

    flavor_fungibility: bool = attrs.field(default=True, validator=_BOOL)
    preserve_scan_progress: bool = attrs.field(default=True, validator=_BOOL)
    partial_admission: bool = attrs.field(default=True, validator=_BOOL)
    reclaimable_pods: bool = attrs.field(default=True, validator=_BOOL)
    unadmitted_workloads_observability: bool = attrs.field(default=True, validator=_BOOL)
    vectorized_resource_requests: bool = attrs.field(default=True, validator=_BOOL)
    quota_check_strategy: bool = attrs.field(default=True, validator=_BOOL)
    concurrent_admission: bool = attrs.field(default=False, validator=_BOOL)
    topology_aware_scheduling: bool = attrs.field(default=True, validator=_BOOL)

    def __attrs_post_init__(self) -> None:
        if not self.flavor_fungibility and self.preserve_scan_progress:
            raise ConfigurationError(
                "featureGates: FlavorFungibility=false needs FlavorFungibilityPreserveScanProgress=false "
                "(AssignmentGates.flavor_fungibility=False needs preserve_scan_progress=False, FAS-8)"
            )

    @classmethod
    def from_kueue(cls, gates: Mapping[str, bool]) -> AssignmentGates:
        """Build from Kueue gate names (``{"FlavorFungibility": False, ...}``); others keep defaults.

        Unknown names raise :class:`~kueue_preempt.errors.ConfigurationError`, and so does a
        combination Kueue refuses at startup (FAS-8).
        """
        values: dict[str, bool] = {}
        for name, on in gates.items():
            if not isinstance(on, bool):
                raise ConfigurationError(f"featureGates.{name}: {on!r} is not a boolean")
            field = _GATE_FIELDS.get(name)
            if field is None:
                if name in _IGNORED_GATES:
                    continue
                raise ConfigurationError(f"featureGates: unknown gate {name!r} for flavor assignment")
            values[field] = on
        return cls(**values)
