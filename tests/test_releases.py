"""Kueue releases as a setting: the per-release gate table (kueue-api-fields.md §3.4), the
library's ``kueue_release`` / ``release`` parameters, ``--kueue-version`` on the CLI, and a
decision that differs between two releases because of a gate default.

The decision: cohort ``co`` with ClusterQueues ``borrower`` (0 CPUs, holding ``ns/big``, 8 CPUs
borrowed), ``a`` and ``b`` (4 CPUs each, ``reclaimWithinCohort: Any``). Pending ``ns/wb``
(priority 5, 4 CPUs, in ``b``) and ``ns/wa`` (priority 0, 4 CPUs, in ``a``) both need ``big``
preempted. ``wb`` goes first (SC-ORD-1) and preempts it; ``wa``'s targets overlap. With gate
``RecomputeAssignmentUponPreemptionTargetsOverlap`` (on at the reference commit, off in 0.18.5
to 0.19.x) ``wa`` is recomputed with ``big`` removed and fits once it is gone (SC-PE-3:
``WaitingForPreemptedWorkloads``); without it ``wa`` is skipped (``WaitingForQuota``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from cli_helpers import run_cli
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ManifestError
from kueue_preempt.io.kueue_config import KueueConfiguration, parse_kueue_config
from kueue_preempt.model.config import FeatureGates, PreemptionConfig
from kueue_preempt.model.releases import DEFAULT_RELEASE, first_release_with, kueue_release
from test_cli_cycle import _cq, _workload

NOW = "2026-03-02T10:00:00Z"
V1BETA2 = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"


# --------------------------------------------------------------------------- the table


def test_default_release_is_the_reference_commit() -> None:
    assert DEFAULT_RELEASE.name == "0.20-dev"
    assert kueue_release(None) is DEFAULT_RELEASE
    assert kueue_release("ff69552e") is DEFAULT_RELEASE
    assert FeatureGates.for_release(None) == FeatureGates()
    assert PreemptionConfig().kueue_release == DEFAULT_RELEASE


def test_lines_name_their_latest_patch_and_patches_are_exact() -> None:
    assert kueue_release("0.18").name == "0.18.6"
    assert kueue_release("v0.19").name == "0.19.2"
    assert kueue_release("0.16.3").name == "0.16.3"


@pytest.mark.parametrize("name", ["0.20", "0.15", "0.19.3", "1.0", "", "0.1٩", "latest", "0.18.x"])
def test_unknown_release_names_are_refused_with_the_known_ones(name: str) -> None:
    with pytest.raises(ConfigurationError, match=r"known: 0\.20-dev .*0\.16 \(0\.16\.0-0\.16\.9\)"):
        kueue_release(name)


def test_gate_defaults_per_release() -> None:
    """Rows of §3.4 that the library's gates model, at each line's latest patch."""
    g16, g17, g18, g19, dev = (FeatureGates.for_release(r) for r in ("0.16", "0.17", "0.18", "0.19", None))
    assert [g.scheduling_equivalence_hashing for g in (g16, g17, g18, g19, dev)] == [False, False, True, True, True]
    assert [g.quota_check_strategy for g in (g16, g17, g18, g19, dev)] == [False, False, False, True, True]
    assert [g.elastic_jobs_via_workload_slices for g in (g16, g17, g18, g19, dev)] == [False, False, True, True, True]
    overlap = [g.recompute_assignment_upon_preemption_targets_overlap for g in (g16, g17, g18, g19, dev)]
    assert overlap == [False, False, False, False, True]
    # A gate the release lacks is off: its feature is not there.
    assert [g.flavor_fungibility_preserve_scan_progress for g in (g16, g17, g18, g19, dev)] == [False, False, True, True, True]
    assert g19 == attrs.evolve(dev, recompute_assignment_upon_preemption_targets_overlap=False)


def test_defaults_that_moved_between_patches() -> None:
    assert [FeatureGates.for_release(f"0.16.{p}").scheduling_equivalence_hashing for p in (2, 3, 4)] == [False, True, False]
    assert not kueue_release("0.16.1").has_gate("FairSharingPrioritizeNonBorrowing")
    assert kueue_release("0.16.2").default("FairSharingPrioritizeNonBorrowing") is True
    assert not FeatureGates.for_release("0.18.4").flavor_fungibility_preserve_scan_progress
    assert FeatureGates.for_release("0.18.5").flavor_fungibility_preserve_scan_progress
    assert first_release_with("PriorityBoost") == "0.17.0"
    assert first_release_with("FlavorFungibilityPreserveScanProgress") == "0.18.5"
    assert first_release_with("NoSuchGate") is None


def test_preemption_config_takes_a_release_and_explicit_gates_win() -> None:
    assert not PreemptionConfig(kueue_release="0.17").feature_gates.scheduling_equivalence_hashing
    config = PreemptionConfig(kueue_release="0.17", feature_gates={"SchedulingEquivalenceHashing": True})
    assert config.feature_gates.scheduling_equivalence_hashing
    assert not config.feature_gates.quota_check_strategy  # the rest stays 0.17's
    with pytest.raises(ConfigurationError, match="PreemptionConfig.kueue_release"):
        PreemptionConfig(kueue_release="9.9")


# --------------------------------------------------------------------------- Configuration files


def test_configuration_gates_override_the_release_defaults() -> None:
    config = parse_kueue_config(V1BETA2 + "featureGates: {RecomputeAssignmentUponPreemptionTargetsOverlap: true}\n", release="0.19")
    gates = config.preemption_config().feature_gates
    assert gates.recompute_assignment_upon_preemption_targets_overlap
    assert config.gate("RecomputeAssignmentUponPreemptionTargetsOverlap")
    assert config.preemption_config().kueue_release.name == "0.19.2"
    plain = parse_kueue_config(V1BETA2, release="0.19")
    assert not plain.gate("RecomputeAssignmentUponPreemptionTargetsOverlap")


def test_a_gate_the_release_does_not_have_is_refused() -> None:
    """API-38: Kueue 0.16 does not know PriorityBoost and would not start."""
    with pytest.raises(ManifestError, match=r"featureGates\.PriorityBoost: Kueue 0\.16\.9 does not have this gate \(it exists from Kueue 0\.17\.0\)"):
        parse_kueue_config(V1BETA2 + "featureGates: {PriorityBoost: true}\n", release="0.16")
    with pytest.raises(ManifestError, match=r"LendingLimit: Kueue 0\.19\.2 removed this gate"):
        parse_kueue_config(V1BETA2 + "featureGates: {LendingLimit: true}\n", release="0.19")
    assert parse_kueue_config(V1BETA2 + "featureGates: {PriorityBoost: true}\n", release="0.17").gate("PriorityBoost")


def test_wait_for_pods_ready_is_on_by_default_only_from_0_19() -> None:
    assert KueueConfiguration.defaults("0.18").wait_for_pods_ready is None
    assert KueueConfiguration.defaults("0.19").wait_for_pods_ready is not None
    assert parse_kueue_config(V1BETA2, release="0.18").wait_for_pods_ready is None
    assert parse_kueue_config(V1BETA2, release="0.19").wait_for_pods_ready is not None
    on = parse_kueue_config(V1BETA2 + "waitForPodsReady: {timeout: 5m}\n", release="0.18")
    assert on.wait_for_pods_ready_enabled


def test_quota_check_strategy_follows_the_release() -> None:
    text = V1BETA2 + "resources: {quotaCheckStrategy: IgnoreUndeclared}\n"
    assert parse_kueue_config(text, release="0.19").resources.quota_check_strategy == "IgnoreUndeclared"
    assert parse_kueue_config(text, release="0.18").resources.quota_check_strategy is None  # gate off there
    old = parse_kueue_config(text, release="0.17")
    assert old.resources.quota_check_strategy is None
    assert any("Kueue 0.17.8 has no QuotaCheckStrategy gate" in w for w in old.warnings)


# --------------------------------------------------------------------------- the CLI


def _dump(tmp_path: Path, extra: list[dict[str, Any]] | None = None) -> str:
    big = _workload("big", 0, 8, True)
    big["status"]["admission"]["clusterQueue"] = "borrower"
    big["spec"]["queueName"] = "lqx"
    wa = _workload("wa", 0, 4, False)
    wa["spec"]["queueName"] = "lqa"
    wb = _workload("wb", 5, 4, False)
    wb["spec"]["queueName"] = "lqb"

    def cq(name: str, cpus: int) -> dict[str, Any]:
        q = _cq(name, cpus)
        q["spec"]["preemption"] = {"reclaimWithinCohort": "Any"}
        return q

    def lq(name: str, cluster_queue: str) -> dict[str, Any]:
        return {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"clusterQueue": cluster_queue},
        }

    items = [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        cq("borrower", 0),
        cq("a", 4),
        cq("b", 4),
        lq("lqx", "borrower"),
        lq("lqa", "a"),
        lq("lqb", "b"),
        big,
        wa,
        wb,
    ] + (extra or [])
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _wa(*args: str) -> tuple[str, str | None]:
    r = run_cli("cycle", *args, "--now", NOW, "-o", "json")
    assert r.returncode == 0, r.stderr
    results = {x["workload"]: x for x in json.loads(r.stdout)["cycles"][0]["results"]}
    assert results["ns/wb"]["outcome"] == "Preempting"
    return results["ns/wa"]["outcome"], results["ns/wa"]["reason"]


def test_the_cycle_decision_differs_between_releases(tmp_path: Path) -> None:
    dump = _dump(tmp_path)
    assert _wa(dump) == ("DeferredFit", "WaitingForPreemptedWorkloads")
    assert _wa(dump, "--kueue-version", "0.19") == ("Skipped", "WaitingForQuota")
    assert _wa(dump, "--kueue-version", "0.18.4") == ("Skipped", "WaitingForQuota")
    # An explicit gate wins over the release's default, from the flag or from --config.
    flag = "RecomputeAssignmentUponPreemptionTargetsOverlap=true"
    assert _wa(dump, "--kueue-version", "0.19", "--feature-gates", flag) == ("DeferredFit", "WaitingForPreemptedWorkloads")
    config = tmp_path / "kueue.yaml"
    config.write_text(V1BETA2 + "featureGates: {RecomputeAssignmentUponPreemptionTargetsOverlap: true}\n")
    assert _wa(dump, "--kueue-version", "0.19", "--config", str(config)) == ("DeferredFit", "WaitingForPreemptedWorkloads")


def test_a_configuration_invalid_in_the_chosen_release_is_an_input_error(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    config.write_text(V1BETA2 + "featureGates: {PriorityBoost: true}\n")
    r = run_cli("cycle", _dump(tmp_path), "--config", str(config), "--kueue-version", "0.16", "--now", NOW)
    assert r.returncode == 3
    assert "featureGates.PriorityBoost: Kueue 0.16.9 does not have this gate" in r.stderr
    assert run_cli("cycle", _dump(tmp_path), "--config", str(config), "--now", NOW).returncode == 0


def test_an_unknown_release_is_a_usage_error() -> None:
    r = run_cli("explain", "x.yaml", "--workload", "a/b", "--kueue-version", "0.21")
    assert r.returncode == 2
    assert "--kueue-version: Kueue release '0.21' is not one this library has gate defaults for" in r.stderr


def test_version_and_help_name_the_default_release() -> None:
    r = run_cli("--version", env={"COLUMNS": "40"})
    assert r.returncode == 0
    # One line whatever the terminal width (argparse's version action would wrap it).
    assert r.stdout.endswith("(default Kueue release: 0.20-dev, main at ff69552e)\n")
    assert r.stdout.startswith("kueue-preempt ") and r.stdout.count("\n") == 1
    text = run_cli("--help").stdout
    assert "Kueue 0.20-dev (main at ff69552e)" in " ".join(text.split())
    assert "reference commit" not in text
    for command in ("explain", "check", "cycle", "simulate", "sweep"):
        assert "--kueue-version" in run_cli(command, "--help").stdout, command


def test_a_dump_written_for_a_later_release_says_so(tmp_path: Path) -> None:
    """The allowed-flavors annotation needs gate ConcurrentAdmission, which 0.18 introduced."""
    w = _workload("late", 0, 1, False)
    w["metadata"]["name"] = "late"
    w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-allowed-resource-flavors": "default"}
    w["spec"]["queueName"] = "lqa"
    dump = _dump(tmp_path, [w])
    r = run_cli("check", dump, "--kueue-version", "0.17", "-o", "json")
    assert r.returncode == 0, r.stderr
    warnings = json.loads(r.stdout)["warnings"]
    assert any(
        "kueue.x-k8s.io/workload-allowed-resource-flavors annotation (ns/late), which needs Kueue 0.18.0 or later" in w
        and "Kueue 0.17.8 ignores it" in w
        for w in warnings
    ), warnings
    assert not any("allowed-resource-flavors" in w for w in json.loads(run_cli("check", dump, "-o", "json").stdout)["warnings"])
    c = run_cli("cycle", dump, "--kueue-version", "0.17", "--now", NOW)
    assert "which needs Kueue 0.18.0 or later" in c.stderr
