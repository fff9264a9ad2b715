"""The preemption oracle the flavor assigner consults (FA-6), injectable.

When a request fits a flavor's capacity but not its unused quota and the ClusterQueue may
preempt for it (FAS-6), Kueue asks "could preemption make room for ``v`` of ``fr``?". The
default :class:`TargetsOracle` answers with :func:`~kueue_preempt.get_targets` on that single
FlavorResource; tests and what-if tools pass any callable with the same signature.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable, Protocol

import attrs

from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import Assignment, FlavorResource, Target, Workload
from kueue_preempt.preemption.targets import get_targets
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.assignment.modes import PreemptionPossibility

__all__ = ["OracleResult", "PreemptionOracle", "TargetsOracle"]


def _targets(value: Iterable[Target]) -> tuple[Target, ...]:
    return tuple(value)


def _possibility(value: PreemptionPossibility | str) -> PreemptionPossibility:
    # A member as is: the oracle answers every FA-6 question with one, and calling the enum
    # class on a member goes through EnumType.__call__.
    if type(value) is PreemptionPossibility:
        return value
    return PreemptionPossibility(value)


@attrs.frozen
class OracleResult:
    """What the oracle found for one FlavorResource: the possibility and the borrowing level.

    ``targets`` are the workloads the simulation would evict (informative: Kueue's scheduler
    asks :func:`~kueue_preempt.get_targets` again for the whole assignment, FAS-13).
    """

    possibility: PreemptionPossibility = attrs.field(converter=_possibility)
    borrowing_level: int = 0
    targets: tuple[Target, ...] = attrs.field(default=(), converter=_targets)


class PreemptionOracle(Protocol):
    """``oracle(workload, cluster_queue, fr, amount, snapshot) -> OracleResult`` (FA-6).

    Arguments are positional: any function with these parameter types fits.

    ``amount`` is the cumulative request on ``fr`` (FAS-2). The oracle must leave
    ``snapshot`` as it found it.
    """

    def __call__(
        self, workload: Workload, cluster_queue: str, fr: FlavorResource, amount: int, snapshot: Snapshot, /
    ) -> OracleResult: ...


@attrs.frozen
class TargetsOracle:
    """FA-6 with the library's own preemption: :func:`~kueue_preempt.get_targets` on ``{fr}``.

    No targets -> ``NoCandidates`` at the current borrowing level (Q-16); otherwise the level
    with the targets' usage removed, and ``Preempt`` if a target is in the workload's own
    ClusterQueue, else ``Reclaim``.
    """

    config: PreemptionConfig = attrs.field(factory=PreemptionConfig)
    now: datetime | None = None

    def __call__(
        self, workload: Workload, cluster_queue: str, fr: FlavorResource, amount: int, snapshot: Snapshot
    ) -> OracleResult:
        targets = get_targets(
            workload, cluster_queue, Assignment(requests={fr: amount}, preempt={fr}), snapshot, config=self.config, now=self.now
        )
        return judge_targets(targets, cluster_queue, fr, amount, snapshot)


def judge_targets(
    targets: Iterable[Target], cluster_queue: str, fr: FlavorResource, amount: int, snapshot: Snapshot
) -> OracleResult:
    """FA-6's answer from the targets found for ``{fr: amount}``: ``NoCandidates`` at the current
    borrowing level without targets (Q-16); otherwise the level with their usage removed, and
    ``Preempt`` if one is in ``cluster_queue``, else ``Reclaim``. Leaves ``snapshot`` unchanged."""
    found = tuple(targets)
    node = snapshot.cluster_queue(cluster_queue)
    if not found:
        return OracleResult(PreemptionPossibility.NO_CANDIDATES, snapshot.lowest_fitting_height(node, fr, amount)[0])
    with snapshot.preserved():
        for t in found:
            snapshot.remove_workload(t.workload)
        level = snapshot.lowest_fitting_height(node, fr, amount)[0]
    own = any(t.cluster_queue == cluster_queue for t in found)
    return OracleResult(PreemptionPossibility.PREEMPT if own else PreemptionPossibility.RECLAIM, level, found)
