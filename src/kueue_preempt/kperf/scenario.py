"""Kueue's scheduler scalability scenarios (``test/performance/scheduler`` generator files).

A generator file describes cohorts of ClusterQueues and, per queue, concurrent streams of
workloads. :func:`parse_scenario` reads it strictly (an unknown key, a wrong type or a
topology-only field is a :class:`ScenarioError` naming the field path) and
:func:`build_scenario` turns it into exactly the objects and the arrival stream Kueue's runner
creates (``docs/howto-predict-kueue-waits.md`` and ``examples/kueue-perf/README.md``):

* one ResourceFlavor ``rf`` (or ``resourceFlavor.name``);
* for cohort entry ``className``/``count``: cohorts ``<className>-<i>``, implicit (no Cohort
  object, no quota, no parent);
* for queue set ``q`` of a cohort: ``count`` ClusterQueues ``<className>-<q>-<j>-<cohort>``
  with one resource group (``rf``, ``cpu``, ``nominalQuota``, ``borrowingLimit``),
  ``preemption.reclaimWithinCohort`` / ``withinClusterQueue`` from the file, BestEffortFIFO,
  every namespace, default flavor fungibility; a Namespace and a LocalQueue of the same name;
* for workload set ``s`` of a queue, started at 0: ``count`` iterations ``k``, each creating
  the templates ``t`` in order, each after waiting ``creationIntervalMs``: workload
  ``<className>-<s>-<k>-<t>`` is created at ``(k × T + t + 1) × creationIntervalMs`` ms
  (``T`` templates in the set), priority set directly, one pod set ``main`` of one pod
  requesting ``cpu: <request>``.

Go's zero values apply to absent fields, as in Kueue's generator (which decodes into Go
structs): an absent ``borrowingLimit`` is 0, an absent preemption policy is Kueue's default
``Never``, an absent ``count`` is 0.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.io.errors import ManifestError
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, parse_documents, read_bytes
from kueue_preempt.io.text import MAX_SECONDS
from kueue_preempt._util.checks import path_arg

__all__ = [
    "ScenarioError",
    "WorkloadTemplate",
    "WorkloadsSet",
    "QueuesSet",
    "CohortSet",
    "Scenario",
    "QueueSpec",
    "GeneratedWorkload",
    "BuiltScenario",
    "parse_scenario",
    "load_scenario",
    "build_scenario",
    "CLASS_LABEL",
    "RUNNING_MS_LABEL",
    "DEFAULT_FLAVOR",
]

CLASS_LABEL = "kueue.x-k8s.io/performance-scheduler-class"
RUNNING_MS_LABEL = "kueue.x-k8s.io/performance-scheduler-running-ms"
DEFAULT_FLAVOR = "rf"

_RECLAIM = ("Never", "LowerPriority", "Any")
_WITHIN = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")

# Fields of Kueue's TAS generator files: accepted by Kueue, refused here with a clear reason.
_TOPOLOGY_KEYS = frozenset(
    {
        "topology",
        "topologyName",
        "topologyLevels",
        "levels",
        "nodes",
        "nodeLabels",
        "nodeGroups",
        "nodeTaints",
        "tolerations",
        "podCount",
        "podsCount",
        "requiredTopologyLevel",
        "preferredTopologyLevel",
        "unconstrainedTopology",
        "topologyRequest",
        "podSetTopologyRequest",
        "sliceSize",
        "sliceTopology",
        "sliceRequiredTopologyLevel",
    }
)
_TOPOLOGY_REASON = "topology-aware scheduling is not simulated (only the non-TAS generator format is supported)"


class ScenarioError(ManifestError):
    """A generator file is malformed; ``path`` is the field path (``cohorts[0].queuesSets[0].count``)."""

    def __init__(self, source: str, path: str, reason: str) -> None:
        super().__init__(source, "", "", path, reason)


@attrs.frozen
class WorkloadTemplate:
    class_name: str
    runtime_ms: int
    priority: int
    request: int
    """CPUs per pod (the only pod of the pod set ``main``)."""


@attrs.frozen
class WorkloadsSet:
    count: int
    creation_interval_ms: int
    workloads: tuple[WorkloadTemplate, ...]


@attrs.frozen
class QueuesSet:
    class_name: str
    count: int
    nominal_quota: int
    borrowing_limit: int
    reclaim_within_cohort: str
    within_cluster_queue: str
    workloads_sets: tuple[WorkloadsSet, ...]


@attrs.frozen
class CohortSet:
    class_name: str
    count: int
    queues_sets: tuple[QueuesSet, ...]


@attrs.frozen
class Scenario:
    """A generator file as read (field names as in Kueue's Go structs)."""

    cohorts: tuple[CohortSet, ...]
    flavor: str = DEFAULT_FLAVOR
    source: str = attrs.field(default="", eq=False)


@attrs.frozen
class QueueSpec:
    """One generated ClusterQueue (and its Namespace and LocalQueue, of the same name)."""

    name: str
    cohort: str
    class_name: str
    nominal_cpu_millis: int
    borrowing_limit_cpu_millis: int
    reclaim_within_cohort: str
    within_cluster_queue: str


@attrs.frozen
class GeneratedWorkload:
    """One Workload of the stream: created ``at_ms`` after the start in namespace/LocalQueue
    ``queue`` (= its ClusterQueue's name)."""

    at_ms: int
    name: str
    queue: str
    class_name: str
    priority: int
    cpu_millis: int
    runtime_ms: int

    @property
    def key(self) -> str:
        return f"{self.queue}/{self.name}"


@attrs.frozen
class BuiltScenario:
    """The objects and the arrival stream of a scenario. ``workloads`` are sorted by creation
    time; equal times keep generation order (cohort, queue set, queue, workload set)."""

    flavor: str
    queues: tuple[QueueSpec, ...]
    workloads: tuple[GeneratedWorkload, ...]
    streams: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """The runner's creating goroutines, one per queue and workload set: ``(creationIntervalMs,
    the keys it creates in order)``."""

    def objects(self) -> list[dict[str, Any]]:
        """The Kubernetes manifests Kueue's runner creates, in creation order."""
        out: list[dict[str, Any]] = [
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": self.flavor}}
        ]
        for q in self.queues:
            out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": q.name}})
            out.append(
                {
                    "apiVersion": "kueue.x-k8s.io/v1beta2",
                    "kind": "ClusterQueue",
                    "metadata": {"name": q.name, "labels": {CLASS_LABEL: q.class_name}},
                    "spec": {
                        "cohortName": q.cohort,
                        "namespaceSelector": {},
                        "queueingStrategy": "BestEffortFIFO",
                        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
                        "preemption": {
                            "reclaimWithinCohort": q.reclaim_within_cohort,
                            "withinClusterQueue": q.within_cluster_queue,
                        },
                        "resourceGroups": [
                            {
                                "coveredResources": ["cpu"],
                                "flavors": [
                                    {
                                        "name": self.flavor,
                                        "resources": [
                                            {
                                                "name": "cpu",
                                                "nominalQuota": _cpu_text(q.nominal_cpu_millis),
                                                "borrowingLimit": _cpu_text(q.borrowing_limit_cpu_millis),
                                            }
                                        ],
                                    }
                                ],
                            }
                        ],
                    },
                }
            )
            out.append(
                {
                    "apiVersion": "kueue.x-k8s.io/v1beta2",
                    "kind": "LocalQueue",
                    "metadata": {"name": q.name, "namespace": q.name},
                    "spec": {"clusterQueue": q.name},
                }
            )
        return out

    def workload_manifest(self, w: GeneratedWorkload) -> dict[str, Any]:
        """The pending Workload the runner creates for ``w``."""
        return {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {
                "name": w.name,
                "namespace": w.queue,
                "labels": {CLASS_LABEL: w.class_name, RUNNING_MS_LABEL: str(w.runtime_ms)},
            },
            "spec": {
                "queueName": w.queue,
                "priority": w.priority,
                "podSets": [
                    {
                        "name": "main",
                        "count": 1,
                        "template": {
                            "spec": {
                                "containers": [
                                    {"name": "c", "resources": {"requests": {"cpu": _cpu_text(w.cpu_millis)}}}
                                ]
                            }
                        },
                    }
                ],
            },
        }


def _cpu_text(millis: int) -> str:
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


# --------------------------------------------------------------------------- reading


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, reason: str) -> ScenarioError:
        return ScenarioError(self.source, path, reason)

    def mapping(self, value: object, path: str, allowed: Iterable[str]) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path or "(file)", f"expected a mapping, got {_kind(value)}")
        allowed = tuple(allowed)
        for key in value:
            where = f"{path}.{key}" if path else str(key)
            if key in _TOPOLOGY_KEYS:
                raise self.fail(where, _TOPOLOGY_REASON)
            if key not in allowed:
                raise self.fail(where, f"unknown field (expected one of: {', '.join(allowed)})")
        return value

    def items(self, data: Mapping[str, Any], key: str, path: str) -> list[Any]:
        value = data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(_join(path, key), f"expected a list, got {_kind(value)}")
        return value

    def integer(self, data: Mapping[str, Any], key: str, path: str, *, low: int = 0, high: int = INT32_MAX) -> int:
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(_join(path, key), f"expected an integer, got {_kind(value)}")
        if not low <= value <= high:
            raise self.fail(_join(path, key), f"must be between {low} and {high}, got {value}")
        return value

    def name(self, data: Mapping[str, Any], key: str, path: str) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value:
            raise self.fail(_join(path, key), f"expected a non-empty string, got {_kind(value)}")
        if not _is_dns_label(value):
            raise self.fail(_join(path, key), f"{value!r} is not a valid name (lowercase letters, digits and '-')")
        return value

    def choice(self, data: Mapping[str, Any], key: str, path: str, values: tuple[str, ...]) -> str:
        value = data.get(key)
        if value is None:
            return "Never"
        if not isinstance(value, str) or value not in values:
            raise self.fail(_join(path, key), f"expected one of {', '.join(values)}, got {value!r}")
        return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _is_dns_label(value: str) -> bool:
    return (
        len(value) <= 63
        and value[0].isalnum()
        and value[-1].isalnum()
        and all(c.islower() or c.isdigit() or c == "-" for c in value)
    )


# Bounds keep generated names and totals within what Kueue accepts (names <= 63 characters
# are checked when built) and keep absurd inputs from exhausting memory: a run holds about
# 2.6 KB per object at its peak (tracemalloc, build + simulation), so 200,000 objects (four
# times Kueue's large-scale scenario) stay near 520 MB. The count is computed from the file's
# counts before anything is built.
MAX_SCENARIO_OBJECTS = 200_000
_MAX_OBJECTS = MAX_SCENARIO_OBJECTS


def parse_scenario(text: str | bytes, *, source: str = "<scenario>", limits: Limits = DEFAULT_LIMITS) -> Scenario:
    """Read a generator file (YAML or JSON, safe parsing only)."""
    try:
        docs = parse_documents(text, source=source, limits=limits)
    except ScenarioError:
        raise
    except ManifestError as exc:
        raise ScenarioError(source, exc.path, exc.reason) from None
    if len(docs) != 1:
        raise ScenarioError(source, "", f"expected one YAML document, got {len(docs)}")
    r = _Reader(source)
    top = r.mapping(docs[0].data, "", ("cohorts", "resourceFlavor"))
    flavor = DEFAULT_FLAVOR
    if "resourceFlavor" in top:
        rf = r.mapping(top["resourceFlavor"], "resourceFlavor", ("name",))
        if "name" in rf:
            flavor = r.name(rf, "name", "resourceFlavor")
    cohorts = []
    for i, raw in enumerate(r.items(top, "cohorts", "")):
        cp = f"cohorts[{i}]"
        c = r.mapping(raw, cp, ("className", "count", "queuesSets"))
        queues_sets = []
        for q_i, raw_q in enumerate(r.items(c, "queuesSets", cp)):
            qp = f"{cp}.queuesSets[{q_i}]"
            q = r.mapping(
                raw_q,
                qp,
                ("className", "count", "nominalQuota", "borrowingLimit", "reclaimWithinCohort",
                 "withinClusterQueue", "workloadsSets"),
            )
            sets = []
            for s_i, raw_s in enumerate(r.items(q, "workloadsSets", qp)):
                sp = f"{qp}.workloadsSets[{s_i}]"
                s = r.mapping(raw_s, sp, ("count", "creationIntervalMs", "workloads"))
                templates = []
                for t_i, raw_t in enumerate(r.items(s, "workloads", sp)):
                    tp = f"{sp}.workloads[{t_i}]"
                    t = r.mapping(raw_t, tp, ("className", "runtimeMs", "priority", "request"))
                    templates.append(
                        WorkloadTemplate(
                            r.name(t, "className", tp),
                            r.integer(t, "runtimeMs", tp),
                            r.integer(t, "priority", tp, low=INT32_MIN),
                            r.integer(t, "request", tp, high=1_000_000),
                        )
                    )
                sets.append(
                    WorkloadsSet(r.integer(s, "count", sp), r.integer(s, "creationIntervalMs", sp), tuple(templates))
                )
            queues_sets.append(
                QueuesSet(
                    r.name(q, "className", qp),
                    r.integer(q, "count", qp),
                    r.integer(q, "nominalQuota", qp, high=1_000_000),
                    r.integer(q, "borrowingLimit", qp, high=1_000_000),
                    r.choice(q, "reclaimWithinCohort", qp, _RECLAIM),
                    r.choice(q, "withinClusterQueue", qp, _WITHIN),
                    tuple(sets),
                )
            )
        cohorts.append(CohortSet(r.name(c, "className", cp), r.integer(c, "count", cp), tuple(queues_sets)))
    scenario = Scenario(tuple(cohorts), flavor, source)
    _check_size(scenario)
    return scenario


def _check_size(s: Scenario) -> None:
    total = 0
    for c_i, c in enumerate(s.cohorts):
        for q_i, q in enumerate(c.queues_sets):
            for w_i, ws in enumerate(q.workloads_sets):
                # The last workload is created count x len(workloads) intervals after the start:
                # a time every input must keep within MAX_SECONDS.
                if ws.count * len(ws.workloads) * ws.creation_interval_ms / 1000 > MAX_SECONDS:
                    raise ScenarioError(
                        s.source,
                        f"cohorts[{c_i}].queuesSets[{q_i}].workloadsSets[{w_i}].creationIntervalMs",
                        f"the last workload would be created more than {MAX_SECONDS:.6g} s (about 292 years) after the start",
                    )
            per_queue = sum(ws.count * len(ws.workloads) for ws in q.workloads_sets)
            total += c.count * q.count * (1 + per_queue)
    if total > _MAX_OBJECTS:
        raise ScenarioError(
            s.source,
            "cohorts",
            f"the scenario creates {total:,} objects (cohorts x queues x workloads), more than {_MAX_OBJECTS:,} "
            "(about 2.6 KB each while simulated; docs/cli.md, Limits)",
        )


def load_scenario(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> Scenario:
    """Read a generator file from ``path`` (``-`` is standard input)."""
    source = path_arg(path, "load_scenario", "path")
    return parse_scenario(read_bytes(path, limits), source=source, limits=limits)


# --------------------------------------------------------------------------- building


def build_scenario(scenario: Scenario) -> BuiltScenario:
    """The objects and the arrival stream of ``scenario`` (a pure function)."""
    queues: list[QueueSpec] = []
    streams: list[tuple[int, tuple[str, ...]]] = []
    stream: list[tuple[int, int, GeneratedWorkload]] = []
    seq = 0
    names: set[str] = set()
    for c_i, c in enumerate(scenario.cohorts):
        for i in range(c.count):
            cohort = f"{c.class_name}-{i}"
            for q_i, qs in enumerate(c.queues_sets):
                for j in range(qs.count):
                    name = f"{qs.class_name}-{q_i}-{j}-{cohort}"
                    path = f"cohorts[{c_i}].queuesSets[{q_i}]"
                    if not _is_dns_label(name):
                        raise ScenarioError(scenario.source, path, f"generated ClusterQueue name {name!r} is not a valid name (at most 63 characters)")
                    if name in names:
                        raise ScenarioError(scenario.source, path, f"generated ClusterQueue name {name!r} is not unique")
                    names.add(name)
                    queues.append(
                        QueueSpec(
                            name,
                            cohort,
                            qs.class_name,
                            qs.nominal_quota * 1000,
                            qs.borrowing_limit * 1000,
                            qs.reclaim_within_cohort,
                            qs.within_cluster_queue,
                        )
                    )
                    for s_i, ws in enumerate(qs.workloads_sets):
                        per = len(ws.workloads)
                        keys: list[str] = []
                        for k in range(ws.count):
                            for t_i, t in enumerate(ws.workloads):
                                at = (k * per + t_i + 1) * ws.creation_interval_ms
                                w = GeneratedWorkload(
                                    at, f"{t.class_name}-{s_i}-{k}-{t_i}", name, t.class_name, t.priority,
                                    t.request * 1000, t.runtime_ms,
                                )
                                stream.append((at, seq, w))
                                keys.append(w.key)
                                seq += 1
                        if keys:
                            streams.append((ws.creation_interval_ms, tuple(keys)))
    stream.sort(key=lambda x: (x[0], x[1]))
    return BuiltScenario(scenario.flavor, tuple(queues), tuple(w for _, _, w in stream), tuple(streams))
