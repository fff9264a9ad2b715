"""The reference controllers, run by the event loop between instants.

* :class:`BoostController` — the preemption-count booster (BOOST-12, :class:`ThresholdBoostConfig`)
  writing the ``kueue.x-k8s.io/priority-boost`` annotation with the BOOST-4 rules;
* :class:`CostController` — the preemption-cost controller (COST-6) writing
  ``status.preemptionCost``.

Each runs at every instant after the event batch and before the cycles (the loop's
``controllers`` hook) over every workload, through :meth:`SupportsUpdate.update_workloads`.
A controller in Kueue reacts to an eviction a moment after it; here the reaction lands at the
next instant, so a victim requeued in the cycles of its own instant competes with its old
boost until then — the same zero-latency reading as the rest of the simulator (SC-T-2).

Updates follow Kueue's queue rules: a parked workload whose boost annotation changed goes back
to the active set (SC-RQ-1), and a charged workload whose effective priority changed notifies
its ClusterQueue (SC-IN-4); the cost field triggers neither.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence, runtime_checkable

from ..errors import UnsupportedConfiguration
from ..model import Workload
from ..policies.boost import ThresholdBoostConfig, reconcile_threshold
from ..policies.cost import reconcile_cost
from .engine import Scheduler

__all__ = ["SupportsUpdate", "BoostController", "CostController"]


@runtime_checkable
class SupportsUpdate(Protocol):
    def update_workloads(self, change: Callable[[Workload], Workload], now: float) -> Sequence[str]:
        """Apply ``change`` to every workload (pending and admitted); return the changed keys."""
        ...


def _updater(scheduler: Scheduler) -> SupportsUpdate:
    if not isinstance(scheduler, SupportsUpdate):
        raise UnsupportedConfiguration(f"{type(scheduler).__name__} cannot run controllers (no update_workloads)")
    return scheduler


class BoostController:
    """BOOST-12 over every workload at each instant (the annotation removed at boost 0, BOOST-4)."""

    def __init__(self, config: ThresholdBoostConfig) -> None:
        self.config = config

    def _change(self, workload: Workload) -> Workload:
        return reconcile_threshold(workload, self.config).action.apply_to(workload)

    def __call__(self, now: float, scheduler: Scheduler) -> float | None:
        _updater(scheduler).update_workloads(self._change, now)
        return None  # only a new eviction changes the count: nothing to wake up for


class CostController:
    """COST-6 over every workload at each instant: ``base`` + preemptions so far."""

    def __init__(self, base: int = 0) -> None:
        self.base = base

    def _change(self, workload: Workload) -> Workload:
        return reconcile_cost(workload, self.base).apply_to(workload)

    def __call__(self, now: float, scheduler: Scheduler) -> float | None:
        _updater(scheduler).update_workloads(self._change, now)
        return None
