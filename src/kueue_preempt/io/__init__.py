"""Real inputs: Kubernetes/Kueue manifests (YAML or JSON, ``kubectl get -o yaml`` dumps) to
the model, and the model back to manifests.

An edge of the library: nothing below it imports it.

* :func:`load_dump` / :func:`parse_dump` -> :class:`ClusterDump` (objects by kind, skipped
  kinds counted); :meth:`ClusterDump.snapshot` builds the quota tree with the workloads that
  hold quota; :meth:`ClusterDump.pending_workload` finds ``NS/NAME``; for the PodGroup path,
  :meth:`ClusterDump.cluster` and :meth:`ClusterDump.pod_group_preemptor`.
* :func:`parse_assignment` / :func:`load_assignment` (an explicit assignment, ``explain
  --assignment``), :func:`to_assignment` (FA-3 and FA-2) give the
  :class:`~kueue_preempt.Assignment` that ``get_targets`` takes; Kueue's own flavor assignment
  is :func:`kueue_preempt.assign_flavors`, which the workloads and ClusterQueues of a dump feed
  directly (:meth:`ClusterDump.flavors` gives its ResourceFlavors).
* :func:`dump_text` / :func:`to_manifests` write a dump back as manifests.
* :func:`load_kueue_config` / :func:`parse_kueue_config` read Kueue's Configuration file into
  a :class:`KueueConfiguration`, whose ``preemption_config()`` is what ``get_targets`` takes.

Fields read per kind and apiVersion: docs/manifests.md.

YAML needs the optional PyYAML dependency (``pip install 'kueue-preempt[yaml]'``, from a
checkout ``pip install '.[yaml]'``); JSON needs nothing. Every error is a :class:`~kueue_preempt.KueuePreemptError`.
"""

from __future__ import annotations

from kueue_preempt.io.text import quantity_text, time_text
from kueue_preempt.io.assign import (
    FlavorChoice,
    PodSetAssignment,
    WorkloadAssignment,
    load_assignment,
    parse_assignment,
    to_assignment,
    total_requests_for,
)
from kueue_preempt.io.dump import SUPPORTED_KINDS, ClusterDump, dump_from_objects, load_dump, parse_dump
from kueue_preempt.io.errors import (
    ManifestError,
    ManifestSyntaxError,
    ManifestTooLarge,
    NotPending,
    ObjectNotFound,
    WorkloadNotFound,
    YamlUnavailable,
)
from kueue_preempt.io.kueue import pod_requests
from kueue_preempt.io.kueue_config import KueueConfiguration, load_kueue_config, parse_kueue_config
from kueue_preempt.io.objects import (
    AdmissionCheckRule,
    ClusterQueueSettings,
    FlavorFungibility,
    LoadedWorkload,
    LocalQueue,
    PodSetRequests,
    PriorityClass,
    ResourceFlavorSpec,
    Taint,
    Toleration,
)
from kueue_preempt.io.read import Limits, RawObject, parse_documents, read_bytes
from kueue_preempt.io.write import as_list, dump_text, to_manifests, workload_manifest

__all__ = [
    "AdmissionCheckRule",
    "ClusterDump",
    "ClusterQueueSettings",
    "FlavorFungibility",
    "KueueConfiguration",
    "ResourceFlavorSpec",
    "Taint",
    "Toleration",
    "load_kueue_config",
    "parse_kueue_config",
    "FlavorChoice",
    "Limits",
    "LoadedWorkload",
    "LocalQueue",
    "ManifestError",
    "ManifestSyntaxError",
    "ManifestTooLarge",
    "NotPending",
    "ObjectNotFound",
    "PodSetAssignment",
    "PodSetRequests",
    "PriorityClass",
    "RawObject",
    "SUPPORTED_KINDS",
    "WorkloadAssignment",
    "WorkloadNotFound",
    "YamlUnavailable",
    "as_list",
    "dump_from_objects",
    "dump_text",
    "load_assignment",
    "load_dump",
    "parse_assignment",
    "parse_documents",
    "parse_dump",
    "time_text",
    "pod_requests",
    "quantity_text",
    "read_bytes",
    "to_assignment",
    "to_manifests",
    "total_requests_for",
    "workload_manifest",
]
