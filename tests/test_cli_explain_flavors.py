"""``explain`` runs Kueue's flavor assignment (issue 17 item 2): the bundled spot/on-demand
example, where ``flavorFungibility`` decides who is preempted, and the flavor trace.

The expected outcomes are derived by hand from the example (see its header comment):

* research has spot 8 CPU / 32Gi (all used by ``sweep-batch``, priority 100) and then on-demand
  8 CPU / 32Gi (2 CPU used by ``eval-service``, priority 1000; 6 CPU lent to serving, whose
  ``api-burst``, priority 100, runs 10 CPU on a nominal 4). Nothing is free.
* ``train-resnet`` (priority 500, 3 x 2 CPU / 8Gi, tolerates the spot taint) asks 6 CPU / 24Gi:
  - spot: capacity 8 >= 6 but unused 0 -> the oracle finds ``sweep-batch`` in research itself:
    granular mode (preempt, 0) (FAS-6);
  - on-demand: 2 + 6 <= nominal 8, so reclaiming serving's loan makes room: (reclaim, 0).
* ``whenCanPreempt: TryNextFlavor``: after spot's preempt mode the scan goes on (FAS-10 b),
  reclaim is preferred over preempt (FAS-9) -> on-demand, victim ``api-burst``
  (InCohortReclamation).
* ``whenCanPreempt: MayStopSearch``: the scan stops at spot (FAS-10) -> victim ``sweep-batch``
  (InClusterQueue).
* ``notebook`` does not tolerate the taint: spot is skipped with Kueue's message (FAS-5, FAS-21).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import run_cli
from kueue_preempt import (
    ClusterQueue,
    ClusterQueuePreemption,
    PodSetUsage,
    PreemptionConfig,
    ResourceQuota,
    Snapshot,
    Workload,
)
from kueue_preempt import explain
from kueue_preempt.cycle import CycleConfig
from kueue_preempt.cycle.nominate import nominate
from kueue_preempt.model.flavors import (
    FlavorFungibility,
    FlavorQuotas,
    FungibilityPolicy,
    PodSetSpec,
    ResourceFlavor,
    ResourceGroup,
    Taint,
    Toleration,
)
from kueue_preempt.io import load_dump
from kueue_preempt.preemption.common.trace import DecisionTrace

ROOT = Path(__file__).resolve().parent.parent
SPOT = ROOT / "examples" / "spot-on-demand.yaml"
TRAIN = "research/train-resnet-9e3b4"
NOTEBOOK = "research/notebook-5a6c1"
NOW = "2026-03-04T10:00:00Z"


def _explain_json(path: str, workload: str, stdin: str | None = None) -> dict[str, Any]:
    result = run_cli("explain", path, "--workload", workload, "--now", NOW, "-o", "json", stdin=stdin)
    assert result.returncode in (0, 1), result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _variant(when_can_preempt: str) -> str:
    text = SPOT.read_text()
    assert "whenCanPreempt: TryNextFlavor" in text
    return text.replace("whenCanPreempt: TryNextFlavor", f"whenCanPreempt: {when_can_preempt}")


def test_try_next_flavor_reclaims_on_demand_from_the_borrower() -> None:
    """FAS-10 (b) + FAS-9: both flavors judged, reclaim beats preempt -> api-burst is evicted."""
    doc = _explain_json(str(SPOT), TRAIN)
    assert doc["assignmentSource"] == "kueue"
    assert "FAS-12" in doc["assignmentNote"]
    (ps,) = doc["assignment"]["podSets"]
    assert {r: f["name"] for r, f in ps["flavors"].items()} == {"cpu": "on-demand", "memory": "on-demand"}
    assert ps["mode"] == "Preempt"
    considered = {a["flavor"]: a["preemptionMode"] for a in ps["flavorsConsidered"]}
    assert considered == {"spot": "Preempt", "on-demand": "Reclaim"}
    assert [(t["workload"], t["reason"]) for t in doc["targets"]] == [("serving/api-burst-2b8e7", "InCohortReclamation")]
    assert doc["outcome"] == "targets"


def test_may_stop_search_preempts_on_spot_in_its_own_queue() -> None:
    """FAS-10: whenCanPreempt MayStopSearch stops at the first flavor that preemption can free."""
    doc = _explain_json("-", TRAIN, stdin=_variant("MayStopSearch"))
    (ps,) = doc["assignment"]["podSets"]
    assert {r: f["name"] for r, f in ps["flavors"].items()} == {"cpu": "spot", "memory": "spot"}
    # on-demand was never examined: the scan stopped at spot.
    assert [a["flavor"] for a in ps["flavorsConsidered"]] == ["spot"]
    assert [(t["workload"], t["reason"]) for t in doc["targets"]] == [("research/sweep-batch-4f1a2", "InClusterQueue")]


def test_the_v1beta1_spelling_preempt_means_may_stop_search() -> None:
    """API-30 / FAS-8: v1beta1 ``whenCanPreempt: Preempt`` is MayStopSearch."""
    text = _variant("Preempt").replace("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1").replace("cohortName:", "cohort:")
    doc = _explain_json("-", TRAIN, stdin=text)
    assert [t["workload"] for t in doc["targets"]] == ["research/sweep-batch-4f1a2"]


def test_untolerated_taint_is_skipped_with_kueues_message() -> None:
    """FAS-5 / FAS-21: the spot flavor's taint is not tolerated by the notebook's pods."""
    doc = _explain_json(str(SPOT), NOTEBOOK)
    (ps,) = doc["assignment"]["podSets"]
    spot = next(a for a in ps["flavorsConsidered"] if a["flavor"] == "spot")
    assert spot["mode"] == "NoFit"
    assert spot["reasons"] == ["untolerated taint {cloud.example.com/spot true NoSchedule <nil>} in flavor spot"]
    assert ps["flavors"]["cpu"]["name"] == "on-demand"


def test_table_shows_each_flavor_considered_and_the_source() -> None:
    result = run_cli("explain", str(SPOT), "--workload", TRAIN, "--now", NOW, "--no-trace")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Assignment:    Kueue's flavor assignment, scanning every resource group from its first flavor" in out
    assert "  pod set main x 3: cpu -> on-demand (Preempt), memory -> on-demand (Preempt) [Preempt]" in out
    assert "    considered spot: Preempt, preemptionMode=Preempt - insufficient unused quota for cpu in flavor spot, 6 more needed" in out
    assert "    considered on-demand: Preempt, preemptionMode=Reclaim - " in out


def test_trace_records_the_flavor_scan() -> None:
    """Issue 17 item 1: every flavor taken or skipped is in the decision trace, with its rule."""
    doc = _explain_json("-", TRAIN, stdin=_variant("MayStopSearch"))
    rules = [(e["rule"], e["detail"]) for e in doc["trace"]]
    # memory is scanned first (FAS-19: FNV order of the resource names); one scan serves the group.
    assert ("FAS-10", "flavor spot for memory: the scan stops here") in rules
    assert ("FAS-10", "flavor spot for memory: chosen, mode (preempt, 0)") in rules
    assert not any("on-demand" in detail for rule, detail in rules if rule.startswith("FAS-"))


def test_a_flavor_missing_from_the_dump_is_taken_plain(tmp_path: Path) -> None:
    """docs/decisions.md: a partial dump without ResourceFlavor objects still explains."""
    docs = [d for d in yaml.safe_load(SPOT.read_text())["items"] if d["kind"] != "ResourceFlavor"]
    path = tmp_path / "no-flavors.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    doc = _explain_json(str(path), NOTEBOOK)
    assert "ResourceFlavor spot, on-demand not in the dump" in doc["assignmentNote"]
    # Without the taint, the notebook may use spot too: preempting sweep-batch (preempt) vs
    # reclaiming on-demand (reclaim): reclaim still wins (FAS-9).
    (ps,) = doc["assignment"]["podSets"]
    assert {a["flavor"]: a["preemptionMode"] for a in ps["flavorsConsidered"]} == {"spot": "Preempt", "on-demand": "Reclaim"}


def test_the_dump_yields_the_flavors_model() -> None:
    """One mapping: the loader produces the assigner's own types (issue 17 item 2, step 1)."""
    dump = load_dump(SPOT)
    research = next(cq for cq in dump.cluster_queues if cq.name == "research")
    assert research.flavor_fungibility == FlavorFungibility(FungibilityPolicy.MAY_STOP_SEARCH, FungibilityPolicy.TRY_NEXT_FLAVOR)
    spot = next(f for f in dump.flavors() if f.name == "spot")
    assert isinstance(spot, ResourceFlavor)
    assert spot.node_taints == (Taint("cloud.example.com/spot", "true", "NoSchedule"),)
    train = dump.workload(TRAIN).workload
    (spec,) = train.spec_pod_sets
    assert isinstance(spec, PodSetSpec) and spec.count == 3
    assert spec.tolerations == (Toleration("cloud.example.com/spot", "Exists", "", "NoSchedule"),)


# --------------------------------------------------------------------------- explain == the cycle's nomination

_T0 = datetime(2026, 3, 4, 8, tzinfo=timezone.utc)
_POLICIES = [FungibilityPolicy.MAY_STOP_SEARCH, FungibilityPolicy.TRY_NEXT_FLAVOR]


def _queue(name: str, nominal: list[int], ff: FlavorFungibility | None = None) -> ClusterQueue:
    group = ResourceGroup(["cpu"], [FlavorQuotas(f, {"cpu": ResourceQuota(n)}) for f, n in zip(("spot", "on-demand"), nominal)])
    return ClusterQueue(
        name,
        cohort="batch",
        resource_groups=[group],
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
        flavor_fungibility=ff or FlavorFungibility(),
    )


@settings(max_examples=60, deadline=None)
@given(
    nominal=st.lists(st.integers(0, 8), min_size=4, max_size=4),
    running=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["spot", "on-demand"]), st.integers(1, 6), st.integers(0, 200)),
        max_size=5,
    ),
    request=st.integers(1, 10),
    borrow=st.sampled_from(_POLICIES),
    preempt=st.sampled_from(_POLICIES),
    tolerates=st.booleans(),
)
def test_explain_assigns_as_the_cycle_nominates_a_head(
    nominal: list[int],
    running: list[tuple[str, str, int, int]],
    request: int,
    borrow: FungibilityPolicy,
    preempt: FungibilityPolicy,
    tolerates: bool,
) -> None:
    """ex-a / SC-NOM-2: explain's flavors, mode and targets are the cycle's nomination of the same
    workload as its queue's head with no scan progress (FAS-12), whatever the fungibility."""
    queues = [_queue("a", nominal[:2], FlavorFungibility(borrow, preempt)), _queue("b", nominal[2:])]
    admitted = [
        Workload(
            name=f"r{i}", namespace="ns", priority=prio, cluster_queue=cq, quota_reserved_at=_T0,
            pod_sets=[PodSetUsage("main", 1, {"cpu": flavor}, {"cpu": cpu * 1000})],
        )
        for i, (cq, flavor, cpu, prio) in enumerate(running)
    ]  # fmt: skip
    flavors = [
        ResourceFlavor("spot", node_taints=[Taint("spot", "true", "NoSchedule")]),
        ResourceFlavor("on-demand"),
    ]
    tolerations = [Toleration("spot", "Exists", "", "NoSchedule")] if tolerates else []
    incoming = Workload(
        name="p", namespace="ns", priority=100, creation_time=_T0,
        spec_pod_sets=[PodSetSpec("main", 1, {"cpu": request * 1000}, tolerations=tolerations)],
    )  # fmt: skip
    snapshot = Snapshot(queues, workloads=admitted)
    now = datetime(2026, 3, 4, 10, tzinfo=timezone.utc)
    got = explain(incoming, "a", snapshot, flavors=flavors, config=PreemptionConfig(), now=now)
    want = nominate(incoming, "a", snapshot, {f.name: f for f in flavors}, CycleConfig(PreemptionConfig()), now)
    assert got.mode.value == want.mode.value
    assert got.assignment is not None
    chosen = {(ps.name, r): f.flavor for ps in got.assignment.pod_sets for r, f in ps.flavors.items()}
    assert chosen == dict(want.pins)
    assert [t.workload.key for t in got.targets] == [t.workload.key for t in want.targets]
