"""What each pod set asks for, how pod sets are grouped, and in which order resources go.

``FAS-1`` (totals), ``FAS-1a`` (reclaimable pods), ``FAS-1b`` (reported requests), ``FAS-14``
(counts of a partial-admission probe), ``FAS-18`` (pod-set groups) and ``FAS-19`` (FNV order).
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import attrs

from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.model import Workload
from kueue_preempt.model.quantity import amount_add, amount_mul

__all__ = ["fnv1a64", "fnv_order", "PodSetRequest", "pod_set_requests", "pod_set_groups"]

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 2**64 - 1


def fnv1a64(name: str) -> int:
    """The unsigned 64-bit FNV-1a hash of ``name``'s UTF-8 bytes (FAS-19)."""
    h = _FNV_OFFSET
    for byte in name.encode():
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h


def fnv_order(resources: Iterable[str], keys: dict[str, tuple[int, str]] | None = None) -> list[str]:
    """FAS-19: resources by ascending FNV-1a hash, ties by name (Kueue's vectorized order).

    ``keys`` is a table of sort keys by resource name that the caller owns and keeps across
    calls (the scheduler keeps one per run, see ``AssignArgs.resource_order``): resource names
    are few and recur on every assignment, and the hash loops over the name in Python. Keys
    missing from it are computed and added; the order is the same with or without it.
    """
    out = list(resources)
    if len(out) > 1:  # one resource (the common case) has nothing to order
        out.sort(key=_fnv_key if keys is None else _memo_key(keys))
    return out


def _fnv_key(resource: str) -> tuple[int, str]:
    return fnv1a64(resource), resource


def _memo_key(keys: dict[str, tuple[int, str]]) -> Callable[[str], tuple[int, str]]:
    def key(resource: str) -> tuple[int, str]:
        k = keys.get(resource)
        if k is None:
            k = keys[resource] = (fnv1a64(resource), resource)
        return k

    return key


@attrs.frozen
class PodSetRequest:
    """One pod set as it enters the assignment: its count and total request map (FAS-1b)."""

    index: int
    spec: PodSetSpec
    count: int
    requests: dict[str, int]


def pod_set_requests(
    workload: Workload,
    *,
    covers_pods: bool,
    reclaimable_pods: bool = True,
    counts: Sequence[int] | None = None,
) -> list[PodSetRequest]:
    """FAS-1/1a/14: each pod set's count and totals; ``pods = count`` when the CQ covers it."""
    specs = workload.spec_pod_sets
    if counts is not None and len(counts) != len(specs):
        raise InvalidModel(f"Workload {workload.key}", "counts", f"{len(counts)} counts for {len(specs)} pod sets")
    out = []
    for i, ps in enumerate(specs):
        count = ps.count
        if reclaimable_pods and ps.name in workload.reclaimable_pods:
            count -= min(workload.reclaimable_pods[ps.name], count)  # FAS-1a
        totals = {r: amount_mul(q, count) for r, q in ps.requests.items()}
        if counts is not None:
            n = counts[i]
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InvalidModel(f"Workload {workload.key}", f"counts[{i}]", f"must be a non-negative int, got {n!r}")
            if count != 0 and n != count:
                # FAS-14: Kueue rescales the totals, it does not recompute them per pod.
                totals = {r: amount_mul(q // count, n) for r, q in totals.items()}
                count = n
        if covers_pods:
            totals["pods"] = count
        out.append(PodSetRequest(i, ps, count, totals))
    return out


def pod_set_groups(pod_sets: Sequence[PodSetRequest]) -> list[list[PodSetRequest]]:
    """FAS-18: pod sets by group key (``podSetGroupName`` or the spec index in decimal),
    groups in the order of their first member, members in spec order."""
    groups: dict[str, list[PodSetRequest]] = {}
    for ps in pod_sets:
        key = ps.spec.pod_set_group if ps.spec.pod_set_group is not None else str(ps.index)
        groups.setdefault(key, []).append(ps)
    return list(groups.values())


def group_requests(members: Sequence[PodSetRequest]) -> dict[str, int]:
    """FAS-18: the per-resource sum (saturating) of the members' request maps."""
    total: dict[str, int] = {}
    for m in members:
        for r, q in m.requests.items():
            total[r] = amount_add(total.get(r, 0), q)
    return total
