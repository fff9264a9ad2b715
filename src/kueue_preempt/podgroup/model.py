"""Value types of the scheduler side: nodes, pods, PodGroups, PDBs (PG-1..PG-6, PG-10).

Reading guide: :class:`Node` and :class:`Pod` are the cluster; :class:`PodGroup` and
:class:`CompositePodGroup` are the group hierarchy that decides a running pod's priority and
preemption unit (PG-7, PG-8); :class:`PodDisruptionBudget` with its :class:`LabelSelector` is
what PDB-1 matches; :class:`PodGroupPreemptor` is the pending group that asks for room.

Every class is a frozen, slotted ``attrs`` class, so an object that exists is valid and no
algorithm can change a caller's object. Quantities are kept as given (``"500m"``) and parsed
exactly once into integer amounts (PG-1: milli-CPU, bytes, counts) in a derived field, whose
error names the object (``Pod 'ns/p1'``) and the field (``requests['cpu']``). Start times are
integer nanoseconds since the Unix epoch, because kube-scheduler compares them at nanosecond
resolution and Python's ``datetime`` stops at microseconds.
"""

from __future__ import annotations

import enum
import re
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

import attrs

from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.errors import DuplicateName, InvalidModel, InvalidQuantity
from kueue_preempt._util.checks import model_iterable, model_str_map
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model.quantity import request_amount
# The selector types are the model's; re-exported here for callers of earlier releases.
from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement

__all__ = [
    "INT32_MIN",
    "INT32_MAX",
    "PodPreemptionPolicy",
    "DisruptionMode",
    "Node",
    "Pod",
    "PodGroup",
    "CompositePodGroup",
    "PodDisruptionBudget",
    "PodGroupPreemptor",
    "parse_timestamp_ns",
    "LabelSelectorRequirement",
    "LabelSelector",
]


_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class PodPreemptionPolicy(str, enum.Enum):
    """``preemptionPolicy`` of a pod, PodGroup or CompositePodGroup (PG-3, PG-4).

    Not to be confused with Kueue's ClusterQueue :class:`kueue_preempt.PreemptionPolicy`:
    ``Never`` here means "does not preempt others" (NODE-1, PG-21).
    """

    PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
    NEVER = "Never"

    def __str__(self) -> str:
        return self.value


class DisruptionMode(str, enum.Enum):
    """A group's ``disruptionMode`` (PG-4). The KEP calls them ``Pod`` and ``PodGroup``."""

    SINGLE = "Single"
    """Members are preempted one by one (KEP: ``Pod``). The default."""
    ALL = "All"
    """The group can only be disrupted as a whole (KEP: ``PodGroup``)."""

    def __str__(self) -> str:
        return self.value


_KEP_MODE_NAMES = {"Pod": DisruptionMode.SINGLE, "PodGroup": DisruptionMode.ALL}


# --------------------------------------------------------------------------- converters


def _disruption_mode(value: DisruptionMode | str | None) -> DisruptionMode:
    if value is None or value == "":
        return DisruptionMode.SINGLE  # PG-4: absent = Single
    if isinstance(value, str) and value in _KEP_MODE_NAMES:
        return _KEP_MODE_NAMES[value]
    try:
        return DisruptionMode(value)
    except ValueError:
        raise InvalidModel("PodGroup", "disruption_mode", f"unknown value {value!r} (Single or All)") from None


def _preemption_policy(value: PodPreemptionPolicy | str | None) -> PodPreemptionPolicy:
    if value is None or value == "":
        return PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY  # PG-3: absent = PreemptLowerPriority
    try:
        return PodPreemptionPolicy(value)
    except ValueError:
        raise InvalidModel(
            "preemption policy", "preemption_policy", f"unknown value {value!r} (PreemptLowerPriority or Never)"
        ) from None


def _priority(value: int | None) -> int:
    return 0 if value is None else value  # PG-3/PG-4: absent = 0


def _optional_name(value: str | None) -> str | None:
    # "" and None both mean "unset"; any other non-str is refused by _check_fields, which
    # knows the object's kind and name.
    return value if value or not isinstance(value, str) else None


def _str_map(value: Mapping[str, str] | None) -> FrozenMap[str, str]:
    if value is None or type(value) is dict or type(value) is FrozenMap or isinstance(value, Mapping):
        return frozen_map(value)
    return value  # refused by _check_fields, which names the object


def _quantities(value: Mapping[str, str | int] | None) -> FrozenMap[str, str | int]:
    if value is None or type(value) is dict or type(value) is FrozenMap or isinstance(value, Mapping):
        return frozen_map(value)
    return value  # refused by _check_fields, which names the object


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return model_iterable(value, str, "PodGroup", "topology_keys")


def _string_set(value: Iterable[str]) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset((value,))
    return frozenset(model_iterable(value, str, "PodDisruptionBudget", "disrupted_pods"))


def _check_fields(
    kind: str,
    inst: Any,
    strings: tuple[str, ...],
    optional: tuple[str, ...] = (),
    flags: tuple[str, ...] = (),
    maps: tuple[str, ...] = (),
) -> None:
    """Field types checked once per object, in the default that already runs: a list as a
    namespace or a float as a node name would otherwise fail far away as ``unhashable type``.
    ``maps`` are mappings (their quantities are checked by :func:`_amounts`); ``labels`` must
    map str to str. Exact-type tests first: this runs for every pod of an input."""
    for field in maps:
        value = getattr(inst, field)
        if type(value) is not FrozenMap:
            _refuse(kind, inst, field, value, "a mapping")
    labels = getattr(inst, "labels", None)
    if labels:
        for key, value in labels.items():
            if type(key) is not str or type(value) is not str:
                model_str_map(labels, _who(kind, inst), "labels")  # names the bad entry
    for field in strings:
        value = getattr(inst, field)
        if type(value) is not str:
            _refuse(kind, inst, field, value, "a str")
    for field in optional:
        value = getattr(inst, field)
        if value is not None and type(value) is not str:
            _refuse(kind, inst, field, value, "a str or None")
    for field in flags:
        value = getattr(inst, field)
        if value is not True and value is not False:
            _refuse(kind, inst, field, value, "a bool")


def _refuse(kind: str, inst: Any, field: str, value: object, expected: str) -> None:
    if isinstance(value, str) and expected.startswith("a str"):  # a str subclass: accepted, as everywhere in the model
        return
    raise InvalidModel(_who(kind, inst), field, f"expected {expected}, got {type(value).__name__}")


def _who(kind: str, inst: Any) -> str:
    return _describe(kind, inst) if isinstance(getattr(inst, "name", None), str) else kind


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)


def parse_timestamp_ns(value: str, *, where: str = "time") -> int:
    """Parse an RFC 3339 timestamp to integer nanoseconds since the Unix epoch (exact).

    ``"1970-01-01T00:00:00.000000004Z"`` is 4. Up to nine fraction digits are kept, so
    timestamps that differ only below a microsecond still order correctly (SCORE-3, crit. 5).
    """
    m = _RFC3339.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise InvalidModel(where, "time", f"{value!r} is not an RFC 3339 timestamp")
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    try:
        whole = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError as exc:
        raise InvalidModel(where, "time", f"{value!r}: {exc}") from None
    seconds = (whole - _EPOCH).days * 86400 + (whole - _EPOCH).seconds
    if not m.group(8):
        offset = (int(m.group(10)) * 60 + int(m.group(11))) * 60
        seconds -= offset if m.group(9) == "+" else -offset
    return seconds * 10**9 + int((m.group(7) or "").ljust(9, "0"))


def _start_time(value: int | str | datetime | None) -> int | None:
    """Start time as integer nanoseconds since the epoch; ``None`` = not started (PG-9)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidModel("Pod", "start_time", f"{value!r} is not a time")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return parse_timestamp_ns(value, where="Pod start_time")
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        delta = aware - _EPOCH
        return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    raise InvalidModel("Pod", "start_time", f"{value!r} is neither nanoseconds, a datetime nor RFC 3339")


# --------------------------------------------------------------------------- validators


def _int32(kind: str) -> _Validator:
    def check(inst: Any, attr: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not INT32_MIN <= value <= INT32_MAX:
            raise InvalidModel(_describe(kind, inst), attr.name, f"{value!r} is not an int32")

    return check


def _describe(kind: str, inst: Any) -> str:
    """``Pod 'ns/name'`` (or ``Pod 'name'`` in the empty namespace), for error messages."""
    namespace = getattr(inst, "namespace", "")
    name = getattr(inst, "name", "")
    return f"{kind} {(f'{namespace}/{name}' if namespace else name)!r}"


def _amounts(owner: str, field: str, quantities: Mapping[str, str | int]) -> FrozenMap[str, int]:
    """Exact integer amounts of ``quantities`` (PG-1); errors name ``owner`` and the field."""
    out: dict[str, int] = {}
    for resource, quantity in quantities.items():
        where = f"{owner} {field}[{resource!r}]"
        if not isinstance(resource, str) or not resource:
            raise InvalidModel(owner, field, f"resource name {resource!r} must be a non-empty string")
        if isinstance(quantity, bool) or not isinstance(quantity, (str, int)):
            raise InvalidQuantity(quantity, "must be a quantity string or an int", where=where)
        amount = request_amount(quantity, resource, where=where)
        if amount < 0:
            raise InvalidModel(owner, f"{field}[{resource!r}]", f"must not be negative, got {quantity!r}")
        out[resource] = amount
    return FrozenMap(out)


def _non_empty_name(kind: str, inst: Any) -> None:
    if not isinstance(inst.name, str) or not inst.name:
        raise InvalidModel(kind, "name", "must be a non-empty string")


# --------------------------------------------------------------------------- nodes and pods


@attrs.frozen
class Node:
    """A node (PG-2). ``allocatable["pods"]`` is its maximum pod count (FIT-1 (a)).

    ``allocatable`` keeps the quantities as given; :attr:`amounts` holds them as exact
    integers (milli-CPU for ``cpu``). An absent resource is 0 of that resource.
    """

    name: str
    allocatable: FrozenMap[str, str | int] = attrs.field(factory=FrozenMap, converter=_quantities)
    labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_str_map)
    amounts: FrozenMap[str, int] = attrs.field(init=False, eq=False, repr=False)

    @amounts.default
    def _allocatable_amounts(self) -> FrozenMap[str, int]:
        _non_empty_name("Node", self)
        _check_fields("Node", self, (), maps=("allocatable", "labels"))
        return _amounts(f"Node {self.name!r}", "allocatable", self.allocatable)


@attrs.frozen
class Pod:
    """A pod, running (``node_name`` set) or pending (PG-3).

    ``priority`` is the pod's own priority; preemption uses the *effective* priority of its
    group hierarchy instead (PG-7). ``disruption_target`` is the condition
    ``DisruptionTarget=True`` with reason ``PreemptionByScheduler``; together with
    ``terminating`` it means "already being evicted by the scheduler" (NODE-2, PG-20).
    ``start_time`` is nanoseconds since the epoch (also accepts a datetime or an RFC 3339
    string); ``None`` = not started (PG-9).
    """

    name: str
    namespace: str = ""
    uid: str = ""
    priority: int = attrs.field(default=0, converter=_priority, validator=_int32("Pod"))
    requests: FrozenMap[str, str | int] = attrs.field(factory=FrozenMap, converter=_quantities)
    node_name: str | None = attrs.field(default=None, converter=_optional_name)
    start_time: int | None = attrs.field(default=None, converter=_start_time)
    pod_group: str | None = attrs.field(default=None, converter=_optional_name)
    """Name of the PodGroup (same namespace) this pod belongs to, if any."""
    labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_str_map)
    terminating: bool = False
    disruption_target: bool = False
    nominated_node_name: str | None = attrs.field(default=None, converter=_optional_name)
    preemption_policy: PodPreemptionPolicy = attrs.field(
        default=PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY, converter=_preemption_policy
    )
    amounts: FrozenMap[str, int] = attrs.field(init=False, eq=False, repr=False)
    """``requests`` as exact integer amounts (PG-1)."""
    request_items: tuple[tuple[str, int], ...] = attrs.field(init=False, eq=False, repr=False)
    """The non-zero amounts as ``(resource, amount)`` pairs sorted by resource: what FIT-1 (b)
    checks, precomputed because fit checks are the hot loop of every placement."""

    @amounts.default
    def _request_amounts(self) -> FrozenMap[str, int]:
        _non_empty_name("Pod", self)
        _check_fields(
            "Pod",
            self,
            ("namespace", "uid"),
            ("node_name", "pod_group", "nominated_node_name"),
            ("terminating", "disruption_target"),
            ("requests", "labels"),
        )
        return _amounts(_describe("Pod", self), "requests", self.requests)

    @request_items.default
    def _request_items(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((r, a) for r, a in self.amounts.items() if a))

    @property
    def key(self) -> tuple[str, str]:
        """``(namespace, name)``: a pod's identity inside a cluster."""
        return (self.namespace, self.name)

    @property
    def preempted_by_scheduler(self) -> bool:
        """Terminating because the scheduler preempted it (NODE-2 (b), PG-20)."""
        return self.terminating and self.disruption_target


# --------------------------------------------------------------------------- groups


def _min_count(inst: Any, attr: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise InvalidModel(_describe("PodGroup", inst), attr.name, f"gang minCount must be an int >= 1, got {value!r}")


@attrs.frozen
class PodGroup:
    """One replica of a gang (PG-4).

    ``priority`` replaces its pods' own priorities everywhere in preemption (PG-7).
    ``gang_min_count`` is ``schedulingPolicy.gang.minCount``; ``None`` means a ``Basic`` group
    (or no policy), which needs one placed pod (FIT-2). ``parent`` names a
    :class:`CompositePodGroup` in the same namespace (PG-6). ``topology_keys`` are the keys of
    ``schedulingConstraints.topology``; such groups are refused for preemption (PG-31).

    ``disruption_mode="All"`` without a gang is accepted here although the API refuses it
    (PG-VAL-1): kube-scheduler's unit tests build such groups, and the library must run them;
    :mod:`kueue_preempt.io` applies the API rule when reading manifests.
    """

    name: str
    namespace: str = ""
    uid: str = ""
    priority: int = attrs.field(default=0, converter=_priority, validator=_int32("PodGroup"))
    disruption_mode: DisruptionMode = attrs.field(default=DisruptionMode.SINGLE, converter=_disruption_mode)
    gang_min_count: int | None = attrs.field(default=None, validator=_min_count)
    preemption_policy: PodPreemptionPolicy = attrs.field(
        default=PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY, converter=_preemption_policy
    )
    parent: str | None = attrs.field(default=None, converter=_optional_name)
    topology_keys: tuple[str, ...] = attrs.field(default=(), converter=_strings)

    def __attrs_post_init__(self) -> None:
        _non_empty_name("PodGroup", self)
        _check_fields("PodGroup", self, ("namespace", "uid"), ("parent",))

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)


@attrs.frozen
class CompositePodGroup:
    """A node of the optional group tree above PodGroups (PG-6)."""

    name: str
    namespace: str = ""
    uid: str = ""
    priority: int = attrs.field(default=0, converter=_priority, validator=_int32("CompositePodGroup"))
    disruption_mode: DisruptionMode = attrs.field(default=DisruptionMode.SINGLE, converter=_disruption_mode)
    preemption_policy: PodPreemptionPolicy = attrs.field(
        default=PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY, converter=_preemption_policy
    )
    parent: str | None = attrs.field(default=None, converter=_optional_name)

    def __attrs_post_init__(self) -> None:
        _non_empty_name("CompositePodGroup", self)
        _check_fields("CompositePodGroup", self, ("namespace", "uid"), ("parent",))

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)


# --------------------------------------------------------------------------- PDBs


def _non_negative_int(inst: Any, attr: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidModel(_describe("PodDisruptionBudget", inst), attr.name, f"must be an int >= 0, got {value!r}")


@attrs.frozen
class PodDisruptionBudget:
    """A PDB as preemption sees it (PG-5): only the precomputed ``disruptions_allowed``.

    ``selector=None`` (absent) matches nothing (PDB-1). ``disrupted_pods`` holds the names
    of pods (of this namespace) whose eviction the API server already processed (PDB-2).
    """

    name: str
    namespace: str = ""
    selector: LabelSelector | None = None
    disruptions_allowed: int = attrs.field(default=0, validator=_non_negative_int)
    disrupted_pods: frozenset[str] = attrs.field(default=frozenset(), converter=_string_set)

    def __attrs_post_init__(self) -> None:
        _check_fields("PodDisruptionBudget", self, ("name", "namespace"))
        if self.selector is not None and not isinstance(self.selector, LabelSelector):
            raise InvalidModel(_who("PodDisruptionBudget", self), "selector", f"expected LabelSelector or None, got {type(self.selector).__name__}")


# --------------------------------------------------------------------------- the preemptor


def _pods(value: Iterable[Pod]) -> tuple[Pod, ...]:
    return model_iterable(value, Pod, "PodGroupPreemptor", "pods")


@attrs.frozen
class PodGroupPreemptor:
    """A pending PodGroup (or CompositePodGroup) and its unscheduled member pods (PG-10).

    ``pods`` are the members still to be placed, in placement order (FIT-3); members that
    already run are part of the cluster, not of the preemptor (FIT-4). The preemptor's
    priority is its group hierarchy's (PG-10), never its pods'.
    """

    group: PodGroup | CompositePodGroup
    pods: tuple[Pod, ...] = attrs.field(converter=_pods)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.group, (PodGroup, CompositePodGroup)):
            raise InvalidModel("PodGroupPreemptor", "group", f"expected PodGroup or CompositePodGroup, got {type(self.group).__name__}")
        owner = _describe("PodGroupPreemptor", self.group)
        if not self.pods:
            raise InvalidModel(owner, "pods", "needs at least one unscheduled pod")
        seen: set[tuple[str, str]] = set()
        for pod in self.pods:
            if not isinstance(pod, Pod):
                raise InvalidModel(owner, "pods", f"{pod!r} is not a Pod")
            if pod.node_name is not None:
                raise InvalidModel(
                    owner,
                    "pods",
                    f"pod {pod.name!r} is already bound to {pod.node_name!r}; "
                    "only unscheduled members are placed (FIT-4)",
                )
            if pod.key in seen:
                raise DuplicateName("preemptor pod", f"{pod.namespace}/{pod.name}")
            seen.add(pod.key)

    @property
    def min_count(self) -> int:
        """Pods that must be placed for success (FIT-2): the gang's ``minCount``, else 1."""
        group = self.group
        if isinstance(group, PodGroup) and group.gang_min_count is not None:
            return group.gang_min_count
        return 1
