"""kueue_preempt: Kueue's preemption, flavor assignment and scheduling cycle as typed, pure-Python functions.

The root holds what each job needs; everything else lives in the layer folders, each with a
documented ``__all__``:

* decide: :func:`get_targets` (preemption), :func:`assign_flavors` (flavor assignment),
  :func:`schedule_cycle` (one scheduling cycle), :func:`select_podgroup_victims` (kube-scheduler
  PodGroups), :func:`explain` (a nomination with its trace), :func:`simulate` (over time);
* the facts they read: :class:`Snapshot` and the model types; quantities;
* the errors: every error derives from :class:`KueuePreemptError`.

Subpackages: ``model``, ``snapshot``, ``preemption``, ``assignment``, ``cycle``, ``podgroup``,
``policies``, ``sim``, ``kperf``, ``sweep``, ``io``, ``testing``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kueue_preempt.assignment import assign_flavors
from kueue_preempt.errors import (
    ConfigurationError,
    InvalidArgument,
    InvalidModel,
    InvalidQuantity,
    KueuePreemptError,
    UnknownReference,
)
from kueue_preempt.model import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FeatureGates,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    PreemptionReason,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Target,
    Workload,
    WorkloadPriorityClass,
    parse_quantity,
    quota_amount,
    request_amount,
)
from kueue_preempt.preemption import DecisionTrace, get_targets
from kueue_preempt.snapshot import Snapshot

if TYPE_CHECKING:
    from kueue_preempt.cycle import schedule_cycle
    from kueue_preempt.explanation import Explanation, explain
    from kueue_preempt.podgroup import select_podgroup_victims
    from kueue_preempt.sim.run import simulate

__version__ = "0.1.0"

# The simulator, the cycle and explain (a cycle nomination) pull in their own layers; import them on first use so that a
# plain ``import kueue_preempt`` stays cheap.
_LAZY = {
    "explain": "kueue_preempt.explanation",
    "Explanation": "kueue_preempt.explanation",
    "schedule_cycle": "kueue_preempt.cycle",
    "select_podgroup_victims": "kueue_preempt.podgroup",
    "simulate": "kueue_preempt.sim.run",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kueue_preempt' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    # decisions
    "get_targets",
    "assign_flavors",
    "schedule_cycle",
    "select_podgroup_victims",
    "explain",
    "Explanation",
    "simulate",
    "DecisionTrace",
    # the quota snapshot
    "Snapshot",
    # the model
    "Workload",
    "PodSetUsage",
    "PodSetSpec",
    "ClusterQueue",
    "ClusterQueuePreemption",
    "BorrowWithinCohort",
    "PreemptionPolicy",
    "Cohort",
    "ResourceQuota",
    "FlavorResource",
    "ResourceFlavor",
    "ResourceGroup",
    "FlavorQuotas",
    "FlavorFungibility",
    "WorkloadPriorityClass",
    "Assignment",
    "Target",
    "PreemptionReason",
    "PreemptionConfig",
    "FeatureGates",
    "FairSharingConfig",
    # quantities
    "parse_quantity",
    "quota_amount",
    "request_amount",
    # errors
    "KueuePreemptError",
    "InvalidModel",
    "InvalidArgument",
    "InvalidQuantity",
    "UnknownReference",
    "ConfigurationError",
]
