"""The DUMP argument every dump-reading command shares: files, or the live cluster through kubectl.

With DUMP files the objects come from the files; without, from ``kubectl get TYPE -o json``
(:mod:`kueue_preempt.io.kubectl`) with kubectl's own selection flags. Either way the command
gets the same raw object list, so validation and answers are the same.
"""

from __future__ import annotations

import argparse
import logging
from typing import Sequence

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.cycle import ClusterState
from kueue_preempt.io.dump import ClusterDump, dump_from_objects, read_objects
from kueue_preempt.io.kubectl import KUEUE_RESOURCES, KubectlSource, ResourceType, read_cluster
from kueue_preempt.io.read import RawObject

__all__ = ["DUMP_HELP", "add_dump_arguments", "objects_of", "dump_of", "cluster_state_of"]

_log = logging.getLogger("kueue_preempt.cli")

DUMP_HELP = (
    "YAML/JSON files (kubectl get -o yaml); - for stdin; none: read the current cluster through kubectl"
)


def add_dump_arguments(parser: argparse.ArgumentParser, *, nargs: str = "*", help: str = DUMP_HELP) -> None:
    """``DUMP...`` and the cluster flags (kubectl's own names) used when no DUMP is given."""
    parser.add_argument("dump", nargs=nargs, metavar="DUMP", help=help)
    group = parser.add_argument_group("the cluster, when no DUMP is given (read with kubectl get -o json)")
    group.add_argument("--context", metavar="NAME", help="the kubeconfig context (default: the current one)")
    group.add_argument("--kubeconfig", metavar="FILE", help="the kubeconfig file (default: kubectl's)")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "-n", "--namespace", metavar="NS", help="read LocalQueues, Workloads and Pods of this namespace only"
    )
    where.add_argument(
        "-A", "--all-namespaces", action="store_true", help="read namespaced objects in all namespaces (the default)"
    )


def _cluster_flags(args: argparse.Namespace) -> list[str]:
    given = [
        ("--context", getattr(args, "context", None)),
        ("--kubeconfig", getattr(args, "kubeconfig", None)),
        ("--namespace", getattr(args, "namespace", None)),
        ("--all-namespaces", getattr(args, "all_namespaces", False) or None),
    ]
    return [flag for flag, value in given if value is not None]


def objects_of(args: argparse.Namespace, resources: Sequence[ResourceType] = KUEUE_RESOURCES) -> list[RawObject]:
    """The raw objects of the DUMP files, or of the cluster when none is given."""
    if args.dump:
        flags = _cluster_flags(args)
        if flags:
            raise ConfigurationError(f"{', '.join(flags)} select the cluster to read: give them without DUMP files")
        return read_objects(*args.dump)
    source = KubectlSource(context=args.context, kubeconfig=args.kubeconfig, namespace=args.namespace)
    read = read_cluster(source, resources)
    if read.missing:
        _log.info("note: the cluster does not serve %s (read as none)", ", ".join(read.missing))
    if source.namespace is not None:
        _log.warning(
            "note: namespace %s only: what objects of other namespaces use (quota, node capacity) is not counted",
            source.namespace,
        )
    return list(read.objects)


def dump_of(args: argparse.Namespace, resources: Sequence[ResourceType] = KUEUE_RESOURCES) -> ClusterDump:
    """The :class:`ClusterDump` of the DUMP files or the cluster, validated as
    :func:`~kueue_preempt.io.load_dump` validates files (:meth:`ClusterDump.validate`)."""
    dump = dump_from_objects(objects_of(args, resources))
    dump.validate()
    return dump


def cluster_state_of(args: argparse.Namespace) -> tuple[ClusterState, ClusterDump]:
    """The cycle input and the dump of the DUMP files or the cluster."""
    return cluster_state_from_objects(objects_of(args))
