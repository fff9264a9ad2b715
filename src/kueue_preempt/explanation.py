"""``explain``: why Kueue would (or would not) preempt for one pending workload.

An explanation is the scheduling cycle's nomination of the workload as its queue's head
(SC-NOM-2: Kueue's flavor assignment FAS-2..FAS-24, ``get_targets`` for a ``Preempt``
assignment, the partial-admission search FAS-14), run through the cycle's own
:func:`~kueue_preempt.cycle.nominate.nominate_assignment` with a decision trace attached — so
``explain`` and ``cycle`` agree by construction. With an explicit ``assignment`` the assigner is
skipped and only ``get_targets`` runs (FA-2, FA-3), as Kueue's preemptor would for that
assignment.

A snapshot holds no queue memory, so the flavor scan starts at each resource group's first
flavor; Kueue resumes from the flavor its last cycle stopped at (FAS-12).
"""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.checks import arg, optional_arg
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.assignment import FlavorAssignment
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.nominate import nominate_assignment
from kueue_preempt.errors import InvalidArgument
from kueue_preempt.model import (
    Assignment,
    FlavorAssignmentMode,
    FlavorResource,
    PreemptionConfig,
    ResourceFlavor,
    Target,
    Workload,
)
from kueue_preempt.model.priority import PriorityInfo, priority_info
from kueue_preempt.preemption.common.trace import DecisionTrace, TraceEvent
from kueue_preempt.preemption.targets import get_targets
from kueue_preempt.snapshot.quota import Snapshot

__all__ = ["explain", "Explanation", "Outcome"]


class Outcome(str, enum.Enum):
    """What the nomination ends in."""

    FITS = "fits"
    """Every requested resource fits (``Fit``): nothing to preempt (FA-2)."""
    NO_FIT = "no-fit"
    """The workload cannot fit even with preemption (``NoFit``)."""
    TARGETS = "targets"
    """``Preempt`` with a complete target set: evicting the targets makes room."""
    NO_TARGETS = "no-targets"
    """``Preempt``, but preemption cannot make room: the workload stays pending."""


@attrs.frozen
class Explanation:
    """One workload's nomination, its targets and the trace of every rule that decided them.

    ``assignment`` is Kueue's flavor assignment (``None`` when the caller gave one);
    ``requests`` and ``preempt`` are what ``get_targets`` was asked for (empty for ``NoFit``);
    ``partial`` says the assignment is a partial admission's reduced counts (FAS-14);
    ``missing_flavors`` lists flavors the ClusterQueue names but ``flavors`` lacked, taken as
    ResourceFlavors without node labels, taints or tolerations.
    """

    workload: Workload
    cluster_queue: str
    path: str
    priority: PriorityInfo
    config: PreemptionConfig
    now: datetime
    mode: FlavorAssignmentMode
    outcome: Outcome
    targets: tuple[Target, ...]
    requests: FrozenMap[FlavorResource, int]
    preempt: frozenset[FlavorResource]
    assignment: FlavorAssignment | None = None
    partial: bool = False
    no_fit: tuple[str, ...] = ()
    missing_flavors: tuple[str, ...] = ()
    trace: tuple[TraceEvent, ...] = ()

    @property
    def algorithm(self) -> str:
        """``"classic"`` or ``"fairSharing"`` (GT-2)."""
        return "classic" if self.config.fair_sharing is None else "fairSharing"


def explain(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    *,
    flavors: Mapping[str, ResourceFlavor] | Iterable[ResourceFlavor] = (),
    config: PreemptionConfig = PreemptionConfig(),
    now: datetime | None = None,
    assignment: Assignment | None = None,
    ignore_undeclared_resources: bool = False,
) -> Explanation:
    """Explain what Kueue's next cycle does for pending ``workload`` as the head of
    ``cluster_queue`` (SC-NOM-2, FAS-13, FAS-14, GT-1..GT-4, with the trace of every rule).

    ``flavors`` are the ResourceFlavors that exist (a flavor the ClusterQueue names but that is
    missing here is taken without node labels, taints or tolerations); ``assignment`` skips the
    flavor assigner and asks ``get_targets`` for exactly that assignment (FA-2, FA-3).
    ``snapshot`` is left unchanged.

    Cost: one cycle nomination — a flavor assignment over the ClusterQueue's resource groups
    plus, for a ``Preempt`` assignment, ``get_targets`` (see its cost), repeated at most
    ``log2(count)`` times per pod set when partial admission searches smaller counts.

    Raises :class:`~kueue_preempt.errors.InvalidArgument` for wrongly typed arguments or a
    ``workload`` already admitted in ``snapshot`` (by ``namespace/name``, GT-1),
    :class:`~kueue_preempt.errors.UnknownClusterQueue` for a ClusterQueue not in ``snapshot``.
    """
    fn = "explain"
    arg(workload, Workload, fn, "workload")
    arg(cluster_queue, str, fn, "cluster_queue")
    arg(snapshot, Snapshot, fn, "snapshot")
    arg(config, PreemptionConfig, fn, "config")
    optional_arg(now, datetime, fn, "now")
    arg(ignore_undeclared_resources, bool, fn, "ignore_undeclared_resources")
    holder = snapshot.admitted_in(workload.key)
    if holder is not None:
        # GT-1: the cycle nominates pending workloads only; an admitted one would be judged
        # against quota that already counts its own usage, and be its own candidate.
        raise InvalidArgument(
            fn,
            "workload",
            f"Workload {workload.key!r} is admitted in ClusterQueue {holder.name!r}; only a pending "
            "workload is explained (GT-1: the preemptor is not in the snapshot)",
        )
    when = now if now is not None else datetime.now(timezone.utc)
    node = snapshot.cluster_queue(cluster_queue)
    trace = DecisionTrace()
    path = snapshot.path(node)
    info = priority_info(workload, boost_enabled=config.priority_boost)
    if assignment is not None:
        arg(assignment, Assignment, fn, "assignment")
        targets: tuple[Target, ...] = ()
        if assignment.preempt:
            targets = tuple(get_targets(workload, cluster_queue, assignment, snapshot, config=config, now=when, trace=trace))
            outcome = Outcome.TARGETS if targets else Outcome.NO_TARGETS
            mode = FlavorAssignmentMode.PREEMPT
        else:
            outcome, mode = Outcome.FITS, FlavorAssignmentMode.FIT
        return Explanation(
            workload=workload, cluster_queue=cluster_queue, path=path, priority=info, config=config, now=when,
            mode=mode, outcome=outcome, targets=targets, requests=assignment.requests,
            preempt=frozenset(assignment.preempt), trace=tuple(trace),
        )  # fmt: skip
    given = _flavors(flavors)
    listed = dict.fromkeys(fr.flavor for fr in node.cluster_queue.quotas) if node.cluster_queue is not None else {}
    missing = tuple(name for name in listed if name not in given)
    for name in missing:
        given[name] = ResourceFlavor(name)
    cycle_config = CycleConfig(preemption=config, ignore_undeclared_resources=ignore_undeclared_resources)
    found = nominate_assignment(workload, cluster_queue, snapshot, given, cycle_config, when, trace=trace)
    a = found.assignment
    if a.mode is FlavorAssignmentMode.NO_FIT:
        requests: FrozenMap[FlavorResource, int] = frozen_map({})
        preempt: frozenset[FlavorResource] = frozenset()
        outcome = Outcome.NO_FIT
    else:
        requests = frozen_map(a.total_requests())
        preempt = frozenset(a.preempt_flavor_resources())
        if a.mode is FlavorAssignmentMode.FIT:
            outcome = Outcome.FITS
        else:
            outcome = Outcome.TARGETS if found.targets else Outcome.NO_TARGETS
    return Explanation(
        workload=workload, cluster_queue=cluster_queue, path=path, priority=info, config=config, now=when,
        mode=a.mode, outcome=outcome, targets=found.targets, requests=requests, preempt=preempt,
        assignment=a, partial=found.partial,
        no_fit=(a.message,) if a.mode is FlavorAssignmentMode.NO_FIT and a.message else (),
        missing_flavors=missing, trace=tuple(trace),
    )  # fmt: skip


def _flavors(flavors: Mapping[str, ResourceFlavor] | Iterable[ResourceFlavor]) -> dict[str, ResourceFlavor]:
    values = flavors.values() if isinstance(flavors, Mapping) else flavors
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidArgument("explain", "flavors", f"expected ResourceFlavors, got {type(flavors).__name__}")
    out: dict[str, ResourceFlavor] = {}
    for f in values:
        if not isinstance(f, ResourceFlavor):
            raise InvalidArgument("explain", "flavors", f"expected ResourceFlavor values, got {type(f).__name__}")
        out[f.name] = f
    return out
