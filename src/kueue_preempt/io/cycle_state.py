"""A cluster dump as the scheduling cycle's input (:class:`~kueue_preempt.cycle.ClusterState`).

:func:`load_cluster_state` reads the files once, builds the :class:`ClusterDump` the other
commands use, and adds what only the queue manager and the scheduler read from the same
objects: each ClusterQueue's ``queueingStrategy``, ``namespaceSelector``, ``stopPolicy`` and
``flavorFungibility``; each LocalQueue's ``stopPolicy``; Namespace labels; ResourceFlavor
``nodeLabels``/``nodeTaints``/``tolerations``; and the pending workloads' pod sets
(``count``, ``minCount`` and per-pod requests) for the flavor assigner.

What a dump cannot hold — the queue memory of a running Kueue — is not invented here: the
cycle starts from :func:`~kueue_preempt.cycle.initial_queue_state`.
"""

from __future__ import annotations

import os
from typing import Iterable

import attrs

from ..cycle import ClusterState, LabelRequirement, LabelSelector, LocalQueue, Namespace, QueueingSettings, WorkloadStatus
from ..flavors import FlavorFungibility, PodSetSpec, ResourceFlavor, Taint, Toleration
from ._fields import Field, open_object
from .dump import ClusterDump, dump_from_objects
from .errors import ManifestError, ManifestTooLarge
from .read import DEFAULT_LIMITS, Limits, RawObject, parse_documents, read_bytes

__all__ = ["load_cluster_state", "cluster_state_from_objects"]


def _kind(raw: RawObject) -> str:
    kind = raw.data.get("kind")
    return kind if isinstance(kind, str) else ""


def _selector(f: Field) -> LabelSelector | None:
    if not f.present:
        return None  # SC-CFG-3: a null selector selects no namespace
    f.mapping()
    exprs = []
    for e in f.get("matchExpressions").list():
        op = e.get("operator").string(required=True)
        values = [v.string() for v in e.get("values").list()]
        try:
            exprs.append(LabelRequirement(e.get("key").string(required=True), op, values))
        except ValueError as exc:
            e.fail(str(exc))
    return LabelSelector(f.get("matchLabels").string_map(), exprs)


def _toleration(t: Field) -> Toleration:
    return Toleration(
        t.get("key").string(), t.get("operator").string(), t.get("value").string(), t.get("effect").string()
    )


def _queueing(raw: RawObject) -> tuple[str, QueueingSettings, FlavorFungibility]:
    meta = open_object(raw.source, raw.index, raw.data, "ClusterQueue", namespaced=False)
    spec = meta.root.get("spec")
    strategy = spec.get("queueingStrategy").choice(("BestEffortFIFO", "StrictFIFO"), "BestEffortFIFO")
    stop = spec.get("stopPolicy").choice(("None", "Hold", "HoldAndDrain"), "None")
    ff = spec.get("flavorFungibility")
    try:
        fungibility = FlavorFungibility(
            ff.get("whenCanBorrow").optional_string(),
            ff.get("whenCanPreempt").optional_string(),
            ff.get("preference").optional_string(),
        )
    except ValueError as exc:
        ff.fail(str(exc))
    # An absent namespaceSelector is defaulted to {} by the API server (all namespaces).
    sel = spec.get("namespaceSelector")
    selector = _selector(sel) if sel.present else LabelSelector()
    return meta.name, QueueingSettings(strategy, selector, stop), fungibility


def _flavor(raw: RawObject) -> ResourceFlavor:
    meta = open_object(raw.source, raw.index, raw.data, "ResourceFlavor", namespaced=False)
    spec = meta.root.get("spec")
    taints = [
        Taint(t.get("key").string(required=True), t.get("value").string(), t.get("effect").string())
        for t in spec.get("nodeTaints").list()
    ]
    return ResourceFlavor(
        meta.name, spec.get("nodeLabels").string_map(), taints, [_toleration(t) for t in spec.get("tolerations").list()]
    )


def _workload_specs(raw: RawObject) -> tuple[str, list[tuple[int | None, dict[str, str], list[Toleration]]]]:
    meta = open_object(raw.source, raw.index, raw.data, "Workload", namespaced=True)
    out = []
    for ps in meta.root.get("spec").get("podSets").list():
        pod = ps.get("template").get("spec")
        out.append(
            (
                ps.get("minCount").integer(low=0),
                pod.get("nodeSelector").string_map(),
                [_toleration(t) for t in pod.get("tolerations").list()],
            )
        )
    return meta.key, out


def cluster_state_from_objects(objects: Iterable[RawObject]) -> tuple[ClusterState, ClusterDump]:
    """The cycle input and the :class:`ClusterDump` of the same raw objects."""
    objs = list(objects)
    dump = dump_from_objects(objs)
    settings: dict[str, QueueingSettings] = {}
    fungibility: dict[str, FlavorFungibility] = {}
    namespaces: list[Namespace] = []
    flavors: dict[str, ResourceFlavor] = {}
    lq_stop: dict[str, str] = {}
    specs: dict[str, list[tuple[int | None, dict[str, str], list[Toleration]]]] = {}
    for raw in objs:
        kind = _kind(raw)
        api = raw.data.get("apiVersion")
        kueue = isinstance(api, str) and api.startswith("kueue.x-k8s.io/")
        if kind == "ClusterQueue" and kueue:
            name, s, f = _queueing(raw)
            settings[name], fungibility[name] = s, f
        elif kind == "ResourceFlavor" and kueue:
            rf = _flavor(raw)
            flavors[rf.name] = rf
        elif kind == "LocalQueue" and kueue:
            meta = open_object(raw.source, raw.index, raw.data, "LocalQueue", namespaced=True)
            lq_stop[meta.key] = meta.root.get("spec").get("stopPolicy").choice(("None", "Hold", "HoldAndDrain"), "None")
        elif kind == "Workload" and kueue:
            key, extras = _workload_specs(raw)
            specs[key] = extras
        elif kind == "Namespace" and api == "v1":
            meta = open_object(raw.source, raw.index, raw.data, "Namespace", namespaced=False)
            namespaces.append(Namespace(meta.name, meta.metadata.get("labels").string_map()))
    cqs = [attrs.evolve(cq, flavor_fungibility=fungibility.get(cq.name, cq.flavor_fungibility)) for cq in dump.cluster_queues]
    workloads = []
    statuses: dict[str, WorkloadStatus] = {}
    for lw in dump.workloads:
        extra = specs.get(lw.key, [])
        pod_sets = []
        for i, ps in enumerate(lw.pod_sets):
            min_count, selector, tolerations = extra[i] if i < len(extra) else (None, {}, [])
            try:
                pod_sets.append(
                    PodSetSpec(ps.name, ps.count, ps.requests, min_count, selector, None, tolerations)
                )
            except ValueError as exc:
                raise ManifestError(dump.origins.get(f"Workload {lw.key}", ""), "Workload", lw.key, f"spec.podSets[{i}]", str(exc)) from None
        workloads.append(attrs.evolve(lw.workload, spec_pod_sets=pod_sets))
        if not lw.active:
            statuses[lw.key] = WorkloadStatus(active=False)
    for name in dump.resource_flavors:
        flavors.setdefault(name, ResourceFlavor(name))
    state = ClusterState(
        cluster_queues=cqs,
        cohorts=dump.cohorts,
        flavors=[flavors[n] for n in sorted(flavors)],
        namespaces=namespaces,
        local_queues=[LocalQueue(lq.namespace, lq.name, lq.cluster_queue, lq_stop.get(lq.key)) for lq in dump.local_queues],
        queueing=settings,
        workloads=workloads,
        statuses=statuses,
        priority_classes=dump.workload_priority_classes,
    )
    return state, dump


def load_cluster_state(
    *paths: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS
) -> tuple[ClusterState, ClusterDump]:
    """Read the files once (``"-"`` is standard input) into the cycle input and the dump."""
    objects: list[RawObject] = []
    for path in paths:
        name = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
        objects.extend(parse_documents(read_bytes(path, limits), source=name, limits=limits))
        if len(objects) > limits.max_objects:
            raise ManifestTooLarge(name, f"more than {limits.max_objects} objects in total")
    return cluster_state_from_objects(objects)
