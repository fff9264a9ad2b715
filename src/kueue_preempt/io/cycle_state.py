"""A cluster dump as the scheduling cycle's input (:class:`~kueue_preempt.cycle.ClusterState`).

:func:`load_cluster_state` reads the files once into the :class:`ClusterDump` the other
commands use; the cycle input is the dump's own :attr:`ClusterDump.state`, built from what the
loader already parsed — each ClusterQueue's settings (``queueingStrategy``,
``namespaceSelector``, ``stopPolicy``, ``flavorFungibility``), LocalQueue stop policies,
ResourceFlavor specs, the pod sets' scheduling fields, reclaimable pods and the labels of the
``v1`` Namespace objects — in the model types the cycle and the flavor assigner read.

What a dump cannot hold — the queue memory of a running Kueue — is not invented here: the
cycle starts from :func:`~kueue_preempt.cycle.initial_queue_state`.
"""

from __future__ import annotations

import os
from typing import Iterable

import attrs

from kueue_preempt.cycle import ClusterState, Namespace
from kueue_preempt.io.dump import ClusterDump, dump_from_objects, load_dump
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, RawObject

__all__ = ["load_cluster_state", "cluster_state_from_objects", "cluster_state_from_dump"]


def cluster_state_from_dump(dump: ClusterDump, namespaces: Iterable[Namespace] | None = None) -> ClusterState:
    """The cycle input of a loaded dump: :attr:`ClusterDump.state`. ``namespaces``, when given,
    replace the dump's own (empty = every namespace exists, unlabeled)."""
    if namespaces is None:
        return dump.state
    given = tuple(namespaces)
    return (attrs.evolve(dump, namespaces=given) if given != dump.namespaces else dump).state


def cluster_state_from_objects(objects: Iterable[RawObject]) -> tuple[ClusterState, ClusterDump]:
    """The :class:`ClusterDump` of the raw objects and its cycle input (``dump.state``),
    refused as :func:`load_cluster_state` refuses a file (:meth:`ClusterDump.validate`)."""
    dump = dump_from_objects(objects)
    dump.validate()
    return dump.state, dump


def load_cluster_state(
    *paths: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS
) -> tuple[ClusterState, ClusterDump]:
    """Read the files once (``"-"`` is standard input) into the dump and its cycle input
    (``dump.state``, the same object). The same loader as :func:`~kueue_preempt.io.load_dump`,
    so every command refuses the same dumps (:meth:`ClusterDump.validate`)."""
    dump = load_dump(*paths, limits=limits)
    return dump.state, dump
