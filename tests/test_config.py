"""Kueue's defaults everywhere: ``FeatureGates`` and ``PreemptionConfig`` (FG-1, FG-2, FG-5, DM-10;
issue 16 item 2, decision (u))."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt import ConfigurationError, FairSharingConfig, FeatureGates, PreemptionConfig
from kueue_preempt.model import RequeuingTimestamp

# The gate tables of the specification (FG-1, FG-2 and the flavor-assignment gates it points
# to), written out from the spec, not from the code: Kueue's default at the reference commit.
KUEUE_GATE_DEFAULTS = {
    "PriorityBoost": False,
    "FairSharingPreemptWithinNominal": True,
    "AdmissionFairSharing": True,
    "PrioritySortingWithinCohort": True,
    "TopologyAwareScheduling": True,
    "QuotaCheckStrategy": True,
    "ElasticJobsViaWorkloadSlices": True,
    "FairSharingPrioritizeNonBorrowing": True,
    "PrioritizePreemptorWorkloads": False,
    "RecomputeAssignmentUponPreemptionTargetsOverlap": True,
    "FlavorFungibility": True,
    "FlavorFungibilityPreserveScanProgress": True,
    "SchedulingEquivalenceHashing": True,
    "PartialAdmission": True,
    "DisableWaitForPodsReady": False,
    "ReclaimablePods": True,
    "UnadmittedWorkloadsObservability": True,
    "VectorizedResourceRequests": True,
    "ConcurrentAdmission": False,
}


def test_fg1_fg2_every_gate_has_kueues_default() -> None:
    """FG-1/FG-2/FG-5: one field per Kueue gate, each at Kueue's default."""
    assert FeatureGates().as_kueue_mapping() == KUEUE_GATE_DEFAULTS


def test_dm10_default_config_is_kueues_configuration() -> None:
    """DM-10/FG-5: PreemptionConfig() is Kueue's default configuration, boost off included."""
    cfg = PreemptionConfig()
    assert cfg == PreemptionConfig.kueue_defaults()
    assert cfg.priority_boost is False
    assert cfg.priority_sorting_within_cohort is True
    assert cfg.fair_sharing_preempt_within_nominal is True
    assert cfg.fair_sharing is None and cfg.admission_fair_sharing is False
    assert cfg.pods_ready_requeuing_timestamp is RequeuingTimestamp.EVICTION
    assert not cfg.preemption_cost_enabled and not cfg.non_preemptible_enabled
    assert cfg.feature_gates == FeatureGates()


def test_fg5_keywords_and_gates_are_one_value() -> None:
    """The keyword switches are views of feature_gates; the keyword wins over a gate mapping."""
    on = PreemptionConfig(priority_boost=True)
    assert on.feature_gates.priority_boost is True
    assert PreemptionConfig(feature_gates={"PriorityBoost": True}) == on
    assert PreemptionConfig(feature_gates=FeatureGates(priority_boost=True)) == on
    assert PreemptionConfig(priority_boost=False, feature_gates={"PriorityBoost": True}).priority_boost is False
    assert attrs.evolve(PreemptionConfig(), priority_boost=True) == on
    assert attrs.evolve(on, feature_gates=FeatureGates()).priority_boost is False
    off = PreemptionConfig(priority_sorting_within_cohort=False, fair_sharing_preempt_within_nominal=False)
    assert not off.feature_gates.priority_sorting_within_cohort
    assert not off.feature_gates.fair_sharing_preempt_within_nominal


def test_fg4_afs_block_needs_the_gate() -> None:
    """FG-4: admission fair sharing orders candidates only with the block *and* the gate."""
    assert PreemptionConfig(admission_fair_sharing=True).admission_fair_sharing is True
    gate_off = PreemptionConfig(admission_fair_sharing=True, feature_gates={"AdmissionFairSharing": False})
    assert gate_off.admission_fair_sharing is False


def test_feature_gates_parse_kubernetes_syntax() -> None:
    gates = FeatureGates.parse("PriorityBoost=true, PartialAdmission=false,")
    assert gates.priority_boost is True and gates.partial_admission is False
    assert gates.reclaimable_pods is True  # untouched gates keep Kueue's default
    base = FeatureGates(concurrent_admission=True)
    assert FeatureGates.parse("PriorityBoost=TRUE", base=base).concurrent_admission is True
    assert FeatureGates.parse("") == FeatureGates()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("PriorityBost=true", "unknown gate 'PriorityBost'"),
        ("PriorityBoost=1", "NAME=true or NAME=false"),
        ("PriorityBoost", "NAME=true or NAME=false"),
        ("=true", "unknown gate ''"),
    ],
)
def test_feature_gates_refuse_typos(text: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError, match="featureGates") as info:
        FeatureGates.parse(text)
    assert fragment in str(info.value)


@pytest.mark.parametrize("value", ["true", 1, None, 0.0])
def test_gate_values_must_be_bools(value: object) -> None:
    with pytest.raises(ConfigurationError, match="priority_boost"):
        FeatureGates(priority_boost=value)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="PriorityBoost"):
        FeatureGates.from_mapping({"PriorityBoost": value})  # type: ignore[dict-item]
    with pytest.raises(ConfigurationError, match="priority_boost"):
        PreemptionConfig(priority_boost=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"pods_ready_requeuing_timestamp": "Evicted"}, "pods_ready_requeuing_timestamp"),
        ({"non_preemptible_mode": "lenient"}, "non_preemptible_mode"),
        ({"fair_sharing": {"preemptionStrategies": []}}, "fair_sharing"),
        ({"feature_gates": ["PriorityBoost"]}, "featureGates"),
    ],
)
def test_config_errors_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigurationError, match=field):
        PreemptionConfig(**kwargs)  # type: ignore[arg-type]


def test_fs_cfg1_strategy_list_errors_name_the_field() -> None:
    """FS-CFG-1: a strategy list that is not a list of names is a ConfigurationError."""
    for bad in (None, "LessThanInitialShare", [1]):
        with pytest.raises(ConfigurationError, match="preemption_strategies"):
            FairSharingConfig(preemption_strategies=bad)  # type: ignore[arg-type]


@given(st.dictionaries(st.sampled_from(sorted(KUEUE_GATE_DEFAULTS)), st.booleans()))
def test_gate_mapping_round_trips(gates: dict[str, bool]) -> None:
    """FG-5: any set of gates survives parse/as_kueue_mapping, and only the named ones change."""
    parsed = FeatureGates.parse(",".join(f"{k}={str(v).lower()}" for k, v in gates.items()))
    assert parsed == FeatureGates.from_mapping(gates)
    assert parsed.as_kueue_mapping() == {**KUEUE_GATE_DEFAULTS, **gates}
    assert PreemptionConfig(feature_gates=parsed).priority_boost is gates.get("PriorityBoost", False)


def test_dm10_configuration_blocks_have_kueues_defaults() -> None:
    """DM-10: waitForPodsReady is always defaulted (timeout 30 min, Eviction, backoff 60 s..1 h,
    no limit); admissionFairSharing samples every 5 min and weighs unlisted resources 1."""
    from kueue_preempt.model import AdmissionFairSharing, WaitForPodsReady

    w = WaitForPodsReady()
    assert (w.timeout_seconds, w.effective_recovery_timeout_seconds, w.block_admission) == (1800, 1800, False)
    assert w.requeuing_timestamp is RequeuingTimestamp.EVICTION == PreemptionConfig().pods_ready_requeuing_timestamp
    assert (w.backoff_base_seconds, w.backoff_max_seconds, w.backoff_limit_count) == (60, 3600, None)
    assert WaitForPodsReady(timeout_seconds=60, recovery_timeout_seconds=5).effective_recovery_timeout_seconds == 5
    afs = AdmissionFairSharing(resource_weights={"cpu": 2})
    assert (afs.usage_sampling_interval_seconds, afs.weight("cpu"), afs.weight("memory")) == (300, 2.0, 1.0)
    with pytest.raises(ConfigurationError, match="timeout_seconds"):
        WaitForPodsReady(timeout_seconds=-1)
    with pytest.raises(ConfigurationError, match="resource_weights"):
        AdmissionFairSharing(resource_weights={"cpu": float("nan")})
    with pytest.raises(ConfigurationError, match="requeuing_timestamp"):
        WaitForPodsReady(requeuing_timestamp=None)  # type: ignore[arg-type]
