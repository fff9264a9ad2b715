"""Unit tests of the flavor assigner's rules (FAS-*), POL-8's unset policy, and the new models."""

from __future__ import annotations

import pytest

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    ConfigurationError,
    DecisionTrace,
    FairSharingConfig,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    InvalidModel,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    assign_flavors,
)
from kueue_preempt.assignment import AssignmentGates, assign_with_targets
from kueue_preempt.model import NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration
from kueue_preempt.assignment import (
    OracleResult,
    PreemptionPossibility,
    TargetsOracle,
    first_untolerated_taint,
    fnv_order,
    format_quantity,
    match_selector,
    tolerates,
)
from kueue_preempt.io.write import cluster_queue_manifest
from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.preemption.common.policy import borrow_within_cohort_forbidden, satisfies_preemption_policy
from kueue_preempt.model.quantity import UNLIMITED

CPU = "cpu"


def _cq(
    flavors: dict[str, int],
    *,
    name: str = "cq",
    cohort: str | None = None,
    preemption: ClusterQueuePreemption | None = None,
    resources: tuple[str, ...] = (CPU,),
) -> ClusterQueue:
    return ClusterQueue(
        name=name,
        cohort=cohort,
        resource_groups=[
            ResourceGroup(list(resources), [FlavorQuotas(f, {r: ResourceQuota(n) for r in resources}) for f, n in flavors.items()])
        ],
        preemption=preemption or ClusterQueuePreemption(),
    )


def _wl(*pod_sets: PodSetSpec, name: str = "wl", priority: int | None = None) -> Workload:
    return Workload(name=name, namespace="ns", priority=priority, spec_pod_sets=pod_sets)


def _admitted(name: str, cq: str, flavor: str, cpu: int, priority: int = 0) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        cluster_queue=cq,
        priority=priority,
        quota_reserved_at="2026-01-01T00:00:00Z",
        pod_sets=[PodSetUsage(flavors={CPU: flavor}, usage={CPU: cpu})],
    )


# ------------------------------------------------------------------ FAS-19, FAS-22: order and format


def test_fnv_order_matches_the_spec_example() -> None:
    """FAS-19: ``memory`` < ``pods`` < ``example.com/gpu`` < ``cpu`` in FNV-1a order."""
    assert fnv_order(["cpu", "example.com/gpu", "pods", "memory"]) == ["memory", "pods", "example.com/gpu", "cpu"]


@pytest.mark.parametrize(
    ("amount", "resource", "text"),
    [
        (1000, "cpu", "1"),
        (500, "cpu", "500m"),
        (1500, "cpu", "1500m"),
        (10485760, "memory", "10Mi"),
        (1536, "memory", "1536"),
        (2000, "memory", "2k"),
        (1000, "memory", "1k"),
        (3, "pods", "3"),
        (1000, "pods", "1k"),
        (1500, "pods", "1500"),
        (0, "cpu", "0"),
    ],
)
def test_quantity_formatting_examples(amount: int, resource: str, text: str) -> None:
    """FAS-22's worked examples."""
    assert format_quantity(amount, resource) == text


def test_unlimited_is_written_only_on_the_quota_side() -> None:
    """FAS-22: ``<unlimited>`` for %A/%P/%N, a number for the request %Q."""
    assert format_quantity(UNLIMITED, "pods") == "<unlimited>"
    assert format_quantity(UNLIMITED, "pods", quota_side=False) != "<unlimited>"


# ------------------------------------------------------------------ FAS-5, FAS-5b: matching


@pytest.mark.parametrize(
    ("toleration", "taint", "ok"),
    [
        (Toleration("k", "Equal", "v", "NoSchedule"), Taint("k", "v", "NoSchedule"), True),
        (Toleration("k", "", "v", ""), Taint("k", "v", "NoExecute"), True),  # "" = Equal, effect empty = any
        (Toleration("k", "Equal", "w", ""), Taint("k", "v", "NoSchedule"), False),
        (Toleration("", "Exists"), Taint("anything", "x", "NoSchedule"), True),
        (Toleration("k", "Exists", "", "NoExecute"), Taint("k", "v", "NoSchedule"), False),  # effect differs
        (Toleration("k", "Lt", "10"), Taint("k", "5", "NoSchedule"), True),  # taint 5 < 10
        (Toleration("k", "Gt", "10"), Taint("k", "5", "NoSchedule"), False),
        (Toleration("k", "Gt", "4"), Taint("k", "5", "NoSchedule"), True),
        (Toleration("k", "Lt", "010"), Taint("k", "5", "NoSchedule"), False),  # not canonical
        (Toleration("k", "Bogus", "v"), Taint("k", "v", "NoSchedule"), False),
    ],
)
def test_tolerations(toleration: Toleration, taint: Taint, ok: bool) -> None:
    """FAS-5b: Kubernetes' ToleratesTaint, Lt/Gt on canonical int64 values."""
    assert tolerates(toleration, taint) is ok


def test_prefer_no_schedule_taints_are_ignored() -> None:
    """FAS-5b: only NoSchedule and NoExecute taints can exclude a flavor."""
    assert first_untolerated_taint([Taint("k", "v", "PreferNoSchedule")], []) is None
    t = Taint("k", "", "NoSchedule")
    assert first_untolerated_taint([Taint("a", "", "PreferNoSchedule"), t], []) == t


def test_selector_only_reads_the_flavors_label_keys() -> None:
    """FAS-5: keys the flavor's nodeLabels do not define are dropped from the selector."""
    flavor = ResourceFlavor("f", node_labels={"zone": "a"})
    assert match_selector(PodSetSpec("p", node_selector={"zone": "a", "other": "x"}), flavor).matches
    assert not match_selector(PodSetSpec("p", node_selector={"zone": "b"}), flavor).matches


def test_affinity_terms_are_ored_and_emptied_terms_match() -> None:
    """FAS-5b: terms ORed, expressions ANDed; a term left without expressions matches."""
    flavor = ResourceFlavor("f", node_labels={"zone": "a", "gen": "5"})
    zone_b = NodeSelectorTerm([NodeSelectorRequirement("zone", "In", ["b"])])
    gen_gt4 = NodeSelectorTerm([NodeSelectorRequirement("gen", "Gt", ["4"])])
    foreign = NodeSelectorTerm([NodeSelectorRequirement("rack", "In", ["r1"])])
    assert not match_selector(PodSetSpec("p", required_node_affinity=[zone_b]), flavor).matches
    assert match_selector(PodSetSpec("p", required_node_affinity=[zone_b, gen_gt4]), flavor).matches
    assert match_selector(PodSetSpec("p", required_node_affinity=[zone_b, foreign]), flavor).matches


def test_unparsable_affinity_fails_the_pod_set_with_an_error() -> None:
    """FAS-5b: an expression Kubernetes cannot parse, with no matching term, is a status error."""
    bad = NodeSelectorTerm([NodeSelectorRequirement("gen", "Gt", ["x"])])
    snapshot = Snapshot([_cq({"f": 4000})])
    wl = _wl(PodSetSpec("main", 1, {CPU: 1000}, required_node_affinity=[bad]))
    a = assign_flavors(wl, "cq", snapshot, [ResourceFlavor("f", node_labels={"gen": "5"})])
    assert a.mode is FlavorAssignmentMode.NO_FIT
    assert a.pod_sets[0].status.error is not None
    assert a.message.startswith("failed to assign flavors to pod set main: ")


def test_taint_and_affinity_reasons_verbatim() -> None:
    """FAS-5a/FAS-21: skipped flavors give Kueue's texts and NoMatchingFlavor attempts."""
    cq = _cq({"tainted": 4000, "labelled": 4000})
    flavors = [
        ResourceFlavor("tainted", node_taints=[Taint("gpu", "", "NoSchedule")]),
        ResourceFlavor("labelled", node_labels={"zone": "a"}),
    ]
    wl = _wl(PodSetSpec("main", 1, {CPU: 1000}, node_selector={"zone": "b"}))
    a = assign_flavors(wl, "cq", Snapshot([cq]), flavors)
    assert a.mode is FlavorAssignmentMode.NO_FIT
    assert sorted(a.pod_sets[0].status.reasons) == [
        "flavor labelled doesn't match node affinity",
        "untolerated taint {gpu  NoSchedule <nil>} in flavor tainted",
    ]
    assert a.no_fit_reason == "NoMatchingFlavor"  # FAS-24
    assert a.message == (
        "couldn't assign flavors to pod set main: flavor labelled doesn't match node affinity, "
        "untolerated taint {gpu  NoSchedule <nil>} in flavor tainted"
    )


# ------------------------------------------------------------------ FAS-6 / POL-8: unset policies


def _borrow_case(bwc: BorrowWithinCohort | None, reclaim: str | PreemptionPolicy = "LowerPriority") -> str:
    """cq (nominal 0) borrows from a full cohort: FAS-6 asks the oracle only if it may
    preempt while borrowing. Returns the API mode of cpu."""
    cq = _cq({"f": 0}, cohort="co", preemption=ClusterQueuePreemption(reclaim_within_cohort=reclaim, borrow_within_cohort=bwc))
    other = _cq({"f": 4000}, name="other", cohort="co")
    snapshot = Snapshot([cq, other], workloads=[_admitted("busy", "other", "f", 4000)])

    def oracle(w: Workload, q: str, fr: FlavorResource, v: int, s: Snapshot) -> OracleResult:
        return OracleResult(PreemptionPossibility.RECLAIM, 1)

    a = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000})), "cq", snapshot, [ResourceFlavor("f")], oracle=oracle)
    return a.pod_sets[0].flavors[CPU].mode.value if a.pod_sets[0].flavors else "NoFit"


def test_unset_borrow_within_cohort_policy_allows_the_oracle() -> None:
    """FAS-6/POL-8: an unset ``borrowWithinCohort.policy`` is not Never (Kueue compares as stored)."""
    assert _borrow_case(BorrowWithinCohort(policy=PreemptionPolicy.UNSET)) == "Preempt"
    assert _borrow_case(BorrowWithinCohort(policy="LowerPriority")) == "Preempt"
    assert _borrow_case(BorrowWithinCohort(policy="Never")) == "NoFit"
    assert _borrow_case(None) == "NoFit"


def test_unset_policy_is_distinct_and_matches_no_candidate() -> None:
    """POL-8: UNSET is its own value; as a candidate policy it matches nothing (like POL-4)."""
    assert ClusterQueuePreemption().within_cluster_queue is PreemptionPolicy.NEVER
    assert ClusterQueuePreemption(within_cluster_queue="").within_cluster_queue is PreemptionPolicy.UNSET
    low = Workload(name="low", priority=0)
    high = Workload(name="high", priority=10)
    assert not satisfies_preemption_policy(high, low, PreemptionPolicy.UNSET)
    cq = ClusterQueue("q", preemption=ClusterQueuePreemption(
        reclaim_within_cohort="Any", borrow_within_cohort=BorrowWithinCohort(policy=PreemptionPolicy.UNSET)))
    assert not borrow_within_cohort_forbidden(cq)


def test_writer_omits_unset_policies() -> None:
    """POL-8: a manifest has no spelling for 'unset'; the field is left out (the API server then defaults it)."""
    cq = ClusterQueue("q", preemption=ClusterQueuePreemption(within_cluster_queue="", reclaim_within_cohort="Any"))
    spec = cluster_queue_manifest(cq)["spec"]
    assert spec["preemption"] == {"reclaimWithinCohort": "Any"}


def test_fair_sharing_with_unset_reclaim_allows_the_oracle() -> None:
    """FAS-6: with fair sharing, ``reclaimWithinCohort`` unset (not Never) lets the oracle run."""
    for reclaim, mode in ((PreemptionPolicy.UNSET, "Preempt"), (PreemptionPolicy.NEVER, "NoFit")):
        cq = _cq({"f": 0}, cohort="co", preemption=ClusterQueuePreemption(reclaim_within_cohort=reclaim))
        other = _cq({"f": 4000}, name="other", cohort="co")
        snapshot = Snapshot([cq, other], workloads=[_admitted("busy", "other", "f", 4000)])
        a = assign_flavors(
            _wl(PodSetSpec("main", 1, {CPU: 1000})),
            "cq",
            snapshot,
            [ResourceFlavor("f")],
            config=PreemptionConfig(fair_sharing=FairSharingConfig()),
            oracle=lambda w, q, fr, v, s: OracleResult("Reclaim", 1),
        )
        assert a.mode.value == mode, reclaim


# ------------------------------------------------------------------ FAS-6a, FAS-2, FAS-3


def test_capacity_and_unused_quota_reasons() -> None:
    """FAS-6a/FAS-21: over capacity -> ExceedsMaxQuota; over unused quota -> WaitingForQuota."""
    snapshot = Snapshot([_cq({"f": 2000})], workloads=[_admitted("busy", "cq", "f", 1500)])
    over = assign_flavors(_wl(PodSetSpec("main", 3, {CPU: 1000})), "cq", snapshot, [ResourceFlavor("f")])
    assert over.pod_sets[0].status.reasons == (
        "insufficient quota for cpu in flavor f, previously considered podsets requests (0) + "
        "current podset request (3) > maximum capacity (2)",
    )
    assert over.no_fit_reason == "ExceedsMaxQuota"
    # Within nominal but not free: the CQ cannot preempt (Never) -> the oracle still runs
    # because nominal >= request (FAS-6), and the default oracle finds no candidates.
    waiting = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000})), "cq", snapshot, [ResourceFlavor("f")])
    assert waiting.pod_sets[0].status.reasons == ("insufficient unused quota for cpu in flavor f, 500m more needed",)
    assert waiting.mode is FlavorAssignmentMode.PREEMPT
    assert waiting.pod_sets[0].attempts[0].preemption_possibility is PreemptionPossibility.NO_CANDIDATES


def test_earlier_pod_sets_count_as_assumed_usage() -> None:
    """FAS-2: the second pod set is judged with the first one's request already assumed."""
    snapshot = Snapshot([_cq({"a": 3000, "b": 3000})])
    wl = _wl(PodSetSpec("one", 1, {CPU: 2000}), PodSetSpec("two", 1, {CPU: 2000}))
    a = assign_flavors(wl, "cq", snapshot, [ResourceFlavor("a"), ResourceFlavor("b")])
    assert [ps.flavors[CPU].flavor for ps in a.pod_sets] == ["a", "b"]
    assert dict(a.usage) == {FlavorResource("a", CPU): 2000, FlavorResource("b", CPU): 2000}


def test_uncovered_resources() -> None:
    """FAS-3: zero -> ignored; non-zero -> NoFit, unless IgnoreUndeclared; kept in requests (FAS-1b)."""
    snapshot = Snapshot([_cq({"f": 4000})])
    flavors = [ResourceFlavor("f")]
    zero = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000, "gpu": 0})), "cq", snapshot, flavors)
    assert zero.mode is FlavorAssignmentMode.FIT and dict(zero.pod_sets[0].requests) == {CPU: 1000, "gpu": 0}
    blocked = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000, "gpu": 1})), "cq", snapshot, flavors)
    assert blocked.pod_sets[0].status.reasons == ("resource gpu unavailable in ClusterQueue",)
    assert blocked.mode is FlavorAssignmentMode.NO_FIT
    ignored = assign_flavors(
        _wl(PodSetSpec("main", 1, {CPU: 1000, "gpu": 1})), "cq", snapshot, flavors, quota_check="IgnoreUndeclared"
    )
    assert ignored.mode is FlavorAssignmentMode.FIT and set(ignored.pod_sets[0].flavors) == {CPU}


def test_pods_resource_and_reclaimable_pods() -> None:
    """FAS-1/FAS-1a: ``pods = count`` when covered; reclaimable pods lower the count first."""
    cq = _cq({"f": 10_000}, resources=(CPU, "pods"))
    wl = Workload(
        name="wl",
        namespace="ns",
        spec_pod_sets=[PodSetSpec("main", 4, {CPU: 1000, "pods": 7})],
        reclaimable_pods=[("main", 5), ("main", 1), ("unknown", 3)],  # last entry wins, unknown ignored
    )
    a = assign_flavors(wl, "cq", Snapshot([cq]), [ResourceFlavor("f")])
    assert a.pod_sets[0].count == 3
    assert dict(a.pod_sets[0].requests) == {CPU: 3000, "pods": 3}
    off = assign_flavors(wl, "cq", Snapshot([cq]), [ResourceFlavor("f")], gates=AssignmentGates(reclaimable_pods=False))
    assert dict(off.pod_sets[0].requests) == {CPU: 4000, "pods": 4}


def test_missing_flavor_is_skipped_but_its_quota_counts() -> None:
    """FAS-5a case 3: a flavor not handed to the assigner is skipped with 'flavor F not found'."""
    a = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000})), "cq", Snapshot([_cq({"gone": 4000, "f": 4000})]), [ResourceFlavor("f")])
    assert a.pod_sets[0].flavors[CPU].flavor == "f"
    gone = [at for at in a.pod_sets[0].attempts if at.flavor == "gone"]
    assert gone and gone[0].reasons == ("flavor gone not found",) and gone[0].no_fit_reason == "NoMatchingFlavor"


def test_allowed_flavors_annotation_needs_the_gate() -> None:
    """FAS-20: the annotation is read only with ConcurrentAdmission on."""
    wl = Workload(
        name="wl",
        namespace="ns",
        annotations={"kueue.x-k8s.io/workload-allowed-resource-flavors": " b , c"},
        spec_pod_sets=[PodSetSpec("main", 1, {CPU: 1000})],
    )
    snapshot = Snapshot([_cq({"a": 4000, "b": 4000})])
    flavors = [ResourceFlavor("a"), ResourceFlavor("b")]
    assert assign_flavors(wl, "cq", snapshot, flavors).pod_sets[0].flavors[CPU].flavor == "a"
    on = assign_flavors(wl, "cq", snapshot, flavors, gates=AssignmentGates(concurrent_admission=True))
    assert on.pod_sets[0].flavors[CPU].flavor == "b"


# ------------------------------------------------------------------ FAS-12, FAS-18, FAS-11


def test_scan_resumes_after_the_recorded_flavor() -> None:
    """FAS-12: the scan starts after the recorded ``triedFlavorIdx``; -1 starts over."""
    snapshot = Snapshot([_cq({"a": 4000, "b": 4000, "c": 4000})])
    flavors = [ResourceFlavor(n) for n in "abc"]
    wl = _wl(PodSetSpec("main", 1, {CPU: 1000}))
    first = assign_flavors(wl, "cq", snapshot, flavors)
    assert first.pod_sets[0].flavors[CPU].flavor == "a" and [dict(m) for m in first.tried_flavor_idx()] == [{CPU: 0}]
    resumed = assign_flavors(wl, "cq", snapshot, flavors, progress=first.tried_flavor_idx())
    assert resumed.pod_sets[0].flavors[CPU].flavor == "b"
    assert assign_flavors(wl, "cq", snapshot, flavors, progress=[{CPU: -1}]).pod_sets[0].flavors[CPU].flavor == "a"
    # A start past the end examines nothing: no flavor and no reasons, which FAS-13b(2)
    # reads as Fit (Kueue's quirk), with no usage at all.
    past = assign_flavors(wl, "cq", snapshot, flavors, progress=[{CPU: 2}])
    assert past.pod_sets[0].status.reasons == () and not past.pod_sets[0].flavors
    assert past.mode is FlavorAssignmentMode.FIT and not past.usage


def test_pod_set_group_shares_one_flavor() -> None:
    """FAS-18: a group is assigned as one unit; members keep only their own resources."""
    cq = _cq({"small": 3000, "big": 8000}, resources=(CPU, "gpu"))
    wl = _wl(
        PodSetSpec("leader", 1, {CPU: 1000}, pod_set_group="g"),
        PodSetSpec("worker", 2, {CPU: 1000, "gpu": 1}, pod_set_group="g"),
    )
    a = assign_flavors(wl, "cq", Snapshot([cq]), [ResourceFlavor("small"), ResourceFlavor("big")])
    # Together 3 CPUs fit "small" and 2 GPUs too: both members get "small".
    assert [ps.flavors[CPU].flavor for ps in a.pod_sets] == ["small", "small"]
    assert set(a.pod_sets[0].flavors) == {CPU} and set(a.pod_sets[1].flavors) == {CPU, "gpu"}


def test_gate_off_takes_the_first_fit() -> None:
    """FAS-11: without FlavorFungibility the first fitting flavor wins and triedFlavorIdx is 0."""
    cq = ClusterQueue(
        "cq",
        resource_groups=[ResourceGroup([CPU], [FlavorQuotas("a", {CPU: ResourceQuota(0)}), FlavorQuotas("b", {CPU: ResourceQuota(4000)})])],
        flavor_fungibility=FlavorFungibility("TryNextFlavor", "TryNextFlavor"),
    )
    gates = AssignmentGates(flavor_fungibility=False, preserve_scan_progress=False)
    a = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000})), "cq", Snapshot([cq]), [ResourceFlavor("a"), ResourceFlavor("b")], gates=gates)
    assert a.pod_sets[0].flavors[CPU].flavor == "b" and a.pod_sets[0].flavors[CPU].tried_flavor_idx == 0


def test_gates_kueue_refuses_are_refused() -> None:
    """FAS-8: FlavorFungibility off needs FlavorFungibilityPreserveScanProgress off."""
    with pytest.raises(ConfigurationError):
        AssignmentGates(flavor_fungibility=False)
    with pytest.raises(ConfigurationError):
        AssignmentGates.from_kueue({"FlavorFungibility": False})
    with pytest.raises(ConfigurationError):
        AssignmentGates.from_kueue({"NoSuchGate": True})
    assert AssignmentGates.from_kueue({"ConcurrentAdmission": True}).concurrent_admission


# ------------------------------------------------------------------ FA-6 default oracle, FAS-13/14


def test_default_oracle_uses_get_targets() -> None:
    """FA-6: Preempt when a target is in the queue itself, NoCandidates when nothing qualifies."""
    cq = _cq({"f": 4000}, preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"))
    snapshot = Snapshot([cq], workloads=[_admitted("low", "cq", "f", 4000, priority=0)])
    before = snapshot.state()
    oracle = TargetsOracle()
    fr = FlavorResource("f", CPU)
    assert oracle(_wl(priority=10), "cq", fr, 2000, snapshot).possibility is PreemptionPossibility.PREEMPT
    assert oracle(_wl(priority=0), "cq", fr, 2000, snapshot).possibility is PreemptionPossibility.NO_CANDIDATES
    assert snapshot.state() == before


def test_assign_with_targets_and_partial_admission() -> None:
    """FAS-13: Preempt -> targets; FAS-14: otherwise the smallest reduction that fits."""
    cq = _cq({"f": 4000}, preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"))
    snapshot = Snapshot([cq], workloads=[_admitted("low", "cq", "f", 3000, priority=0)])
    flavors = [ResourceFlavor("f")]
    preempting = assign_with_targets(_wl(PodSetSpec("main", 2, {CPU: 1000}), priority=10), "cq", snapshot, flavors)
    assert [t.workload.name for t in preempting.targets] == ["low"] and not preempting.partial
    # Same priority: no targets; 4 pods with minCount 1 -> only 1 CPU is free: count 1.
    partial = assign_with_targets(_wl(PodSetSpec("main", 4, {CPU: 1000}, min_count=1), priority=0), "cq", snapshot, flavors)
    assert partial.partial and partial.assignment.mode is FlavorAssignmentMode.FIT
    assert partial.assignment.pod_sets[0].count == 1
    assert dict(partial.assignment.usage) == {FlavorResource("f", CPU): 1000}


def test_trace_records_every_flavor_considered() -> None:
    """The decision trace names each flavor, skipped or judged, with the deciding rule."""
    cq = _cq({"tainted": 4000, "ok": 4000})
    trace = DecisionTrace()
    flavors = [ResourceFlavor("tainted", node_taints=[Taint("k", "v", "NoExecute")]), ResourceFlavor("ok")]
    assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000})), "cq", Snapshot([cq]), flavors, trace=trace)
    rules = [(e.verdict.value, e.rule) for e in trace if "tainted" in e.detail or "flavor ok" in e.detail]
    assert ("skipped", "FAS-5") in rules
    assert ("candidate", "FAS-7a") in rules and ("taken", "FAS-10") in rules
    assert all(e.workload == "ns/wl" and e.cluster_queue == "cq" for e in trace)


# ------------------------------------------------------------------ models


def test_resource_groups_define_quotas() -> None:
    """DM-4: ``quotas`` is derived from ``resource_groups``; both given must agree."""
    cq = _cq({"a": 1000, "b": 2000})
    assert dict(cq.quotas) == {FlavorResource("a", CPU): ResourceQuota(1000), FlavorResource("b", CPU): ResourceQuota(2000)}
    with pytest.raises(InvalidModel):
        ClusterQueue("q", quotas={FlavorResource("a", CPU): ResourceQuota(5)}, resource_groups=cq.resource_groups)


def test_invalid_flavor_models_raise_typed_errors() -> None:
    """Bad input -> InvalidModel naming the object and field."""
    with pytest.raises(InvalidModel, match="preference"):
        FlavorFungibility("MayStopSearch", "TryNextFlavor", "PreemptionOverBorrowing")
    with pytest.raises(InvalidModel, match="when_can_borrow"):
        FlavorFungibility("Sometimes")
    with pytest.raises(InvalidModel, match="min_count"):
        PodSetSpec("p", 1, min_count=2)
    with pytest.raises(InvalidModel, match="spec_pod_sets"):
        Workload(name="w", spec_pod_sets=[PodSetSpec("p"), PodSetSpec("p")])
    with pytest.raises(InvalidModel, match="counts"):
        assign_flavors(_wl(PodSetSpec("p", 1, {CPU: 1})), "cq", Snapshot([_cq({"f": 1})]), [], counts=[1, 2])
    assert dict(PodSetSpec("p", requests={CPU: -5}).requests) == {CPU: 0}  # FAS-1: negative -> 0


def test_workload_without_spec_pod_sets_is_refused() -> None:
    """A workload built for preemption only has no spec: InvalidModel naming the field."""
    with pytest.raises(InvalidModel, match="spec_pod_sets"):
        assign_flavors(Workload(name="w"), "cq", Snapshot([_cq({"f": 1})]), [ResourceFlavor("f")])


def test_default_oracle_reports_its_targets() -> None:
    """FA-6: the default oracle also says which workloads its simulation would evict."""
    cq = _cq({"f": 4000}, preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"))
    snapshot = Snapshot([cq], workloads=[_admitted("low", "cq", "f", 4000, priority=0)])
    found = TargetsOracle()(_wl(priority=10), "cq", FlavorResource("f", CPU), 2000, snapshot)
    assert [t.workload.name for t in found.targets] == ["low"]


def test_pinned_scan_only_takes_the_nominated_flavor() -> None:
    """FAS-5a case 1: with pins, other flavors are skipped with Kueue's reason and no attempt."""
    cq = _cq({"a": 4000, "b": 4000}, preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"))
    snapshot = Snapshot([cq], workloads=[_admitted("busy", "cq", "b", 4000)])
    wl = _wl(PodSetSpec("main", 1, {CPU: 1000}), priority=5)
    flavors = [ResourceFlavor("a"), ResourceFlavor("b")]
    free = assign_flavors(wl, "cq", snapshot, flavors)
    assert free.nomination_mapping() == {"main": {CPU: "a"}}
    pinned = assign_flavors(
        wl, "cq", snapshot, flavors, pinned={"main": {CPU: "b"}}, oracle=lambda w, q, fr, v, s: OracleResult("Preempt", 0)
    )
    ps = pinned.pod_sets[0]
    assert ps.flavors[CPU].flavor == "b" and ps.flavors[CPU].mode is FlavorAssignmentMode.PREEMPT
    assert "skipping flavor a as it is not found in the nomination mapping for resource cpu" in ps.status.reasons
    assert [at.flavor for at in ps.attempts] == ["b"]


def test_flavor_in_two_groups_gets_does_not_provide() -> None:
    """FAS-23 example (FAS-25 queue): G1 = {memory: [one]}, G2 = {cpu: [two, one]}.

    Memory is scanned first (FNV order, FAS-19) and records `one`; the cpu scan stops at `two`
    (it fits and whenCanBorrow=MayStopSearch), so `one`, listed by G2 but not examined for cpu,
    becomes NoFit with Kueue's "does not provide" reason.
    """
    cq = ClusterQueue(
        "cq",
        resource_groups=[
            ResourceGroup(["memory"], [FlavorQuotas("one", {"memory": ResourceQuota(10)})]),
            ResourceGroup([CPU], [FlavorQuotas("two", {CPU: ResourceQuota(4000)}), FlavorQuotas("one", {CPU: ResourceQuota(4000)})]),
        ],
    )
    a = assign_flavors(_wl(PodSetSpec("main", 1, {CPU: 1000, "memory": 5})), "cq", Snapshot([cq]), [ResourceFlavor("one"), ResourceFlavor("two")])
    ps = a.pod_sets[0]
    assert {r: f.flavor for r, f in ps.flavors.items()} == {"memory": "one", CPU: "two"}
    assert a.mode is FlavorAssignmentMode.FIT
    one, two = ps.attempts
    assert (one.flavor, one.mode, one.reasons, one.no_fit_reason) == (
        "one", FlavorAssignmentMode.NO_FIT, ("flavor one does not provide resource cpu",), "NoMatchingFlavor"
    )
    assert (two.flavor, two.mode) == ("two", FlavorAssignmentMode.FIT)


def test_preemption_over_borrowing_can_read_fit_with_a_preempt_entry() -> None:
    """FAS-13b(1): memory needs preemption at level 0, cpu fits at level 1; under
    PreemptionOverBorrowing the representative mode is fit(1), so the scan gives no reasons and
    the pod set reads Fit although memory's entry is Preempt."""
    cq = ClusterQueue(
        "cq",
        cohort="co",
        resource_groups=[ResourceGroup([CPU, "memory"], [FlavorQuotas("f", {CPU: ResourceQuota(0), "memory": ResourceQuota(100)})])],
        flavor_fungibility=FlavorFungibility("TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing"),
    )
    other = ClusterQueue(
        "other",
        cohort="co",
        resource_groups=[ResourceGroup([CPU, "memory"], [FlavorQuotas("f", {CPU: ResourceQuota(4000), "memory": ResourceQuota(0)})])],
    )
    busy = Workload(name="busy", namespace="ns", cluster_queue="cq", pod_sets=[PodSetUsage(flavors={"memory": "f"}, usage={"memory": 100})])
    a = assign_flavors(
        _wl(PodSetSpec("main", 1, {CPU: 1000, "memory": 50})),
        "cq",
        Snapshot([cq, other], workloads=[busy]),
        [ResourceFlavor("f")],
        oracle=lambda w, q, fr, v, s: OracleResult("Preempt", 0),
    )
    ps = a.pod_sets[0]
    assert ps.flavors["memory"].mode is FlavorAssignmentMode.PREEMPT
    assert ps.flavors[CPU].mode is FlavorAssignmentMode.FIT and ps.flavors[CPU].borrow == 1
    assert ps.status.reasons == () and a.mode is FlavorAssignmentMode.FIT and a.borrowing == 1
