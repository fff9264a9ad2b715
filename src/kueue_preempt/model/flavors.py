"""What Kueue's flavor assigner reads beyond quotas: flavors, resource groups, pod-set specs.

Immutable ``attrs`` value types for the inputs of :func:`kueue_preempt.assignment.assign_flavors`
(kueue-flavor-assignment.md, ``FAS-*``):

* :class:`ResourceFlavor` — ``nodeLabels``, ``nodeTaints``, ``tolerations``, ``topologyName``
  (``FAS-5``, ``FAS-5b``, ``FAS-15``);
* :class:`ResourceGroup` / :class:`FlavorQuotas` — a ClusterQueue's resource groups, flavors in
  preference order with their quotas (``FAS-4``); :attr:`ClusterQueue.resource_groups` holds them;
* :class:`FlavorFungibility` — ``whenCanBorrow`` / ``whenCanPreempt`` / ``preference`` in every
  spelling (``FAS-8``);
* :class:`PodSetSpec` — one ``spec.podSets`` entry of a pending workload: per-pod requests (already
  the Kubernetes effective requests of ``FAS-1``), ``count``/``minCount``, node selector, required
  node affinity, tolerations and the pod-set group (``FAS-18``). :attr:`Workload.spec_pod_sets`
  holds them, :attr:`Workload.reclaimable_pods` the ``status.reclaimablePods`` (``FAS-1a``).

They live in their own module (not ``model``) because only the assigner reads them; the
preemption algorithms keep reading :attr:`ClusterQueue.quotas`, which the ClusterQueue derives
from its resource groups when only those are given.
"""

from __future__ import annotations

import enum
from functools import cached_property
from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.checks import (
    bool_field,
    model_int,
    model_iterable,
    model_str,
    model_str_iterable,
    model_str_map,
    optional_str_field,
    str_field,
)
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.quantity import INT32_MAX, model_amount_map
from kueue_preempt.model.resources import FlavorResource, ResourceQuota

__all__ = [
    "Taint",
    "Toleration",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "ResourceFlavor",
    "FlavorQuotas",
    "ResourceGroup",
    "FungibilityPolicy",
    "FlavorPreference",
    "FlavorFungibility",
    "PodSetSpec",
]


# Every converter and validator below checks types once, at construction, so the assigner's
# loops read the fields unchecked (bad input fails here, naming the field, not deep in a loop).


@attrs.frozen
class Taint:
    """A node taint a ResourceFlavor declares (``nodeTaints``, FAS-5)."""

    key: str = attrs.field(validator=str_field("Taint", empty=False))
    value: str = attrs.field(default="", validator=str_field("Taint"))
    effect: str = attrs.field(default="", validator=str_field("Taint"))


@attrs.frozen
class Toleration:
    """A pod (or flavor) toleration; ``operator`` ``""`` means ``Equal`` (FAS-5b)."""

    key: str = attrs.field(default="", validator=str_field("Toleration"))
    operator: str = attrs.field(default="", validator=str_field("Toleration"))
    value: str = attrs.field(default="", validator=str_field("Toleration"))
    effect: str = attrs.field(default="", validator=str_field("Toleration"))


def _values(value: Iterable[str]) -> tuple[str, ...]:
    return model_str_iterable(value, "NodeSelectorRequirement", "values")


@attrs.frozen
class NodeSelectorRequirement:
    """One ``matchExpressions`` entry of a required node-affinity term (FAS-5b)."""

    key: str = attrs.field(validator=str_field("NodeSelectorRequirement", empty=False))
    operator: str = attrs.field(validator=str_field("NodeSelectorRequirement", empty=False))
    values: tuple[str, ...] = attrs.field(default=(), converter=_values)


def _match_expressions(value: Iterable[NodeSelectorRequirement]) -> tuple[NodeSelectorRequirement, ...]:
    return model_iterable(value, NodeSelectorRequirement, "NodeSelectorTerm", "match_expressions")


def _match_fields(value: Iterable[NodeSelectorRequirement]) -> tuple[NodeSelectorRequirement, ...]:
    return model_iterable(value, NodeSelectorRequirement, "NodeSelectorTerm", "match_fields")


@attrs.frozen
class NodeSelectorTerm:
    """A required node-affinity term; terms are ORed, expressions ANDed (FAS-5b).

    ``match_fields`` are kept for completeness but never read: Kueue drops them.
    """

    match_expressions: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_match_expressions)
    match_fields: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_match_fields)


def _node_labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "ResourceFlavor", "node_labels"))


def _node_taints(value: Iterable[Taint]) -> tuple[Taint, ...]:
    return model_iterable(value, Taint, "ResourceFlavor", "node_taints")


def _flavor_tolerations(value: Iterable[Toleration]) -> tuple[Toleration, ...]:
    return model_iterable(value, Toleration, "ResourceFlavor", "tolerations")


@attrs.frozen
class ResourceFlavor:
    """A Kueue ResourceFlavor as the assigner reads it (FAS-5, FAS-15)."""

    name: str = attrs.field(validator=str_field("ResourceFlavor", empty=False))
    node_labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_node_labels)
    node_taints: tuple[Taint, ...] = attrs.field(default=(), converter=_node_taints)
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_flavor_tolerations)
    topology_name: str | None = attrs.field(default=None, validator=optional_str_field("ResourceFlavor"))


def _resource_quotas(value: Mapping[str, ResourceQuota]) -> FrozenMap[str, ResourceQuota]:
    if not isinstance(value, Mapping):
        raise InvalidModel(
            "FlavorQuotas", "resources", f"expected a mapping of resource to ResourceQuota, got {type(value).__name__}"
        )
    for resource, q in value.items():
        model_str(resource, "FlavorQuotas", "resources", empty=False)
        if not isinstance(q, ResourceQuota):
            raise InvalidModel(
                "FlavorQuotas", f"resources[{resource!r}]", f"expected ResourceQuota, got {type(q).__name__}"
            )
    return frozen_map(value)


@attrs.frozen
class FlavorQuotas:
    """One flavor of a resource group with its quota per resource (``flavors[i]``)."""

    name: str = attrs.field(validator=str_field("FlavorQuotas", empty=False))
    resources: FrozenMap[str, ResourceQuota] = attrs.field(factory=FrozenMap, converter=_resource_quotas)


def _flavor_quotas(value: Iterable[FlavorQuotas]) -> tuple[FlavorQuotas, ...]:
    return model_iterable(value, FlavorQuotas, "ResourceGroup", "flavors")


def _covered_resources(value: Iterable[str]) -> tuple[str, ...]:
    return model_str_iterable(value, "ResourceGroup", "covered_resources")


@attrs.frozen
class ResourceGroup:
    """``spec.resourceGroups[i]``: resources that share one flavor choice, flavors in order (FAS-4)."""

    covered_resources: tuple[str, ...] = attrs.field(converter=_covered_resources)
    flavors: tuple[FlavorQuotas, ...] = attrs.field(default=(), converter=_flavor_quotas)

    # Computed once per (immutable) group: every flavor scan reads it (FAS-10a).
    @cached_property
    def flavor_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.flavors)


def quotas_of_groups(groups: Iterable[ResourceGroup]) -> dict[FlavorResource, ResourceQuota]:
    """The ``quotas`` map (DM-4) a ClusterQueue's resource groups define.

    A flavor/resource listed twice (a ClusterQueue the webhook rejects, FAS-25) keeps the
    last entry, as Kueue's cache does when it walks the groups in order.
    """
    out: dict[FlavorResource, ResourceQuota] = {}
    for group in groups:
        for fq in group.flavors:
            for resource, q in fq.resources.items():
                out[FlavorResource(fq.name, resource)] = q
    return out


def quota_key_components(keys: Iterable[FlavorResource]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Resource groups ``(resources, flavors)`` recovered from quota keys, in first-seen order.

    Kueue requires every flavor of a group to cover all of the group's resources and no
    resource or flavor to appear in two groups, so the groups are exactly the connected
    components of the flavor-resource graph.
    """
    frs = list(keys)
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for fr in frs:
        f, r = ("f", fr.flavor), ("r", fr.resource)
        parent.setdefault(f, f)
        parent.setdefault(r, r)
        rf, rr = find(f), find(r)
        if rf != rr:
            parent[rr] = rf
    order: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for fr in frs:
        resources, flavors = order.setdefault(find(("f", fr.flavor)), ([], []))
        if fr.resource not in resources:
            resources.append(fr.resource)
        if fr.flavor not in flavors:
            flavors.append(fr.flavor)
    return [(tuple(r), tuple(f)) for r, f in order.values()]


def groups_of_quota_keys(quotas: Mapping[FlavorResource, ResourceQuota]) -> tuple[ResourceGroup, ...]:
    """Resource groups recovered from a bare ``quotas`` map (:func:`quota_key_components`).

    Used when a ClusterQueue was built from quotas only (the preemption-only API): its flavor
    order is then the map's insertion order.
    """
    groups = []
    for resources, flavors in quota_key_components(quotas):
        fqs = [
            FlavorQuotas(f, {r: quotas[FlavorResource(f, r)] for r in resources if FlavorResource(f, r) in quotas})
            for f in flavors
        ]
        groups.append(ResourceGroup(resources, fqs))
    return tuple(groups)


class FungibilityPolicy(str, enum.Enum):
    """``whenCanBorrow`` / ``whenCanPreempt`` values (FAS-8).

    The older spellings ``Borrow`` (whenCanBorrow) and ``Preempt`` (whenCanPreempt) both mean
    ``MayStopSearch``; :class:`FlavorFungibility` accepts them and stores the canonical value.
    """

    MAY_STOP_SEARCH = "MayStopSearch"
    TRY_NEXT_FLAVOR = "TryNextFlavor"

    def __str__(self) -> str:
        return self.value


class FlavorPreference(str, enum.Enum):
    """``flavorFungibility.preference`` (FAS-8, FAS-9)."""

    BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
    PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"

    def __str__(self) -> str:
        return self.value


def _fungibility(value: FungibilityPolicy | str | None, field: str, old: str, default: FungibilityPolicy) -> FungibilityPolicy:
    # Absent or empty = Kueue's default (its cache defaults the unset field, FAS-8).
    if value is None or value == "":
        return default
    if value == old:
        return FungibilityPolicy.MAY_STOP_SEARCH
    try:
        return FungibilityPolicy(value)
    except ValueError:
        allowed = f"MayStopSearch, TryNextFlavor, {old}"
        raise InvalidModel("FlavorFungibility", field, f"{value!r} not in {{{allowed}}} (FAS-8)") from None


def _when_can_borrow(value: FungibilityPolicy | str | None) -> FungibilityPolicy:
    return _fungibility(value, "when_can_borrow", "Borrow", FungibilityPolicy.MAY_STOP_SEARCH)


def _when_can_preempt(value: FungibilityPolicy | str | None) -> FungibilityPolicy:
    return _fungibility(value, "when_can_preempt", "Preempt", FungibilityPolicy.TRY_NEXT_FLAVOR)


def _preference(value: FlavorPreference | str | None) -> FlavorPreference | None:
    if value is None or value == "":
        return None
    try:
        return FlavorPreference(value)
    except ValueError:
        raise InvalidModel(
            "FlavorFungibility", "preference", f"{value!r} not in {{BorrowingOverPreemption, PreemptionOverBorrowing}}"
        ) from None


@attrs.frozen
class FlavorFungibility:
    """A ClusterQueue's ``flavorFungibility`` (FAS-8): when the flavor scan may stop early.

    Defaults are Kueue's: ``whenCanBorrow=MayStopSearch``, ``whenCanPreempt=TryNextFlavor``,
    no preference (which behaves as ``BorrowingOverPreemption``). ``preference`` is allowed only
    when both fields are ``TryNextFlavor`` (the API's validation, FAS-8).
    """

    when_can_borrow: FungibilityPolicy = attrs.field(default=FungibilityPolicy.MAY_STOP_SEARCH, converter=_when_can_borrow)
    when_can_preempt: FungibilityPolicy = attrs.field(
        default=FungibilityPolicy.TRY_NEXT_FLAVOR, converter=_when_can_preempt
    )
    preference: FlavorPreference | None = attrs.field(default=None, converter=_preference)

    def __attrs_post_init__(self) -> None:
        if self.preference is not None and (
            self.when_can_borrow is not FungibilityPolicy.TRY_NEXT_FLAVOR
            or self.when_can_preempt is not FungibilityPolicy.TRY_NEXT_FLAVOR
        ):
            raise InvalidModel(
                "FlavorFungibility",
                "preference",
                "requires whenCanBorrow and whenCanPreempt to be TryNextFlavor (FAS-8)",
            )

    @property
    def effective_preference(self) -> FlavorPreference:
        """The preference FAS-9 applies: unset behaves as ``BorrowingOverPreemption``."""
        return self.preference or FlavorPreference.BORROWING_OVER_PREEMPTION


def _terms(value: Iterable[NodeSelectorTerm] | None) -> tuple[NodeSelectorTerm, ...] | None:
    if value is None:
        return None
    return model_iterable(value, NodeSelectorTerm, "PodSetSpec", "required_node_affinity")


def _per_pod(value: Mapping[str, int | str]) -> FrozenMap[str, int]:
    # Q-1 input rule (a string is a quantity of that resource); FAS-1: negative per-pod values
    # become 0, as Kueue clamps them, so a negative amount is accepted here and clamped.
    out = model_amount_map(value, "PodSetSpec", "requests", allow_negative=True)
    return frozen_map({r: max(0, v) for r, v in out.items()})


def _pod_set_tolerations(value: Iterable[Toleration]) -> tuple[Toleration, ...]:
    return model_iterable(value, Toleration, "PodSetSpec", "tolerations")


def _pod_set_node_selector(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "PodSetSpec", "node_selector"))


# ``spec.podSets[].count`` / ``minCount`` are int32 in Kueue's API; the bound also keeps
# ``count * per-pod request`` products small enough for the saturating arithmetic.


def _pod_count(inst: PodSetSpec, attr: attrs.Attribute[int], value: int) -> None:
    model_int(value, f"PodSetSpec {inst.name!r}", attr.name, minimum=0, maximum=INT32_MAX)


def _optional_count(inst: PodSetSpec, attr: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None:
        model_int(value, f"PodSetSpec {inst.name!r}", attr.name, minimum=0, maximum=INT32_MAX)


@attrs.frozen
class PodSetSpec:
    """One ``spec.podSets`` entry of a (pending) workload, as the assigner reads it (FAS-1, FAS-18).

    ``requests`` are **per pod**, in amounts (Q-1: cpu in milli-units), already the effective
    requests Kubernetes computes (``FAS-1``: containers, init containers, overhead, pod-level
    resources); negative values become 0. ``required_node_affinity`` is ``None`` when the pod
    has no required node affinity. ``pod_set_group`` is ``topologyRequest.podSetGroupName``.
    ``topology_request`` only records that the pod set asks for topology-aware scheduling,
    which the library does not model (FAS-15).
    """

    name: str = attrs.field(validator=str_field("PodSetSpec", empty=False))
    count: int = attrs.field(default=1, validator=_pod_count)
    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_per_pod)
    """Per-pod amounts; a string value is parsed as a quantity of that resource (Q-1)."""
    min_count: int | None = attrs.field(default=None, validator=_optional_count)
    node_selector: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_pod_set_node_selector)
    required_node_affinity: tuple[NodeSelectorTerm, ...] | None = attrs.field(default=None, converter=_terms)
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_pod_set_tolerations)
    pod_set_group: str | None = attrs.field(default=None, validator=optional_str_field("PodSetSpec"))
    topology_request: bool = attrs.field(default=False, validator=bool_field("PodSetSpec"))

    def __attrs_post_init__(self) -> None:
        if self.min_count is not None and self.min_count > self.count:
            raise InvalidModel(f"PodSetSpec {self.name!r}", "min_count", "must be <= count")
