"""The reference controllers, run by the event loop between instants.

* :class:`BoostController` — the preemption-count booster (BOOST-12, :class:`ThresholdBoostConfig`)
  writing the ``kueue.x-k8s.io/priority-boost`` annotation with the BOOST-4 rules;
* :class:`TimeSharingController` — Kueue's own ``kueue-priority-booster`` (BOOST-1..BOOST-5,
  BOOST-10): a workload ``Admitted`` for the time-sharing interval gets a negative boost, so
  equal-priority pending workloads may preempt it (round-robin time sharing);
* :class:`CostController` — the preemption-cost controller (COST-6) writing
  ``status.preemptionCost``.

Each runs at every instant after the event batch and before the cycles (the loop's
``controllers`` hook) over every workload, through :meth:`SupportsUpdate.update_workloads`.
A controller in Kueue reacts to an eviction a moment after it; here the reaction lands at the
next instant, so a victim requeued in the cycles of its own instant competes with its old
boost until then — the same zero-latency reading as the rest of the simulator (SC-T-2).

The time-sharing booster is time-based: it also returns when its next reconcile is due (the
end of the earliest running window) and, as a :class:`~kueue_preempt.sim.engine.WatchesCycles`
controller, is asked again after the cycles of each instant, so a window that starts with an
admission is seen at once and the loop wakes it exactly when the window ends (BOOST-3).

Updates follow Kueue's queue rules: a parked workload whose boost annotation changed goes back
to the active set (SC-RQ-1), and a charged workload whose effective priority changed notifies
its ClusterQueue (SC-IN-4); the cost field triggers neither.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable, Protocol, Sequence, runtime_checkable

from kueue_preempt.errors import UnsupportedConfiguration
from kueue_preempt.model import Workload
from kueue_preempt.policies.boost import ThresholdBoostConfig, TimeSharingConfig, reconcile_threshold, reconcile_time_sharing
from kueue_preempt.policies.cost import reconcile_cost
from kueue_preempt.sim.arrivals.model import SIM_START
from kueue_preempt.sim.engine import Scheduler

__all__ = ["SupportsUpdate", "BoostController", "TimeSharingController", "CostController"]


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


_MICROSECOND = timedelta(microseconds=1)


class TimeSharingController:
    """Kueue's time-sharing booster over every workload (BOOST-2..BOOST-5 via
    :func:`~kueue_preempt.policies.boost.reconcile_time_sharing`, BOOST-11).

    Simulated second ``now`` is the wall-clock time ``start + now`` — the scheduler's own
    ``start`` when it has one (the cycle writes ``Admitted`` times on that clock), else
    :data:`~kueue_preempt.sim.arrivals.model.SIM_START` — so ``elapsed = now − Admitted`` is in
    simulated seconds (BOOST-9). In scope (BOOST-2: selector, base priority ≤
    ``max_workload_priority``) the annotation is set to ``-negative_boost`` once the window has
    run and deleted otherwise (BOOST-3, BOOST-4); out of scope only the booster's own negative
    leftovers are deleted (BOOST-5). A disabled config (interval 0) still runs the BOOST-4
    cleanup, as Kueue's does.

    Both calls return the next due time: the smallest requeue-after of the workloads, i.e. the
    end of the earliest running window (``None`` when no window is running).
    """

    def __init__(self, config: TimeSharingConfig) -> None:
        self.config = config

    def _clock(self, scheduler: Scheduler, now: float) -> tuple[datetime, datetime]:
        start = getattr(scheduler, "start", None)
        if not isinstance(start, datetime):
            start = SIM_START
        return start, start + timedelta(seconds=now)

    def _reconcile(self, scheduler: Scheduler, now: float, *, write: bool) -> float | None:
        start, at = self._clock(scheduler, now)
        due: list[timedelta] = []

        def change(workload: Workload) -> Workload:
            result = reconcile_time_sharing(workload, self.config, at)
            if result.requeue_after is not None:
                due.append(result.requeue_after)
            return result.action.apply_to(workload) if write else workload

        # Read-only (write=False): every workload is returned as it is, so nothing is written.
        _updater(scheduler).update_workloads(change, now)
        if not due:
            return None
        # In whole microseconds from ``start`` (the clock's resolution), so the wake-up lands on
        # the very instant where ``elapsed == interval`` and no float residue splits it.
        return ((at + min(due)) - start) // _MICROSECOND / 1_000_000

    def __call__(self, now: float, scheduler: Scheduler) -> float | None:
        return self._reconcile(scheduler, now, write=True)

    def after_cycles(self, now: float, scheduler: Scheduler) -> float | None:
        """The windows that admissions of this instant's cycles started (BOOST-7: the booster
        watches the ``Admitted`` update), read without writing."""
        return self._reconcile(scheduler, now, write=False)


class CostController:
    """COST-6 over every workload at each instant: ``base`` + preemptions so far."""

    def __init__(self, base: int = 0) -> None:
        self.base = base

    def _change(self, workload: Workload) -> Workload:
        return reconcile_cost(workload, self.base).apply_to(workload)

    def __call__(self, now: float, scheduler: Scheduler) -> float | None:
        _updater(scheduler).update_workloads(self._change, now)
        return None
