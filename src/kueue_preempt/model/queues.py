"""ClusterQueues and Cohorts: quotas, preemption policies, fair-sharing weights (DM-4..DM-6, POL-*),
and a ClusterQueue's queueing settings (SC-CFG-3, kueue-api-fields.md §1.3)."""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_int, model_iterable, model_str_iterable, str_field
from kueue_preempt._util.frozen import FrozenMap, frozen_map, intern
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model._fields import _Validator, _bool, _number, _str
from kueue_preempt.model.flavors import FlavorFungibility, ResourceGroup
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.model.resources import FlavorResource, ResourceQuota
from kueue_preempt.model.selectors import LabelSelector

__all__ = [
    "PreemptionPolicy",
    "BorrowWithinCohort",
    "ClusterQueuePreemption",
    "ClusterQueue",
    "Cohort",
    "QueueingStrategy",
    "StopPolicy",
    "AdmissionCheckRule",
    "ClusterQueueSettings",
    "LocalQueue",
]



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


def _stanza(value: Mapping[Any, Any], fields: tuple[str, ...], obj: str, field: str) -> dict[str, Any]:
    """A plain mapping given for a sub-object: its keys must be the sub-object's fields."""
    for key in value:
        if key not in fields:
            raise InvalidModel(obj, field, f"unknown key {key!r:.40}; expected some of {', '.join(fields)}")
    return dict(value)


def _bwc(value: BorrowWithinCohort | Mapping[str, Any] | None) -> BorrowWithinCohort | None:
    if isinstance(value, Mapping):  # DM-4: a plain dict of the fields, keys checked
        fields = ("policy", "max_priority_threshold")
        return BorrowWithinCohort(**_stanza(value, fields, "ClusterQueuePreemption", "borrow_within_cohort"))
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
        from kueue_preempt.model.quantity import parse_quantity

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


def _quotas(value: Mapping[FlavorResource, ResourceQuota], obj: str = "ClusterQueue") -> FrozenMap[FlavorResource, ResourceQuota]:
    if not isinstance(value, Mapping):
        raise InvalidModel(obj, "quotas", f"expected a mapping of FlavorResource to ResourceQuota, got {type(value).__name__}")
    for fr, q in value.items():
        if not isinstance(fr, FlavorResource) or not isinstance(q, ResourceQuota):
            raise InvalidModel(
                obj,
                "quotas",
                f"keys must be FlavorResource and values ResourceQuota, got {fr!r:.40}: {type(q).__name__}",
            )
    return frozen_map({intern(fr): q for fr, q in value.items()})


def _cohort_quotas(value: Mapping[FlavorResource, ResourceQuota]) -> FrozenMap[FlavorResource, ResourceQuota]:
    return _quotas(value, "Cohort")


def _parent_name(value: str | None, obj: str, field: str) -> str | None:
    # Kueue reads an empty spec.cohort / spec.parentName as "no parent" (DM-4, DM-5): it must not
    # become an implicit cohort named "" that every such queue would share.
    if value is None or (isinstance(value, str) and not value):
        return None
    if not isinstance(value, str):
        raise InvalidModel(obj, field, f"expected a cohort name (str) or None, got {type(value).__name__}")
    return value


def _cq_cohort(value: str | None) -> str | None:
    return _parent_name(value, "ClusterQueue", "cohort")


def _cohort_parent(value: str | None) -> str | None:
    return _parent_name(value, "Cohort", "parent")


def _cq_preemption(value: ClusterQueuePreemption | Mapping[str, Any] | None) -> ClusterQueuePreemption:
    # DM-4 / POL-7: a ClusterQueuePreemption, a plain dict of its fields (keys and values checked
    # by ClusterQueuePreemption itself), or None for an absent stanza (every field Never).
    if isinstance(value, ClusterQueuePreemption):
        return value
    if value is None:
        return ClusterQueuePreemption()
    if isinstance(value, Mapping):
        fields = ("within_cluster_queue", "reclaim_within_cohort", "borrow_within_cohort")
        return ClusterQueuePreemption(**_stanza(value, fields, "ClusterQueue", "preemption"))
    raise InvalidModel(
        "ClusterQueue",
        "preemption",
        f"expected ClusterQueuePreemption, a mapping of its fields or None, got {type(value).__name__}",
    )


def _resource_groups(value: Iterable[ResourceGroup]) -> tuple[ResourceGroup, ...]:

    return model_iterable(value, ResourceGroup, "ClusterQueue", "resource_groups")


def _default_fungibility() -> FlavorFungibility:

    return FlavorFungibility()


def _fungibility(value: FlavorFungibility | None) -> FlavorFungibility:

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

    name: str = attrs.field(validator=_str(empty=False))
    cohort: str | None = attrs.field(default=None, converter=_cq_cohort)
    quotas: FrozenMap[FlavorResource, ResourceQuota] = attrs.field(factory=FrozenMap, converter=_quotas)
    preemption: ClusterQueuePreemption = attrs.field(factory=ClusterQueuePreemption, converter=_cq_preemption)
    """A :class:`ClusterQueuePreemption`, a plain dict of its fields, or ``None`` (all ``Never``)."""
    fair_weight: float = attrs.field(default=1.0, converter=_cq_weight)
    admission_scope_usage_based: bool = attrs.field(default=False, validator=_bool())
    resource_groups: tuple[ResourceGroup, ...] = attrs.field(default=(), converter=_resource_groups)
    flavor_fungibility: FlavorFungibility = attrs.field(factory=_default_fungibility, converter=_fungibility)

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise InvalidModel("ClusterQueue", "name", "must not be empty")
        if self.resource_groups:
            from kueue_preempt.model.flavors import quotas_of_groups

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

    name: str = attrs.field(validator=_str(empty=False))
    parent: str | None = attrs.field(default=None, converter=_cohort_parent)
    quotas: FrozenMap[FlavorResource, ResourceQuota] = attrs.field(factory=FrozenMap, converter=_cohort_quotas)
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


def cohort_parents(cohorts: Iterable[Cohort]) -> dict[str, str | None]:
    """Cohort name -> the name of its parent (DM-5), the map :func:`root_cohort` walks."""
    return {c.name: c.parent for c in cohorts}


def root_cohort(parents: Mapping[str, str | None], cohort: str) -> str:
    """The root of ``cohort``'s tree by name (DM-5), as SC-IN-2/SC-IN-3 key a notification.

    ``parents`` is :func:`cohort_parents` of the cohorts that exist as objects. The walk
    follows ``parent`` while the current cohort is one of them and names a parent; a parent
    with no object of its own is an implicit cohort (DM-5), hence a root. On a parent cycle
    (SC-ST-4: Kueue leaves such a tree out) the walk stops at the first cohort it meets again,
    so every cohort that reaches the cycle through the same cohort gets the same answer.
    """
    seen: set[str] = set()
    node = cohort
    while True:
        parent = parents.get(node)
        if parent is None or node in seen:
            return node
        seen.add(node)
        node = parent


# --------------------------------------------------------------------------- queueing settings


class QueueingStrategy(str, enum.Enum):
    """``spec.queueingStrategy`` (SC-QO-4)."""

    BEST_EFFORT_FIFO = "BestEffortFIFO"
    STRICT_FIFO = "StrictFIFO"

    def __str__(self) -> str:
        return self.value


class StopPolicy(str, enum.Enum):
    """``spec.stopPolicy`` of a ClusterQueue or LocalQueue (SC-ST-4, SC-EV-5)."""

    NONE = "None"
    HOLD = "Hold"
    HOLD_AND_DRAIN = "HoldAndDrain"

    def __str__(self) -> str:
        return self.value


def to_stop_policy(value: StopPolicy | str | None) -> StopPolicy:
    """``None`` and ``""`` are the API default, ``None`` (the policy); an unknown value is refused."""
    if value is None or value == "":
        return StopPolicy.NONE
    try:
        return StopPolicy(value)
    except ValueError:
        raise InvalidModel("stopPolicy", "stopPolicy", f"unknown value {value!r}") from None


def _strategy(value: QueueingStrategy | str | None) -> QueueingStrategy:
    if value is None or value == "":
        return QueueingStrategy.BEST_EFFORT_FIFO
    try:
        return QueueingStrategy(value)
    except ValueError:
        raise InvalidModel("ClusterQueue", "queueingStrategy", f"unknown value {value!r}") from None


def _on_flavors(value: Iterable[str]) -> tuple[str, ...]:
    return model_str_iterable(value, "AdmissionCheckRule", "on_flavors")


@attrs.frozen
class AdmissionCheckRule:
    """One admission check of a ClusterQueue (``admissionChecksStrategy`` or v1beta1
    ``admissionChecks``); ``on_flavors`` empty = every flavor."""

    name: str = attrs.field(validator=str_field("AdmissionCheckRule", empty=False))
    on_flavors: tuple[str, ...] = attrs.field(default=(), converter=_on_flavors)


def _rules(value: Iterable[AdmissionCheckRule]) -> tuple[AdmissionCheckRule, ...]:
    return model_iterable(value, AdmissionCheckRule, "ClusterQueueSettings", "admission_checks")


def _namespace_selector(value: LabelSelector | None) -> LabelSelector | None:
    if value is not None and not isinstance(value, LabelSelector):
        raise InvalidModel("ClusterQueueSettings", "namespace_selector", f"expected LabelSelector or None, got {type(value).__name__}")
    return value


@attrs.frozen
class ClusterQueueSettings:
    """A ClusterQueue's queueing fields, which the queue manager and the cycle read besides the
    quota tree (:class:`ClusterQueue`) — kueue-api-fields.md §1.3, API-2, API-17, SC-CFG-3.

    ``namespace_selector``: ``None`` selects no namespace (a manifest without the field reads
    so, SC-CFG-3); the default ``LabelSelector()`` selects every namespace, as Kueue's test
    wrappers build ClusterQueues. ``admission_checks`` are names only: no check is evaluated
    (SC-AD-3). ``terminating``: the ClusterQueue is being deleted. Flavor fungibility is read
    by the flavor assigner, so it is :attr:`ClusterQueue.flavor_fungibility`.
    """

    name: str = attrs.field(validator=_str(empty=False))
    queueing_strategy: QueueingStrategy = attrs.field(default=QueueingStrategy.BEST_EFFORT_FIFO, converter=_strategy)
    stop_policy: StopPolicy = attrs.field(default=StopPolicy.NONE, converter=to_stop_policy)
    namespace_selector: LabelSelector | None = attrs.field(factory=LabelSelector, converter=_namespace_selector)
    admission_checks: tuple[AdmissionCheckRule, ...] = attrs.field(default=(), converter=_rules)
    terminating: bool = attrs.field(default=False, validator=_bool())

    @property
    def active(self) -> bool:
        """Not stopped and not being deleted (SC-ST-4; missing flavors/checks not considered)."""
        return self.stop_policy is StopPolicy.NONE and not self.terminating


@attrs.frozen(kw_only=True)
class LocalQueue:
    """A namespaced queue that points pending workloads (``spec.queueName``) at a ClusterQueue
    (SC-ST-1). Keyword construction only: releases before this one had two LocalQueue types
    with ``name`` and ``namespace`` in opposite positional orders."""

    namespace: str = attrs.field(validator=_str())
    name: str = attrs.field(validator=_str(empty=False))
    cluster_queue: str = attrs.field(validator=_str())
    stop_policy: StopPolicy = attrs.field(default=StopPolicy.NONE, converter=to_stop_policy)
    """``spec.stopPolicy``: ``None``, ``Hold`` or ``HoldAndDrain`` (API-19, SC-ST-4)."""
    fair_weight: float = attrs.field(default=1.0, validator=_number())
    """``spec.fairSharing.weight`` (not validated by Kueue, SC-AFS-3)."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
