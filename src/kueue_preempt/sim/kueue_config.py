"""What the scenario simulator takes from a Kueue Configuration file.

The file is read by :func:`kueue_preempt.io.load_kueue_config` (strict, Kueue's defaults,
API-32..API-38); this module only maps it onto the scenario simulator's settings:

* ``clientConnection.qps`` / ``burst`` → the API model's limits (decision ``(kp-a)``;
  Kueue's defaults, 300 / 500, when the section is absent);
* gate ``SchedulingEquivalenceHashing`` → :attr:`PerfModel.scheduling_equivalence_hashing`.

Settings that change the scheduling these scenarios exercise but that the scenario simulator
does not model are refused rather than ignored: fair sharing, admission fair sharing, and
``waitForPodsReady`` with ``blockAdmission`` (without it, ``waitForPodsReady`` changes nothing
here: pods are ready at admission, ``SC-SIM-1``).
"""

from __future__ import annotations

import os

import attrs

from ..errors import UnsupportedConfiguration
from ..io.kueue_config import KueueConfiguration, load_kueue_config
from .throughput import ApiLimits

__all__ = ["ScenarioSettings", "scenario_settings", "load_scenario_settings"]


@attrs.frozen
class ScenarioSettings:
    api: ApiLimits
    scheduling_equivalence_hashing: bool


def scenario_settings(config: KueueConfiguration) -> ScenarioSettings:
    """The scenario simulator's settings from a read Kueue Configuration."""
    where = config.source or "Kueue Configuration"
    if config.fair_sharing is not None:
        raise UnsupportedConfiguration(f"{where}: fairSharing: the scenario simulator does not model fair sharing")
    if config.admission_fair_sharing is not None:
        raise UnsupportedConfiguration(f"{where}: admissionFairSharing: the scenario simulator does not model it")
    wait = config.wait_for_pods_ready
    if config.wait_for_pods_ready_enabled and wait is not None and wait.block_admission:
        raise UnsupportedConfiguration(
            f"{where}: waitForPodsReady.blockAdmission: the scenario simulator does not model it"
        )
    cc = config.client_connection
    return ScenarioSettings(ApiLimits(float(cc.qps), cc.burst), config.gate("SchedulingEquivalenceHashing"))


def load_scenario_settings(path: str | os.PathLike[str]) -> ScenarioSettings:
    """:func:`scenario_settings` of a Configuration file."""
    return scenario_settings(load_kueue_config(path))
