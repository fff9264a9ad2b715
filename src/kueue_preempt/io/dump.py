"""A cluster dump: every object the loader understood, by kind, plus what it skipped.

:func:`load_dump` reads files (``kubectl get ... -o yaml`` or ``-o json`` output, several files
at once), :func:`parse_dump` reads text; both return a :class:`ClusterDump`, from which
:meth:`ClusterDump.snapshot` builds the quota tree with the workloads that hold quota (DM-7)
and :meth:`ClusterDump.pending_workload` finds the workload to explain.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Callable, Iterable, Mapping, TypeVar

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.cycle.cluster import ClusterState, LimitRange, Namespace, PodTemplateResources, WorkloadStatus
from kueue_preempt.cycle.validation import adjust_template, template_requests
from kueue_preempt.model.quantity import request_amount
from kueue_preempt.errors import DuplicateName
from kueue_preempt.model import ClusterQueue, Cohort, Workload, WorkloadPriorityClass
from kueue_preempt.podgroup import (
    Cluster,
    CompositePodGroup,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptor,
)
from kueue_preempt.snapshot.quota import Snapshot, check_cohort_depth
from kueue_preempt.io._fields import Field, ParseContext, open_object
from kueue_preempt.io.errors import ManifestError, ManifestTooLarge, NotPending, ObjectNotFound, WorkloadNotFound
from kueue_preempt.io.kube import (
    POD_GROUP_VERSIONS,
    SCHEDULING_GROUP,
    KubePod,
    parse_composite_pod_group,
    parse_node,
    parse_pod,
    parse_pod_disruption_budget,
    parse_pod_group,
    parse_priority_class,
)
from kueue_preempt.io.kueue import (
    KUEUE_GROUP,
    parse_cohort,
    parse_local_queue,
    parse_workload,
    parse_workload_priority_class,
    read_cluster_queue,
    read_resource_flavor,
)
from kueue_preempt.io.objects import ClusterQueueSettings, LoadedWorkload, LocalQueue, PriorityClass, ResourceFlavorSpec
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, RawObject, parse_documents, read_bytes
from kueue_preempt._util.checks import path_arg

__all__ = ["ClusterDump", "apply_limit_ranges", "load_dump", "parse_dump", "dump_from_objects", "resolve_priorities", "SUPPORTED_KINDS"]


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


def _counts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


def _strings(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


def _unique(kind: str, keys: Iterable[str]) -> None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            raise DuplicateName(kind, key)
        seen.add(key)


@attrs.frozen
class ClusterDump:
    """The objects of a dump, by kind, in input order. Build it with :func:`load_dump` /
    :func:`parse_dump`, or directly from model objects (then the writer in
    :mod:`kueue_preempt.io.write` turns its Kueue objects into manifests).

    Kueue path: :meth:`snapshot`, :meth:`pending_workload`, :meth:`cluster_queue_for`.
    PodGroup path: :meth:`cluster`, :meth:`pod_group_preemptor`.

    ``skipped`` counts objects of kinds the loader does not read, keyed ``"Kind (apiVersion)"``.
    ``origins`` maps ``"Kind key"`` to the file an object came from (for messages).

    :attr:`state` is the same cluster as the scheduling cycle's input
    (:class:`~kueue_preempt.cycle.ClusterState`), built once per dump from its fields: the
    dump keeps provenance, the PodGroup objects and what only messages, ``explain
    --assignment`` and the writer read.
    """

    cluster_queues: tuple[ClusterQueue, ...] = attrs.field(default=(), converter=_tuple)
    cohorts: tuple[Cohort, ...] = attrs.field(default=(), converter=_tuple)
    local_queues: tuple[LocalQueue, ...] = attrs.field(default=(), converter=_tuple)
    resource_flavors: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    workload_priority_classes: tuple[WorkloadPriorityClass, ...] = attrs.field(default=(), converter=_tuple)
    priority_classes: tuple[PriorityClass, ...] = attrs.field(default=(), converter=_tuple)
    workloads: tuple[LoadedWorkload, ...] = attrs.field(default=(), converter=_tuple)
    nodes: tuple[Node, ...] = attrs.field(default=(), converter=_tuple)
    pods: tuple[Pod, ...] = attrs.field(default=(), converter=_tuple)
    """Pods that are running or pending (terminal pods are left out and counted in ``terminal_pods``)."""
    pod_groups: tuple[PodGroup, ...] = attrs.field(default=(), converter=_tuple)
    composite_pod_groups: tuple[CompositePodGroup, ...] = attrs.field(default=(), converter=_tuple)
    pod_disruption_budgets: tuple[PodDisruptionBudget, ...] = attrs.field(default=(), converter=_tuple)
    terminal_pods: int = 0
    skipped: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_counts)
    sources: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    origins: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_strings, eq=False, repr=False)
    cluster_queue_settings: tuple[ClusterQueueSettings, ...] = attrs.field(default=(), converter=_tuple)
    """Per loaded ClusterQueue: queueing, stop policy, namespace selector, flavor fungibility,
    admission checks (io's own types until the model has a place for them)."""
    resource_flavor_specs: tuple[ResourceFlavorSpec, ...] = attrs.field(default=(), converter=_tuple)
    """Per loaded ResourceFlavor: node labels, taints, tolerations, topology."""
    namespaces: tuple[Namespace, ...] = attrs.field(default=(), converter=_tuple)
    """The ``v1`` Namespace objects, for their labels (``namespaceSelector``, SC-NOM-1). The
    loader reads nothing else of them and still counts them in ``skipped``; none means every
    namespace a workload names exists, unlabeled."""
    limit_ranges: tuple[LimitRange, ...] = attrs.field(default=(), converter=_tuple)
    """The ``Container`` and ``Pod`` items of the ``v1`` LimitRange objects (SC-NOM-3), one
    :class:`~kueue_preempt.cycle.LimitRange` per item; pending workloads of their namespaces
    already carry the adjusted templates (:func:`apply_limit_ranges`)."""
    _state: list[ClusterState] = attrs.field(init=False, factory=list, eq=False, repr=False)
    _workload_index: dict[str, LoadedWorkload] = attrs.field(init=False, eq=False, repr=False)
    _local_queue_index: dict[str, LocalQueue] = attrs.field(init=False, eq=False, repr=False)

    @_workload_index.default
    def _index_workloads(self) -> dict[str, LoadedWorkload]:
        return {w.key: w for w in self.workloads}

    @_local_queue_index.default
    def _index_local_queues(self) -> dict[str, LocalQueue]:
        return {q.key: q for q in self.local_queues}

    def __attrs_post_init__(self) -> None:
        _unique("ClusterQueue", (q.name for q in self.cluster_queues))
        _unique("Cohort", (c.name for c in self.cohorts))
        _unique("LocalQueue", (q.key for q in self.local_queues))
        _unique("ResourceFlavor", self.resource_flavors)
        _unique("WorkloadPriorityClass", (c.name for c in self.workload_priority_classes))
        _unique("PriorityClass", (c.name for c in self.priority_classes))
        _unique("Workload", (w.key for w in self.workloads))
        _unique("Node", (n.name for n in self.nodes))
        _unique("Pod", (f"{p.namespace}/{p.name}" for p in self.pods))
        _unique("PodGroup", (f"{g.namespace}/{g.name}" for g in self.pod_groups))
        _unique("CompositePodGroup", (f"{g.namespace}/{g.name}" for g in self.composite_pod_groups))
        _unique("PodDisruptionBudget", (f"{b.namespace}/{b.name}" for b in self.pod_disruption_budgets))

    @property
    def state(self) -> ClusterState:
        """The cycle's input (SC-ST-1..7) of this dump, built on first use and then kept: the
        quota tree, flavors, namespaces, LocalQueues, queueing settings, the model workloads
        with their :class:`~kueue_preempt.cycle.WorkloadStatus`, the WorkloadPriorityClasses."""
        if not self._state:
            self._state.append(_cluster_state(self))
        return self._state[0]

    # ------------------------------------------------------------------ summaries

    def counts(self) -> dict[str, int]:
        """Objects loaded per kind (kinds with none are left out)."""
        counts = {
            "ClusterQueue": len(self.cluster_queues),
            "Cohort": len(self.cohorts),
            "LocalQueue": len(self.local_queues),
            "ResourceFlavor": len(self.resource_flavors),
            "WorkloadPriorityClass": len(self.workload_priority_classes),
            "PriorityClass": len(self.priority_classes),
            "Workload": len(self.workloads),
            "Node": len(self.nodes),
            "Pod": len(self.pods) + self.terminal_pods,
            "PodGroup": len(self.pod_groups),
            "CompositePodGroup": len(self.composite_pod_groups),
            "PodDisruptionBudget": len(self.pod_disruption_budgets),
            "LimitRange": len({(r.namespace, r.name) for r in self.limit_ranges}),
        }
        return {kind: n for kind, n in counts.items() if n}

    def holding_quota(self) -> list[LoadedWorkload]:
        """Workloads that hold quota (DM-7), in input order."""
        return [w for w in self.workloads if w.holds_quota]

    def pending(self) -> list[LoadedWorkload]:
        """Workloads waiting for admission, in input order."""
        return [w for w in self.workloads if w.is_pending]

    def warnings(self) -> list[str]:
        """Things that are legal but probably not what the dump's author meant."""
        out: list[str] = []
        flavors = set(self.resource_flavors)
        if flavors:
            for cq in self.cluster_queues:
                for name in dict.fromkeys(fr.flavor for fr in cq.quotas):
                    if name not in flavors:
                        out.append(f"ClusterQueue {cq.name} uses ResourceFlavor {name!r}, which is not in the dump")
        queues = {q.name for q in self.cluster_queues}
        for lq in self.local_queues:
            if lq.cluster_queue not in queues:
                out.append(f"LocalQueue {lq.key} points to ClusterQueue {lq.cluster_queue!r}, which is not in the dump")
        wpcs = {c.name for c in self.workload_priority_classes}
        pcs = {c.name for c in self.priority_classes}
        for lw in self.workloads:
            ref = lw.workload.priority_class
            if ref is None:
                continue
            known = wpcs if ref.is_workload_priority_class else pcs
            if ref.name not in known:
                out.append(f"Workload {lw.key} refers to {ref.kind} {ref.name!r}, which is not in the dump")
        groups = {(g.namespace, g.name) for g in self.pod_groups}
        missing = sorted({(p.namespace, p.pod_group) for p in self.pods if p.pod_group and (p.namespace, p.pod_group) not in groups})
        for namespace, name in missing:
            out.append(f"Pods refer to PodGroup {namespace}/{name}, which is not in the dump (its pods keep their own priority)")
        return out

    # ------------------------------------------------------------------ lookups

    def workload(self, key: str) -> LoadedWorkload:
        """The workload ``namespace/name``; :class:`WorkloadNotFound` if absent."""
        found = self._workload_index.get(key)
        if found is None:
            raise WorkloadNotFound(key)
        return found

    def pending_workload(self, key: str) -> LoadedWorkload:
        """The pending workload ``namespace/name``; :class:`NotPending` if it is not pending."""
        lw = self.workload(key)
        if not lw.is_pending:
            raise NotPending(key, lw.state)
        return lw

    def cluster_queue_for(self, lw: LoadedWorkload) -> str:
        """The ClusterQueue a pending workload is queued for: its LocalQueue's (``spec.queueName``)."""
        w = lw.workload
        if not w.local_queue:
            raise self._error("Workload", lw.key, "spec.queueName", "required to find the workload's ClusterQueue")
        lq = self._local_queue_index.get(f"{w.namespace}/{w.local_queue}")
        if lq is None:
            raise self._error(
                "Workload", lw.key, "spec.queueName", f"LocalQueue {w.namespace}/{w.local_queue} is not in the dump"
            )
        if lq.cluster_queue not in {q.name for q in self.cluster_queues}:
            raise self._error(
                "LocalQueue", lq.key, "spec.clusterQueue", f"ClusterQueue {lq.cluster_queue!r} is not in the dump"
            )
        return lq.cluster_queue

    def snapshot(self, *, implicit_cohorts: bool = True, reclaimable_pods: bool = True) -> Snapshot:
        """The quota tree with every workload that holds quota (DM-7).

        Cohorts named but not given are implicit (no quota), as in Kueue. A workload holding
        quota in a ClusterQueue that is not in the dump is an error. ``reclaimable_pods`` is
        gate ``ReclaimablePods`` (on by default): off, ``status.reclaimablePods`` is ignored and
        every admitted pod counts (FAS-1a).
        """
        holders = self.holding_quota()
        self._check_admissions(holders)
        # The dump's own charge rule (QuotaReserved=True, not finished, active) and its
        # workloads' reclaimable pods counted against the admitted pods (DM-7); the rest is
        # the cycle input's builder, without the cycle's exclusions or index.
        return self.state.snapshot(
            charged=[lw.workload for lw in holders],
            reclaimable_pods=reclaimable_pods,
            implicit_cohorts=implicit_cohorts,
        )

    def _check_admissions(self, holders: list[LoadedWorkload]) -> None:
        queues = {q.name for q in self.cluster_queues}
        for lw in holders:
            if lw.workload.cluster_queue not in queues:
                raise self._error(
                    "Workload",
                    lw.key,
                    "status.admission.clusterQueue",
                    f"holds quota in ClusterQueue {lw.workload.cluster_queue!r}, which is not in the dump",
                )

    def validate(self) -> None:
        """What every command refuses before it runs (the loaders :func:`load_dump` and
        :func:`~kueue_preempt.io.load_cluster_state` call it): a workload holding quota in a
        ClusterQueue that is not in the dump, a cohort cycle, a cohort chain deeper than
        :data:`~kueue_preempt.snapshot.quota.MAX_COHORT_DEPTH`. Linear time; the errors name
        the file, the object and the field. :meth:`snapshot` refuses the same dumps; the
        scheduling cycle alone would leave a cyclic tree out, as Kueue does (SC-ST-4)."""
        self._check_admissions(self.holding_quota())
        check_cohort_depth(
            {c.name: c.parent for c in self.cohorts},
            ((q.name, q.cohort) for q in self.cluster_queues),
            source=lambda kind, name: self.origins.get(f"{kind} {name}") or "",
        )

    def flavors(self) -> list[ResourceFlavorSpec]:
        """The ResourceFlavors the flavor assigner is handed (FAS-5a), sorted by name: each with
        its node labels, taints and tolerations as loaded."""
        by_name = {spec.name: spec for spec in self.resource_flavor_specs}
        for name in self.resource_flavors:
            by_name.setdefault(name, ResourceFlavorSpec(name))
        return [by_name[n] for n in sorted(by_name)]

    # ------------------------------------------------------------------ the PodGroup path

    def cluster(self) -> Cluster:
        """The scheduler's view for the PodGroup path: nodes, pods, groups, PDBs (PG-2..PG-6).

        A pod bound to a node that is not in the dump is an error (its usage would vanish).
        """
        nodes = {n.name for n in self.nodes}
        for pod in self.pods:
            if pod.node_name is not None and pod.node_name not in nodes:
                raise self._error(
                    "Pod", f"{pod.namespace}/{pod.name}", "spec.nodeName", f"Node {pod.node_name!r} is not in the dump"
                )
        return Cluster(
            self.nodes,
            self.pods,
            pod_groups=self.pod_groups,
            composite_pod_groups=self.composite_pod_groups,
            pdbs=self.pod_disruption_budgets,
        )

    def pod_group_preemptor(self, key: str) -> PodGroupPreemptor:
        """The PodGroup ``namespace/name`` with its unscheduled member pods (PG-10)."""
        group = next((g for g in self.pod_groups if f"{g.namespace}/{g.name}" == key), None)
        if group is None:
            raise ObjectNotFound("PodGroup", key)
        members = [p for p in self.pods if p.namespace == group.namespace and p.pod_group == group.name]
        pending = [p for p in members if p.node_name is None]
        if not pending:
            state = f"has {len(members)} pod(s), all scheduled" if members else "has no pods in the dump"
            raise NotPending(key, state, kind="PodGroup")
        return PodGroupPreemptor(group=group, pods=pending)

    def _error(self, kind: str, key: str, path: str, reason: str) -> ManifestError:
        return ManifestError(self.origins.get(f"{kind} {key}") or "", kind, key, path, reason)


# --------------------------------------------------------------------------- loading

_Parser = Callable[[RawObject, str, ParseContext], Any]
# (group, kind) -> (versions, parser, collection)
_KINDS: dict[tuple[str, str], tuple[tuple[str, ...], _Parser, str]] = {
    (KUEUE_GROUP, "ClusterQueue"): (("v1beta1", "v1beta2"), read_cluster_queue, "cluster_queues"),
    (KUEUE_GROUP, "Cohort"): (("v1alpha1", "v1beta1", "v1beta2"), parse_cohort, "cohorts"),
    (KUEUE_GROUP, "LocalQueue"): (("v1beta1", "v1beta2"), parse_local_queue, "local_queues"),
    (KUEUE_GROUP, "ResourceFlavor"): (("v1beta1", "v1beta2"), read_resource_flavor, "resource_flavors"),
    (KUEUE_GROUP, "WorkloadPriorityClass"): (
        ("v1beta1", "v1beta2"),
        parse_workload_priority_class,
        "workload_priority_classes",
    ),
    (KUEUE_GROUP, "Workload"): (("v1beta1", "v1beta2"), parse_workload, "workloads"),
    ("", "Node"): (("v1",), parse_node, "nodes"),
    ("", "Pod"): (("v1",), parse_pod, "pods"),
    (SCHEDULING_GROUP, "PriorityClass"): (("v1",), parse_priority_class, "priority_classes"),
    ("policy", "PodDisruptionBudget"): (("v1",), parse_pod_disruption_budget, "pod_disruption_budgets"),
    (SCHEDULING_GROUP, "PodGroup"): (POD_GROUP_VERSIONS, parse_pod_group, "pod_groups"),
    (SCHEDULING_GROUP, "CompositePodGroup"): (POD_GROUP_VERSIONS, parse_composite_pod_group, "composite_pod_groups"),
}

SUPPORTED_KINDS = tuple(f"{kind} ({group}/{'|'.join(v)})" for (group, kind), (v, _, _) in _KINDS.items())
"""What the loader reads; everything else is skipped and counted."""


def _key_of(obj: Any) -> tuple[str, str]:
    if isinstance(obj, tuple):  # (PodGroup | CompositePodGroup, priorityClassName), (ClusterQueue, settings)
        obj = obj[0]
    if isinstance(obj, ResourceFlavorSpec):
        return "ResourceFlavor", obj.name
    if isinstance(obj, (LocalQueue, LoadedWorkload)):
        return type(obj).__name__.replace("Loaded", ""), obj.key
    if isinstance(obj, KubePod):
        return "Pod", obj.key
    if isinstance(obj, (PodGroup, CompositePodGroup, PodDisruptionBudget)):
        return type(obj).__name__, f"{obj.namespace}/{obj.name}"
    return type(obj).__name__, obj.name


def dump_from_objects(objects: Iterable[RawObject]) -> ClusterDump:
    """Build a :class:`ClusterDump` from raw objects (see :func:`~kueue_preempt.io.parse_documents`).

    Objects of unknown kinds are counted in ``skipped``; a known kind with an unsupported
    ``apiVersion`` or a malformed object raises :class:`ManifestError`; two objects with the same
    kind and key raise :class:`ManifestError` naming both files.
    """
    collected: dict[str, list[Any]] = {name: [] for _, _, name in _KINDS.values()}
    collected.update(cluster_queue_settings=[], resource_flavor_specs=[])
    origins: dict[str, str] = {}
    skipped: Counter[str] = Counter()
    sources: dict[str, None] = {}
    namespaces: list[Namespace] = []
    limit_ranges: list[LimitRange] = []
    load = ParseContext()  # what the objects of this load share (parsed quantities)
    for raw in objects:
        sources.setdefault(raw.source, None)
        api_version, kind = _type_of(raw)
        group, _, version = api_version.rpartition("/")
        entry = _KINDS.get((group, kind))
        if entry is None:
            if kind == "Namespace" and api_version == "v1":
                meta = open_object(raw.source, raw.index, raw.data, "Namespace", namespaced=False)
                namespaces.append(Namespace(meta.name, meta.metadata.get("labels").string_map()))
            elif kind == "LimitRange" and api_version == "v1":
                limit_ranges += _limit_range(raw, load)
                continue
            skipped[f"{kind} ({api_version})"] += 1
            continue
        versions, parse, collection = entry
        if version not in versions:
            raise ManifestError(
                raw.source,
                kind,
                _display_name(raw),
                "apiVersion",
                f"unsupported version {api_version!r} (supported: {', '.join(f'{group}/{v}' for v in versions)})",
            )
        obj = parse(raw, version, load)
        key_kind, key = _key_of(obj)
        origin_key = f"{key_kind} {key}"
        if origin_key in origins:
            raise ManifestError(
                raw.source, key_kind, key, "metadata.name", f"duplicate object (first one in {origins[origin_key]})"
            )
        origins[origin_key] = f"{raw.source} #{raw.index}"
        if collection == "cluster_queues":
            obj, settings = obj
            collected["cluster_queue_settings"].append(settings)
        elif collection == "resource_flavors":
            collected["resource_flavor_specs"].append(obj)
            obj = obj.name
        collected[collection].append(obj)
    priority_classes: list[PriorityClass] = collected["priority_classes"]
    workloads = resolve_priorities(collected["workloads"], collected["workload_priority_classes"], priority_classes)
    by_namespace: dict[str, list[LimitRange]] = {}
    for r in limit_ranges:
        by_namespace.setdefault(r.namespace, []).append(r)
    workloads = [apply_limit_ranges(lw, by_namespace.get(lw.workload.namespace, ())) for lw in workloads]
    values = {c.name: c.value for c in priority_classes}
    # Kubernetes' priority admission: with several globalDefault classes the lowest value wins.
    default = min((c.value for c in priority_classes if c.global_default), default=None)
    kube_pods: list[KubePod] = collected["pods"]
    pods = [
        kp.pod if kp.priority_set else _with_priority(kp.pod, kp.priority_class, values, default)
        for kp in kube_pods
        if not kp.terminal
    ]
    # PG-DEF-1: a group without spec.priority resolves like a pod (class, else global default).
    groups = [g if cls is None else _with_priority(g, cls, values, default) for g, cls in collected["pod_groups"]]
    composites = [
        g if cls is None else _with_priority(g, cls, values, default) for g, cls in collected["composite_pod_groups"]
    ]
    return ClusterDump(
        cluster_queues=collected["cluster_queues"],
        cohorts=collected["cohorts"],
        local_queues=collected["local_queues"],
        resource_flavors=collected["resource_flavors"],
        workload_priority_classes=collected["workload_priority_classes"],
        priority_classes=priority_classes,
        workloads=workloads,
        nodes=collected["nodes"],
        pods=pods,
        pod_groups=groups,
        composite_pod_groups=composites,
        pod_disruption_budgets=collected["pod_disruption_budgets"],
        terminal_pods=sum(1 for kp in kube_pods if kp.terminal),
        skipped=dict(sorted(skipped.items())),
        sources=list(sources),
        origins={k: v.rsplit(" #", 1)[0] for k, v in origins.items()},
        cluster_queue_settings=collected["cluster_queue_settings"],
        resource_flavor_specs=collected["resource_flavor_specs"],
        namespaces=namespaces,
        limit_ranges=limit_ranges,
    )


_LIMIT_TYPES = ("Container", "Pod", "PersistentVolumeClaim")


def _limit_range(raw: RawObject, load: ParseContext) -> list[LimitRange]:
    """The ``Container`` and ``Pod`` items of a ``v1`` LimitRange (SC-NOM-3; ``maxLimitRequestRatio``
    and ``PersistentVolumeClaim`` items are not read), amounts request-side (Q-1)."""
    meta = open_object(raw.source, raw.index, raw.data, "LimitRange", namespaced=True, load=load)

    def amounts(field: Field) -> dict[str, int]:
        return {r: request_amount(v, r) for r, v in field.quantity_map().items()}

    out = []
    for item in meta.root.get("spec").get("limits").list():
        type_ = item.get("type").choice(_LIMIT_TYPES, "")
        if not type_:
            item.get("type").fail("required field is missing")
        if type_ == "PersistentVolumeClaim":
            continue
        out.append(
            LimitRange(
                namespace=meta.namespace,
                name=meta.name,
                type=type_,
                max=amounts(item.get("max")),
                min=amounts(item.get("min")),
                default=amounts(item.get("default")),
                default_request=amounts(item.get("defaultRequest")),
            )
        )
    return out


def apply_limit_ranges(lw: LoadedWorkload, ranges: Iterable[LimitRange]) -> LoadedWorkload:
    """A pending workload as Kueue's queue holds it (SC-NOM-3): the pod templates adjusted by
    its namespace's LimitRange defaults, the per-pod requests (FAS-1) recomputed from them when
    a default changed them, and the adjusted templates in its status for the checks 3c and 3d.

    A workload holding quota, or whose namespace has no LimitRange and whose containers all
    request no more than their limits, is returned unchanged (the checks could not fail).
    """
    if lw.workload.cluster_queue or any(ps.template is None for ps in lw.pod_sets):
        return lw
    own = [r for r in ranges if r.namespace == lw.workload.namespace]
    # Without a LimitRange the adjustment only copies limits into missing requests, which
    # cannot exceed them: the written requests decide whether 3c can fail.
    if not own and not any(ps.template is not None and _over_limit(ps.template) for ps in lw.pod_sets):
        return lw
    templates = [adjust_template(ps.template, own) for ps in lw.pod_sets if ps.template is not None]
    pod_sets = [
        ps if t == ps.template else attrs.evolve(ps, requests=template_requests(t))
        for ps, t in zip(lw.pod_sets, templates)
    ]
    workload = lw.workload
    if any(a.requests != b.requests for a, b in zip(pod_sets, lw.pod_sets)):
        workload = attrs.evolve(workload, spec_pod_sets=[ps.spec() for ps in pod_sets])
    return attrs.evolve(lw, workload=workload, pod_sets=pod_sets, status=attrs.evolve(lw.status, templates=templates))


def _over_limit(t: PodTemplateResources) -> bool:
    holders = t.containers + t.init_containers + (() if t.pod is None else (t.pod,))
    return any(v > c.limits[r] for c in holders for r, v in c.requests.items() if r in c.limits)


_DEFAULT_STATUS = WorkloadStatus()


def _cycle_workload(lw: LoadedWorkload) -> Workload:
    # The loader already gives every Workload its spec pod sets and ClusterQueue its
    # flavorFungibility (one mapping, io/objects.py); the cycle reads ``status.reclaimablePods``
    # as written for admitted workloads too (FAS-1a).
    if lw.workload.reclaimable_pods == lw.reclaimable_pods:
        return lw.workload
    return attrs.evolve(lw.workload, reclaimable_pods=lw.reclaimable_pods)


def _cluster_state(dump: ClusterDump) -> ClusterState:
    return ClusterState(
        cluster_queues=dump.cluster_queues,
        cohorts=dump.cohorts,
        flavors=dump.flavors(),
        namespaces=dump.namespaces,
        local_queues=dump.local_queues,
        queueing={s.name: s for s in dump.cluster_queue_settings},
        workloads=[_cycle_workload(lw) for lw in dump.workloads],
        statuses={lw.key: lw.status for lw in dump.workloads if lw.status != _DEFAULT_STATUS},
        priority_classes=dump.workload_priority_classes,
        limit_ranges=dump.limit_ranges,
    )


_T = TypeVar("_T", Pod, PodGroup, CompositePodGroup)


def _with_priority(obj: _T, class_name: str, values: Mapping[str, int], default: int | None) -> _T:
    """A priority left unset takes its PriorityClass's value, or the global default when no
    class is named (pods, and PodGroups per PG-DEF-1), as Kubernetes' admission sets it."""
    value = values.get(class_name) if class_name else default
    return obj if value is None else attrs.evolve(obj, priority=value)


def _display_name(raw: RawObject) -> str:
    """``namespace/name`` (or ``name``) from the raw metadata when usable, else ``#<index>``:
    an object is named in errors even before its kind is known to be readable."""
    metadata = raw.data.get("metadata")
    if not isinstance(metadata, dict):
        return f"#{raw.index}"
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not name or len(name) > 253 or any(c in name for c in "/ \t\n\r"):
        return f"#{raw.index}"
    if isinstance(namespace, str) and namespace and len(namespace) <= 253 and "/" not in namespace:
        return f"{namespace}/{name}"
    return name


def _type_of(raw: RawObject) -> tuple[str, str]:
    api_version = raw.data.get("apiVersion")
    kind = raw.data.get("kind")
    shown_kind = kind if isinstance(kind, str) else ""
    for field, value in (("apiVersion", api_version), ("kind", kind)):
        if value is None or value == "":
            raise ManifestError(raw.source, shown_kind, _display_name(raw), field, "required field is missing")
        if not isinstance(value, str):
            raise ManifestError(raw.source, shown_kind, _display_name(raw), field, "expected a string")
    assert isinstance(api_version, str) and isinstance(kind, str)
    return api_version, kind


def resolve_priorities(
    workloads: Iterable[LoadedWorkload],
    wpcs: Iterable[WorkloadPriorityClass],
    pcs: Iterable[PriorityClass],
) -> list[LoadedWorkload]:
    """A workload without ``spec.priority`` takes its class's value, as Kueue sets it at creation."""
    by_wpc = {c.name: c.value for c in wpcs}
    by_pc = {c.name: c.value for c in pcs}
    out = []
    for lw in workloads:
        w = lw.workload
        ref = w.priority_class
        if w.priority is None and ref is not None:
            value = (by_wpc if ref.is_workload_priority_class else by_pc).get(ref.name)
            if value is not None:
                lw = attrs.evolve(lw, workload=attrs.evolve(w, priority=value))
        out.append(lw)
    return out


def parse_dump(
    data: bytes | str,
    *,
    source: str = "<input>",
    format: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> ClusterDump:
    """Parse one YAML/JSON text (``format`` ``"yaml"``, ``"json"`` or ``None`` to detect)."""
    return dump_from_objects(parse_documents(data, source=source, format=format, limits=limits))


def load_dump(*paths: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> ClusterDump:
    """Read and parse files (``"-"`` is standard input) into one :class:`ClusterDump`.

    Raises :class:`OSError` when a file cannot be read, and a
    :class:`~kueue_preempt.errors.KueuePreemptError` subclass for bad content, including
    what :meth:`ClusterDump.validate` refuses.
    """
    dump = dump_from_objects(read_objects(*paths, limits=limits))
    dump.validate()
    return dump


def read_objects(*paths: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> list[RawObject]:
    """The raw objects of the files (``"-"`` is standard input), each file read once."""
    objects: list[RawObject] = []
    for path in paths:
        name = path_arg(path, "load_dump", "paths")
        name = "<stdin>" if name == "-" else name
        objects.extend(parse_documents(read_bytes(path, limits), source=name, limits=limits))
        if len(objects) > limits.max_objects:
            raise ManifestTooLarge(name, f"more than {limits.max_objects} objects in total")
    return objects
