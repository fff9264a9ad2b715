"""The ``--vary`` path grammar and applying values to a scenario (never mutating it)."""

from __future__ import annotations

import attrs
import pytest

from kueue_preempt import FlavorResource
from kueue_preempt.model.config import FairSharingStrategy, NonPreemptibleMode
from kueue_preempt.model import Cohort, PreemptionPolicy, ResourceQuota
from kueue_preempt.sweep import Scenario, SweepPathError, apply_value, parse_path, parse_vary
from sim_dump import small_dump

CPU = FlavorResource("default", "cpu")


def _base() -> Scenario:
    return Scenario(dump=small_dump())


def test_cluster_queue_fields() -> None:
    base = _base()
    s = apply_value(base, "clusterQueue/team-a/fairSharing.weight", "2.5")
    s = apply_value(s, "clusterQueue/team-a/quota/default/cpu.nominal", "6")
    s = apply_value(s, "clusterQueue/team-a/quota/default/cpu.borrowingLimit", "500m")
    s = apply_value(s, "clusterQueue/team-a/preemption.withinClusterQueue", "LowerOrNewerEqualPriority")
    s = apply_value(s, "clusterQueue/team-b/cohort", "none")
    a = next(q for q in s.dump.cluster_queues if q.name == "team-a")
    b = next(q for q in s.dump.cluster_queues if q.name == "team-b")
    assert a.fair_weight == 2.5
    assert a.quotas[CPU] == ResourceQuota(nominal=6000, borrowing_limit=500)
    assert a.preemption.within_cluster_queue == PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY
    assert b.cohort is None
    # the base scenario is untouched
    orig = next(q for q in base.dump.cluster_queues if q.name == "team-a")
    assert orig.fair_weight == 1.0 and orig.quotas[CPU] == ResourceQuota(nominal=4000)
    # a limit can be removed again
    s = apply_value(s, "clusterQueue/team-a/quota/default/cpu.borrowingLimit", "none")
    assert next(q for q in s.dump.cluster_queues if q.name == "team-a").quotas[CPU].borrowing_limit is None


def test_cohort_fields_on_an_explicit_cohort() -> None:
    base = _base()
    dump = attrs.evolve(base.dump, cohorts=[Cohort("all", quotas={CPU: ResourceQuota(nominal=1000)})])
    s = apply_value(Scenario(dump), "cohort/all/fairSharing.weight", "0")
    with pytest.raises(SweepPathError, match="Q-17"):  # a root cohort cannot lend
        apply_value(s, "cohort/all/quota/default/cpu.lendingLimit", "2")
    s = apply_value(s, "cohort/all/parent", "root")
    s = apply_value(s, "cohort/all/quota/default/cpu.lendingLimit", "2")
    (c,) = s.dump.cohorts
    assert (c.fair_weight, c.quotas[CPU].lending_limit, c.parent) == (0.0, 2000, "root")


def test_config_and_policy_fields() -> None:
    s = apply_value(_base(), "config/fairSharing.strategies", "LessThanInitialShare")
    assert s.config.fair_sharing is not None
    assert s.config.fair_sharing.preemption_strategies == (FairSharingStrategy.LESS_THAN_INITIAL_SHARE,)
    s = apply_value(s, "config/fairSharing.strategies", "LessThanOrEqualToFinalShare+LessThanInitialShare")
    assert s.config.fair_sharing is not None and len(s.config.fair_sharing.preemption_strategies) == 2
    assert apply_value(s, "config/fairSharing.enabled", "false").config.fair_sharing is None
    s = apply_value(s, "config/priorityBoost", "off")
    s = apply_value(s, "config/nonPreemptibleMode", "strict")
    assert not s.config.priority_boost and s.config.non_preemptible_mode == NonPreemptibleMode.STRICT
    s = apply_value(s, "policy/boost.step", "50")
    s = apply_value(s, "policy/boost.cap", "none")
    s = apply_value(s, "policy/cost.base", "3")
    assert s.policy.boost is not None and (s.policy.boost.step, s.policy.boost.cap) == (50, None)
    assert s.policy.cost_base == 3
    assert apply_value(s, "policy/boost.enabled", "false").policy.boost is None


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("clusterQueue/nope/fairSharing.weight", "1", "no ClusterQueue 'nope'"),
        ("clusterQueue/team-a/fairSharing.weight", "-1", ">= 0"),
        ("clusterQueue/team-a/fairSharing.weight", "heavy", "not a number"),
        ("clusterQueue/team-a/quota/gpu/cpu.nominal", "1", "no quota for flavor 'gpu'"),
        ("clusterQueue/team-a/quota/default/cpu.nominal", "none", "cannot be removed"),
        ("clusterQueue/team-a/quota/default/cpu.nominal", "lots", "invalid quantity"),
        ("clusterQueue/team-a/preemption.reclaimWithinCohort", "Sometimes", "Sometimes"),
        ("cohort/all/fairSharing.weight", "1", "no Cohort 'all'"),  # implicit cohorts have no object
        ("config/fairSharing.strategies", "Fastest", "Fastest"),
        ("config/priorityBoost", "maybe", "not a boolean"),
        ("policy/boost.everyN", "0", "every_n"),
        ("policy/cost.base", "-1", "outside"),
    ],
)
def test_bad_values_name_the_path(path: str, value: str, message: str) -> None:
    with pytest.raises(SweepPathError) as info:
        apply_value(_base(), path, value)
    assert info.value.path == path and message in str(info.value) and str(info.value).startswith(f"--vary {path}:")


@pytest.mark.parametrize(
    "path",
    [
        "team-a/weight",
        "clusterQueue/team-a",
        "clusterQueue/team-a/colour",
        "clusterQueue/team-a/quota/default",
        "clusterQueue/team-a/quota/default/cpu.maximum",
        "config/turbo",
        "policy/timeSharing.duration",  # the booster README's key, which Kueue ignores (BOOST-1)
        "cohort/all/cohort",
    ],
)
def test_paths_outside_the_grammar(path: str) -> None:
    with pytest.raises(SweepPathError):
        parse_path(path)


def test_quota_path_with_a_slash_in_the_resource() -> None:
    p = parse_path("clusterQueue/gpu-q/quota/a100/nvidia.com/gpu.nominal")
    assert (p.flavor, p.resource, p.limit) == ("a100", "nvidia.com/gpu", "nominal")


def test_parse_vary() -> None:
    v = parse_vary("clusterQueue/team-a/fairSharing.weight= 1, 2 ,4")
    assert v.values == ("1", "2", "4") and v.path.field == "fairSharing.weight"
    for bad in ("clusterQueue/team-a/fairSharing.weight", "clusterQueue/team-a/fairSharing.weight=1,,2", "config/priorityBoost=true,true"):
        with pytest.raises(SweepPathError):
            parse_vary(bad)
