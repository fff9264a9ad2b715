"""What the scenario simulator takes from a Kueue Configuration file.

The file is read by :func:`kueue_preempt.io.load_kueue_config` (strict, Kueue's defaults,
API-32..API-38); this module only maps it onto the scenario simulator's settings:

* ``clientConnection.qps`` / ``burst`` → the API model's limits (one token bucket for every
  status write Kueue makes; Kueue's defaults, 300 / 500, when the section is absent);
* gate ``SchedulingEquivalenceHashing`` → :attr:`ScenarioOptions.scheduling_equivalence_hashing
  <kueue_preempt.kperf.run.ScenarioOptions.scheduling_equivalence_hashing>`.

:func:`configured_api_limits` is the rule of ``simulate DUMP --config``: there the API model is on
only when the file has a ``clientConnection`` section, so a file given only for its scheduling
settings does not silently shift every admission by the API's round trip.

Settings that change the scheduling these scenarios exercise but that the scenario simulator
does not model are refused rather than ignored: fair sharing, admission fair sharing, and
``waitForPodsReady`` with ``blockAdmission`` (without it, ``waitForPodsReady`` changes nothing
here: pods are ready at admission, ``SC-SIM-1``).
"""

from __future__ import annotations

import os

import attrs

from kueue_preempt.errors import ConfigurationError, UnsupportedConfiguration
from kueue_preempt.io.kueue_config import ClientConnection, KueueConfiguration, load_kueue_config, parse_kueue_config
from kueue_preempt.io.errors import ManifestError
from kueue_preempt.io.read import parse_documents, read_bytes
from kueue_preempt.model.releases import KueueRelease
from kueue_preempt.sim.throughput import ApiLimits
from kueue_preempt._util.checks import path_arg

__all__ = ["ScenarioSettings", "scenario_settings", "load_scenario_settings", "configured_api_limits"]


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
    return ScenarioSettings(_limits(config.client_connection, where), config.gate("SchedulingEquivalenceHashing"))


def _limits(cc: ClientConnection, where: str) -> ApiLimits:
    """The simulated client of ``clientConnection``; its refusals name the file and the field."""
    if cc.qps <= 0:
        raise ManifestError(
            where, "Configuration", "", "clientConnection.qps",
            f"must be > 0 to model Kueue's client, got {cc.qps} (in Kueue a negative qps turns rate limiting "
            "off: leave clientConnection out for an ideal API)",
        )
    if cc.burst < 1:
        raise ManifestError(where, "Configuration", "", "clientConnection.burst", f"must be >= 1 to model Kueue's client, got {cc.burst}")
    try:
        return ApiLimits(float(cc.qps), cc.burst)
    except ConfigurationError as exc:
        raise ManifestError(where, "Configuration", "", "clientConnection", str(exc)) from None


def load_scenario_settings(path: str | os.PathLike[str], release: str | KueueRelease | None = None) -> ScenarioSettings:
    """:func:`scenario_settings` of a Configuration file, read as ``release`` reads it."""
    return scenario_settings(load_kueue_config(path, release=release))


def configured_api_limits(path: str | os.PathLike[str]) -> ApiLimits | None:
    """The client limits a Configuration file sets: its ``clientConnection`` (Kueue's defaults
    for a field it leaves out), or ``None`` when the file has no such section — for a dump's
    simulation, a Configuration that says nothing about the client keeps the ideal API, so
    ``--config`` files written for the cycle's settings do not shift every admission by the
    API's round trip."""
    name = path_arg(path, "configured_api_limits", "path")
    name = "<stdin>" if name == "-" else name
    data = read_bytes(path)
    docs = parse_documents(data, source=name)
    if not any(isinstance(d.data, dict) and d.data.get("clientConnection") is not None for d in docs):
        return None
    return _limits(parse_kueue_config(data, source=name).client_connection, name)
