"""What the scenario simulator takes from a Kueue Configuration (kueue_preempt.kperf.config),
read by the library's Configuration reader (API-32..API-38)."""

from __future__ import annotations

import pytest

from kueue_preempt.errors import UnsupportedConfiguration
from kueue_preempt.io import ManifestError, parse_kueue_config
from kueue_preempt.kperf.config import ScenarioSettings, scenario_settings
from kueue_preempt.sim.throughput import ApiLimits

V1BETA2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"


def test_client_connection_and_kueue_defaults() -> None:
    cfg = parse_kueue_config(V1BETA2 + "clientConnection:\n  qps: 50\n  burst: 100\n")
    assert scenario_settings(cfg) == ScenarioSettings(ApiLimits(50.0, 100), True)
    # Kueue's defaults when the section is absent (API-32): 300 requests per second, bursts of 500.
    assert scenario_settings(parse_kueue_config(V1BETA2)).api == ApiLimits(300.0, 500)
    # An empty v1beta2 file has waitForPodsReady on, without blockAdmission: nothing to refuse.
    assert parse_kueue_config(V1BETA2).wait_for_pods_ready is not None


def test_the_hashing_gate_comes_from_the_file() -> None:
    cfg = parse_kueue_config(V1BETA2 + "featureGates:\n  SchedulingEquivalenceHashing: false\n")
    assert scenario_settings(cfg).scheduling_equivalence_hashing is False


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare]\n", "fairSharing"),
        ("admissionFairSharing:\n  usageHalfLifeTime: 1h\n", "admissionFairSharing"),
        ("waitForPodsReady:\n  blockAdmission: true\n", "blockAdmission"),
    ],
)
def test_unsupported_settings_are_refused(extra: str, words: str) -> None:
    cfg = parse_kueue_config(V1BETA2 + extra, source="config.yaml")
    with pytest.raises(UnsupportedConfiguration) as info:
        scenario_settings(cfg)
    assert words in str(info.value) and "config.yaml" in str(info.value)


def test_bad_files_are_the_readers_errors() -> None:
    with pytest.raises(ManifestError):
        parse_kueue_config(V1BETA2 + "clientConnection:\n  qps: 50\n  bursts: 100\n")
