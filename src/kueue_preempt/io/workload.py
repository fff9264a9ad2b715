"""Workload manifests (``kueue.x-k8s.io/v1beta1`` and ``v1beta2``) to model objects (DM-6, DM-7).

``parse_workload`` reads metadata, spec (priority, class, queue, pod sets with their requests and
scheduling fields, ``active``) and status (admission, conditions, reclaimable pods, eviction
stats, preemption cost), applies the API server's defaults and rejects what Kueue's API rejects
(API-21..API-27), naming the field. ``pod_requests`` is Kubernetes' pod request, shared with the
Pod reader. Field tables: docs/manifests.md.
"""

from __future__ import annotations

import operator
import re
from decimal import Decimal
from fractions import Fraction

from kueue_preempt.cycle.cluster import PodTemplateResources, WorkloadStatus
from kueue_preempt.model import Condition, EvictionStat, PodSetUsage, PriorityClassRef, Workload
from kueue_preempt.model.flavors import NodeSelectorRequirement
from kueue_preempt.model.pod_requests import ContainerResources, pod_request_totals
from kueue_preempt.model.quantity import amount_add, request_amount
from kueue_preempt.io._fields import Field, ParseContext, open_object
from kueue_preempt.io.kueue_settings import MAX_POD_SETS, toleration
from kueue_preempt.io.objects import LoadedWorkload, PodSetRequests
from kueue_preempt.io.read import RawObject

__all__ = [
    "ELASTIC_ANNOTATION",
    "GATED_BY_ANNOTATION",
    "parse_workload",
    "pod_requests",
    "template_pod_set",
    "template_resources",
]

ELASTIC_ANNOTATION = "kueue.x-k8s.io/elastic-job"
GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"
_CONDITION_STATUS = ("True", "False", "Unknown")
_CLASS_SOURCES = {
    "kueue.x-k8s.io/workloadpriorityclass": ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass"),
}
_CLASS_KINDS = {("kueue.x-k8s.io", "WorkloadPriorityClass"), ("scheduling.k8s.io", "PriorityClass")}


def parse_workload(raw: RawObject, version: str, load: ParseContext | None = None) -> LoadedWorkload:
    """A Workload (DM-6): metadata, spec (priority, class, queue, pod sets, active) and status
    (admission, conditions, eviction stats, preemption cost)."""
    meta = open_object(raw.source, raw.index, raw.data, "Workload", namespaced=True, load=load)
    md = meta.metadata
    labels = md.get("labels").string_map()
    annotations = md.get("annotations").string_map()
    # The boost annotation is not validated here: with PriorityBoost off Kueue's webhook checks
    # nothing, and with it on the scheduler counts an invalid value as 0 (EP-5, EP-7); only
    # ``check`` reports it (``model.priority.validate_boost``).
    if GATED_BY_ANNOTATION in annotations:
        _admission_gated_by(md.get("annotations").get(GATED_BY_ANNOTATION), annotations[GATED_BY_ANNOTATION])
    spec = meta.root.get("spec")
    spec.mapping()
    pod_sets = _spec_pod_sets(spec.get("podSets"))
    _workload_spec_extras(spec, version)
    status = meta.root.get("status")
    conditions = _conditions(status.get("conditions"))
    by_type = {c.type: c for c in conditions}
    reserved = by_type.get("QuotaReserved")
    evicted = by_type.get("Evicted")
    admission = status.get("admission")
    cluster_queue = ""
    usage: list[PodSetUsage] = []
    if admission.present:
        cluster_queue, usage = _admission(admission, pod_sets, reserved is not None and reserved.is_true)
    elif reserved is not None and reserved.is_true:
        admission.fail("required when the QuotaReserved condition is True")
    _workload_status_extras(status, version)
    elastic = annotations.get(ELASTIC_ANNOTATION) == "true"
    reclaimable = _reclaimable_pods(status.get("reclaimablePods"), pod_sets, elastic)
    cost = status.get("preemptionCost").quantity()
    workload = meta.build(
        "",
        lambda: Workload(
            name=meta.name,
            namespace=meta.namespace,
            uid=md.get("uid").string(),
            cluster_queue=cluster_queue,
            local_queue=spec.get("queueName").string(),
            priority=spec.get("priority").integer(),
            annotations=annotations,
            labels=labels,
            creation_time=md.get("creationTimestamp").time(),
            quota_reserved_at=reserved.last_transition_time if reserved is not None and reserved.is_true else None,
            evicted=evicted is not None and evicted.is_true,
            conditions=conditions,
            pod_sets=usage,
            preemption_cost=None if cost is None else _decimal(cost),
            priority_class=_class_ref(spec, version),
            evictions=_evictions(status.get("schedulingStats").get("evictions")),
            # Admitted: reclaimable pods against the admitted count (DM-7); pending: as written,
            # for the flavor assignment of its spec pod sets (FAS-1a).
            reclaimable_pods=_admitted_reclaimable(usage, pod_sets, reclaimable) if usage else reclaimable,
            spec_pod_sets=[ps.spec() for ps in pod_sets],
        ),
    )
    active = spec.get("active").boolean(True)
    return LoadedWorkload(
        workload=workload,
        pod_sets=pod_sets,
        status=_ACTIVE if active else _INACTIVE,
        reclaimable_pods=reclaimable,
    )


_ACTIVE = WorkloadStatus()
_INACTIVE = WorkloadStatus(active=False)


def _reclaimable_pods(field: Field, pod_sets: list[PodSetRequests], elastic: bool) -> dict[str, int]:
    """``status.reclaimablePods`` (API-27): each entry names a spec pod set, once, with
    ``0 <= count <= spec count`` (an elastic workload may keep a count above it)."""
    counts = {ps.name: ps.count for ps in pod_sets}
    out: dict[str, int] = {}
    for entry in field.list():
        name_field = entry.get("name")
        name = name_field.string(required=True)
        if name not in counts:
            name_field.fail(f"no pod set {name!r} in spec.podSets (API-27)")
        if name in out:
            name_field.fail(f"pod set {name!r} is listed twice")
        count = entry.get("count").integer(low=0, required=True)
        assert count is not None
        if count > counts[name] and not elastic:
            entry.get("count").fail(f"{count} is more than the pod set's count {counts[name]} (API-27)")
        out[name] = count
    return out


def _admitted_reclaimable(
    usage: list[PodSetUsage], pod_sets: list[PodSetRequests], reclaimable: dict[str, int]
) -> dict[str, int]:
    """The model's reclaimable pods, counted against the *admitted* count (DM-7).

    Kueue keeps ``c' = spec count - min(reclaimable, spec count)`` pods of an admitted pod set
    when ``c'`` is below the admitted count ``n``; the model scales by ``n - min(r', n)``, so
    ``r' = max(0, n - c')`` gives the same usage when the two counts differ (partial admission).
    """
    if not reclaimable:
        return {}
    spec = {ps.name: ps.count for ps in pod_sets}
    out: dict[str, int] = {}
    for ps in usage:
        r = reclaimable.get(ps.name)
        if r is None:
            continue
        s = spec[ps.name]
        kept = s - min(r, s)
        if kept < ps.count:
            out[ps.name] = ps.count - kept
    return out


def _decimal(q: Fraction) -> Decimal:
    # Quantities are multiples of 1e-9, so this is exact.
    return Decimal(q.numerator * (10**9 // q.denominator)).scaleb(-9).normalize()


def _class_ref(spec: Field, version: str) -> PriorityClassRef | None:
    if version == "v1beta1":
        if spec.has("priorityClassRef"):
            spec.get("priorityClassRef").fail(
                "is the v1beta2 name of this field; in v1beta1 it is spec.priorityClassName + spec.priorityClassSource"
            )
        name = spec.get("priorityClassName").string()
        source_field = spec.get("priorityClassSource")
        source = source_field.string()
        if not name:
            return None
        if source not in _CLASS_SOURCES:
            if not source:
                source_field.fail("required when spec.priorityClassName is set")
            source_field.fail(f"{source!r} is not one of {', '.join(_CLASS_SOURCES)}")
        group, kind = _CLASS_SOURCES[source]
        return PriorityClassRef(name=name, kind=kind, group=group)
    for key in ("priorityClassName", "priorityClassSource"):
        if spec.has(key):
            spec.get(key).fail("is a v1beta1 field; in v1beta2 it is spec.priorityClassRef")
    ref = spec.get("priorityClassRef")
    if not ref.present:
        return None
    ref.mapping()
    name = ref.get("name").string(required=True)
    group = ref.get("group").string(required=True)
    kind = ref.get("kind").string(required=True)
    if (group, kind) not in _CLASS_KINDS:
        ref.fail(f"group/kind {group}/{kind} is neither kueue.x-k8s.io/WorkloadPriorityClass nor scheduling.k8s.io/PriorityClass")
    return PriorityClassRef(name=name, kind=kind, group=group)


def _workload_spec_extras(spec: Field, version: str) -> None:
    """Spec fields preemption does not read, validated as Kueue's API does (API-21..API-23)."""
    seconds = spec.get("maximumExecutionTimeSeconds").integer(low=1)
    del seconds  # SC-BO-4 (not modelled): read for validation only
    gates = spec.get("preemptionGates")
    if version == "v1beta1" and gates.present:
        gates.fail("is a v1beta2 field; v1beta1 has no preemptionGates")
    items = gates.list()
    if len(items) > 8:
        gates.fail(f"has {len(items)} gates, at most 8")
    for g in items:
        name = g.get("name").string(required=True)
        if len(name) > 63:
            g.get("name").fail("longer than 63 characters")
    # API-23 (priority required with a class) is not enforced: a hand-written workload without
    # spec.priority takes its class's value, as Kueue sets it at creation (docs/decisions.md).


_GATE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


def _admission_gated_by(field: Field, value: str) -> None:
    """API-25 (gate ``AdmissionGatedBy``, on): distinct, non-empty, domain-prefixed names of at
    most 63 characters, comma-separated."""
    names = [n.strip() for n in value.split(",")]
    seen: set[str] = set()
    for name in names:
        if not name:
            field.fail("holds an empty gate name (API-25)")
        if len(name) > 63 or not _GATE_NAME.fullmatch(name):
            field.fail(f"{name[:70]!r} is not a domain-prefixed name of at most 63 characters (API-25)")
        if name in seen:
            field.fail(f"{name!r} is listed twice (API-25)")
        seen.add(name)


_CHECK_STATES = ("Pending", "Ready", "Retry", "Rejected")


def _workload_status_extras(status: Field, version: str) -> None:
    """Status fields preemption does not read, validated (API-5, API-30)."""
    conditions = status.get("conditions").list()
    if len(conditions) > 16:
        status.get("conditions").fail(f"has {len(conditions)} conditions, at most 16")
    checks = status.get("admissionChecks").list()
    if len(checks) > 8:
        status.get("admissionChecks").fail(f"has {len(checks)} admission checks, at most 8")
    for check in checks:
        check.get("name").string(required=True)
        state = check.get("state").choice(_CHECK_STATES, "")
        if not state:
            check.get("state").fail("required field is missing")
    requeue = status.get("requeueState")
    requeue.get("count").integer(low=0)
    requeue.get("requeueAt").time()
    own, other = "accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds"
    if version == "v1beta1":
        own, other = other, own  # the v1beta1 field is misspelt (API-30)
    if status.has(other):
        status.get(other).fail(f"is the {'v1beta1' if version == 'v1beta2' else 'v1beta2'} spelling; in {version} it is status.{own}")
    status.get(own).integer(low=0)


def _spec_pod_sets(field: Field) -> list[PodSetRequests]:
    items = field.list(required=True)
    if not items:
        field.fail("must hold at least one pod set")
    if len(items) > MAX_POD_SETS:
        field.fail(f"has {len(items)} pod sets, at most {MAX_POD_SETS} (API-21)")
    out: list[PodSetRequests] = []
    names: set[str] = set()
    partial = None
    for ps in items:
        name_field = ps.get("name")
        name = name_field.string() or "main"
        if name in names:
            name_field.fail(f"pod set {name!r} is listed twice")
        names.add(name)
        count = ps.get("count").integer(low=0)
        min_count_field = ps.get("minCount")
        min_count = min_count_field.integer(low=1)
        if min_count is not None:  # API-22
            if partial is not None:
                min_count_field.fail(f"only one pod set may set minCount; pod set {partial!r} does already (API-22)")
            partial = name
            if min_count > (1 if count is None else count):
                min_count_field.fail(f"{min_count} is more than the pod set's count (API-22)")
        template = ps.get("template")
        if not template.present:
            template.fail("required field is missing")
        pod_spec = template.get("spec")
        _no_pods_resource(pod_spec)
        group = ps.get("topologyRequest").get("podSetGroupName")
        if len(group.string()) > 256:
            group.fail("longer than 256 characters")
        out.append(
            PodSetRequests(
                name=name,
                count=1 if count is None else count,
                requests=pod_requests(pod_spec, pod_level=True),
                min_count=min_count,
                node_selector=pod_spec.get("nodeSelector").string_map(),
                node_affinity=_required_node_affinity(pod_spec.get("affinity")),
                tolerations=[toleration(t) for t in pod_spec.get("tolerations").list()],
                pod_set_group_name=group.optional_string(),
                template=template_resources(pod_spec),
            )
        )
    return out


def _no_pods_resource(pod_spec: Field) -> None:
    """API-24: ``pods`` may not be requested by a container, init container or the pod."""
    holders = pod_spec.get("containers").list() + pod_spec.get("initContainers").list() + [pod_spec]
    for holder in holders:
        resources = holder.get("resources")
        for key in ("requests", "limits"):
            field = resources.get(key)
            if field.has("pods"):
                field.get("pods").fail("the resource 'pods' cannot be requested (API-24)")


_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _required_node_affinity(affinity: Field) -> list[list[NodeSelectorRequirement]]:
    """FAS-5: the ``matchExpressions`` of each required ``nodeSelectorTerms`` entry
    (``matchFields`` are not flavor labels and are dropped)."""
    required = affinity.get("nodeAffinity").get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = []
    for term in required.get("nodeSelectorTerms").list():
        expressions = []
        for e in term.get("matchExpressions").list():
            key = e.get("key").string(required=True)
            op = e.get("operator").choice(_NODE_OPERATORS, "")
            if not op:
                e.get("operator").fail("required field is missing")
            values = [v.string() for v in e.get("values").list()]
            if op in ("In", "NotIn") and not values:
                e.get("values").fail(f"must not be empty for operator {op}")
            if op in ("Exists", "DoesNotExist") and values:
                e.get("values").fail(f"must be empty for operator {op}")
            if op in ("Gt", "Lt") and len(values) != 1:
                e.get("values").fail(f"must hold exactly one integer for operator {op}")
            expressions.append(NodeSelectorRequirement(key=key, operator=op, values=values))
        terms.append(expressions)
    return terms


def pod_requests(pod_spec: Field, *, pod_level: bool = False) -> dict[str, int]:
    """Kubernetes' pod request (per pod) of a pod spec, as amounts (Q-1): FAS-1's rule
    (:func:`~kueue_preempt.model.pod_requests.pod_request_totals`) over the spec's containers,
    init containers (``restartPolicy: Always`` marks a sidecar) and ``overhead``.

    A container limit stands in for a missing request (the API server's defaulting). Summed
    as exact quantities, converted to an amount once. With ``pod_level`` (Kueue's FAS-1, §1.8
    of kueue-api-fields.md) a pod-level ``resources`` request (or limit) for ``cpu``,
    ``memory`` or ``hugepages-*`` replaces the container-derived value before the overhead is
    added. Quantities here are never negative (the reader refuses them).
    """
    total = pod_request_totals(
        [_container_requests(c) for c in pod_spec.get("containers").list()],
        [
            (_container_requests(c), c.get("restartPolicy").string() == "Always")
            for c in pod_spec.get("initContainers").list()
        ],
        _container_requests(pod_spec) if pod_level else {},
        pod_spec.get("overhead").quantity_map(),
        operator.add,
    )
    return {r: request_amount(v, r) for r, v in total.items()}


def _resources(holder: Field, restartable: bool = False) -> ContainerResources:
    resources = holder.get("resources")

    def amounts(key: str) -> dict[str, int]:
        return {r: request_amount(v, r) for r, v in resources.get(key).quantity_map().items()}

    return ContainerResources(requests=amounts("requests"), limits=amounts("limits"), restartable=restartable)


def template_resources(pod_spec: Field) -> PodTemplateResources:
    """A pod spec's containers, init containers, pod-level ``resources`` and ``overhead`` as
    request-side amounts (Q-1), as written: SC-NOM-3 adjusts and checks them."""
    return PodTemplateResources(
        containers=[_resources(c) for c in pod_spec.get("containers").list()],
        init_containers=[
            _resources(c, c.get("restartPolicy").string() == "Always") for c in pod_spec.get("initContainers").list()
        ],
        pod=_resources(pod_spec) if pod_spec.has("resources") else None,
        overhead={r: request_amount(v, r) for r, v in pod_spec.get("overhead").quantity_map().items()},
    )


def _container_requests(c: Field) -> dict[str, Fraction]:
    resources = c.get("resources")
    requests = resources.get("requests").quantity_map()
    for r, v in resources.get("limits").quantity_map().items():
        requests.setdefault(r, v)
    return requests


def _conditions(field: Field) -> list[Condition]:
    out: list[Condition] = []
    seen: set[str] = set()
    for c in field.list():
        type_field = c.get("type")
        type_ = type_field.string(required=True)
        if type_ in seen:
            type_field.fail(f"condition {type_!r} is listed twice")
        seen.add(type_)
        status = c.get("status")
        if not status.present:
            status.fail("required field is missing")
        when = c.get("lastTransitionTime").time(required=True)
        c.get("message").string()
        out.append(
            Condition(
                type=type_,
                status=status.choice(_CONDITION_STATUS, "Unknown"),
                reason=c.get("reason").string(),
                last_transition_time=when,
            )
        )
    return out


def _admission(admission: Field, pod_sets: list[PodSetRequests], reserved: bool) -> tuple[str, list[PodSetUsage]]:
    admission.mapping()
    cq = admission.get("clusterQueue").string(required=True)
    counts = {ps.name: ps.count for ps in pod_sets}
    usage: list[PodSetUsage] = []
    assignments = admission.get("podSetAssignments")
    seen: set[str] = set()
    for psa in assignments.list():
        name_field = psa.get("name")
        name = name_field.string() or "main"
        if name not in counts:
            name_field.fail(f"no pod set {name!r} in spec.podSets")
        if name in seen:
            name_field.fail(f"pod set {name!r} is assigned twice (API-26)")
        seen.add(name)
        count = psa.get("count").integer(low=0)
        amounts: dict[str, int] = {}
        usage_field = psa.get("resourceUsage")
        for r, q in usage_field.quantity_map().items():
            if count and (q * (1000 if r == "cpu" else 1)) % count:  # API-26: a multiple of count
                unit = "millicores" if r == "cpu" else "units"
                usage_field.get(r).fail(f"is not a multiple of the assignment count {count} (in {unit}, API-26)")
            amounts[r] = amount_add(amounts.get(r, 0), request_amount(q, r))
        usage.append(
            PodSetUsage(
                name=name,
                count=counts[name] if count is None else count,
                flavors=psa.get("flavors").string_map(),
                usage=amounts,
            )
        )
    if reserved and len(seen) != len(counts):  # API-26
        missing = [n for n in counts if n not in seen]
        assignments.fail(f"needs one assignment per spec pod set while QuotaReserved is True; missing {missing}")
    return cq, usage


def _evictions(field: Field) -> list[EvictionStat]:
    out: list[EvictionStat] = []
    for e in field.list():
        count = e.get("count").integer(low=0)
        out.append(
            EvictionStat(
                reason=e.get("reason").string(required=True),
                underlying_cause=e.get("underlyingCause").string(),
                count=0 if count is None else count,
            )
        )
    return out


def template_pod_set(name: str, count: int, min_count: int | None, pod_spec: Field) -> PodSetRequests:
    """A pod set built from a pod template's ``spec`` the way ``spec.podSets[]`` is read: the
    per-pod request (FAS-1, with pod-level requests), API-24's ``pods`` check, and the
    scheduling fields flavor assignment reads (FAS-5). For readers of other kinds whose pod
    templates become a Workload's pod sets (Kueue's job integrations)."""
    pod_spec.mapping()
    _no_pods_resource(pod_spec)
    return PodSetRequests(
        name=name,
        count=count,
        requests=pod_requests(pod_spec, pod_level=True),
        min_count=min_count,
        node_selector=pod_spec.get("nodeSelector").string_map(),
        node_affinity=_required_node_affinity(pod_spec.get("affinity")),
        tolerations=[toleration(t) for t in pod_spec.get("tolerations").list()],
        template=template_resources(pod_spec),
    )
