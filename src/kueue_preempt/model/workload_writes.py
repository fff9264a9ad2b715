"""Status writes of the cycle without re-validating the whole workload.

``attrs.evolve`` re-runs every converter and validator of :class:`~kueue_preempt.model.Workload`
(annotations, labels, times, pod sets, spec pod sets...) and recomputes its derived usage. A
cycle rewrites the ``conditions`` of every pending head it requeues (SC-MSG-3) and of every
victim it evicts (SC-PR-1), hundreds of thousands of times in a large simulation, and those
writes touch nothing the other fields or the usage depend on. :func:`with_status` copies the
checked object and sets only the status fields below, each already in its stored form.
:func:`with_admission` does the same for the admission fields a reservation or a release
writes (SC-AD-1, SC-EV-2), running only their own converters and recomputing the derived
usage from them, as the constructor would.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

import attrs

from kueue_preempt._util.frozen import FrozenMap
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.model.resources import FlavorResource
from kueue_preempt.model.workload import Condition, EvictionStat, PodSetUsage, Workload
from kueue_preempt.model.workload import _conditions, _pod_sets, _quota_reserved_at, _spec_pod_sets

__all__ = ["with_status", "with_admission", "with_spec_pod_sets"]

_FIELDS = tuple(a.name for a in attrs.fields(Workload))
# The fields an admission write sets, and the derived fields computed from them.
_ADMISSION = ("cluster_queue", "pod_sets", "quota_reserved_at", "conditions", "evicted", "usage", "used_flavor_resources")
_KEPT = tuple(n for n in _FIELDS if n not in _ADMISSION)


def with_status(
    w: Workload,
    *,
    conditions: tuple[Condition, ...],
    evicted: bool | None = None,
    evictions: Iterable[EvictionStat] | None = None,
) -> Workload:
    """``attrs.evolve(w, conditions=..., [evicted=..., evictions=...])`` for values the cycle
    built itself (:func:`~kueue_preempt.cycle.status.set_condition` returns a tuple of
    :class:`Condition`). Neither field feeds ``usage``, so the derived fields are copied."""
    if not isinstance(conditions, tuple) or not all(isinstance(c, Condition) for c in conditions):
        raise InvalidModel(f"Workload {w.key}", "conditions", "must be a tuple of Condition")
    new = object.__new__(Workload)
    for name in _FIELDS:
        object.__setattr__(new, name, getattr(w, name))
    object.__setattr__(new, "conditions", conditions)
    if evicted is not None:
        object.__setattr__(new, "evicted", bool(evicted))
    if evictions is not None:
        stats = tuple(evictions)
        if not all(isinstance(s, EvictionStat) for s in stats):
            raise InvalidModel(f"Workload {w.key}", "evictions", "must be EvictionStat values")
        object.__setattr__(new, "evictions", stats)
    return new


def with_admission(
    w: Workload,
    *,
    cluster_queue: str,
    pod_sets: tuple[PodSetUsage, ...],
    quota_reserved_at: datetime | None,
    conditions: tuple[Condition, ...],
    evicted: bool | None = None,
) -> Workload:
    """``attrs.evolve(w, cluster_queue=..., pod_sets=..., quota_reserved_at=..., conditions=...,
    [evicted=...])``: the reservation a cycle writes (SC-AD-1) or the one a release clears
    (SC-EV-2). The new fields go through the same converters as in the constructor and
    ``usage``/``used_flavor_resources`` are derived from them as the constructor derives them;
    everything else (already checked) is copied instead of re-validated."""
    if not isinstance(cluster_queue, str):  # as the constructor checks it (DM-6)
        raise InvalidModel(f"Workload {w.key}", "cluster_queue", f"expected a str, got {type(cluster_queue).__name__}")
    new = object.__new__(Workload)
    for name in _KEPT:
        object.__setattr__(new, name, getattr(w, name))
    object.__setattr__(new, "cluster_queue", cluster_queue)
    object.__setattr__(new, "pod_sets", _pod_sets(pod_sets))
    object.__setattr__(new, "quota_reserved_at", _quota_reserved_at(quota_reserved_at))
    object.__setattr__(new, "conditions", _conditions(conditions))
    object.__setattr__(new, "evicted", w.evicted if evicted is None else evicted)
    # The defaults of the derived fields read pod_sets and reclaimable_pods, both set now.
    usage, used = _derived(new)
    object.__setattr__(new, "usage", usage)
    object.__setattr__(new, "used_flavor_resources", used)
    return new


# The derived usage of an admission, by its (interned) pod-set tuple and reclaimable pods:
# both are immutable and ``usage``/``used_flavor_resources`` are functions of them alone, and
# a run admits the same few shapes over and over. Matched by identity (the entry holds both
# objects, so their ids cannot be reused while it is stored); bounded, dropped when full.
_DERIVED: dict[
    tuple[int, int], tuple[tuple[PodSetUsage, ...], object, FrozenMap[FlavorResource, int], frozenset[FlavorResource]]
] = {}
_DERIVED_LIMIT = 4096


def _derived(new: Workload) -> tuple[FrozenMap[FlavorResource, int], frozenset[FlavorResource]]:
    """``(Workload._usage(new), Workload._used(new))``, shared with an equal earlier admission."""
    pod_sets, reclaimable = new.pod_sets, new.reclaimable_pods
    key = (id(pod_sets), id(reclaimable))
    found = _DERIVED.get(key)
    if found is not None and found[0] is pod_sets and found[1] is reclaimable:
        return found[2], found[3]
    usage, used = Workload._usage(new), Workload._used(new)
    if len(_DERIVED) >= _DERIVED_LIMIT:
        _DERIVED.clear()
    _DERIVED[key] = (pod_sets, reclaimable, usage, used)
    return usage, used


_BUT_SPECS = tuple(n for n in _FIELDS if n != "spec_pod_sets")


def with_spec_pod_sets(w: Workload, spec_pod_sets: Iterable[PodSetSpec]) -> Workload:
    """``attrs.evolve(w, spec_pod_sets=...)``: the pod sets the cycle reads for an arriving
    workload (the simulator's arrivals). Only the new field goes through its converter (its
    checks included); nothing derived reads it, so everything else is copied."""
    new = object.__new__(Workload)
    for name in _BUT_SPECS:
        object.__setattr__(new, name, getattr(w, name))
    object.__setattr__(new, "spec_pod_sets", _spec_pod_sets(spec_pod_sets))
    return new
