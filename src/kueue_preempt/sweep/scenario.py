"""What a sweep varies: a :class:`Scenario` — the dump, the preemption configuration and the
reference policies — and its paths (``clusterQueue/team-a/fairSharing.weight``...).

Path grammar (``docs/simulation.md`` has the table)::

    path      := "clusterQueue/" NAME "/" cq-field | "cohort/" NAME "/" cohort-field
               | "config/" config-field | "policy/" policy-field
    cq-field  := "fairSharing.weight" | "cohort" | quota
               | "preemption.withinClusterQueue" | "preemption.reclaimWithinCohort"
    cohort-field := "fairSharing.weight" | "parent" | quota
    quota     := "quota/" FLAVOR "/" RESOURCE "." ("nominal" | "borrowingLimit" | "lendingLimit")
    config-field := "fairSharing.enabled" | "fairSharing.strategies" | "admissionFairSharing"
               | "priorityBoost" | "prioritySortingWithinCohort" | "fairSharingPreemptWithinNominal"
               | "preemptionCost" | "nonPreemptible" | "nonPreemptibleMode"
    policy-field := "boost.enabled" | "boost.everyN" | "boost.step" | "boost.cap" | "cost.base"
               | "boost.window" | "timeSharing.interval" | "timeSharing.negativeBoost"
               | "timeSharing.maxWorkloadPriority"

``policy/boost.window`` (alias ``policy/timeSharing.interval``) is the window of Kueue's
time-sharing booster (BOOST-1): a Go duration (``30m``, ``1h30m``) or seconds (``600``);
a positive window turns the booster on, ``0``/``none`` turns it off.

Values are text, as on the command line: quantities for quotas (``none`` removes a limit),
``true``/``false``, integers, strategy lists joined with ``+``. Applying a value returns a
new :class:`Scenario` (``attrs.evolve``); the input is never changed. A path or value that
does not apply raises :class:`SweepPathError` naming the path.
"""

from __future__ import annotations

import re
import sys
from datetime import timedelta
from typing import Any, Callable

import attrs

from kueue_preempt.model.config import FairSharingConfig, NonPreemptibleMode, PreemptionConfig
from kueue_preempt.errors import ConfigurationError, KueuePreemptError
from kueue_preempt.io import ClusterDump
from kueue_preempt.io.text import MAX_SECONDS, NumberTextError, float_text, int_text
from kueue_preempt.model import ClusterQueue, ClusterQueuePreemption, Cohort, FlavorResource, ResourceQuota
from kueue_preempt.policies.boost import ThresholdBoostConfig, TimeSharingConfig, parse_go_duration
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.model.quantity import quota_amount

__all__ = ["PolicySettings", "Scenario", "SweepPath", "SweepPathError", "parse_path", "apply_value", "parse_window"]


class SweepPathError(ConfigurationError):
    """A ``--vary`` path is not in the grammar, names an unknown object, or a value does not fit it."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"--vary {path}: {reason}")


@attrs.frozen
class Scenario:
    """One point of a sweep: everything a simulation's outcome depends on besides arrivals."""

    dump: ClusterDump
    config: PreemptionConfig = attrs.field(factory=PreemptionConfig)
    policy: PolicySettings = attrs.field(factory=PolicySettings)


@attrs.frozen
class SweepPath:
    """A parsed path: ``scope`` (clusterQueue, cohort, config, policy), the object ``name``
    (``""`` for config/policy), and the ``field`` (for quotas: ``quota`` with ``flavor``,
    ``resource`` and ``limit``)."""

    text: str
    scope: str
    name: str
    field: str
    flavor: str = ""
    resource: str = ""
    limit: str = ""


_CQ_FIELDS = ("fairSharing.weight", "cohort", "preemption.withinClusterQueue", "preemption.reclaimWithinCohort")
_COHORT_FIELDS = ("fairSharing.weight", "parent")
_LIMITS = ("nominal", "borrowingLimit", "lendingLimit")
_CONFIG_FIELDS = (
    "fairSharing.enabled",
    "fairSharing.strategies",
    "admissionFairSharing",
    "priorityBoost",
    "prioritySortingWithinCohort",
    "fairSharingPreemptWithinNominal",
    "preemptionCost",
    "nonPreemptible",
    "nonPreemptibleMode",
)
_POLICY_FIELDS = (
    "boost.enabled",
    "boost.everyN",
    "boost.step",
    "boost.cap",
    "cost.base",
    "boost.window",
    "timeSharing.interval",
    "timeSharing.negativeBoost",
    "timeSharing.maxWorkloadPriority",
)
_OFF = ("0", "none", "off", "")


def parse_path(text: str) -> SweepPath:
    """Parse a path of the grammar above; :class:`SweepPathError` otherwise."""
    scope, _, rest = text.partition("/")
    if scope in ("clusterQueue", "cohort"):
        name, sep, field = rest.partition("/")
        if not sep or not name or not field:
            raise SweepPathError(text, f"expected {scope}/NAME/FIELD")
        if field.startswith("quota/"):
            # Flavor names hold no "/", resource names may (nvidia.com/gpu): split twice only.
            parts = field.split("/", 2)
            if len(parts) != 3 or not parts[1]:
                raise SweepPathError(text, "expected quota/FLAVOR/RESOURCE.nominal|borrowingLimit|lendingLimit")
            resource, dot, limit = parts[2].rpartition(".")
            if not dot or not resource or limit not in _LIMITS:
                raise SweepPathError(text, f"the quota field must end in .{', .'.join(_LIMITS)}")
            return SweepPath(text, scope, name, "quota", flavor=parts[1], resource=resource, limit=limit)
        allowed: tuple[str, ...] = _CQ_FIELDS if scope == "clusterQueue" else _COHORT_FIELDS
        if field not in allowed:
            raise SweepPathError(text, f"unknown {scope} field {field!r} (known: {', '.join(allowed)}, quota/...)")
        return SweepPath(text, scope, name, field)
    if scope in ("config", "policy"):
        known: tuple[str, ...] = _CONFIG_FIELDS if scope == "config" else _POLICY_FIELDS
        if rest not in known:
            raise SweepPathError(text, f"unknown {scope} field {rest!r} (known: {', '.join(known)})")
        return SweepPath(text, scope, "", rest)
    raise SweepPathError(text, "a path starts with clusterQueue/, cohort/, config/ or policy/")


def _bool(path: SweepPath, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise SweepPathError(path.text, f"{value!r} is not a boolean (true/false)")


def _int(path: SweepPath, value: str, *, low: int = -(2**31), high: int = 2**31 - 1) -> int:
    try:
        return int_text(value, low=low, high=high)
    except NumberTextError as exc:
        raise SweepPathError(path.text, exc.reason) from None


def _weight(path: SweepPath, value: str) -> float:
    try:
        return float_text(value, low=0.0, high=sys.float_info.max)
    except NumberTextError as exc:
        raise SweepPathError(path.text, f"a weight must be a finite number >= 0: {exc.reason}") from None


def _quota(path: SweepPath, quotas: Any, value: str) -> dict[FlavorResource, ResourceQuota]:
    fr = FlavorResource(path.flavor, path.resource)
    out: dict[FlavorResource, ResourceQuota] = dict(quotas)
    current = out.get(fr)
    if current is None:
        raise SweepPathError(path.text, f"no quota for flavor {path.flavor!r} and resource {path.resource!r}")
    if value.strip().lower() in ("none", "null", ""):
        if path.limit == "nominal":
            raise SweepPathError(path.text, "nominal quota cannot be removed; give a quantity")
        amount: int | None = None
    else:
        try:
            amount = quota_amount(value.strip(), path.resource, where=path.text)
        except KueuePreemptError as exc:
            raise SweepPathError(path.text, str(exc)) from None
        if amount < 0:
            raise SweepPathError(path.text, f"quota must not be negative, got {value!r}")
    if path.limit == "nominal":
        assert amount is not None
        out[fr] = attrs.evolve(current, nominal=amount)
    elif path.limit == "borrowingLimit":
        out[fr] = attrs.evolve(current, borrowing_limit=amount)
    else:
        out[fr] = attrs.evolve(current, lending_limit=amount)
    return out


def _cluster_queue(path: SweepPath, cq: ClusterQueue, value: str) -> ClusterQueue:
    if path.field == "quota":
        return attrs.evolve(cq, quotas=_quota(path, cq.quotas, value))
    if path.field == "fairSharing.weight":
        return attrs.evolve(cq, fair_weight=_weight(path, value))
    if path.field == "cohort":
        return attrs.evolve(cq, cohort=None if value.strip().lower() in ("", "none") else value.strip())
    try:
        policy = value.strip()  # the model's converter validates it (POL-7)
        if path.field == "preemption.withinClusterQueue":
            preemption: ClusterQueuePreemption = attrs.evolve(cq.preemption, within_cluster_queue=policy)
        else:
            preemption = attrs.evolve(cq.preemption, reclaim_within_cohort=policy)
    except (KueuePreemptError, ValueError) as exc:
        raise SweepPathError(path.text, str(exc)) from None
    return attrs.evolve(cq, preemption=preemption)


def _cohort(path: SweepPath, cohort: Cohort, value: str) -> Cohort:
    if path.field == "quota":
        return attrs.evolve(cohort, quotas=_quota(path, cohort.quotas, value))
    if path.field == "fairSharing.weight":
        return attrs.evolve(cohort, fair_weight=_weight(path, value))
    return attrs.evolve(cohort, parent=None if value.strip().lower() in ("", "none") else value.strip())


def _config(path: SweepPath, config: PreemptionConfig, value: str) -> PreemptionConfig:
    field = path.field
    try:
        if field == "fairSharing.enabled":
            enabled = _bool(path, value)
            return attrs.evolve(config, fair_sharing=(config.fair_sharing or FairSharingConfig()) if enabled else None)
        if field == "fairSharing.strategies":
            strategies = [s.strip() for s in value.split("+") if s.strip()]
            return attrs.evolve(config, fair_sharing=FairSharingConfig(preemption_strategies=strategies))
        if field == "nonPreemptibleMode":
            return attrs.evolve(config, non_preemptible_mode=NonPreemptibleMode(value.strip()))
    except ValueError as exc:
        raise SweepPathError(path.text, str(exc)) from None
    on = _bool(path, value)
    if field == "admissionFairSharing":
        return attrs.evolve(config, admission_fair_sharing=on)
    if field == "priorityBoost":
        return attrs.evolve(config, priority_boost=on)
    if field == "prioritySortingWithinCohort":
        return attrs.evolve(config, priority_sorting_within_cohort=on)
    if field == "fairSharingPreemptWithinNominal":
        return attrs.evolve(config, fair_sharing_preempt_within_nominal=on)
    if field == "preemptionCost":
        return attrs.evolve(config, preemption_cost_enabled=on)
    return attrs.evolve(config, non_preemptible_enabled=on)


_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_window(value: str, *, where: str = "timeSharing.interval") -> timedelta | None:
    """A time-sharing window as text: a Go duration (``30m``, ``1h30m``, BOOST-1) or a number
    of seconds (``600``, ``0.5``); ``None`` for ``0``, ``none``, ``off`` (no booster).
    A negative, infinite or unparsable value raises
    :class:`~kueue_preempt.errors.ConfigurationError` naming ``where``."""
    text = value.strip()
    if text.lower() in _OFF:
        return None
    if not _NUMBER.fullmatch(text):
        window = parse_go_duration(text, where=where)  # InvalidDuration names ``where``
    else:
        try:  # ASCII digits, at most MAX_SECONDS: float() would take "٣", "1_0" and "1e300"
            seconds = float_text(text, low=-MAX_SECONDS, high=MAX_SECONDS, what="a number of seconds")
        except NumberTextError as exc:
            raise ConfigurationError(f"{where}: {exc.reason}") from None
        window = timedelta(seconds=seconds)
    if window < timedelta(0):
        raise ConfigurationError(f"{where}: a window must not be negative, got {value!r}")
    return window if window > timedelta(0) else None


def _time_sharing(path: SweepPath, policy: PolicySettings, value: str) -> PolicySettings:
    field = path.field
    if field in ("boost.window", "timeSharing.interval"):
        try:
            window = parse_window(value, where=path.text)
        except ConfigurationError as exc:
            raise SweepPathError(path.text, str(exc).removeprefix(f"{path.text}: ")) from None
        if window is None:
            return attrs.evolve(policy, time_sharing=None)
        config = policy.time_sharing or TimeSharingConfig()
        return attrs.evolve(policy, time_sharing=attrs.evolve(config, interval=window))
    # Without a window, these deploy the booster disabled (interval 0): it boosts nobody
    # (BOOST-3) and only removes annotations from in-scope workloads (BOOST-4).
    config = policy.time_sharing or TimeSharingConfig()
    if field == "timeSharing.negativeBoost":
        config = attrs.evolve(config, negative_boost=_int(path, value))
    else:
        limit = None if value.strip().lower() == "none" else _int(path, value)
        config = attrs.evolve(config, max_workload_priority=limit)
    return attrs.evolve(policy, time_sharing=config)


def _policy(path: SweepPath, policy: PolicySettings, value: str) -> PolicySettings:
    field = path.field
    if field in ("boost.window", "timeSharing.interval", "timeSharing.negativeBoost", "timeSharing.maxWorkloadPriority"):
        return _time_sharing(path, policy, value)
    if field == "cost.base":
        return attrs.evolve(policy, cost_base=None if value.strip().lower() == "none" else _int(path, value, low=0))
    if field == "boost.enabled":
        return attrs.evolve(policy, boost=(policy.boost or ThresholdBoostConfig()) if _bool(path, value) else None)
    boost = policy.boost or ThresholdBoostConfig()
    try:
        if field == "boost.everyN":
            boost = attrs.evolve(boost, every_n=_int(path, value))
        elif field == "boost.step":
            boost = attrs.evolve(boost, step=_int(path, value))
        else:
            boost = attrs.evolve(boost, cap=None if value.strip().lower() == "none" else _int(path, value))
        return attrs.evolve(policy, boost=boost)
    except SweepPathError:
        raise
    except ConfigurationError as exc:
        raise SweepPathError(path.text, str(exc)) from None


def _replace(items: tuple[Any, ...], name: str, path: SweepPath, kind: str, change: Callable[[Any], Any]) -> list[Any]:
    out = list(items)
    for i, item in enumerate(out):
        if item.name == name:
            out[i] = change(item)
            return out
    raise SweepPathError(path.text, f"no {kind} {name!r} in the dump")


def apply_value(scenario: Scenario, path: SweepPath | str, value: str) -> Scenario:
    """A new scenario with ``value`` at ``path`` (the input is unchanged)."""
    p = parse_path(path) if isinstance(path, str) else path
    try:
        if p.scope == "clusterQueue":
            queues = _replace(scenario.dump.cluster_queues, p.name, p, "ClusterQueue", lambda cq: _cluster_queue(p, cq, value))
            return attrs.evolve(scenario, dump=attrs.evolve(scenario.dump, cluster_queues=queues))
        if p.scope == "cohort":
            cohorts = _replace(scenario.dump.cohorts, p.name, p, "Cohort", lambda c: _cohort(p, c, value))
            return attrs.evolve(scenario, dump=attrs.evolve(scenario.dump, cohorts=cohorts))
        if p.scope == "config":
            return attrs.evolve(scenario, config=_config(p, scenario.config, value))
        return attrs.evolve(scenario, policy=_policy(p, scenario.policy, value))
    except SweepPathError:
        raise
    except KueuePreemptError as exc:  # a model validator rejected the new value
        raise SweepPathError(p.text, str(exc)) from None
