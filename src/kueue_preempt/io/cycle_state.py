"""A cluster dump as the scheduling cycle's input (:class:`~kueue_preempt.cycle.ClusterState`).

:func:`load_cluster_state` reads the files once and builds the :class:`ClusterDump` the other
commands use; :func:`cluster_state_from_dump` turns what the loader already parsed — each
ClusterQueue's settings (``queueingStrategy``, ``namespaceSelector``, ``stopPolicy``,
``flavorFungibility``), LocalQueue stop policies, ResourceFlavor specs, the pod sets' scheduling
fields and reclaimable pods — into the model types the cycle and the flavor assigner read.
Namespace objects (``v1``), which the dump loader skips, are read here for their labels.

What a dump cannot hold — the queue memory of a running Kueue — is not invented here: the
cycle starts from :func:`~kueue_preempt.cycle.initial_queue_state`.
"""

from __future__ import annotations

import os
from typing import Iterable

import attrs

from kueue_preempt.cycle import ClusterState, Namespace, WorkloadStatus
from kueue_preempt.model import Workload
from kueue_preempt.io import objects as io
from kueue_preempt.io._fields import open_object
from kueue_preempt.io.dump import ClusterDump, dump_from_objects, read_objects
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, RawObject

__all__ = ["load_cluster_state", "cluster_state_from_objects", "cluster_state_from_dump"]


def _workload(lw: io.LoadedWorkload) -> Workload:
    # The loader already gives every Workload its spec pod sets and ClusterQueue its
    # flavorFungibility (one mapping, io/objects.py); the cycle reads ``status.reclaimablePods``
    # as written for admitted workloads too (FAS-1a).
    if lw.workload.reclaimable_pods == lw.reclaimable_pods:
        return lw.workload
    return attrs.evolve(lw.workload, reclaimable_pods=lw.reclaimable_pods)


_DEFAULT_STATUS = WorkloadStatus()


def cluster_state_from_dump(dump: ClusterDump, namespaces: Iterable[Namespace] = ()) -> ClusterState:
    """The cycle input of a loaded dump. ``namespaces`` empty = every namespace exists, unlabeled."""
    queueing = {s.name: s for s in dump.cluster_queue_settings}
    return ClusterState(
        cluster_queues=dump.cluster_queues,
        cohorts=dump.cohorts,
        flavors=dump.flavors(),
        namespaces=namespaces,
        local_queues=dump.local_queues,
        queueing=queueing,
        workloads=[_workload(lw) for lw in dump.workloads],
        statuses={lw.key: lw.status for lw in dump.workloads if lw.status != _DEFAULT_STATUS},
        priority_classes=dump.workload_priority_classes,
    )


def _namespaces(objects: Iterable[RawObject]) -> list[Namespace]:
    out = []
    for raw in objects:
        if raw.data.get("kind") == "Namespace" and raw.data.get("apiVersion") == "v1":
            meta = open_object(raw.source, raw.index, raw.data, "Namespace", namespaced=False)
            out.append(Namespace(meta.name, meta.metadata.get("labels").string_map()))
    return out


def cluster_state_from_objects(objects: Iterable[RawObject]) -> tuple[ClusterState, ClusterDump]:
    """The cycle input and the :class:`ClusterDump` of the same raw objects."""
    objs = list(objects)
    dump = dump_from_objects(objs)
    return cluster_state_from_dump(dump, _namespaces(objs)), dump


def load_cluster_state(
    *paths: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS
) -> tuple[ClusterState, ClusterDump]:
    """Read the files once (``"-"`` is standard input) into the cycle input and the dump."""
    return cluster_state_from_objects(read_objects(*paths, limits=limits))
