"""The assigner's memoised values equal what they memoise (cached == uncached).

``assign_flavors`` caches work that depends only on immutable inputs: the FNV-1a hash of a
resource name (FAS-19), the FAS-4 resource-group lookup of one assignment, a resource group's
flavor names, the FAS-13 modes of a (frozen) result, and the trace strings it formats only
when a trace is given. Each test compares the cached value with an independent recomputation.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import (
    ClusterQueue,
    FlavorQuotas,
    PodSetSpec,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    assign_flavors,
)
from kueue_preempt.assignment import AssignmentGates, FlavorAssignment, fnv1a64, fnv_order
from kueue_preempt.assignment.matching import SelectorResult, first_untolerated_taint, match_selector
from kueue_preempt.assignment.oracle import TargetsOracle
from kueue_preempt.assignment.result import PodSetAssignment, PodSetStatus, ResourceAssignment, mode_rank
from kueue_preempt.assignment.scan import ScanContext
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import NodeSelectorRequirement, NodeSelectorTerm, Toleration
from kueue_preempt.model import FlavorAssignmentMode, FlavorResource
from kueue_preempt.model.quantity import UNLIMITED
from kueue_preempt.preemption.common.trace import DecisionTrace

from kueue_preempt.testing.strategies import AssignmentScenario, assignment_scenarios

RESOURCES = ["cpu", "memory", "pods", "nvidia.com/gpu", "example.com/x"]


def _reference_fnv(name: str) -> int:
    """FAS-19 restated: 64-bit FNV-1a over the UTF-8 bytes."""
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) % 2**64
    return h


def test_fnv_known_vectors() -> None:
    """FAS-19: the published FNV-1a 64 test vectors, also on a second call."""
    for _ in range(2):
        assert fnv1a64("") == 0xCBF29CE484222325
        assert fnv1a64("a") == 0xAF63DC4C8601EC8C


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.text(max_size=12), max_size=8))
def test_fnv_cache_equals_uncached(names: list[str]) -> None:
    """FAS-19: the hash equals the plain computation, and the order is the same with or
    without a caller's table of sort keys (empty, or filled by an earlier sort)."""
    for name in names:
        assert fnv1a64(name) == _reference_fnv(name)
    expected = sorted(names, key=lambda r: (_reference_fnv(r), r))
    keys: dict[str, tuple[int, str]] = {}
    assert fnv_order(names) == expected
    assert fnv_order(names, keys) == expected
    assert fnv_order(reversed(names), keys) == expected
    assert all(keys[n] == (_reference_fnv(n), n) for n in keys)


def _context(groups: list[ResourceGroup]) -> ScanContext:
    cq = ClusterQueue("q", resource_groups=groups)
    snapshot = Snapshot([cq])
    wl = Workload(name="w", namespace="ns", spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 1})])
    return ScanContext(
        workload=wl,
        cq=cq,
        node=snapshot.cluster_queue("q"),
        snapshot=snapshot,
        groups=tuple(groups),
        flavors={},
        gates=AssignmentGates(),
        fair_sharing=False,
        oracle=TargetsOracle(PreemptionConfig(), None),
        progress=None,
        pinned=None,
        trace=None,
    )


@settings(max_examples=100, deadline=None)
@given(
    split=st.lists(st.integers(0, 2), min_size=len(RESOURCES), max_size=len(RESOURCES)),
    queries=st.lists(st.sampled_from(RESOURCES + ["unknown"]), max_size=12),
)
def test_group_lookup_memo_equals_first_covering_group(split: list[int], queries: list[str]) -> None:
    """FAS-4: the memoised lookup returns the first group covering the resource, or None,
    however often and in whatever order it is asked."""
    covered: list[list[str]] = [[], [], []]
    for r, g in zip(RESOURCES, split):
        covered[g].append(r)
    groups = [
        ResourceGroup(rs, [FlavorQuotas(f"f{i}", {r: ResourceQuota(1) for r in rs})]) for i, rs in enumerate(covered) if rs
    ]
    ctx = _context(groups)
    for q in queries + queries:
        expected = next(((i, g) for i, g in enumerate(groups) if q in g.covered_resources), None)
        assert ctx.group_for(q) == expected


def test_flavor_names_follow_the_group() -> None:
    """FAS-4: a group's flavor names in preference order; a changed copy has its own."""
    g = ResourceGroup(["cpu"], [FlavorQuotas("b", {"cpu": ResourceQuota(1)}), FlavorQuotas("a", {"cpu": ResourceQuota(1)})])
    assert g.flavor_names == ("b", "a")
    assert g.flavor_names == tuple(f.name for f in g.flavors)
    h = attrs.evolve(g, flavors=[FlavorQuotas("c", {"cpu": ResourceQuota(1)})])
    assert h.flavor_names == ("c",)
    assert g.flavor_names == ("b", "a")
    assert g == ResourceGroup(["cpu"], list(g.flavors))  # the cache takes no part in equality


def _reference_pod_set_mode(ps: PodSetAssignment) -> FlavorAssignmentMode:
    """FAS-13a restated."""
    if not ps.status.reasons and ps.status.error is None:
        return FlavorAssignmentMode.FIT
    if ps.status.error is not None or not ps.flavors:
        return FlavorAssignmentMode.NO_FIT
    modes = [f.mode for f in ps.flavors.values()]
    if FlavorAssignmentMode.NO_FIT in modes:
        return FlavorAssignmentMode.NO_FIT
    return FlavorAssignmentMode.PREEMPT if FlavorAssignmentMode.PREEMPT in modes else FlavorAssignmentMode.FIT


@settings(max_examples=60, deadline=None)
@given(assignment_scenarios(borrowing=True, selectors=False, undeclared=False))
def test_cached_modes_equal_recomputed_and_trace_changes_nothing(s: AssignmentScenario) -> None:
    """FAS-13: the cached modes equal a recomputation; with a trace (FAS-6/FAS-7a/FAS-10
    events formatted) the assignment is the same as without."""
    a = assign_flavors(s.workload, s.cluster_queue, s.snapshot(), s.resource_flavors, now=s.now)
    trace = DecisionTrace()
    traced = assign_flavors(s.workload, s.cluster_queue, s.snapshot(), s.resource_flavors, now=s.now, trace=trace)
    assert traced == a
    assert any(e.rule == "FAS-6" for e in trace)
    for ps in a.pod_sets:
        assert ps.mode == ps.mode == _reference_pod_set_mode(ps)
    expected = min((_reference_pod_set_mode(ps) for ps in a.pod_sets), key=mode_rank, default=FlavorAssignmentMode.NO_FIT)
    assert a.mode == a.mode == expected
    assert attrs.evolve(a, pod_sets=()).mode is FlavorAssignmentMode.NO_FIT


def test_evolved_pod_set_gets_its_own_mode() -> None:
    """FAS-13a: a cached mode belongs to its instance; an evolved copy recomputes."""
    fit = PodSetAssignment("main", 1, {"cpu": ResourceAssignment("f", "Fit")})
    assert fit.mode is FlavorAssignmentMode.FIT
    blocked = attrs.evolve(fit, status=PodSetStatus(["no"], None), flavors={"cpu": ResourceAssignment("f", "Preempt")})
    assert blocked.mode is FlavorAssignmentMode.PREEMPT
    assert fit.mode is FlavorAssignmentMode.FIT
    fa = FlavorAssignment([fit])
    assert fa.mode is FlavorAssignmentMode.FIT
    assert attrs.evolve(fa, pod_sets=[fit, blocked]).mode is FlavorAssignmentMode.PREEMPT


CPU = FlavorResource("f", "cpu")


@pytest.mark.parametrize("amount", [0, 1, 1500, UNLIMITED])
def test_usage_fast_path_keeps_int_amounts(amount: int) -> None:
    """Q-1: an in-range int amount is kept as is."""
    assert FlavorAssignment([], usage={CPU: amount}).usage[CPU] == amount


@pytest.mark.parametrize("amount", [-1, UNLIMITED + 1, True, None, 0.5])
def test_usage_fast_path_still_refuses_bad_amounts(amount: object) -> None:
    """Q-1: out-of-range, negative, bool and non-integral amounts are refused, naming the field."""
    with pytest.raises(InvalidModel, match="usage"):
        FlavorAssignment([], usage={CPU: amount})  # type: ignore[dict-item]


def test_usage_strings_still_go_through_quantity_parsing() -> None:
    """Q-1: a quantity string is parsed for its resource (cpu in milli-units)."""
    assert FlavorAssignment([], usage={CPU: "2"}).usage[CPU] == 2000


_requirement = st.builds(
    NodeSelectorRequirement,
    st.sampled_from(["zone", "gen", "x"]),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"]),
    st.lists(st.sampled_from(["a", "1", "b"]), max_size=2),
)
_terms = st.none() | st.lists(st.builds(NodeSelectorTerm, st.lists(_requirement, max_size=3)), max_size=3)


@settings(max_examples=200, deadline=None)
@given(
    selector=st.dictionaries(st.sampled_from(["zone", "gen"]), st.sampled_from(["a", "b"]), max_size=2),
    terms=_terms,
    tolerations=st.lists(st.builds(Toleration, st.sampled_from(["", "k"]), st.sampled_from(["Exists", "Equal"])), max_size=2),
)
def test_flavor_without_labels_or_taints_accepts_every_pod_set(
    selector: dict[str, str], terms: list[NodeSelectorTerm] | None, tolerations: list[Toleration]
) -> None:
    """FAS-5/FAS-5b: the scan skips the taint and selector checks of a flavor with no taints
    and no labels; this is the full check's answer for every pod set (even unparsable terms)."""
    spec = PodSetSpec("main", 1, {"cpu": 1}, node_selector=selector, required_node_affinity=terms, tolerations=tolerations)
    bare = ResourceFlavor("bare")
    assert match_selector(spec, bare) == SelectorResult(True)
    assert first_untolerated_taint(bare.node_taints, spec.tolerations + bare.tolerations) is None
