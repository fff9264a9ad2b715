"""Workloads: priority, conditions, admitted pod-set usage (DM-7..DM-9)."""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_int, model_iterable, model_str_map
from kueue_preempt._util.frozen import FrozenMap, frozen_map, intern, interned_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model._fields import _Validator, _bool, _str, _who
from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN, amount_add, amount_input
from kueue_preempt.model.resources import FlavorResource
from kueue_preempt.model.time import to_optional_time

__all__ = ["Condition", "EvictionStat", "PriorityClassRef", "WorkloadPriorityClass", "ClassPreemptionPolicy", "PodSetUsage", "Workload", "WORKLOAD_PRIORITY_CLASS_GROUP", "WORKLOAD_PRIORITY_CLASS_KIND"]

_CONDITION_STATUS = ("True", "False", "Unknown")


def _condition_time(value: datetime | str | None) -> datetime | None:
    return to_optional_time(value, obj="Condition", field="last_transition_time")


@attrs.frozen
class Condition:
    """A workload status condition: read for the queue-order timestamp (POL-5) and written by
    the scheduling cycle (SC-AD-2, SC-MSG-3)."""

    type: str
    status: str = "True"
    reason: str = ""
    last_transition_time: datetime | None = attrs.field(default=None, converter=_condition_time)
    message: str = ""
    """Read when a later write quotes it (``Previously: ...``, SC-AD-2)."""
    observed_generation: int = 0

    def __attrs_post_init__(self) -> None:
        # DM-6: one fast test of the plain fields; the checks below only name the culprit.
        if (
            type(self.type) is str
            and self.type
            and self.status in _CONDITION_STATUS
            and type(self.reason) is str
            and type(self.message) is str
            and type(self.observed_generation) is int
            and self.observed_generation >= 0
        ):
            return
        check = _str()
        _str(empty=False)(self, attrs.fields(Condition).type, self.type)
        obj = f"Condition {self.type!r}"
        if not isinstance(self.status, str) or self.status not in _CONDITION_STATUS:
            # A bool True would read as "not true" (is_true compares with "True").
            raise InvalidModel(obj, "status", f"expected 'True', 'False' or 'Unknown', got {self.status!r:.40}")
        check(self, attrs.fields(Condition).reason, self.reason)
        check(self, attrs.fields(Condition).message, self.message)
        model_int(self.observed_generation, obj, "observed_generation", minimum=0)

    @property
    def is_true(self) -> bool:
        return self.status == "True"


def _int32(obj: str) -> _Validator:
    def check(inst: object, attr: attrs.Attribute[int | None], value: int | None) -> None:
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not INT32_MIN <= value <= INT32_MAX
        ):
            raise InvalidModel(obj, attr.name, f"{value!r:.40} is not an int32")

    return check


@attrs.frozen
class EvictionStat:
    """One ``status.schedulingStats.evictions`` entry (DM-6): how often, and why, it was evicted."""

    reason: str = attrs.field(validator=_str())
    underlying_cause: str = attrs.field(default="", validator=_str())
    count: int = attrs.field(default=0)

    @count.validator
    def _check_count(self, attribute: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidModel(f"EvictionStat {self.reason!r}", "count", f"must be a non-negative int, got {value!r:.40}")


class ClassPreemptionPolicy(str, enum.Enum):
    """``WorkloadPriorityClass.preemptionPolicy`` (KEP-4400, NP-1).

    ``Never`` means "is never preempted" — the opposite reading of core Kubernetes'
    ``PriorityClass.preemptionPolicy: Never`` ("does not preempt others", NP-13).
    """

    ALWAYS = "Always"
    NEVER = "Never"


def _class_policy(value: ClassPreemptionPolicy | str | None) -> ClassPreemptionPolicy:
    if value is None or value == "":
        return ClassPreemptionPolicy.ALWAYS  # NP-1: absent = Always
    try:
        return ClassPreemptionPolicy(value)
    except ValueError:
        raise InvalidModel("WorkloadPriorityClass", "preemption_policy", f"unknown value {value!r}") from None


@attrs.frozen
class WorkloadPriorityClass:
    """A Kueue ``WorkloadPriorityClass`` (value plus the KEP-4400 preemption policy)."""

    name: str = attrs.field(validator=_str(empty=False))
    value: int = attrs.field(default=0, validator=_int32("WorkloadPriorityClass"))
    preemption_policy: ClassPreemptionPolicy = attrs.field(
        default=ClassPreemptionPolicy.ALWAYS, converter=_class_policy
    )


WORKLOAD_PRIORITY_CLASS_GROUP = "kueue.x-k8s.io"
WORKLOAD_PRIORITY_CLASS_KIND = "WorkloadPriorityClass"


@attrs.frozen
class PriorityClassRef:
    """``spec.priorityClassRef``; only a WorkloadPriorityClass reference can make a workload
    non-preemptible (NP-2)."""

    name: str = attrs.field(validator=_str(empty=False))
    kind: str = attrs.field(default=WORKLOAD_PRIORITY_CLASS_KIND, validator=_str())
    group: str = attrs.field(default=WORKLOAD_PRIORITY_CLASS_GROUP, validator=_str())

    @property
    def is_workload_priority_class(self) -> bool:
        return self.kind == WORKLOAD_PRIORITY_CLASS_KIND and self.group == WORKLOAD_PRIORITY_CLASS_GROUP


def _class_ref(value: PriorityClassRef | str | None) -> PriorityClassRef | None:
    if value is None or isinstance(value, PriorityClassRef):
        return value
    if isinstance(value, str) and not value:
        return None  # an empty spec.priorityClassName names no class (NP-2)
    if isinstance(value, str):
        return PriorityClassRef(name=value)
    raise InvalidModel("Workload", "priority_class", f"{value!r} is not a PriorityClassRef or class name")


def _annotations(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "Workload", "annotations"))


def _labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "Workload", "labels"))


def _flavors(value: Mapping[str, str]) -> FrozenMap[str, str]:
    flavors = model_str_map(value, "PodSetUsage", "flavors")
    for resource, flavor in flavors.items():
        if not flavor or not resource:  # DM-2: both halves of a FlavorResource are names
            raise InvalidModel("PodSetUsage", f"flavors[{resource!r}]", f"resource and flavor names must not be empty, got {flavor!r}")
    return interned_map(flavors)


def _usage_amounts(value: Mapping[str, int | str]) -> FrozenMap[str, int]:
    # Q-1 input rule: a string is a quantity of that resource ("500m" cpu = 500), an int an amount.
    if not isinstance(value, Mapping):
        raise InvalidModel("PodSetUsage", "usage", f"expected a mapping of resource to quantity, got {type(value).__name__}")
    out: dict[str, int] = {}
    for resource, amount in value.items():
        if not isinstance(resource, str) or not resource:
            raise InvalidModel("PodSetUsage", "usage", f"resource names must be non-empty strings, got {resource!r}")
        out[resource] = amount_input(amount, resource, obj="PodSetUsage", field=f"usage[{resource!r}]")
    return interned_map(out)


@attrs.frozen
class PodSetUsage:
    """One admission pod set assignment (DM-7): total usage per resource and its flavors.

    ``usage`` is the pod set **total** (not per pod), as ``status.admission`` records it.
    A resource with a flavor counts as used even with a zero amount (POL-9).
    """

    name: str = attrs.field(default="main", validator=_str(empty=False))
    count: int = attrs.field(default=1)
    flavors: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_flavors)
    usage: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_usage_amounts)
    """Amounts per resource; a string value is parsed as a quantity of that resource (Q-1).
    Every resource here has a flavor in ``flavors`` (SC-AD-1: Kueue writes both maps with the
    same keys); a flavor without an amount reads as a zero usage (POL-9)."""

    @usage.validator
    def _check_usage(self, attribute: attrs.Attribute[FrozenMap[str, int]], value: FrozenMap[str, int]) -> None:
        # DM-7 / SC-AD-1: a resource without a flavor would be silently not charged anywhere.
        flavors = self.flavors
        for resource in value:
            if resource not in flavors:
                raise InvalidModel(
                    f"PodSetUsage {self.name!r}",
                    f"usage[{resource!r}]",
                    f"resource {resource!r} has no flavor in 'flavors' (an admission charges each resource "
                    "under its assigned flavor, DM-7, SC-AD-1)",
                )

    @count.validator
    def _check_count(self, attribute: attrs.Attribute[int], value: int) -> None:
        model_int(value, f"PodSetUsage {self.name!r}", "count", minimum=0)


def _cost(value: Decimal | int | str | None) -> Decimal | None:
    if value is None or isinstance(value, Decimal):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, str):
        from kueue_preempt.model.quantity import parse_quantity

        q = parse_quantity(value, where="status.preemptionCost")
        # A quantity's denominator is 2^a * 5^b (decimal digits and suffixes only divide by
        # powers of ten), so it divides 10^max(a, b): the Decimal below is exact (COST-3).
        den, k = q.denominator, 0
        while (10**k) % den:
            k += 1
        # Built from a string: Decimal arithmetic would round to the context precision.
        return Decimal(f"{q.numerator * (10**k // den)}E-{k}")
    raise InvalidModel("Workload", "preemption_cost", f"{value!r} is not a quantity")


def _pod_sets(value: Iterable[PodSetUsage]) -> tuple[PodSetUsage, ...]:
    return intern(model_iterable(value, PodSetUsage, "Workload", "pod_sets"))


def _conditions(value: Iterable[Condition]) -> tuple[Condition, ...]:
    return model_iterable(value, Condition, "Workload", "conditions")


def _evictions(value: Iterable[EvictionStat]) -> tuple[EvictionStat, ...]:
    return model_iterable(value, EvictionStat, "Workload", "evictions")


def _creation_time(value: datetime | str | None) -> datetime | None:
    return to_optional_time(value, obj="Workload", field="creation_time")


def _quota_reserved_at(value: datetime | str | None) -> datetime | None:
    return to_optional_time(value, obj="Workload", field="quota_reserved_at")


def _spec_pod_sets(value: Iterable[PodSetSpec]) -> tuple[PodSetSpec, ...]:
    if value == ():
        return ()  # admitted workloads built for preemption: no import, no checks

    out = model_iterable(value, PodSetSpec, "Workload", "spec_pod_sets")
    names = set()
    for ps in out:
        if ps.name in names:
            raise InvalidModel("Workload", "spec_pod_sets", f"duplicate pod set name {ps.name!r}")
        names.add(ps.name)
    return out


_NO_RECLAIMABLE: FrozenMap[str, int] = FrozenMap()
_INF = float("inf")


def _reclaimable(value: Mapping[str, int] | Iterable[tuple[str, int]]) -> FrozenMap[str, int]:
    # A list of (name, count) pairs is accepted as status.reclaimablePods is a list: for a
    # repeated name the last entry wins (FAS-1a).
    if value is _NO_RECLAIMABLE:
        return value
    pairs: Iterable[Any]
    if isinstance(value, Mapping):
        pairs = value.items()
    else:
        pairs = model_iterable(value, object, "Workload", "reclaimable_pods")
    out: dict[str, int] = {}
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InvalidModel("Workload", f"reclaimable_pods[{i}]", f"expected a (name, count) pair, got {pair!r:.40}")
        name, count = pair
        if not isinstance(name, str) or not name:
            raise InvalidModel("Workload", "reclaimable_pods", f"pod-set names must be non-empty strings, got {name!r:.40}")
        # int32 like the pod set's count it is subtracted from.
        out[name] = model_int(count, "Workload", f"reclaimable_pods[{name!r}]", minimum=0, maximum=INT32_MAX)
    return frozen_map(out)


@attrs.frozen
class Workload:
    """A Kueue Workload as the algorithms see it (DM-6, DM-7).

    ``cluster_queue`` is the admission's ClusterQueue (``""`` when not admitted). ``pod_sets``
    are the admission pod set assignments; ``usage`` (derived) sums them per FlavorResource.
    ``quota_reserved_at`` is the ``QuotaReserved=True`` condition time (ORD-5); ``evicted``
    is ``Evicted=True`` (ORD-1). ``conditions`` holds any other conditions the caller has;
    they are read for the queue-order timestamp (POL-5) and by the reference policies
    (``Admitted``, BOOST-3).
    """

    name: str
    namespace: str = ""
    uid: str = ""
    cluster_queue: str = ""
    local_queue: str = ""
    priority: int | None = attrs.field(default=None, validator=_int32("Workload"))
    annotations: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_annotations)
    labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_labels)
    creation_time: datetime | None = attrs.field(default=None, converter=_creation_time)
    quota_reserved_at: datetime | None = attrs.field(default=None, converter=_quota_reserved_at)
    evicted: bool = False
    conditions: tuple[Condition, ...] = attrs.field(default=(), converter=_conditions)
    pod_sets: tuple[PodSetUsage, ...] = attrs.field(default=(), converter=_pod_sets)
    preemption_cost: Decimal | None = attrs.field(default=None, converter=_cost)
    local_queue_fs_usage: float | None = None
    priority_class: PriorityClassRef | None = attrs.field(default=None, converter=_class_ref)
    """``spec.priorityClassRef`` (a plain string names a WorkloadPriorityClass)."""
    non_preemptible: bool | None = None
    """Explicit override of the class lookup (NP-2); ``None`` = resolve through the class."""
    evictions: tuple[EvictionStat, ...] = attrs.field(default=(), converter=_evictions)
    """``status.schedulingStats.evictions``, read by the reference boost/cost policies."""
    spec_pod_sets: tuple[PodSetSpec, ...] = attrs.field(default=(), converter=_spec_pod_sets)
    """``spec.podSets`` (per-pod requests, selectors, tolerations), read by the flavor assigner."""
    reclaimable_pods: FrozenMap[str, int] = attrs.field(default=_NO_RECLAIMABLE, converter=_reclaimable)
    """``status.reclaimablePods``: pod set name -> how many of its pods are reclaimable (DM-7,
    FAS-1a). An admitted pod set's usage is scaled to ``count - min(reclaimable, count)`` pods;
    a pending pod set's count is reduced the same way by the flavor assigner. Must be declared
    before ``usage``, whose default reads it. The manifest loader derives it from
    ``status.reclaimablePods`` and the spec counts (docs/manifests.md)."""
    usage: FrozenMap[FlavorResource, int] = attrs.field(init=False, eq=False, repr=False)
    used_flavor_resources: frozenset[FlavorResource] = attrs.field(init=False, eq=False, repr=False)

    @usage.default
    def _usage(self) -> FrozenMap[FlavorResource, int]:
        total: dict[FlavorResource, int] = {}
        reclaimable = self.reclaimable_pods
        for ps in self.pod_sets:
            n = ps.count
            kept = n - min(reclaimable.get(ps.name, 0), n) if reclaimable else n
            for resource, amount in ps.usage.items():
                flavor = ps.flavors.get(resource)
                if flavor is None:
                    continue  # DM-7: not quota usage (PodSetUsage refuses such a resource, SC-AD-1)
                if kept < n:  # DM-7/FAS-1a: per-pod amount (Go's truncating division) x kept pods
                    per_pod = abs(amount) // n
                    amount = (per_pod if amount >= 0 else -per_pod) * kept
                fr = intern(FlavorResource(flavor, resource))
                total[fr] = amount_add(total.get(fr, 0), amount)
        return interned_map(total)

    @used_flavor_resources.default
    def _used(self) -> frozenset[FlavorResource]:
        return intern(
            frozenset(
                intern(FlavorResource(flavor, resource)) for ps in self.pod_sets for resource, flavor in ps.flavors.items()
            )
        )

    def __attrs_post_init__(self) -> None:
        # DM-6: one fast test of the plain fields (workloads are rebuilt on every status change);
        # _check_fields only runs to name the culprit, or for str/bool subclasses.
        fs = self.local_queue_fs_usage
        if not (
            type(self.name) is str
            and type(self.namespace) is str
            and type(self.uid) is str
            and type(self.cluster_queue) is str
            and type(self.local_queue) is str
            and type(self.evicted) is bool
            and (self.non_preemptible is None or type(self.non_preemptible) is bool)
            and (fs is None or (type(fs) is float and -_INF < fs < _INF))
        ):
            self._check_fields()
        if not self.name:
            raise InvalidModel("Workload", "name", "must not be empty")

    def _check_fields(self) -> None:
        fields = attrs.fields(Workload)
        name_check, check = _str(empty=False), _str()
        name_check(self, fields.name, self.name)
        for attribute in (fields.namespace, fields.uid, fields.cluster_queue, fields.local_queue):
            check(self, attribute, getattr(self, attribute.name))
        _bool()(self, fields.evicted, self.evicted)
        _bool(optional=True)(self, fields.non_preemptible, self.non_preemptible)
        fs = self.local_queue_fs_usage
        # ORD-3: compared as a number; a string or NaN would order workloads arbitrarily.
        if fs is not None and (isinstance(fs, bool) or not isinstance(fs, (int, float)) or not -_INF < fs < _INF):
            raise InvalidModel(_who(self), "local_queue_fs_usage", f"expected a finite number or None, got {fs!r:.40}")

    @property
    def key(self) -> str:
        """``namespace/name``, the workload's identity inside a snapshot."""
        return f"{self.namespace}/{self.name}"

    def condition(self, type_: str) -> Condition | None:
        """The last condition of ``type_`` in :attr:`conditions`, if any."""
        found = None
        for c in self.conditions:
            if c.type == type_:
                found = c
        return found
