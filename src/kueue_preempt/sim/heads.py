"""A cycle's head results as the event loop's :class:`~kueue_preempt.sim.engine.HeadStatus`
list: what the API model needs from each head, in processing order."""

from __future__ import annotations

from typing import Sequence

from kueue_preempt.cycle import HeadResult
from kueue_preempt.cycle.entry import Outcome
from kueue_preempt.sim.engine import HeadStatus

__all__ = ["head_statuses"]


def head_statuses(results: Sequence[HeadResult]) -> list[HeadStatus]:
    """Per head (processing order, SC-CY-5): admitted, or still queued with the
    ``QuotaReserved=False`` reason and message of SC-MSG-1 (``pending``); a head dropped
    from its queue (no longer queueable) is neither."""
    out: list[HeadStatus] = []
    for r in results:
        if r.outcome is Outcome.ADMITTED:
            out.append(HeadStatus(r.key, r.cluster_queue, admitted=True))
        else:
            out.append(HeadStatus(r.key, r.cluster_queue, pending=r.queue is not None, reason=r.reason, message=r.message))
    return out
