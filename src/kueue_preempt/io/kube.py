"""Core Kubernetes manifests for the PodGroup path: Pod, Node, PriorityClass,
PodDisruptionBudget, and the scheduling API's PodGroup / CompositePodGroup (KEP-5710).

The PodGroup API is alpha and still moving (``scheduling.k8s.io`` ``v1alpha2`` ... ``v1beta1``);
field names follow the kube-scheduler test cases vendored in ``tests/conformance/kube``:

* PodGroup ``spec``: ``priority`` (else ``priorityClassName`` resolved through the dump's
  PriorityClasses), ``disruptionMode`` (see :func:`disruption_mode`: 1.36's string
  ``Pod``/``PodGroup``, the API names ``Single``/``All``, or 1.37's one-member object
  ``{single: {}}``/``{all: {}}``), ``schedulingPolicy``
  (``basic: {}`` or ``gang: {minCount}``), ``preemptionPolicy``, ``parentCompositePodGroup``,
  ``schedulingConstraints.topology[].key``; CompositePodGroup the same without the policy
  and constraints;
* a Pod names its PodGroup (same namespace) in ``spec.schedulingGroup.podGroupName``.

Two rules of the KEP's API are applied here, at the boundary, and not in the model (PG-VAL-1,
PG-DEF-1): the API server rejects ``disruptionMode: PodGroup`` (``All``) on a group that is not
gang-scheduled, so the reader does too, while :class:`~kueue_preempt.podgroup.PodGroup` still
accepts it because kube-scheduler's unit tests build such objects directly; and a group
without ``priorityClassName`` takes the ``globalDefault`` PriorityClass, as pods do (resolved
in :func:`~kueue_preempt.io.dump_from_objects`, which sees every PriorityClass).

Pods in phase ``Succeeded`` or ``Failed`` hold no node resources and are left out (counted in
:attr:`~kueue_preempt.io.ClusterDump.terminal_pods`); a pod with ``metadata.deletionTimestamp``
is terminating (PG-11).
"""

from __future__ import annotations

import attrs

from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement
from kueue_preempt.podgroup import (
    CompositePodGroup,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
)
from kueue_preempt.model.quantity import request_amount
from kueue_preempt.io._fields import Field, Meta, ParseContext, describe, open_object
from kueue_preempt.io.text import quantity_text
from kueue_preempt.io.kueue import pod_requests
from kueue_preempt.io.objects import PriorityClass
from kueue_preempt.io.read import RawObject

__all__ = [
    "SCHEDULING_GROUP",
    "POD_GROUP_VERSIONS",
    "KubePod",
    "parse_pod",
    "parse_node",
    "parse_priority_class",
    "parse_pod_disruption_budget",
    "parse_pod_group",
    "parse_composite_pod_group",
    "disruption_mode",
]

SCHEDULING_GROUP = "scheduling.k8s.io"
POD_GROUP_VERSIONS = ("v1alpha1", "v1alpha2", "v1alpha3", "v1beta1")
_POD_POLICIES = ("PreemptLowerPriority", "Never")
_DISRUPTION_MODES = ("Single", "All", "Pod", "PodGroup")
# The string spellings (the API's names and 1.36's KEP names) and 1.37's object members, by mode.
_MODE_OF_STRING = {"Single": "Single", "Pod": "Single", "All": "All", "PodGroup": "All"}
_MODE_OF_MEMBER = {"single": "Single", "all": "All"}
_TERMINAL_PHASES = ("Succeeded", "Failed")


@attrs.frozen
class KubePod:
    """A loaded Pod before its priority is resolved: the model
    :class:`~kueue_preempt.podgroup.Pod` plus ``spec.priorityClassName``, whether
    ``spec.priority`` was set, and whether the pod is finished (phase Succeeded/Failed)."""

    pod: Pod
    priority_class: str
    priority_set: bool
    terminal: bool

    @property
    def key(self) -> str:
        return f"{self.pod.namespace}/{self.pod.name}"


def _quantities(field: Field) -> dict[str, str]:
    """A quantity map re-rendered as canonical strings (the podgroup model parses them)."""
    return {r: quantity_text(request_amount(q, r), r) for r, q in field.quantity_map().items()}


def parse_node(raw: RawObject, version: str, load: ParseContext | None = None) -> Node:
    """A Node: ``status.allocatable`` (``pods`` is the pod capacity) and labels (PG-2)."""
    meta = open_object(raw.source, raw.index, raw.data, "Node", namespaced=False, load=load)
    allocatable = _quantities(meta.root.get("status").get("allocatable"))
    labels = meta.metadata.get("labels").string_map()
    return meta.build("status.allocatable", lambda: Node(name=meta.name, allocatable=allocatable, labels=labels))


def parse_pod(raw: RawObject, version: str, load: ParseContext | None = None) -> KubePod:
    """A Pod (PG-3): requests from its containers, node, priority, group, start time, state."""
    meta = open_object(raw.source, raw.index, raw.data, "Pod", namespaced=True, load=load)
    md = meta.metadata
    spec = meta.root.get("spec")
    status = meta.root.get("status")
    requests = {r: quantity_text(v, r) for r, v in pod_requests(spec).items()}
    priority = spec.get("priority").integer()
    conditions = status.get("conditions").list()
    disruption = False
    for c in conditions:
        if (
            c.get("type").string() == "DisruptionTarget"
            and c.get("status").string() == "True"
            and c.get("reason").string() == "PreemptionByScheduler"
        ):
            disruption = True
    start_field = status.get("startTime")
    start_field.time()  # validates; the model keeps nanoseconds from the string itself
    start = start_field.value
    uid = md.get("uid").string()
    node_name = spec.get("nodeName").optional_string()
    group = spec.get("schedulingGroup").get("podGroupName").optional_string()
    labels = md.get("labels").string_map()
    terminating = md.get("deletionTimestamp").time() is not None
    nominated = status.get("nominatedNodeName").optional_string()
    policy = spec.get("preemptionPolicy").choice(_POD_POLICIES, "PreemptLowerPriority")
    pod = meta.build(
        "",
        lambda: Pod(
            name=meta.name,
            namespace=meta.namespace,
            uid=uid,
            priority=priority,
            requests=requests,
            node_name=node_name,
            start_time=start,
            pod_group=group,
            labels=labels,
            terminating=terminating,
            disruption_target=disruption,
            nominated_node_name=nominated,
            preemption_policy=policy,
        ),
    )
    phase = status.get("phase").string()
    return KubePod(pod, spec.get("priorityClassName").string(), priority is not None, phase in _TERMINAL_PHASES)


def parse_priority_class(raw: RawObject, version: str, load: ParseContext | None = None) -> PriorityClass:
    """A core PriorityClass: ``value``, ``preemptionPolicy``, ``globalDefault``."""
    meta = open_object(raw.source, raw.index, raw.data, "PriorityClass", namespaced=False, load=load)
    value = meta.root.get("value").integer(required=True)
    assert value is not None
    return PriorityClass(
        name=meta.name,
        value=value,
        preemption_policy=meta.root.get("preemptionPolicy").choice(_POD_POLICIES, "PreemptLowerPriority"),
        global_default=meta.root.get("globalDefault").boolean(False),
    )


def _selector(field: Field) -> LabelSelector | None:
    if not field.present:
        return None  # PDB-1: an absent selector matches nothing
    field.mapping()
    expressions = []
    for e in field.get("matchExpressions").list():
        expressions.append(
            LabelSelectorRequirement(
                key=e.get("key").string(required=True),
                operator=e.get("operator").string(required=True),
                values=[v.string() for v in e.get("values").list()],
            )
        )
    return LabelSelector(match_labels=field.get("matchLabels").string_map(), match_expressions=expressions)


def parse_pod_disruption_budget(raw: RawObject, version: str, load: ParseContext | None = None) -> PodDisruptionBudget:
    """A PodDisruptionBudget (PG-5): selector, ``status.disruptionsAllowed``, ``status.disruptedPods``."""
    meta = open_object(raw.source, raw.index, raw.data, "PodDisruptionBudget", namespaced=True, load=load)
    status = meta.root.get("status")
    allowed = status.get("disruptionsAllowed").integer(low=0)
    selector = _selector(meta.root.get("spec").get("selector"))
    disrupted = [name for name, _ in status.get("disruptedPods").items()]
    return meta.build(
        "",
        lambda: PodDisruptionBudget(
            name=meta.name,
            namespace=meta.namespace,
            selector=selector,
            disruptions_allowed=0 if allowed is None else allowed,
            disrupted_pods=disrupted,
        ),
    )


def disruption_mode(field: Field) -> tuple[str, str]:
    """A PodGroup's or CompositePodGroup's ``spec.disruptionMode`` (PG-4) as ``Single`` or
    ``All``, with the spelling the manifest used (for messages).

    Both releases' spellings are read whatever the apiVersion, as PG-4 asks: 1.36 writes a
    string (``Pod``/``PodGroup``; the API's own names ``Single``/``All`` are read too), 1.37 a
    one-member object (``{single: {}}``/``{all: {}}``). Absent (or ``null``) is ``Single``. An
    object must set exactly one known member, whose value is an empty object (or ``null``, which
    JSON decoders treat as the empty struct of a set member): ``{}``, ``{single: {}, all: {}}``,
    an unknown member or a member holding fields is refused, naming the field.
    """
    value = field.value
    if value is None:
        return "Single", "'Single'"
    if isinstance(value, str):
        mode = field.choice(_DISRUPTION_MODES, "Single")
        return _MODE_OF_STRING[mode], repr(value)
    if type(value) is not dict:
        field.fail(f"expected a string ({', '.join(_DISRUPTION_MODES)}) or an object ({{single: {{}}}} or {{all: {{}}}}), got {describe(value)}")
    members = list(field.mapping())
    unknown = [m for m in members if m not in _MODE_OF_MEMBER]
    if unknown:
        field.get(unknown[0]).fail(f"unknown member {unknown[0][:40]!r}; the object sets exactly one of single, all")
    if len(members) != 1:
        which = "neither" if not members else "both"
        field.fail(f"sets {which} of single and all; exactly one is required ({{single: {{}}}} or {{all: {{}}}})")
    member = field.get(members[0])
    if member.mapping():
        keys = sorted(member.mapping())
        shown = ", ".join(k[:40] for k in keys[:5]) + (", ..." if len(keys) > 5 else "")
        member.fail(f"must be an empty object ({{}}), got fields {shown}")
    return _MODE_OF_MEMBER[members[0]], f"{{{members[0]}: {{}}}}"


class _GroupFields:
    """The fields PodGroup and CompositePodGroup share (PG-4, PG-6)."""

    def __init__(self, meta: Meta) -> None:
        self.spec = meta.root.get("spec")
        self.uid = meta.metadata.get("uid").string()
        self.priority = self.spec.get("priority").integer()
        self.disruption_mode, self.disruption_shown = disruption_mode(self.spec.get("disruptionMode"))
        self.preemption_policy = self.spec.get("preemptionPolicy").choice(_POD_POLICIES, "PreemptLowerPriority")
        self.parent = self.spec.get("parentCompositePodGroup").optional_string()
        # The class matters only when the priority itself is unset: None = priority set,
        # "" = no class named (the global default applies, PG-DEF-1), else the class name.
        self.priority_class: str | None = (
            None if self.priority is not None else self.spec.get("priorityClassName").string()
        )


def parse_pod_group(raw: RawObject, version: str, load: ParseContext | None = None) -> tuple[PodGroup, str | None]:
    """A PodGroup (PG-4) and its priority class: ``None`` when ``spec.priority`` is set,
    else ``spec.priorityClassName`` (``""`` when unset: the global default applies, PG-DEF-1).

    Rejects ``disruptionMode`` ``All`` (KEP: ``PodGroup``) unless the scheduling policy is a
    gang (PG-VAL-1).
    """
    meta = open_object(raw.source, raw.index, raw.data, "PodGroup", namespaced=True, load=load)
    f = _GroupFields(meta)
    policy = f.spec.get("schedulingPolicy")
    min_count = None
    if policy.has("gang"):
        min_count = policy.get("gang").get("minCount").integer(low=1, required=True)
    _check_disruption_mode(f, policy, min_count is not None)
    keys = [t.get("key").string(required=True) for t in f.spec.get("schedulingConstraints").get("topology").list()]
    group = meta.build(
        "spec",
        lambda: PodGroup(
            name=meta.name,
            namespace=meta.namespace,
            uid=f.uid,
            priority=f.priority,
            disruption_mode=f.disruption_mode,
            gang_min_count=min_count,
            preemption_policy=f.preemption_policy,
            parent=f.parent,
            topology_keys=keys,
        ),
    )
    return group, f.priority_class


def _check_disruption_mode(f: _GroupFields, policy: Field, gang: bool) -> None:
    """PG-VAL-1: the KEP's API validation — a group can be disrupted as a whole only if it is
    also scheduled as a whole, so ``All`` needs ``schedulingPolicy.gang`` (a preemption unit
    is never larger than the scheduling unit). An absent policy schedules like ``basic``."""
    if f.disruption_mode != "All" or gang:
        return
    given = "basic" if policy.has("basic") else "unset (scheduled as basic)"
    f.spec.get("disruptionMode").fail(
        f"{f.disruption_shown} (the whole group is disrupted) is only allowed with "
        f"schedulingPolicy.gang; spec.schedulingPolicy is {given}"
    )


def parse_composite_pod_group(raw: RawObject, version: str, load: ParseContext | None = None) -> tuple[CompositePodGroup, str | None]:
    """A CompositePodGroup (PG-6) and its priority class, as :func:`parse_pod_group`."""
    meta = open_object(raw.source, raw.index, raw.data, "CompositePodGroup", namespaced=True, load=load)
    f = _GroupFields(meta)
    group = meta.build(
        "spec",
        lambda: CompositePodGroup(
            name=meta.name,
            namespace=meta.namespace,
            uid=f.uid,
            priority=f.priority,
            disruption_mode=f.disruption_mode,
            preemption_policy=f.preemption_policy,
            parent=f.parent,
        ),
    )
    return group, f.priority_class
