"""Generated clusters of several quota trees for the partitioned-simulation tests.

:func:`clusters` draws a cluster as manifests (loaded like a dump): root cohorts with nested
cohorts and ClusterQueues at any level, cohort-less ClusterQueues, one or two flavors,
preemption policies, queueing strategies, admitted workloads at the start, and arrivals with
durations at coinciding times (so several trees act at one instant).
"""

from __future__ import annotations

import collections
from typing import Any, Iterable, Mapping

import attrs
from hypothesis import strategies as st

from kueue_preempt.cycle import ClusterState
from kueue_preempt.io import ClusterDump, RawObject
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.sim.arrivals.model import ArrivalRow, ArrivalsFile, PodSetOverride, RunningRow, WorkloadOverrides
from kueue_preempt.sim.output.timeline import Event

API = "kueue.x-k8s.io/v1beta2"
START = "2026-01-01T00:00:00Z"


@attrs.frozen
class Generated:
    state: ClusterState
    dump: ClusterDump
    arrivals: ArrivalsFile
    flavors: int


def _pod_set(cpu: int, count: int = 1) -> dict[str, Any]:
    return {
        "name": "main",
        "count": count,
        "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}},
    }


def _cq(name: str, cohort: str | None, nominal: int, flavors: int, borrowing: int | None, draw: Any) -> dict[str, Any]:
    resources: list[dict[str, Any]] = []
    for i in range(flavors):
        r: dict[str, Any] = {"name": "cpu", "nominalQuota": str(nominal if i == 0 else max(1, nominal // 2))}
        if borrowing is not None:
            r["borrowingLimit"] = str(borrowing)
        resources.append({"name": f"f{i}", "resources": [r]})
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": draw(st.sampled_from(["BestEffortFIFO", "BestEffortFIFO", "StrictFIFO"])),
        "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": f"f{i}", "resources": [resources[i]["resources"][0]]} for i in range(flavors)]}],
        "preemption": {
            "withinClusterQueue": draw(st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])),
            "reclaimWithinCohort": draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
        },
    }
    if cohort is not None:
        spec["cohortName"] = cohort
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


@st.composite
def clusters(draw: Any, flavors: int | None = None, max_arrivals: int = 24) -> Generated:
    """A cluster of 2-5 quota trees with its arrivals."""
    nflavors = flavors if flavors is not None else draw(st.sampled_from([1, 2]))
    objects: list[dict[str, Any]] = [
        {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": f"f{i}"}} for i in range(nflavors)
    ]
    cqs: list[str] = []
    roots = draw(st.integers(1, 3))
    for r in range(roots):
        root = f"root{r}"
        cohort: dict[str, Any] = {"apiVersion": API, "kind": "Cohort", "metadata": {"name": root}, "spec": {}}
        if draw(st.booleans()):
            cohort["spec"]["resourceGroups"] = [
                {"coveredResources": ["cpu"], "flavors": [{"name": "f0", "resources": [{"name": "cpu", "nominalQuota": str(draw(st.integers(1, 3)))}]}]}
            ]
        objects.append(cohort)
        parents = [root]
        for c in range(draw(st.integers(0, 2))):
            child = f"{root}-c{c}"
            objects.append({"apiVersion": API, "kind": "Cohort", "metadata": {"name": child}, "spec": {"parentName": root}})
            parents.append(child)
        for q in range(draw(st.integers(1, 3))):
            name = f"cq-{r}-{q}"
            borrowing = draw(st.one_of(st.none(), st.integers(0, 4)))
            objects.append(_cq(name, draw(st.sampled_from(parents)), draw(st.integers(2, 6)), nflavors, borrowing, draw))
            cqs.append(name)
    for q in range(draw(st.integers(0, 2))):
        name = f"solo-{q}"
        objects.append(_cq(name, None, draw(st.integers(2, 6)), nflavors, None, draw))
        cqs.append(name)
    running: list[RunningRow] = []
    for cq in cqs:
        ns = f"ns-{cq}"
        objects += [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
            {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": ns}, "spec": {"clusterQueue": cq}},
            {"apiVersion": API, "kind": "Workload", "metadata": {"name": "template", "namespace": ns},
             "spec": {"active": False, "queueName": "lq", "priority": 0, "podSets": [_pod_set(1)]}},
        ]
        for i in range(draw(st.integers(0, 2))):
            name = f"run-{i}"
            cpu = draw(st.integers(1, 2))
            objects.append({
                "apiVersion": API, "kind": "Workload",
                "metadata": {"name": name, "namespace": ns, "creationTimestamp": START},
                "spec": {"queueName": "lq", "priority": draw(st.sampled_from([0, 10, 100])), "podSets": [_pod_set(cpu)]},
                "status": {
                    "admission": {"clusterQueue": cq, "podSetAssignments": [
                        {"name": "main", "count": 1, "flavors": {"cpu": "f0"}, "resourceUsage": {"cpu": str(cpu)}}]},
                    "conditions": [{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": START}
                                   for t in ("QuotaReserved", "Admitted")],
                },
            })
            running.append(RunningRow(f"{ns}/{name}", float(draw(st.integers(1, 12)))))
    rows = []
    for i in range(draw(st.integers(4, max_arrivals))):
        cq = draw(st.sampled_from(cqs))
        rows.append(ArrivalRow(
            at=float(draw(st.integers(0, 12))),
            duration=float(draw(st.integers(1, 15))),
            template=f"ns-{cq}/template",
            overrides=WorkloadOverrides(
                name=f"a{i}", priority=draw(st.sampled_from([0, 10, 100])),
                pod_sets=(PodSetOverride(count=1, requests={"cpu": 1000 * draw(st.integers(1, 4))}),),
            ),
        ))
    rows.sort(key=lambda r: r.at)
    raw = [RawObject("generated", i + 1, o) for i, o in enumerate(objects)]
    state, dump = cluster_state_from_objects(raw)
    return Generated(state, dump, ArrivalsFile(rows=rows, running=running, source="generated"), nflavors)


# --------------------------------------------------------------------------- the comparison


def _fields(e: Event) -> tuple[Any, ...]:
    return tuple(getattr(e, a.name) for a in type(e).__attrs_attrs__)


def per_workload(timeline: Iterable[Event], *, collapse_inadmissible: bool = True) -> dict[str, list[tuple[Any, ...]]]:
    """Each workload's events in order, as (kind, fields...). With ``collapse_inadmissible``,
    a run of ``inadmissible`` events with the same ClusterQueue, reason and message counts as
    its first: the whole run repeats them for a head left in its active set at every cycle
    other trees cause (see kueue_preempt.sim.partition)."""
    out: dict[str, list[tuple[Any, ...]]] = collections.defaultdict(list)
    for e in timeline:
        key = getattr(e, "workload", None)
        if not isinstance(key, str):
            continue
        row = (type(e).__name__, *_fields(e))
        seq = out[key]
        if collapse_inadmissible and row[0] == "Inadmissible" and seq and seq[-1][0] == "Inadmissible" and seq[-1][2:] == row[2:]:
            continue
        seq.append(row)
    return dict(out)


def without_workload(timeline: Iterable[Event]) -> collections.Counter[tuple[Any, ...]]:
    """Events that name no workload (a livelock; a requeue run's aggregate), as a multiset
    of (kind, fields...) — ordered only by time, keyed by their root when they have one."""
    return collections.Counter(
        (type(e).__name__, *_fields(e)) for e in timeline if not isinstance(getattr(e, "workload", None), str)
    )


def differences(whole: Iterable[Event], split: Iterable[Event]) -> list[str]:
    """What differs between two timelines of one simulation, per workload (empty: equivalent)."""
    whole, split = tuple(whole), tuple(split)
    a, b = per_workload(whole), per_workload(split)
    out = []
    for key in sorted(a.keys() | b.keys()):
        if a.get(key) != b.get(key):
            out.append(f"{key}: whole {a.get(key)} != partitioned {b.get(key)}")
    if without_workload(whole) != without_workload(split):
        out.append(f"events without a workload: {without_workload(whole)} != {without_workload(split)}")
    times = [e.t for e in split]
    if times != sorted(times):
        out.append("the partitioned timeline goes back in time")
    return out


def counts(timeline: Iterable[Event]) -> Mapping[str, int]:
    return collections.Counter(type(e).__name__ for e in timeline)
