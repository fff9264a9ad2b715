"""Pending-queue ("scheduling") order: which pending workload is considered first.

Kueue's ``StrictFIFO``/``BestEffortFIFO`` queues pop the highest effective priority first
(EP-8), then the oldest queue-order timestamp (POL-5). The library exposes this order so
callers can see the boost cross priority-class boundaries on the scheduling side too, not
only in candidate ordering (ORD-4).
"""

from __future__ import annotations

from typing import Iterable

from kueue_preempt._util.checks import arg, arg_iterable
from kueue_preempt.model.time import micros
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import Workload
from kueue_preempt.preemption.common.policy import order_timestamp
from kueue_preempt.model.priority import effective_priority

__all__ = ["queue_order_key", "scheduling_order_key", "sort_pending"]


def queue_order_key(workload: Workload, config: PreemptionConfig) -> tuple[int, int, str, str]:
    """SC-QO-1 criteria 3-6, smaller first: ``(-EP, queue-order time (POL-5), uid, key)``.

    The criteria before them (AFS usage, the sticky preemptor marker) are properties of the
    queue, not of the workload. The key depends only on the workload object and ``config``,
    so a caller may cache it until the object changes. No argument checks (the cycle's inner
    loop computes it for every new pending object)."""
    return (
        -effective_priority(workload, boost_enabled=config.priority_boost),
        micros(order_timestamp(workload, config)),
        workload.uid,
        workload.key,
    )


def scheduling_order_key(workload: Workload, config: PreemptionConfig = PreemptionConfig()) -> tuple[int, int, str]:
    """``(-EP, queue-order time, key)``: smaller is scheduled first.

    :func:`queue_order_key` without its ``uid`` criterion (SC-QO-1 #5): this public key
    breaks ties of EP and time by the workload key alone."""
    arg(workload, Workload, "scheduling_order_key", "workload")
    arg(config, PreemptionConfig, "scheduling_order_key", "config")
    neg_priority, time, _, key = queue_order_key(workload, config)
    return neg_priority, time, key


def sort_pending(workloads: Iterable[Workload], config: PreemptionConfig = PreemptionConfig()) -> list[Workload]:
    """Pending workloads in the order Kueue's queue would hand them to the scheduler. O(n log n)."""
    arg(config, PreemptionConfig, "sort_pending", "config")
    items = arg_iterable(workloads, Workload, "sort_pending", "workloads")
    return sorted(items, key=lambda w: scheduling_order_key(w, config))
