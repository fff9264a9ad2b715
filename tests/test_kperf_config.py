"""Client limits for the API model from a Kueue Configuration (kueue_preempt.sim.kueue_config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kueue_preempt.errors import UnsupportedConfiguration
from kueue_preempt.io import ManifestError
from kueue_preempt.sim.kueue_config import client_limits, load_client_limits
from kueue_preempt.sim.throughput import ApiLimits

CONFIG = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"


def test_client_connection_and_kueue_defaults() -> None:
    assert client_limits({"kind": "Configuration", "clientConnection": {"qps": 300, "burst": 500}}) == ApiLimits(300.0, 500)
    # Kueue's API defaults when the section or a field is absent.
    assert client_limits({"kind": "Configuration"}) == ApiLimits(20.0, 30)
    assert client_limits({"kind": "Configuration", "clientConnection": {"qps": 7.5}}) == ApiLimits(7.5, 30)


def test_config_map_as_kueue_ships_it(tmp_path: Path) -> None:
    inner = CONFIG + "clientConnection:\n  qps: 50\n  burst: 100\n"
    cm = tmp_path / "cm.yaml"
    indented = "".join("    " + line + "\n" for line in inner.splitlines())
    cm.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config}\n"
        "data:\n  controller_manager_config.yaml: |\n" + indented
    )
    assert load_client_limits(cm) == ApiLimits(50.0, 100)


@pytest.mark.parametrize(
    ("data", "error", "words"),
    [
        ({"kind": "Deployment"}, ManifestError, "expected a Kueue Configuration"),
        ({"kind": "Configuration", "clientConnection": {"qps": 0}}, ManifestError, "clientConnection.qps"),
        ({"kind": "Configuration", "clientConnection": {"burst": 1.5}}, ManifestError, "clientConnection.burst"),
        ({"kind": "Configuration", "clientConnection": [1]}, ManifestError, "clientConnection"),
        ({"kind": "Configuration", "fairSharing": {"enable": True}}, UnsupportedConfiguration, "fairSharing"),
        ({"kind": "Configuration", "waitForPodsReady": {"enable": True}}, UnsupportedConfiguration, "waitForPodsReady"),
        ({"kind": "Configuration", "admissionFairSharing": {}}, UnsupportedConfiguration, "admissionFairSharing"),
    ],
)
def test_bad_or_unsupported_configurations(data: dict[str, object], error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        client_limits(data, source="config.yaml")
    assert words in str(info.value)


def test_a_file_without_a_configuration(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: [1, 2]\n")
    with pytest.raises(ManifestError) as info:
        load_client_limits(p)
    assert "no Kueue Configuration" in str(info.value)
