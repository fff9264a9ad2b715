"""The entry point: ``get_targets`` dispatches on the configuration (GT-1, GT-2)."""

from __future__ import annotations

from datetime import datetime

from .classic import classic_targets
from .config import PreemptionConfig
from .errors import UnsupportedConfiguration
from .model import Assignment, Target, Workload
from .quota import Snapshot

__all__ = ["get_targets"]


def get_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    config: PreemptionConfig = PreemptionConfig(),
    now: datetime | None = None,
) -> list[Target]:
    """Targets to evict so that ``preemptor`` fits in ``cluster_queue`` (GT-1).

    Runs fair-sharing preemption when ``config.fair_sharing`` is set, classic otherwise
    (GT-2). ``cluster_queue`` is explicit because a pending workload has no admission.
    """
    if config.fair_sharing is not None:
        raise UnsupportedConfiguration(
            "PreemptionConfig.fair_sharing is set, but fair-sharing preemption is not available in "
            "this version; use fair_sharing=None for classic preemption"
        )
    return classic_targets(preemptor, cluster_queue, assignment, snapshot, config, now)
