"""Immutable value types the algorithms read (DM-1..DM-10).

Every class is a frozen, slotted ``attrs`` class: an object that exists is valid, and no
algorithm can change a caller's object. Converters at the edge accept convenient inputs
(strings for enums and times, plain dicts for maps) and store canonical values; derived data
(a workload's usage per FlavorResource) is computed once at construction.
"""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import attrs

from ._checks import model_int, model_iterable, model_str_map

if TYPE_CHECKING:  # flavors imports model; the converters below import it lazily
    from .flavors import FlavorFungibility, PodSetSpec, ResourceGroup

from ._frozen import FrozenMap, frozen_map, intern, interned_map
from ._time import to_optional_time
from .errors import InvalidModel
from .quantity import amount_add, amount_input

__all__ = [
    "FlavorResource",
    "ResourceQuota",
    "PreemptionPolicy",
    "BorrowWithinCohort",
    "ClusterQueuePreemption",
    "ClusterQueue",
    "Cohort",
    "Condition",
    "EvictionStat",
    "PriorityClassRef",
    "WorkloadPriorityClass",
    "ClassPreemptionPolicy",
    "PodSetUsage",
    "Workload",
    "FlavorAssignmentMode",
    "Assignment",
    "PreemptionReason",
    "Target",
    "INT32_MIN",
    "INT32_MAX",
]

_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


@attrs.frozen(order=True, cache_hash=True)
class FlavorResource:
    """A ``(flavor, resource)`` pair, the unit of all quota arithmetic (DM-2).

    The hash is cached and the model interns the instances it stores, because these are the
    keys of every usage map: lookups then hit by identity instead of hashing and comparing.
    """

    flavor: str
    resource: str

    @classmethod
    def parse(cls, text: str) -> FlavorResource:
        """Parse ``"flavor/resource"``, splitting on the first ``/`` (resource names may hold ``/``)."""
        flavor, sep, resource = text.partition("/")
        if not sep or not flavor or not resource:
            raise InvalidModel("FlavorResource", "key", f"{text!r} is not '<flavor>/<resource>'")
        return cls(flavor, resource)

    def __str__(self) -> str:
        return f"{self.flavor}/{self.resource}"


# ResourceQuota does not know its resource (the FlavorResource is the key in ``quotas``), so a
# quantity string cannot be converted here and is refused (Q-1 input rule, ``amount_input``).
def _nominal(value: int) -> int:
    return amount_input(value, None, obj="ResourceQuota", field="nominal", side="quota")


def _borrowing_limit(value: int | None) -> int | None:
    return None if value is None else amount_input(value, None, obj="ResourceQuota", field="borrowing_limit", side="quota")


def _lending_limit(value: int | None) -> int | None:
    return None if value is None else amount_input(value, None, obj="ResourceQuota", field="lending_limit", side="quota")


@attrs.frozen
class ResourceQuota:
    """Quota of one node for one FlavorResource (DM-3). Amounts are integers (Q-1).

    ``None`` limits mean "no borrowing limit" / "lend everything" (Q-3). Values are amounts
    (milli-units for ``cpu``); a quantity string is refused because the resource is not known
    here — convert it with :func:`~kueue_preempt.quota_amount` first.
    """

    nominal: int = attrs.field(default=0, converter=_nominal)
    borrowing_limit: int | None = attrs.field(default=None, converter=_borrowing_limit)
    lending_limit: int | None = attrs.field(default=None, converter=_lending_limit)


class PreemptionPolicy(str, enum.Enum):
    """Values of the ClusterQueue preemption fields (POL-1..POL-4), plus ``UNSET`` (POL-8).

    ``UNSET`` (value ``""``) is a field that was never defaulted: Kueue's API server writes
    ``Never`` into every absent field, but objects built without it (Kueue's unit tests, the
    conformance cases, hand-built models) keep ``""``, and Kueue compares ``""`` as "not
    ``Never``" wherever it tests ``!= Never`` (POL-8, FAS-6) while it matches no candidate as a
    policy (POL-4). A field left out of a constructor call is ``NEVER`` (the defaulted value);
    only an explicit ``UNSET`` or ``""`` gives the raw unset value.
    """

    NEVER = "Never"
    LOWER_PRIORITY = "LowerPriority"
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
    ANY = "Any"
    UNSET = ""

    def __str__(self) -> str:
        return self.value


def _policy(value: PreemptionPolicy | str | None, obj: str, field: str) -> PreemptionPolicy:
    # ``None`` (not named) is the API default, Never (POL-7); ``""`` is Kueue's raw unset
    # value, kept distinct because Kueue compares it as "not Never" (POL-8, FAS-6).
    if value is None:
        return PreemptionPolicy.NEVER
    try:
        return PreemptionPolicy(value)
    except ValueError:
        raise InvalidModel(obj, field, f"unknown policy {value!r}") from None


# attrs (and mypy's attrs plugin) need named converter functions, one per field.
def _bwc_policy(value: PreemptionPolicy | str | None) -> PreemptionPolicy:
    return _policy(value, "BorrowWithinCohort", "policy")


def _within_policy(value: PreemptionPolicy | str | None) -> PreemptionPolicy:
    return _policy(value, "ClusterQueuePreemption", "within_cluster_queue")


def _reclaim_policy(value: PreemptionPolicy | str | None) -> PreemptionPolicy:
    return _policy(value, "ClusterQueuePreemption", "reclaim_within_cohort")


def _allowed(*values: PreemptionPolicy) -> _Validator:
    def check(inst: object, attr: attrs.Attribute[PreemptionPolicy], value: PreemptionPolicy) -> None:
        # UNSET bypassed the API's defaulting, hence its validation too (POL-8).
        if value not in values and value is not PreemptionPolicy.UNSET:
            allowed = ", ".join(v.value for v in values)
            raise InvalidModel(type(inst).__name__, attr.name, f"{value.value!r} not in {{{allowed}}} (POL-7)")

    return check


@attrs.frozen
class BorrowWithinCohort:
    """``preemption.borrowWithinCohort`` (POL-8): may the CQ preempt in its cohort while borrowing."""

    policy: PreemptionPolicy = attrs.field(
        default=PreemptionPolicy.NEVER,
        converter=_bwc_policy,
        validator=_allowed(PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY),
    )
    max_priority_threshold: int | None = attrs.field(default=None)

    @max_priority_threshold.validator
    def _check_threshold(self, attribute: attrs.Attribute[int | None], value: int | None) -> None:
        if value is not None:
            model_int(value, "BorrowWithinCohort", "max_priority_threshold", minimum=INT32_MIN, maximum=INT32_MAX)


def _bwc(value: BorrowWithinCohort | None) -> BorrowWithinCohort | None:
    if value is not None and not isinstance(value, BorrowWithinCohort):
        raise InvalidModel(
            "ClusterQueuePreemption", "borrow_within_cohort", f"expected BorrowWithinCohort or None, got {type(value).__name__}"
        )
    return value


@attrs.frozen
class ClusterQueuePreemption:
    """A ClusterQueue's preemption stanza; every field defaults to ``Never`` (POL-7)."""

    within_cluster_queue: PreemptionPolicy = attrs.field(
        default=PreemptionPolicy.NEVER,
        converter=_within_policy,
        validator=_allowed(
            PreemptionPolicy.NEVER,
            PreemptionPolicy.LOWER_PRIORITY,
            PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY,
        ),
    )
    reclaim_within_cohort: PreemptionPolicy = attrs.field(
        default=PreemptionPolicy.NEVER,
        converter=_reclaim_policy,
        validator=_allowed(PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.ANY),
    )
    borrow_within_cohort: BorrowWithinCohort | None = attrs.field(default=None, converter=_bwc)

    def __attrs_post_init__(self) -> None:
        bwc = self.borrow_within_cohort
        if (
            self.reclaim_within_cohort is PreemptionPolicy.NEVER
            and bwc is not None
            and bwc.policy not in (PreemptionPolicy.NEVER, PreemptionPolicy.UNSET)
        ):
            raise InvalidModel(
                "ClusterQueuePreemption",
                "borrow_within_cohort",
                "requires reclaim_within_cohort != Never (POL-7)",
            )


def _weight(value: float | int | str | Decimal, obj: str) -> float:
    if isinstance(value, str):
        from .quantity import parse_quantity

        value = float(parse_quantity(value, where=f"{obj}.fair_weight (fairSharing.weight)"))
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise InvalidModel(obj, "fair_weight", f"expected a number or quantity string, got {type(value).__name__}")
    # float() of a huge int overflows; such a weight is absurd input, refused by FS-W-2 anyway.
    weight = float(value) if not isinstance(value, int) or abs(value) < 2**1000 else float("inf")
    # FS-W-2: weight >= 0 and a positive weight must exceed 1e-9.
    if not weight >= 0 or (0 < weight <= 1e-9) or weight == float("inf"):
        raise InvalidModel(obj, "fair_weight", f"fairSharing.weight must be 0 or > 1e-9 and finite, got {value!r:.40}")
    return weight


def _cq_weight(value: float | int | str | Decimal) -> float:
    return _weight(value, "ClusterQueue")


def _cohort_weight(value: float | int | str | Decimal) -> float:
    return _weight(value, "Cohort")


def _quotas(value: Mapping[FlavorResource, ResourceQuota]) -> FrozenMap[FlavorResource, ResourceQuota]:
    if not isinstance(value, Mapping):
        raise InvalidModel("quotas", "quotas", f"expected a mapping of FlavorResource to ResourceQuota, got {type(value).__name__}")
    for fr, q in value.items():
        if not isinstance(fr, FlavorResource) or not isinstance(q, ResourceQuota):
            raise InvalidModel("quotas", str(fr), "keys must be FlavorResource and values ResourceQuota")
    return frozen_map({intern(fr): q for fr, q in value.items()})


def _resource_groups(value: Iterable[ResourceGroup]) -> tuple[ResourceGroup, ...]:
    from .flavors import ResourceGroup

    return model_iterable(value, ResourceGroup, "ClusterQueue", "resource_groups")


def _default_fungibility() -> FlavorFungibility:
    from .flavors import FlavorFungibility

    return FlavorFungibility()


def _fungibility(value: FlavorFungibility | None) -> FlavorFungibility:
    from .flavors import FlavorFungibility

    if value is None:
        return FlavorFungibility()  # absent stanza = Kueue's defaults (FAS-8)
    if not isinstance(value, FlavorFungibility):
        raise InvalidModel(
            "ClusterQueue", "flavor_fungibility", f"expected FlavorFungibility, got {type(value).__name__}"
        )
    return value


@attrs.frozen
class ClusterQueue:
    """A leaf quota holder (DM-4). ``cohort`` is the parent cohort's name, if any.

    ``resource_groups`` (FAS-4) and ``flavor_fungibility`` (FAS-8) are what the flavor
    assigner reads; preemption reads only ``quotas``. Give either: ``quotas`` is derived from
    ``resource_groups`` when only those are given; both together must agree.
    """

    name: str
    cohort: str | None = None
    quotas: FrozenMap[FlavorResource, ResourceQuota] = attrs.field(factory=FrozenMap, converter=_quotas)
    preemption: ClusterQueuePreemption = attrs.field(factory=ClusterQueuePreemption)
    fair_weight: float = attrs.field(default=1.0, converter=_cq_weight)
    admission_scope_usage_based: bool = False
    resource_groups: tuple[ResourceGroup, ...] = attrs.field(default=(), converter=_resource_groups)
    flavor_fungibility: FlavorFungibility = attrs.field(factory=_default_fungibility, converter=_fungibility)

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise InvalidModel("ClusterQueue", "name", "must not be empty")
        if self.resource_groups:
            from .flavors import quotas_of_groups

            derived = _quotas(quotas_of_groups(self.resource_groups))
            if not self.quotas:
                # Frozen class: set the derived field once, before anyone can see the object.
                object.__setattr__(self, "quotas", derived)
            elif self.quotas != derived:
                raise InvalidModel(
                    f"ClusterQueue {self.name!r}", "quotas", "disagrees with the quotas of resource_groups"
                )
        for fr, q in self.quotas.items():
            if self.cohort is None and (q.borrowing_limit is not None or q.lending_limit is not None):
                raise InvalidModel(
                    f"ClusterQueue {self.name!r}",
                    f"quotas[{fr}]",
                    "borrowing/lending limits need a cohort (Q-17)",
                )
            if q.lending_limit is not None and q.lending_limit > q.nominal:
                raise InvalidModel(
                    f"ClusterQueue {self.name!r}", f"quotas[{fr}].lending_limit", "must be <= nominal (Q-17)"
                )


@attrs.frozen
class Cohort:
    """An inner node of the quota tree, possibly with its own quota (DM-5)."""

    name: str
    parent: str | None = None
    quotas: FrozenMap[FlavorResource, ResourceQuota] = attrs.field(factory=FrozenMap, converter=_quotas)
    fair_weight: float = attrs.field(default=1.0, converter=_cohort_weight)

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise InvalidModel("Cohort", "name", "must not be empty")
        if self.parent is None:
            for fr, q in self.quotas.items():
                if q.borrowing_limit is not None or q.lending_limit is not None:
                    raise InvalidModel(
                        f"Cohort {self.name!r}", f"quotas[{fr}]", "borrowing/lending limits need a parent (Q-17)"
                    )


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

    reason: str
    underlying_cause: str = ""
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

    name: str
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

    name: str
    kind: str = WORKLOAD_PRIORITY_CLASS_KIND
    group: str = WORKLOAD_PRIORITY_CLASS_GROUP

    @property
    def is_workload_priority_class(self) -> bool:
        return self.kind == WORKLOAD_PRIORITY_CLASS_KIND and self.group == WORKLOAD_PRIORITY_CLASS_GROUP


def _class_ref(value: PriorityClassRef | str | None) -> PriorityClassRef | None:
    if value is None or isinstance(value, PriorityClassRef):
        return value
    if isinstance(value, str):
        return PriorityClassRef(name=value)
    raise InvalidModel("Workload", "priority_class", f"{value!r} is not a PriorityClassRef or class name")


def _annotations(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "Workload", "annotations"))


def _labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "Workload", "labels"))


def _flavors(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return interned_map(model_str_map(value, "PodSetUsage", "flavors"))


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

    name: str = "main"
    count: int = attrs.field(default=1)
    flavors: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_flavors)
    usage: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_usage_amounts)
    """Amounts per resource; a string value is parsed as a quantity of that resource (Q-1)."""

    @count.validator
    def _check_count(self, attribute: attrs.Attribute[int], value: int) -> None:
        model_int(value, f"PodSetUsage {self.name!r}", "count", minimum=0)


def _cost(value: Decimal | int | str | None) -> Decimal | None:
    if value is None or isinstance(value, Decimal):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, str):
        from .quantity import parse_quantity

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
    from .flavors import PodSetSpec

    out = model_iterable(value, PodSetSpec, "Workload", "spec_pod_sets")
    names = set()
    for ps in out:
        if ps.name in names:
            raise InvalidModel("Workload", "spec_pod_sets", f"duplicate pod set name {ps.name!r}")
        names.add(ps.name)
    return out


_NO_RECLAIMABLE: FrozenMap[str, int] = FrozenMap()


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
                    continue  # DM-7: resources without a flavor are not quota usage
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
        if not self.name:
            raise InvalidModel("Workload", "name", "must not be empty")

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


class FlavorAssignmentMode(str, enum.Enum):
    """How the flavor assigner placed one (pod set, resource) (FA-1)."""

    FIT = "Fit"
    PREEMPT = "Preempt"
    NO_FIT = "NoFit"


def _requests(value: Mapping[FlavorResource, int | str]) -> FrozenMap[FlavorResource, int]:
    if not isinstance(value, Mapping):
        raise InvalidModel("Assignment", "requests", f"expected a mapping of FlavorResource to quantity, got {type(value).__name__}")
    out: dict[FlavorResource, int] = {}
    for fr, v in value.items():
        if not isinstance(fr, FlavorResource):
            raise InvalidModel("Assignment", "requests", f"keys must be FlavorResource, got {type(fr).__name__}")
        # Q-1 input rule: the key names the resource, so "500m" of cpu is the amount 500.
        out[intern(fr)] = amount_input(v, fr.resource, obj="Assignment", field=f"requests[{fr}]")
    return frozen_map(out)


def _fr_set(value: Iterable[FlavorResource]) -> frozenset[FlavorResource]:
    return frozenset(intern(fr) for fr in model_iterable(value, FlavorResource, "Assignment", "preempt"))


@attrs.frozen
class Assignment:
    """The preemptor's flavor assignment (DM-8), reduced to what preemption reads.

    ``requests`` is ``TotalRequestsFor`` (FA-3): total amounts per FlavorResource, including
    ``Fit``-mode ones. ``preempt`` is the set of FlavorResources in ``Preempt`` mode (FA-2).
    """

    requests: FrozenMap[FlavorResource, int] = attrs.field(converter=_requests)
    preempt: frozenset[FlavorResource] = attrs.field(converter=_fr_set)


class PreemptionReason(str, enum.Enum):
    """The ``Preempted`` condition reasons Kueue writes (MSG-1)."""

    IN_CLUSTER_QUEUE = "InClusterQueue"
    IN_COHORT_RECLAMATION = "InCohortReclamation"
    IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
    IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Target:
    """A workload selected for eviction (DM-9), with the reason and the Kueue message (MSG-3)."""

    workload: Workload
    reason: PreemptionReason
    cluster_queue: str
    message: str = ""
