"""The Kueue Configuration file (``config.kueue.x-k8s.io`` v1beta1 and v1beta2, kind
``Configuration``) as Kueue reads it (kueue-api-fields.md §3, API-32..API-40).

:func:`load_kueue_config` / :func:`parse_kueue_config` return a frozen
:class:`KueueConfiguration` with the fields that act on decisions: fair sharing and its
strategies, admission fair sharing, ``waitForPodsReady`` (with ``requeuingStrategy``), the
resource rewriting settings, ``featureGates`` and ``clientConnection``.
:meth:`KueueConfiguration.preemption_config` turns it into the
:class:`~kueue_preempt.PreemptionConfig` that ``get_targets`` takes. No file at all is
:meth:`KueueConfiguration.defaults` (the v1beta2 defaults, API-32).

Version rules (API-32): the file is decoded strictly (an unknown field is an error, because
Kueue refuses to start), the defaults of the file's *own* version are applied, then it is read
as v1beta2. So an empty v1beta2 file has ``waitForPodsReady`` on (30 min) and an empty v1beta1
file has it off; v1beta1 turns fair sharing and ``waitForPodsReady`` on with ``enable: true``.

Releases (kueue-api-fields.md §3.4): every reader takes ``release`` (default: the reference
commit, :data:`~kueue_preempt.model.releases.DEFAULT_RELEASE`). It gives the defaults of the
gates the file does not set; a gate the release does not have is refused, as that Kueue would
not start; before 0.19 a file without ``waitForPodsReady`` leaves it off.
"""

from __future__ import annotations

import os
from datetime import timedelta
from decimal import Decimal
from typing import Any, Mapping

import attrs

from kueue_preempt._util.checks import path_arg
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model.config import FairSharingConfig, FeatureGates, PreemptionConfig, RequeuingTimestamp
from kueue_preempt.model.releases import DEFAULT_RELEASE, GateState, KueueRelease, first_release_with, kueue_release
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io._fields import Ctx, Field
from kueue_preempt.io.errors import ManifestError
from kueue_preempt.io.text import FLOAT32_MAX, MIN_RATE
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, parse_documents, read_bytes
from kueue_preempt.policies.actions import InvalidDuration
from kueue_preempt.policies.boost import parse_go_duration_ns

__all__ = [
    "CONFIG_GROUP",
    "FEATURE_GATES",
    "AdmissionFairSharingSettings",
    "ClientConnection",
    "KueueConfiguration",
    "RequeuingStrategy",
    "ResourceSettings",
    "ResourceTransformation",
    "WaitForPodsReady",
    "load_kueue_config",
    "parse_go_duration",
    "parse_kueue_config",
]

CONFIG_GROUP = "config.kueue.x-k8s.io"
_KIND = "Configuration"

FEATURE_GATES: dict[str, tuple[bool, tuple[str, ...]]] = {
    # name: (default at the reference commit, gates it needs) - kueue-api-fields.md §3.3
    "PartialAdmission": (True, ()),
    "FlavorFungibility": (True, ()),
    "FlavorFungibilityPreserveScanProgress": (True, ("FlavorFungibility",)),
    "PrioritySortingWithinCohort": (True, ()),
    "FairSharingPreemptWithinNominal": (True, ()),
    "FairSharingPrioritizeNonBorrowing": (True, ()),
    "AdmissionFairSharing": (True, ()),
    "PriorityBoost": (False, ()),
    "ReclaimablePods": (True, ()),
    "QuotaCheckStrategy": (True, ()),
    "VectorizedResourceRequests": (True, ()),
    "UnadmittedWorkloadsObservability": (True, ()),
    "UnadmittedWorkloadsExplicitStatus": (False, ("UnadmittedWorkloadsObservability",)),
    "SchedulingEquivalenceHashing": (True, ()),
    "PrioritizePreemptorWorkloads": (False, ()),
    "RecomputeAssignmentUponPreemptionTargetsOverlap": (True, ()),
    "DisableWaitForPodsReady": (False, ()),
    "TopologyAwareScheduling": (True, ()),
    "TASFailedNodeReplacement": (True, ("TopologyAwareScheduling",)),
    "TASFailedNodeReplacementFailFast": (True, ("TopologyAwareScheduling",)),
    "TASReplaceNodeOnPodTermination": (True, ("TopologyAwareScheduling",)),
    "TASReplaceNodeOnNodeTaints": (True, ("TopologyAwareScheduling",)),
    "TASMultiLayerTopology": (True, ("TopologyAwareScheduling",)),
    "TASHandleOverlappingFlavors": (True, ("TopologyAwareScheduling",)),
    "TASProfileMixed": (True, ("TopologyAwareScheduling",)),
    "TASRecomputeAssignmentWithinSchedulingCycle": (True, ("TopologyAwareScheduling",)),
    "ElasticJobsViaWorkloadSlices": (True, ()),
    "ConcurrentAdmission": (False, ()),
    "MultiKueueOrchestratedPreemption": (False, ()),
    "AdmissionGatedBy": (True, ()),
    "WorkloadPriorityClassDefaulting": (True, ()),
    "KueueDRAIntegration": (True, ()),
    "WorkloadValidateResourcesAreNonNegative": (True, ()),
    "WorkloadValidationForPodSetMetadata": (True, ()),
    "RejectUpdatesToCQWithInvalidOnFlavors": (False, ()),
}
"""The gates of kueue-api-fields.md §3.3 with their defaults and dependencies (API-38, API-39)."""

_STRATEGY_LISTS = (
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)
# Top-level fields Kueue accepts but no decision here depends on (§3.1 "Ignored").
_IGNORED = (
    "namespace",
    "manageJobsWithoutQueueName",
    "managedJobsNamespaceSelector",
    "internalCertManagement",
    "webhook",
    "metrics",
    "health",
    "leaderElection",
    "controller",
    "pprofBindAddress",
    "tls",
    "integrations",
    "multiKueue",
    "objectRetentionPolicies",
    "visibilityServer",
)
_READ = ("apiVersion", "kind", "fairSharing", "admissionFairSharing", "waitForPodsReady", "resources", "featureGates", "clientConnection")
_V1BETA1_ONLY = ("queueVisibility",)


# --------------------------------------------------------------------------- values


def _decimal_map(value: Mapping[str, Decimal]) -> FrozenMap[str, Decimal]:
    return frozen_map(value)


def _bool_map(value: Mapping[str, bool]) -> FrozenMap[str, bool]:
    return frozen_map(value)


@attrs.frozen
class AdmissionFairSharingSettings:
    """``admissionFairSharing`` (API-34, SC-AFS-*)."""

    usage_half_life_time: timedelta = timedelta(0)
    usage_sampling_interval: timedelta = timedelta(minutes=5)
    resource_weights: FrozenMap[str, Decimal] = attrs.field(factory=FrozenMap, converter=_decimal_map)


@attrs.frozen
class RequeuingStrategy:
    """``waitForPodsReady.requeuingStrategy`` (POL-5(a), SC-BO-2)."""

    timestamp: RequeuingTimestamp = RequeuingTimestamp.EVICTION
    backoff_limit_count: int | None = None
    backoff_base_seconds: int = 60
    backoff_max_seconds: int = 3600


@attrs.frozen
class WaitForPodsReady:
    """``waitForPodsReady`` after defaulting (API-35). Its presence means "enabled" unless
    gate ``DisableWaitForPodsReady`` is on (see :attr:`KueueConfiguration.wait_for_pods_ready_enabled`)."""

    timeout: timedelta = timedelta(minutes=30)
    block_admission: bool = False
    recovery_timeout: timedelta | None = None
    requeuing_strategy: RequeuingStrategy = RequeuingStrategy()


@attrs.frozen
class ResourceTransformation:
    """One ``resources.transformations`` entry (API-36)."""

    input: str
    strategy: str = "Retain"
    multiply_by: str | None = None
    outputs: FrozenMap[str, Decimal] = attrs.field(factory=FrozenMap, converter=_decimal_map)


@attrs.frozen
class ResourceSettings:
    """``resources`` (API-36, API-37)."""

    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[ResourceTransformation, ...] = ()
    quota_check_strategy: str | None = None


@attrs.frozen
class ClientConnection:
    """``clientConnection`` (only the API write rate; no decision depends on it)."""

    qps: Decimal = Decimal(300)
    burst: int = 500


@attrs.frozen
class KueueConfiguration:
    """A Kueue Configuration, converted to v1beta2 and defaulted as Kueue does (API-32).

    ``feature_gates`` holds what the file sets; :meth:`gate` gives every gate's final value.
    ``warnings`` lists gate names this library does not know (Kueue knows more gates than
    the spec's table; they are kept but act on nothing here).
    """

    api_version: str = f"{CONFIG_GROUP}/v1beta2"
    fair_sharing: tuple[str, ...] | None = None
    """The preemption strategies when fair sharing is on (FG-3, FS-CFG-1), else ``None``."""
    admission_fair_sharing: AdmissionFairSharingSettings | None = None
    wait_for_pods_ready: WaitForPodsReady | None = WaitForPodsReady()
    resources: ResourceSettings = ResourceSettings()
    feature_gates: FrozenMap[str, bool] = attrs.field(factory=FrozenMap, converter=_bool_map)
    client_connection: ClientConnection = ClientConnection()
    source: str = ""
    warnings: tuple[str, ...] = ()
    release: KueueRelease = DEFAULT_RELEASE
    """The Kueue release whose defaults fill in what the file leaves out (§3.4)."""

    @classmethod
    def defaults(cls, release: str | KueueRelease | None = None) -> KueueConfiguration:
        """Kueue without a configuration file: the v1beta2 defaults (API-32) of ``release``
        (default: the reference commit; before 0.19 ``waitForPodsReady`` is off)."""
        chosen = _release(release)
        return cls(wait_for_pods_ready=WaitForPodsReady() if chosen.wait_for_pods_ready_by_default else None, release=chosen)

    def gate(self, name: str) -> bool:
        """The final value of a feature gate: the file's setting, else the release's default."""
        if name in self.feature_gates:
            return self.feature_gates[name]
        return _gate_default(name, self.release)

    def feature_gate_set(self) -> FeatureGates:
        """The file's gates over the release's defaults as the library's :class:`FeatureGates`
        (gates the library does not model are left out: they act on nothing here)."""
        known = FeatureGates.kueue_names()
        base = FeatureGates.for_release(self.release)
        return FeatureGates.from_mapping({n: v for n, v in self.feature_gates.items() if n in known}, base=base)

    @property
    def wait_for_pods_ready_enabled(self) -> bool:
        """API-35: the block is present and gate ``DisableWaitForPodsReady`` is off."""
        return self.wait_for_pods_ready is not None and not self.gate("DisableWaitForPodsReady")

    @property
    def requeuing_timestamp(self) -> RequeuingTimestamp:
        """The queue-order timestamp (POL-5(a)): the configured one while waitForPodsReady is
        enabled, else ``Eviction``, which Kueue's scheduler and queue use when none is
        configured (API-35, docs/decisions.md)."""
        if self.wait_for_pods_ready_enabled and self.wait_for_pods_ready is not None:
            return self.wait_for_pods_ready.requeuing_strategy.timestamp
        return RequeuingTimestamp.EVICTION

    def preemption_config(self, **overrides: Any) -> PreemptionConfig:
        """The :class:`~kueue_preempt.PreemptionConfig` Kueue would run with; ``overrides``
        (keyword arguments of ``PreemptionConfig``) win over the file, as explicit CLI flags do."""
        fair = None if self.fair_sharing is None else FairSharingConfig(preemption_strategies=self.fair_sharing)
        values: dict[str, Any] = {
            "fair_sharing": fair,
            # FG-4: the block; PreemptionConfig ANDs it with the gate. The per-CQ admissionMode
            # is read from the CQ.
            "admission_fair_sharing": self.admission_fair_sharing is not None,
            "feature_gates": self.feature_gate_set(),
            "pods_ready_requeuing_timestamp": self.requeuing_timestamp,
            "kueue_release": self.release,
        }
        values.update(overrides)
        return PreemptionConfig(**values)


# --------------------------------------------------------------------------- Go durations

def parse_go_duration(text: str) -> timedelta:
    """A Go ``time.Duration`` string (``90s``, ``1h30m``, ``1.5h``, ``300ms``, ``0``) to a
    timedelta, truncated to the microsecond. Go's own grammar and range (ASCII digits, at most
    int64 nanoseconds, about 2562047h): :func:`~kueue_preempt.policies.boost.parse_go_duration_ns`.
    Raises ``ValueError`` (an :class:`~kueue_preempt.policies.actions.InvalidDuration`) for
    anything else."""
    try:
        ns = parse_go_duration_ns(text, where="duration")
    except InvalidDuration as exc:
        raise InvalidDuration(text, f"{exc.reason} (use e.g. 90s, 5m, 1h30m)", where="duration") from None
    micros = abs(ns) // 1000  # toward zero, as before: sub-microsecond parts are dropped
    return timedelta(microseconds=micros if ns >= 0 else -micros)


# --------------------------------------------------------------------------- reading


def load_kueue_config(
    path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS, *, release: str | KueueRelease | None = None
) -> KueueConfiguration:
    """Read a Kueue Configuration file (YAML or JSON; ``"-"`` is standard input) as ``release``
    reads it (default: the reference commit)."""
    name = path_arg(path, "load_kueue_config", "path")
    name = "<stdin>" if name == "-" else name
    chosen = _release(release)
    return parse_kueue_config(read_bytes(path, limits), source=name, limits=limits, release=chosen)


def _release(value: str | KueueRelease | None) -> KueueRelease:
    if value is not None and not isinstance(value, (str, KueueRelease)):
        raise ConfigurationError(f"release: expected a Kueue release name such as 0.19, got {type(value).__name__}")
    return kueue_release(value)


def _gate_default(name: str, release: KueueRelease) -> bool:
    value = release.default(name)
    if value is not None:
        return value
    entry = FEATURE_GATES.get(name)
    if entry is None:
        raise ConfigurationError(f"featureGates: unknown gate {name!r}")
    return entry[0]


def parse_kueue_config(
    data: bytes | str,
    *,
    source: str = "<config>",
    format: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    release: str | KueueRelease | None = None,
) -> KueueConfiguration:
    """Parse the text of a Kueue Configuration file (one ``Configuration`` object) as
    ``release`` reads it (default: the reference commit).

    Raises :class:`~kueue_preempt.io.ManifestError` naming the field for anything Kueue's
    configuration loading would refuse (API-32..API-38), including a gate ``release`` lacks.
    """
    chosen = _release(release)
    objects = parse_documents(data, source=source, format=format, limits=limits)
    if len(objects) != 1:
        raise ManifestError(source, _KIND, "", "", f"expected exactly one Configuration object, found {len(objects)}")
    raw = objects[0].data
    ctx = Ctx(source, _KIND, "")
    root = Field(raw, "", ctx)
    kind = root.get("kind").string(required=True)
    if kind != _KIND:
        root.get("kind").fail(f"expected {_KIND}, got {kind!r}")
    api_version = root.get("apiVersion").string(required=True)
    group, _, version = api_version.rpartition("/")
    if group != CONFIG_GROUP or version not in ("v1beta1", "v1beta2"):
        root.get("apiVersion").fail(
            f"unsupported version {api_version!r} (supported: {CONFIG_GROUP}/v1beta1, {CONFIG_GROUP}/v1beta2)"
        )
    allowed = _READ + _IGNORED + (_V1BETA1_ONLY if version == "v1beta1" else ())
    _strict(root, allowed)
    if version == "v1beta1":
        fair = _fair_sharing_v1beta1(root.get("fairSharing"))
        wait = _wait_for_pods_ready(root.get("waitForPodsReady"), version)
    else:
        fair = _fair_sharing_v1beta2(root.get("fairSharing"))
        wait_field = root.get("waitForPodsReady")
        # Before 0.19 the v1beta2 defaulting did not add the block (§3.4): absent stays off.
        wait = _wait_for_pods_ready(wait_field, version) if wait_field.present or chosen.wait_for_pods_ready_by_default else None
    gates, warnings = _feature_gates(root.get("featureGates"), chosen)
    resources_field = root.get("resources")
    if resources_field.has("quotaCheckStrategy") and not chosen.has_gate("QuotaCheckStrategy"):
        warnings += (
            f"resources.quotaCheckStrategy: {chosen.label} has no QuotaCheckStrategy gate (it exists from "
            f"{first_release_with('QuotaCheckStrategy')}); the field has no effect there",
        )
    return KueueConfiguration(
        api_version=api_version,
        fair_sharing=fair,
        admission_fair_sharing=_admission_fair_sharing(root.get("admissionFairSharing")),
        wait_for_pods_ready=wait,
        resources=_resources(resources_field, version, gates, chosen),
        feature_gates=gates,
        client_connection=_client_connection(root.get("clientConnection")),
        source=source,
        warnings=warnings,
        release=chosen,
    )


def _strict(field: Field, allowed: tuple[str, ...]) -> None:
    """API-32: Kueue decodes the file strictly; an unknown field stops it from starting."""
    for key in field.mapping():
        if key not in allowed:
            field.get(key).fail(f"unknown field (Kueue decodes its configuration strictly and would not start, API-32)")


def _fair_sharing_v1beta2(f: Field) -> tuple[str, ...] | None:
    if not f.present:
        return None
    _strict(f, ("preemptionStrategies",))
    strategies = f.get("preemptionStrategies")
    names = tuple(s.string(required=True) for s in strategies.list())
    if not names:
        strategies.fail("required when fairSharing is set: one of " + _strategy_lists() + " (API-33, FS-CFG-1)")
    return _checked_strategies(strategies, names)


def _fair_sharing_v1beta1(f: Field) -> tuple[str, ...] | None:
    if not f.present:
        return None
    _strict(f, ("enable", "preemptionStrategies"))
    if not f.get("enable").boolean(False):
        return None  # API-33: v1beta1 without enable: true drops the block
    strategies = f.get("preemptionStrategies")
    names = tuple(s.string(required=True) for s in strategies.list())
    if not names:
        return _STRATEGY_LISTS[2]  # v1beta1 defaults an empty list to both strategies
    return _checked_strategies(strategies, names)


def _checked_strategies(f: Field, names: tuple[str, ...]) -> tuple[str, ...]:
    if names not in _STRATEGY_LISTS:
        f.fail(f"{list(names)} is not one of {_strategy_lists()} (API-33, FS-CFG-1)")
    return names


def _strategy_lists() -> str:
    return ", ".join("[" + ", ".join(s) + "]" for s in _STRATEGY_LISTS)


def _duration(f: Field) -> timedelta | None:
    if not f.present:
        return None
    text = f.string()
    try:
        return parse_go_duration(text)
    except InvalidDuration as exc:
        f.fail(f"invalid duration {text!r}: {exc.reason}")


def _admission_fair_sharing(f: Field) -> AdmissionFairSharingSettings | None:
    if not f.present:
        return None
    _strict(f, ("usageHalfLifeTime", "usageSamplingInterval", "resourceWeights"))
    half_life = _duration(f.get("usageHalfLifeTime")) or timedelta(0)
    if half_life < timedelta(0):
        f.get("usageHalfLifeTime").fail("must not be negative (API-34)")
    interval = _duration(f.get("usageSamplingInterval"))
    if interval is None or interval == timedelta(0):
        interval = timedelta(minutes=5)  # defaulted also when 0s
    if interval < timedelta(0):
        f.get("usageSamplingInterval").fail("must be positive (API-34)")
    weights: dict[str, Decimal] = {}
    for name, w in f.get("resourceWeights").items():
        value = _number(w)
        if value < 0:
            w.fail("must not be negative (API-34)")
        weights[name] = value
    return AdmissionFairSharingSettings(half_life, interval, weights)


def _number(f: Field) -> Decimal:
    value = f.value
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        f.fail("expected a number")
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        f.fail("expected a finite number")
    return number


def _wait_for_pods_ready(f: Field, version: str) -> WaitForPodsReady | None:
    if version == "v1beta1":
        if not f.present:
            return None
        _strict(f, ("enable", "timeout", "blockAdmission", "recoveryTimeout", "requeuingStrategy"))
        if not f.get("enable").boolean(False):
            return None  # API-35: the block is dropped, waitForPodsReady off
        timeout = _duration(f.get("timeout"))
        if timeout is None:
            timeout = timedelta(minutes=5)  # v1beta1 default when enabled
        elif timeout <= timedelta(0):
            f.get("timeout").fail("must be positive (API-35)")
        block = f.get("blockAdmission").boolean(True)
    else:
        _strict(f, ("timeout", "blockAdmission", "recoveryTimeout", "requeuingStrategy"))
        timeout = _duration(f.get("timeout"))
        if timeout is None or timeout == timedelta(0):
            timeout = timedelta(minutes=30)  # v1beta2 default, also for 0s
        elif timeout < timedelta(0):
            f.get("timeout").fail("must not be negative (API-35)")
        block = f.get("blockAdmission").boolean(False)
    recovery = _duration(f.get("recoveryTimeout"))
    if recovery is None:
        recovery = timeout
    elif recovery < timedelta(0):
        f.get("recoveryTimeout").fail("must not be negative (API-35)")
    return WaitForPodsReady(
        timeout=timeout,
        block_admission=block,
        recovery_timeout=recovery,
        requeuing_strategy=_requeuing(f.get("requeuingStrategy")),
    )


def _requeuing(f: Field) -> RequeuingStrategy:
    _strict(f, ("timestamp", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"))
    timestamp = f.get("timestamp").choice(("Eviction", "Creation"), "Eviction")
    limit = f.get("backoffLimitCount").integer(low=0)
    base = f.get("backoffBaseSeconds").integer(low=0)
    maximum = f.get("backoffMaxSeconds").integer(low=0)
    return RequeuingStrategy(
        timestamp=RequeuingTimestamp(timestamp),
        backoff_limit_count=limit,
        backoff_base_seconds=60 if base is None else base,
        backoff_max_seconds=3600 if maximum is None else maximum,
    )


def _resources(f: Field, version: str, gates: Mapping[str, bool], release: KueueRelease) -> ResourceSettings:
    keys = ("excludeResourcePrefixes", "transformations", "deviceClassMappings")
    _strict(f, keys + (("quotaCheckStrategy",) if version == "v1beta2" else ()))
    prefixes = tuple(p.string(required=True) for p in f.get("excludeResourcePrefixes").list())
    transformations: list[ResourceTransformation] = []
    inputs: set[str] = set()
    for t in f.get("transformations").list():
        _strict(t, ("input", "strategy", "multiplyBy", "outputs"))
        name = t.get("input").string(required=True)
        if name in inputs:
            t.get("input").fail(f"input {name!r} is transformed twice (API-36)")
        inputs.add(name)
        outputs = {}
        for r, q in t.get("outputs").items():
            amount = q.quantity(required=True)
            assert amount is not None
            outputs[r] = Decimal(amount.numerator) / Decimal(amount.denominator)
        transformations.append(
            ResourceTransformation(
                input=name,
                strategy=t.get("strategy").choice(("Retain", "Replace"), "Retain"),
                multiply_by=t.get("multiplyBy").optional_string(),
                outputs=outputs,
            )
        )
    strategy_field = f.get("quotaCheckStrategy")
    strategy: str | None = None
    gate_on = gates.get("QuotaCheckStrategy", _gate_default("QuotaCheckStrategy", release))
    if strategy_field.present and gate_on:  # API-37: validated and used only with the gate on
        strategy = strategy_field.choice(("BlockUndeclared", "IgnoreUndeclared"), "BlockUndeclared")
        if strategy == "IgnoreUndeclared" and prefixes:
            strategy_field.fail("IgnoreUndeclared cannot be combined with excludeResourcePrefixes (API-37)")
    return ResourceSettings(tuple(prefixes), tuple(transformations), strategy)


def _feature_gates(f: Field, release: KueueRelease) -> tuple[dict[str, bool], tuple[str, ...]]:
    gates: dict[str, bool] = {}
    warnings: list[str] = []
    for name, g in f.items():
        gates[name] = g.boolean(False) if g.present else g.fail("expected a boolean (true or false)")
        if not release.has_gate(name):
            # API-38: an unknown gate name stops Kueue from starting.
            since = first_release_with(name)
            removed = release.gates[name] is GateState.REMOVED
            why = "removed this gate (the feature is always on)" if removed else "does not have this gate"
            hint = f" (it exists from Kueue {since})" if since and not removed else ""
            g.fail(f"{release.label} {why}{hint}: that Kueue refuses to start with it (API-38)")
        if name not in FEATURE_GATES and release.default(name) is None:
            warnings.append(f"featureGates.{name}: not a gate this library knows; it has no effect here")
    final = {name: gates.get(name, _gate_default(name, release)) for name in FEATURE_GATES}
    for name, (_, needs) in FEATURE_GATES.items():
        for need in needs:
            if final[name] and not final[need]:
                where = f.get(need) if need in gates else f.get(name)
                where.fail(f"{name} is enabled but needs {need}, which is disabled (API-38)")
    return gates, tuple(warnings)


def _client_connection(f: Field) -> ClientConnection:
    _strict(f, ("qps", "burst"))
    qps = _number(f.get("qps")) if f.has("qps") else Decimal(300)
    if qps > Decimal(FLOAT32_MAX) or 0 < qps < Decimal(MIN_RATE):  # a float32 in Kueue; absurd rates refused
        f.get("qps").fail(f"must be at most {FLOAT32_MAX:.3g} (a float32), and 0 or at least {MIN_RATE:.3g}, got {qps:.6g}")
    burst = f.get("burst").integer()
    return ClientConnection(qps=qps, burst=500 if burst is None else burst)
