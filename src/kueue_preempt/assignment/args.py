"""Argument checks of the assigner's entry points.

:func:`~kueue_preempt.assign_flavors` and :func:`~kueue_preempt.assign_with_targets` check
every argument here, once, before the scan reads any attribute of them: a wrong type or an
out-of-range value raises :class:`~kueue_preempt.errors.InvalidArgument` naming the function
and the parameter. The scan loops (and the partial-admission probes, which call the assigner
again with counts they computed themselves) then run on checked, normalised values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
import attrs

from kueue_preempt._util.checks import arg, arg_iterable, arg_mapping, optional_arg
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.errors import InvalidArgument
from kueue_preempt.model.flavors import ResourceFlavor
from kueue_preempt.model import Workload
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace
from kueue_preempt.assignment.gates import AssignmentGates, QuotaCheckStrategy

__all__ = ["AssignArgs", "check_assign_args", "check_callable", "check_progress"]


@attrs.frozen
class AssignArgs:
    """The checked, normalised arguments the unchecked assigner runs on."""

    flavors: dict[str, ResourceFlavor]
    strategy: QuotaCheckStrategy
    counts: tuple[int, ...] | None
    progress: tuple[Mapping[str, int], ...] | None
    pinned: dict[str, dict[str, str]] | None
    resource_order: dict[str, tuple[int, str]] | None = attrs.field(default=None, eq=False, repr=False)
    """FAS-19 sort keys by resource name, kept by the caller across assignments (see
    :func:`~kueue_preempt.assignment.requests.fnv_order`); ``None``: computed per sort."""


def _flavors(value: object, fn: str) -> dict[str, ResourceFlavor]:
    # A mapping is read by its values (the flavors' own names count, FAS-5a), anything else
    # must be an iterable of ResourceFlavor.
    items = arg_iterable(value.values() if isinstance(value, Mapping) else value, ResourceFlavor, fn, "resource_flavors")
    return {rf.name: rf for rf in items}


def _strategy(value: object, fn: str) -> QuotaCheckStrategy:
    if isinstance(value, QuotaCheckStrategy):
        return value
    if isinstance(value, str):
        try:
            return QuotaCheckStrategy(value)
        except ValueError:
            pass
    allowed = ", ".join(s.value for s in QuotaCheckStrategy)
    raise InvalidArgument(fn, "quota_check", f"expected one of {{{allowed}}} (FAS-3), got {value!r:.40}")


def _int_at(value: object, fn: str, where: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(fn, where, f"expected an int, got {type(value).__name__}")
    if value < minimum:
        raise InvalidArgument(fn, where, f"must be >= {minimum}, got {value}")
    return value


def _counts(value: object, workload: Workload, fn: str) -> tuple[int, ...] | None:
    # FAS-14: one count per spec pod set, at most the pod set's count (a probe only reduces).
    if value is None:
        return None
    items = arg_iterable(value, int, fn, "counts")
    specs = workload.spec_pod_sets
    if len(items) != len(specs):
        raise InvalidArgument(fn, "counts", f"{len(items)} counts for {len(specs)} pod sets of Workload {workload.key}")
    for i, (n, ps) in enumerate(zip(items, specs)):
        _int_at(n, fn, f"counts[{i}]", 0)
        if n > ps.count:
            raise InvalidArgument(fn, f"counts[{i}]", f"{n} exceeds pod set {ps.name!r}'s count {ps.count}")
    return tuple(items)


def check_progress(value: object, fn: str) -> tuple[Mapping[str, int], ...] | None:
    # FAS-12: per spec index, resource -> tried_flavor_idx (-1 = the group's last flavor).
    if value is None:
        return None
    records = [arg_mapping(r, fn, f"progress[{i}]") for i, r in enumerate(arg_iterable(value, object, fn, "progress"))]
    for i, record in enumerate(records):
        for resource, idx in record.items():
            if not isinstance(resource, str):
                raise InvalidArgument(fn, f"progress[{i}]", f"resource names must be str, got {type(resource).__name__}")
            _int_at(idx, fn, f"progress[{i}][{resource!r}]", -1)
    return tuple(records)


def _pinned(value: object, fn: str) -> dict[str, dict[str, str]] | None:
    # FAS-5a case 1: pod-set name -> {resource: flavor}.
    if value is None:
        return None
    out: dict[str, dict[str, str]] = {}
    for name, pins in arg_mapping(value, fn, "pinned").items():
        if not isinstance(name, str):
            raise InvalidArgument(fn, "pinned", f"pod-set names must be str, got {type(name).__name__}")
        inner = arg_mapping(pins, fn, f"pinned[{name!r}]")
        for resource, flavor in inner.items():
            if not isinstance(resource, str) or not isinstance(flavor, str):
                raise InvalidArgument(
                    fn, f"pinned[{name!r}]", f"expected resource -> flavor strings, got {resource!r:.40}: {flavor!r:.40}"
                )
        out[name] = dict(inner)
    return out


def check_assign_args(
    fn: str,
    workload: object,
    cluster_queue: object,
    snapshot: object,
    resource_flavors: object,
    config: object,
    gates: object,
    quota_check: object,
    oracle: object,
    counts: object,
    progress: object,
    pinned: object,
    now: object,
    trace: object,
) -> AssignArgs:
    """Check every argument of ``fn`` (an assigner entry point), each named on failure."""
    wl = arg(workload, Workload, fn, "workload")
    arg(cluster_queue, str, fn, "cluster_queue")
    snap = arg(snapshot, Snapshot, fn, "snapshot")
    holder = snap.admitted_in(wl.key)
    if holder is not None:  # GT-1, FAS: flavors are assigned to pending workloads
        raise InvalidArgument(
            fn, "workload", f"Workload {wl.key!r} is admitted in ClusterQueue {holder.name!r}; only a pending workload is assigned flavors"
        )
    arg(config, PreemptionConfig, fn, "config")
    arg(gates, AssignmentGates, fn, "gates")
    check_callable(oracle, fn, "oracle", "a PreemptionOracle")
    optional_arg(now, datetime, fn, "now")
    optional_arg(trace, DecisionTrace, fn, "trace")
    return AssignArgs(
        flavors=_flavors(resource_flavors, fn),
        strategy=_strategy(quota_check, fn),
        counts=_counts(counts, wl, fn),
        progress=check_progress(progress, fn),
        pinned=_pinned(pinned, fn),
    )


def check_callable(value: object, fn: str, param: str, what: str) -> Callable[..., object] | None:
    """``None`` or a callable (an injected oracle or target finder)."""
    if value is None:
        return None
    if not callable(value):
        raise InvalidArgument(fn, param, f"expected {what} (a callable), got {type(value).__name__}")
    return value
