"""The Kueue Configuration file (API-32..API-40, FG-3, FG-4, FS-CFG-1), issue 17 item 3."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from cli_helpers import run_cli
from kueue_preempt import PreemptionConfig
from kueue_preempt.model.config import FairSharingStrategy, RequeuingTimestamp
from kueue_preempt.io import ManifestError
from kueue_preempt.io.kueue_config import (
    FEATURE_GATES,
    KueueConfiguration,
    load_kueue_config,
    parse_go_duration,
    parse_kueue_config,
)

V1B2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
V1B1 = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"


def cfg(text: str) -> KueueConfiguration:
    return parse_kueue_config(text, source="kueue.yaml")


def error(text: str) -> str:
    with pytest.raises(ManifestError) as info:
        cfg(text)
    message = str(info.value)
    assert message.startswith("kueue.yaml: Configuration: "), message
    return message


# --------------------------------------------------------------------------- defaults per version


def test_no_file_is_kueues_v1beta2_defaults() -> None:
    """API-32: no file = v1beta2 defaults: classic, waitForPodsReady on with Eviction, PriorityBoost off."""
    k = KueueConfiguration.defaults()
    assert k.fair_sharing is None and k.admission_fair_sharing is None
    assert k.wait_for_pods_ready_enabled and k.wait_for_pods_ready is not None
    assert k.wait_for_pods_ready.timeout == timedelta(minutes=30)
    assert k.preemption_config() == PreemptionConfig(
        priority_boost=False, pods_ready_requeuing_timestamp=RequeuingTimestamp.EVICTION
    )
    assert all(k.gate(name) is default for name, (default, _) in FEATURE_GATES.items())


def test_empty_files_differ_by_version() -> None:
    """API-32: an empty v1beta2 file has waitForPodsReady on (30 min, no blocking), an empty
    v1beta1 file has it off; Kueue then uses Eviction as the queue-order timestamp (API-35)."""
    v2, v1 = cfg(V1B2), cfg(V1B1)
    assert v2.wait_for_pods_ready is not None and v2.wait_for_pods_ready.block_admission is False
    assert v1.wait_for_pods_ready is None and not v1.wait_for_pods_ready_enabled
    assert v1.requeuing_timestamp is v2.requeuing_timestamp is RequeuingTimestamp.EVICTION


def test_v1beta1_enables_with_enable_and_its_own_defaults() -> None:
    k = cfg(V1B1 + "waitForPodsReady:\n  enable: true\nfairSharing:\n  enable: true\n")
    assert k.wait_for_pods_ready is not None
    assert (k.wait_for_pods_ready.timeout, k.wait_for_pods_ready.block_admission) == (timedelta(minutes=5), True)
    assert k.fair_sharing == ("LessThanOrEqualToFinalShare", "LessThanInitialShare")  # API-33 default list
    off = cfg(V1B1 + "waitForPodsReady:\n  enable: false\n  timeout: 1m\nfairSharing:\n  enable: false\n")
    assert off.wait_for_pods_ready is None and off.fair_sharing is None


# --------------------------------------------------------------------------- fair sharing


def test_fair_sharing_block_turns_fair_sharing_on() -> None:
    """FG-3, FS-CFG-1."""
    k = cfg(V1B2 + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n")
    fair = k.preemption_config().fair_sharing
    assert fair is not None and fair.preemption_strategies == (FairSharingStrategy.LESS_THAN_INITIAL_SHARE,)


@pytest.mark.parametrize(
    "body,where,reason",
    [
        ("fairSharing: {}\n", "fairSharing.preemptionStrategies", "required when fairSharing is set"),
        (
            "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n",
            "fairSharing.preemptionStrategies",
            "is not one of [LessThanOrEqualToFinalShare], [LessThanInitialShare]",
        ),
        ("fairSharing:\n  enable: true\n", "fairSharing.enable", "unknown field"),
        ("waitForPodsReady:\n  enable: true\n", "waitForPodsReady.enable", "unknown field"),
        ("queueVisibility: {}\n", "queueVisibility", "unknown field"),
        ("fairShareing: {}\n", "fairShareing", "unknown field (Kueue decodes its configuration strictly"),
        ("waitForPodsReady:\n  timeout: -1s\n", "waitForPodsReady.timeout", "must not be negative"),
        ("waitForPodsReady:\n  timeout: 5 minutes\n", "waitForPodsReady.timeout", "invalid duration"),
        ("waitForPodsReady:\n  requeuingStrategy:\n    timestamp: Admission\n", "waitForPodsReady.requeuingStrategy.timestamp", "'Admission' is not one of Eviction, Creation"),
        ("waitForPodsReady:\n  requeuingStrategy:\n    backoffLimitCount: -1\n", "waitForPodsReady.requeuingStrategy.backoffLimitCount", "out of range"),
        ("admissionFairSharing:\n  resourceWeights: {cpu: -1}\n", "admissionFairSharing.resourceWeights.cpu", "must not be negative"),
        ("resources:\n  quotaCheckStrategy: IgnoreUndeclared\n  excludeResourcePrefixes: [example.com/]\n", "resources.quotaCheckStrategy", "cannot be combined"),
        ("resources:\n  transformations:\n  - {input: nvidia.com/mig-1g}\n  - {input: nvidia.com/mig-1g}\n", "resources.transformations[1].input", "transformed twice"),
        ("featureGates:\n  FlavorFungibility: false\n", "featureGates.FlavorFungibility", "FlavorFungibilityPreserveScanProgress is enabled but needs FlavorFungibility"),
        ("featureGates:\n  PriorityBoost: yes please\n", "featureGates.PriorityBoost", "expected a boolean"),
    ],
)
def test_v1beta2_file_errors_name_the_field(body: str, where: str, reason: str) -> None:
    """API-32..API-38: what makes Kueue refuse to start is an error naming the field."""
    message = error(V1B2 + body)
    assert f"Configuration: {where}: " in message and reason in message


@pytest.mark.parametrize(
    "body,where,reason",
    [
        ("waitForPodsReady:\n  enable: true\n  timeout: 0s\n", "waitForPodsReady.timeout", "must be positive"),
        ("resources:\n  quotaCheckStrategy: BlockUndeclared\n", "resources.quotaCheckStrategy", "unknown field"),
        ("fairSharing:\n  enable: true\n  preemptionStrategies: [Fastest]\n", "fairSharing.preemptionStrategies", "is not one of"),
    ],
)
def test_v1beta1_file_errors(body: str, where: str, reason: str) -> None:
    message = error(V1B1 + body)
    assert f"Configuration: {where}: " in message and reason in message


def test_v1beta1_queue_visibility_is_accepted_and_ignored() -> None:
    assert cfg(V1B1 + "queueVisibility:\n  updateIntervalSeconds: 5\n").fair_sharing is None


def test_wrong_kind_or_version() -> None:
    assert "apiVersion: unsupported version 'config.kueue.x-k8s.io/v1alpha1'" in error(
        "apiVersion: config.kueue.x-k8s.io/v1alpha1\nkind: Configuration\n"
    )
    assert "kind: expected Configuration, got 'ClusterQueue'" in error(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
    )


# --------------------------------------------------------------------------- gates and the config


def test_gates_reach_the_preemption_config() -> None:
    """FG-1: PriorityBoost, PrioritySortingWithinCohort, FairSharingPreemptWithinNominal."""
    k = cfg(V1B2 + "featureGates:\n  PriorityBoost: true\n  PrioritySortingWithinCohort: false\n  FairSharingPreemptWithinNominal: false\n")
    c = k.preemption_config()
    assert (c.priority_boost, c.priority_sorting_within_cohort, c.fair_sharing_preempt_within_nominal) == (True, False, False)
    assert k.gate("ReclaimablePods") is True


def test_dependent_gates_may_be_turned_off_together() -> None:
    """API-38: FlavorFungibility off needs FlavorFungibilityPreserveScanProgress off too."""
    k = cfg(V1B2 + "featureGates:\n  FlavorFungibility: false\n  FlavorFungibilityPreserveScanProgress: false\n")
    assert not k.gate("FlavorFungibility")


def test_unknown_gate_is_a_warning_not_an_error() -> None:
    k = cfg(V1B2 + "featureGates:\n  SomeFutureGate: true\n")
    assert k.warnings == ("featureGates.SomeFutureGate: not a gate this library knows; it has no effect here",)


def test_admission_fair_sharing_needs_the_block_and_the_gate() -> None:
    """FG-4 / API-34."""
    block = "admissionFairSharing:\n  usageHalfLifeTime: 168h\n  resourceWeights: {cpu: 2, memory: 0.5}\n"
    k = cfg(V1B2 + block)
    assert k.preemption_config().admission_fair_sharing is True
    assert k.admission_fair_sharing is not None
    assert k.admission_fair_sharing.usage_half_life_time == timedelta(hours=168)
    assert k.admission_fair_sharing.usage_sampling_interval == timedelta(minutes=5)
    assert dict(k.admission_fair_sharing.resource_weights) == {"cpu": Decimal(2), "memory": Decimal("0.5")}
    off = cfg(V1B2 + block + "featureGates:\n  AdmissionFairSharing: false\n")
    assert off.preemption_config().admission_fair_sharing is False
    assert cfg(V1B2).preemption_config().admission_fair_sharing is False


def test_requeuing_timestamp_creation_and_the_disable_gate() -> None:
    """POL-5(a), API-35: Creation while waitForPodsReady is enabled; the gate turns it off."""
    body = "waitForPodsReady:\n  requeuingStrategy:\n    timestamp: Creation\n    backoffLimitCount: 3\n"
    k = cfg(V1B2 + body)
    assert k.preemption_config().pods_ready_requeuing_timestamp is RequeuingTimestamp.CREATION
    assert k.wait_for_pods_ready is not None and k.wait_for_pods_ready.requeuing_strategy.backoff_limit_count == 3
    disabled = cfg(V1B2 + body + "featureGates:\n  DisableWaitForPodsReady: true\n")
    assert disabled.preemption_config().pods_ready_requeuing_timestamp is RequeuingTimestamp.EVICTION


def test_client_connection_and_overrides() -> None:
    k = cfg(V1B2 + "clientConnection:\n  qps: 50.5\n  burst: 100\n")
    assert (k.client_connection.qps, k.client_connection.burst) == (Decimal("50.5"), 100)
    assert k.preemption_config(priority_boost=True).priority_boost is True


def test_json_file(tmp_path: Path) -> None:
    path = tmp_path / "kueue.json"
    path.write_text(json.dumps({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]}}))
    assert load_kueue_config(path).fair_sharing == ("LessThanOrEqualToFinalShare",)


@pytest.mark.parametrize(
    "text,expected",
    [("0", timedelta(0)), ("90s", timedelta(seconds=90)), ("1h30m", timedelta(minutes=90)), ("1.5h", timedelta(minutes=90)),
     ("300ms", timedelta(milliseconds=300)), ("-5s", timedelta(seconds=-5)), ("2h45m30.5s", timedelta(hours=2, minutes=45, seconds=30.5))],
)
def test_go_durations(text: str, expected: timedelta) -> None:
    assert parse_go_duration(text) == expected


@pytest.mark.parametrize("text", ["", "5", "1d", "m", "1h 30m", "--1s"])
def test_bad_go_durations(text: str) -> None:
    with pytest.raises(ValueError):
        parse_go_duration(text)


# --------------------------------------------------------------------------- CLI


def _fair_dump(tmp_path: Path) -> Path:
    from test_io_reclaimable import LOCAL_QUEUE, cluster_queue, dump_json, workload

    path = tmp_path / "dump.json"
    path.write_text(dump_json(cluster_queue("4"), LOCAL_QUEUE, workload("low", 1, 4, admitted=4), workload("p", 5, 2)))
    return path


def test_cli_config_sets_fair_sharing_and_flags_override_it(tmp_path: Path) -> None:
    dump = _fair_dump(tmp_path)
    config = tmp_path / "kueue.yaml"
    config.write_text(V1B2 + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n")
    base = ("explain", str(dump), "--workload", "ns/p", "--now", "2026-01-01T00:00:00Z", "-o", "json")
    plain = json.loads(run_cli(*base).stdout)
    assert (plain["algorithm"], plain["strategies"]) == ("classic", None)
    from_file = json.loads(run_cli(*base, "--config", str(config)).stdout)
    assert (from_file["algorithm"], from_file["strategies"]) == ("fairSharing", ["LessThanInitialShare"])
    flag = json.loads(run_cli(*base, "--config", str(config), "--strategies", "LessThanOrEqualToFinalShare").stdout)
    assert flag["strategies"] == ["LessThanOrEqualToFinalShare"]
    keep = json.loads(run_cli(*base, "--config", str(config), "--fair-sharing").stdout)
    assert keep["strategies"] == ["LessThanInitialShare"]


def test_cli_bad_config_is_exit_3_naming_the_field(tmp_path: Path) -> None:
    dump = _fair_dump(tmp_path)
    config = tmp_path / "kueue.yaml"
    config.write_text(V1B2 + "fairSharing:\n  enable: true\n")
    result = run_cli("check", str(dump), "--config", str(config))
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr.strip() == (
        f"kueue-preempt: error: {config}: Configuration: fairSharing.enable: unknown field "
        "(Kueue decodes its configuration strictly and would not start, API-32)"
    )


def test_cli_check_reports_unknown_gates(tmp_path: Path) -> None:
    dump = _fair_dump(tmp_path)
    config = tmp_path / "kueue.yaml"
    config.write_text(V1B2 + "featureGates:\n  NotAGate: true\n")
    result = run_cli("check", str(dump), "--config", str(config), "-o", "json")
    assert result.returncode == 0, result.stderr
    assert f"{config}: featureGates.NotAGate: not a gate this library knows; it has no effect here" in json.loads(result.stdout)["warnings"]


def test_gate_defaults_agree_with_the_library_gates() -> None:
    """FG-1/FG-2: the Configuration reader's gate table and ``FeatureGates`` state one default
    per gate; a gate both know must have the same default in both (no drift)."""
    from kueue_preempt.model.config import FeatureGates
    from kueue_preempt.io.kueue_config import FEATURE_GATES

    library = FeatureGates().as_kueue_mapping()
    shared = sorted(set(library) & set(FEATURE_GATES))
    assert "PriorityBoost" in shared
    assert {n: library[n] for n in shared} == {n: FEATURE_GATES[n][0] for n in shared}


def test_config_file_gates_reach_the_preemption_config_and_flags_win(tmp_path: Path) -> None:
    """FG-5: gates set in the file are the PreemptionConfig's; a CLI flag overrides one gate
    and leaves the file's other gates in force."""
    import argparse

    from kueue_preempt.cli.gates import feature_gates_of
    from kueue_preempt.io.kueue_config import load_kueue_config

    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "featureGates:\n  PriorityBoost: true\n  PartialAdmission: false\n"
    )
    kueue = load_kueue_config(str(path))
    assert kueue.preemption_config().priority_boost is True
    args = argparse.Namespace(feature_gates="PriorityBoost=false")
    gates = feature_gates_of(args, base=kueue.feature_gate_set())
    assert gates.priority_boost is False
    assert gates.partial_admission is False
