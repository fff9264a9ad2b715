"""The parts of a Kueue Configuration file that the scenario simulator reads.

``clientConnection.qps`` / ``burst`` give the API model's limits (decision ``(kp-a)``); Kueue's
API defaults apply when the section or a field is absent (20 requests per second, bursts of
30, as in ``config.kueue.x-k8s.io`` ``SetDefaults_Configuration``). Settings that change the
scheduling the scenario simulator models but that it does not implement (fair sharing,
admission fair sharing, waitForPodsReady) are refused rather than ignored; every other field is
irrelevant to these scenarios and is not read.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from ..errors import UnsupportedConfiguration
from ..io.errors import ManifestError
from ..io.read import DEFAULT_LIMITS, Limits, parse_documents, read_bytes
from .throughput import ApiLimits

__all__ = ["DEFAULT_CLIENT_QPS", "DEFAULT_CLIENT_BURST", "client_limits", "load_client_limits"]

DEFAULT_CLIENT_QPS = 20.0
DEFAULT_CLIENT_BURST = 30


def _enabled(section: object) -> bool:
    return isinstance(section, dict) and section.get("enable") is True


def client_limits(config: Mapping[str, Any], *, source: str = "<config>") -> ApiLimits:
    """The API model's limits from a parsed Kueue Configuration object."""
    kind = config.get("kind")
    if kind != "Configuration":
        raise ManifestError(source, "", "", "kind", f"expected a Kueue Configuration, got kind {kind!r}")
    for key in ("fairSharing", "waitForPodsReady"):
        if _enabled(config.get(key)):
            raise UnsupportedConfiguration(f"{source}: {key}.enable: the scenario simulator does not model {key}")
    if config.get("admissionFairSharing") is not None:
        raise UnsupportedConfiguration(f"{source}: admissionFairSharing: the scenario simulator does not model it")
    cc = config.get("clientConnection", {})
    if cc is None:
        cc = {}
    if not isinstance(cc, dict):
        raise ManifestError(source, "Configuration", "", "clientConnection", "expected a mapping")
    qps = cc.get("qps", DEFAULT_CLIENT_QPS)
    burst = cc.get("burst", DEFAULT_CLIENT_BURST)
    if isinstance(qps, bool) or not isinstance(qps, (int, float)) or not qps > 0:
        raise ManifestError(source, "Configuration", "", "clientConnection.qps", f"expected a number > 0, got {qps!r}")
    if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
        raise ManifestError(source, "Configuration", "", "clientConnection.burst", f"expected an integer >= 1, got {burst!r}")
    return ApiLimits(float(qps), burst)


def load_client_limits(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> ApiLimits:
    """:func:`client_limits` of a Configuration file (YAML or JSON; a ConfigMap embedding it
    under ``data["controller_manager_config.yaml"]`` is accepted too, as Kueue ships it)."""
    source = os.fspath(path)
    docs = parse_documents(read_bytes(path, limits), source=source, limits=limits)
    for raw in docs:
        data = raw.data
        if data.get("kind") == "ConfigMap":
            entries = data.get("data")
            embedded = entries.get("controller_manager_config.yaml") if isinstance(entries, dict) else None
            if isinstance(embedded, str):
                inner = parse_documents(embedded, source=source, format="yaml", limits=limits)
                if inner:
                    return client_limits(inner[0].data, source=source)
        if data.get("kind") == "Configuration":
            return client_limits(data, source=source)
    raise ManifestError(source, "", "", "", "no Kueue Configuration (kind: Configuration) found")
