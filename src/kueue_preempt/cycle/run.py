"""Several cycles at one instant, victims released between them (SC-SIM-2, SC-SIM-3, SC-T-3).

:func:`run_cycles` is what ``kueue-preempt cycle --cycles N`` / ``--until-stable`` runs: a
cycle, then every workload evicted by it is released (termination time 0: its quota is
freed, it returns to its queue and its cohort tree is notified with delay 0, SC-SIM-13.1/4),
then the next cycle — until a cycle changes nothing (SC-T-3) or the safety cap is reached,
which is reported as a livelock rather than hidden (SC-SIM-13.5).
"""

from __future__ import annotations

from datetime import datetime

import attrs

from kueue_preempt.cycle.cluster import ClusterState
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.queues import QueueState
from kueue_preempt.cycle.step import CycleResult, initial_queue_state, schedule_cycle
from kueue_preempt.cycle.transitions import release_evicted

__all__ = ["CycleRun", "run_cycles", "stability_cap"]


@attrs.frozen
class CycleRun:
    """The cycles that ran, the releases between them, and why the run stopped."""

    cycles: tuple[CycleResult, ...]
    released: tuple[tuple[str, ...], ...]
    """Per cycle, the workloads released after it (victims of that cycle)."""
    cluster: ClusterState
    queues: QueueState
    stable: bool
    """The last cycle changed nothing (SC-T-3)."""
    livelock: bool
    """``until_stable`` hit the cap of :func:`stability_cap` without becoming stable."""
    cap: int


def stability_cap(cluster: ClusterState) -> int:
    """SC-SIM-13.5: 10 x (pending workloads) + 10 cycles."""
    pending = sum(1 for w in cluster.workloads if not w.cluster_queue)
    return 10 * pending + 10


def _quiescent(before: QueueState, result: CycleResult, released: tuple[str, ...]) -> bool:
    """SC-T-3: no admission, eviction or release, and the same queue memory (cycle number and
    recorded cycle of the scan progress ignored)."""
    if result.attempt is None:
        return True
    if result.admitted or result.preempted or released:
        return False
    after = result.queues
    if after.queues != before.queues:
        return False
    tried_before = {k: v.tried for k, v in before.scan_progress.items()}
    tried_after = {k: v.tried for k, v in after.scan_progress.items()}
    return tried_before == tried_after


def run_cycles(
    cluster: ClusterState,
    queues: QueueState | None = None,
    config: CycleConfig = CycleConfig(),
    now: datetime | None = None,
    *,
    cycles: int | None = 1,
    until_stable: bool = False,
) -> CycleRun:
    """Run ``cycles`` cycles (fewer only when a cycle has no head), or, with ``until_stable``,
    until a cycle changes nothing (SC-T-3) or the cap. ``stable`` says whether the last cycle
    changed nothing."""
    if now is None:
        from datetime import timezone

        now = datetime.now(timezone.utc)
    if queues is None:
        queues = initial_queue_state(cluster, config)
    cap = stability_cap(cluster)
    limit = cap if until_stable else max(1, cycles or 1)
    results: list[CycleResult] = []
    released_all: list[tuple[str, ...]] = []
    stable = False
    for _ in range(limit):
        stable = False
        before = queues
        result = schedule_cycle(cluster, queues, config=config, now=now)
        victims = [t.workload.key for t in result.preempted]
        cluster, queues, released = release_evicted(result.cluster, result.queues, now, victims, config)
        results.append(result)
        released_all.append(tuple(released))
        if _quiescent(before, result, tuple(released)):
            stable = True
            if until_stable or result.attempt is None:
                break
    return CycleRun(
        cycles=tuple(results),
        released=tuple(released_all),
        cluster=cluster,
        queues=queues,
        stable=stable,
        livelock=until_stable and not stable,
        cap=cap,
    )
