"""Preemption configuration: Kueue feature gates and the library's own switches (DM-10, FG-*)."""

from __future__ import annotations

import enum
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.releases import KueueRelease, kueue_release

__all__ = [
    "FairSharingStrategy",
    "FairSharingConfig",
    "RequeuingTimestamp",
    "NonPreemptibleMode",
    "FeatureGates",
    "PreemptionConfig",
    "WaitForPodsReady",
    "AdmissionFairSharing",
]


class FairSharingStrategy(str, enum.Enum):
    """Fair-sharing preemption strategies (FS-STRAT-1 = S2-a, FS-STRAT-2 = S2-b)."""

    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
    LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"


_DEFAULT_STRATEGIES = (
    FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    FairSharingStrategy.LESS_THAN_INITIAL_SHARE,
)
_VALID_STRATEGY_LISTS = {
    (FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,),
    (FairSharingStrategy.LESS_THAN_INITIAL_SHARE,),
    _DEFAULT_STRATEGIES,
}


def _strategies(value: Iterable[FairSharingStrategy | str]) -> tuple[FairSharingStrategy, ...]:
    field = "FairSharingConfig.preemption_strategies (fairSharing.preemptionStrategies)"
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ConfigurationError(f"{field}: expected a list of strategy names, got {type(value).__name__}")
    items = list(value)
    out_list: list[FairSharingStrategy] = []
    for v in items:
        # Checked before the Enum lookup: an unhashable item would make it raise TypeError.
        if not isinstance(v, str):
            raise ConfigurationError(f"{field}: {v!r:.40} is not a strategy name")
        try:
            out_list.append(FairSharingStrategy(v))
        except ValueError as exc:
            raise ConfigurationError(f"{field}: {exc}") from None
    out = tuple(out_list)
    if not out:
        return _DEFAULT_STRATEGIES  # FS-CFG-1: empty list means Kueue's default list
    if out not in _VALID_STRATEGY_LISTS:
        names = [s.value for s in out]
        raise ConfigurationError(
            f"{field}: {names} is not one of [LessThanOrEqualToFinalShare], "
            "[LessThanInitialShare], [LessThanOrEqualToFinalShare, LessThanInitialShare] (FS-CFG-1)"
        )
    return out


@attrs.frozen
class FairSharingConfig:
    """Presence of this block enables fair sharing (FS-CFG-1, FG-3)."""

    preemption_strategies: tuple[FairSharingStrategy, ...] = attrs.field(
        default=_DEFAULT_STRATEGIES, converter=_strategies
    )


class RequeuingTimestamp(str, enum.Enum):
    """``waitForPodsReady.requeuingStrategy.timestamp`` (POL-5(a))."""

    EVICTION = "Eviction"
    CREATION = "Creation"


class NonPreemptibleMode(str, enum.Enum):
    """How non-preemptible workloads are confined to nominal quota (NP-6, NP-8)."""

    ACCOUNTING = "accounting"
    """NP usage of a ClusterQueue never exceeds its nominal quota (default, NP-6)."""
    STRICT = "strict"
    """Additionally the NP preemptor itself must end within nominal (NP-8)."""


def _gate(default: bool) -> Any:
    # A gate accepts only a real bool: ``"false"`` would be truthy and ``1`` ambiguous, and a
    # gate that silently reads the opposite of what the caller wrote is the worst outcome.
    return attrs.field(default=default, validator=_bool_gate)


def _bool_gate(inst: object, attr: attrs.Attribute[bool], value: object) -> None:
    if not isinstance(value, bool):
        raise ConfigurationError(
            f"FeatureGates.{attr.name}: expected a bool, got {type(value).__name__} ({value!r})"
        )


@attrs.frozen
class FeatureGates:
    """Kueue's feature gates that change a decision, each with Kueue's default at the reference
    commit ``ff69552e`` (FG-1, FG-2: the preemption, scheduling-cycle and flavor-assignment gates).

    One bool per gate, named like the gate in snake_case. ``FeatureGates()`` *is* Kueue's default
    set; change gates with :meth:`parse` (``"PriorityBoost=true"``, the ``--feature-gates``
    syntax), :meth:`from_mapping` (Kueue's gate names) or keyword arguments. Modules that read a
    gate take it from here, so one value describes the cluster being reproduced.
    """

    # FG-1: gates that act inside the preemption algorithms.
    priority_boost: bool = _gate(False)
    """``PriorityBoost`` (Alpha): honour ``kueue.x-k8s.io/priority-boost`` (EP-2); off in Kueue."""
    fair_sharing_preempt_within_nominal: bool = _gate(True)
    """``FairSharingPreemptWithinNominal`` (Beta): the within-nominal shortcut (FS-NOM-1)."""
    admission_fair_sharing: bool = _gate(True)
    """``AdmissionFairSharing`` (Beta): ORD-3 ordering, together with the config block (FG-4)."""
    priority_sorting_within_cohort: bool = _gate(True)
    """``PrioritySortingWithinCohort`` (Beta): off adds the +1 ms rule of POL-5(c)."""
    topology_aware_scheduling: bool = _gate(True)
    """``TopologyAwareScheduling`` (Beta): TAS checks (GT-5); a hook in this library."""
    quota_check_strategy: bool = _gate(True)
    """``QuotaCheckStrategy`` (Beta): strategy ``IgnoreUndeclared`` drops undeclared resources (FA-3)."""
    elastic_jobs_via_workload_slices: bool = _gate(True)
    """``ElasticJobsViaWorkloadSlices`` (Beta): scale-up slices count delta pods (FA-3)."""
    # FG-2: gates of the surrounding scheduler.
    fair_sharing_prioritize_non_borrowing: bool = _gate(True)
    """``FairSharingPrioritizeNonBorrowing`` (Beta): nominal-first fair-sharing entry order (FG-2)."""
    prioritize_preemptor_workloads: bool = _gate(False)
    """``PrioritizePreemptorWorkloads`` (Alpha): preemptor-first entry order (FG-2, POL-10)."""
    recompute_assignment_upon_preemption_targets_overlap: bool = _gate(True)
    """``RecomputeAssignmentUponPreemptionTargetsOverlap`` (Beta): recompute on overlapping victims (FG-2)."""
    flavor_fungibility: bool = _gate(True)
    """``FlavorFungibility`` (Beta): the flavor scan of flavor assignment (FG-2)."""
    flavor_fungibility_preserve_scan_progress: bool = _gate(True)
    """``FlavorFungibilityPreserveScanProgress`` (Beta): flavor-scan progress survives cycles (FG-2)."""
    scheduling_equivalence_hashing: bool = _gate(True)
    """``SchedulingEquivalenceHashing`` (Beta): shape-hash bulk moves to the inadmissible set (FG-2)."""
    partial_admission: bool = _gate(True)
    """``PartialAdmission`` (Beta): reduced pod counts during nomination (FG-2)."""
    disable_wait_for_pods_ready: bool = _gate(False)
    """``DisableWaitForPodsReady`` (Alpha): true turns ``waitForPodsReady`` off (FG-2)."""
    # FG-2: gates read only by the flavor assigner.
    reclaimable_pods: bool = _gate(True)
    """``ReclaimablePods`` (Beta): ``status.reclaimablePods`` reduces pod counts (FG-2)."""
    unadmitted_workloads_observability: bool = _gate(True)
    """``UnadmittedWorkloadsObservability`` (Beta): granular no-fit reasons; no decision depends on it (FG-2)."""
    vectorized_resource_requests: bool = _gate(True)
    """``VectorizedResourceRequests`` (Beta): the order resources are visited in (FG-2)."""
    concurrent_admission: bool = _gate(False)
    """``ConcurrentAdmission`` (Alpha): the allowed-flavors annotation (FG-2)."""

    @classmethod
    def for_release(cls, release: str | KueueRelease | None) -> FeatureGates:
        """Kueue's defaults in ``release`` (``"0.18"``, ``"0.19.1"``, a :class:`KueueRelease`;
        ``None``: the reference commit, the same as ``FeatureGates()``). A gate the release does
        not have is off: its feature is not there (model/releases.py holds the table)."""
        chosen = kueue_release(release)
        changes: dict[str, bool] = {}
        for kueue, field in _GATE_NAMES:
            value = chosen.default(kueue)
            if value is not None:
                changes[field] = value
        return attrs.evolve(cls(), **changes)

    @staticmethod
    def kueue_names() -> dict[str, str]:
        """Kueue's gate name -> attribute name, e.g. ``"PriorityBoost" -> "priority_boost"``."""
        return dict(_GATE_NAMES)

    def as_kueue_mapping(self) -> dict[str, bool]:
        """Every gate under Kueue's name, e.g. ``{"PriorityBoost": False, ...}``."""
        return {kueue: getattr(self, field) for kueue, field in _GATE_NAMES}

    @classmethod
    def from_mapping(cls, gates: Mapping[str, bool], *, base: FeatureGates | None = None) -> FeatureGates:
        """Gates by Kueue name (``{"PriorityBoost": True}``) over ``base`` (default: Kueue's).

        An unknown name or a non-bool value raises :class:`ConfigurationError` naming it: a typo
        in a gate name would otherwise silently leave the default in force.
        """
        if not isinstance(gates, Mapping):
            raise ConfigurationError(f"featureGates: expected a mapping of gate name to bool, got {type(gates).__name__}")
        names = dict(_GATE_NAMES)
        changes: dict[str, bool] = {}
        for name, value in gates.items():
            field = names.get(name) if isinstance(name, str) else None
            if field is None:
                raise ConfigurationError(f"featureGates: unknown gate {name!r} (known: {', '.join(sorted(names))})")
            if not isinstance(value, bool):
                raise ConfigurationError(f"featureGates.{name}: expected true or false, got {value!r}")
            changes[field] = value
        return attrs.evolve(base if base is not None else cls(), **changes)

    @classmethod
    def parse(cls, text: str, *, base: FeatureGates | None = None) -> FeatureGates:
        """Parse Kubernetes' ``--feature-gates`` syntax: ``"PriorityBoost=true,PartialAdmission=false"``."""
        if not isinstance(text, str):
            raise ConfigurationError(f"featureGates: expected a string, got {type(text).__name__}")
        gates: dict[str, bool] = {}
        for item in text.split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, raw = item.partition("=")
            value = raw.strip().lower()
            # Kubernetes' component-base accepts exactly strconv.ParseBool spellings; true/false
            # cover every real use and keep a typo like "ture" from reading as anything.
            if not sep or value not in ("true", "false"):
                raise ConfigurationError(f"featureGates: {item!r} is not NAME=true or NAME=false")
            gates[name.strip()] = value == "true"
        return cls.from_mapping(gates, base=base)


def _camel(field: str) -> str:
    return "".join(part.capitalize() for part in field.split("_"))


# Kueue's spelling of each gate; derived from the attribute names so the two cannot drift.
_GATE_NAMES: tuple[tuple[str, str], ...] = tuple((_camel(a.name), a.name) for a in attrs.fields(FeatureGates))


def _gates(value: FeatureGates | Mapping[str, bool] | None, release: KueueRelease) -> FeatureGates:
    if isinstance(value, FeatureGates):
        return value
    base = FeatureGates.for_release(release)
    if value is None:
        return base
    return FeatureGates.from_mapping(value, base=base)


def _switch(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"PreemptionConfig.{name}: expected a bool, got {type(value).__name__} ({value!r})")
    return value


def _requeuing(value: RequeuingTimestamp | str | None) -> RequeuingTimestamp | None:
    if value is None or isinstance(value, RequeuingTimestamp):
        return value
    try:
        return RequeuingTimestamp(value)
    except ValueError:
        raise ConfigurationError(
            f"PreemptionConfig.pods_ready_requeuing_timestamp: {value!r} is not one of Eviction, Creation, None"
        ) from None


def _np_mode(value: NonPreemptibleMode | str) -> NonPreemptibleMode:
    try:
        return NonPreemptibleMode(value)
    except ValueError:
        raise ConfigurationError(
            f"PreemptionConfig.non_preemptible_mode: {value!r} is not one of accounting, strict"
        ) from None


_UNSET: Any = object()


def _release(value: str | KueueRelease | None) -> KueueRelease:
    try:
        return kueue_release(value)
    except ConfigurationError as exc:
        raise ConfigurationError(f"PreemptionConfig.kueue_release: {exc}") from None


@attrs.frozen(init=False)
class PreemptionConfig:
    """Everything that changes a preemption decision besides the cluster state (DM-10).

    ``PreemptionConfig()`` is Kueue's own default configuration at the reference commit
    (``kueue_release``: another release's gate defaults, e.g. ``"0.19"``; explicit gates win): every
    gate at Kueue's default (FG-1, FG-2 — ``PriorityBoost`` **off**), no ``fairSharing``
    or ``admissionFairSharing`` block, and ``waitForPodsReady.requeuingStrategy.timestamp =
    Eviction`` (DM-10). The library-only features (cost, non-preemptible) are off.

    The gate-backed switches ``priority_boost``, ``priority_sorting_within_cohort`` and
    ``fair_sharing_preempt_within_nominal`` are views of :attr:`feature_gates`: pass either the
    keyword (it wins over the gate value in ``feature_gates``) or a :class:`FeatureGates`.
    """

    fair_sharing: FairSharingConfig | None
    """The ``fairSharing`` block; its presence enables fair sharing (FS-CFG-1, FG-3)."""
    admission_fair_sharing: bool
    """AFS ordering (ORD-3): the ``admissionFairSharing`` block *and* the gate (FG-4)."""
    pods_ready_requeuing_timestamp: RequeuingTimestamp | None
    """``waitForPodsReady.requeuingStrategy.timestamp`` (POL-5(a)); Kueue defaults it to
    ``Eviction`` (DM-10). ``None`` only reproduces unit tests that build the preemptor
    directly."""
    preemption_cost_enabled: bool
    """Library-only: the COST-2 tie-breaker after effective priority (off = Kueue's order)."""
    non_preemptible_enabled: bool
    """Library-only: KEP-4400 non-preemptible workloads (NP-14)."""
    non_preemptible_mode: NonPreemptibleMode
    """NP-6 accounting (default) or NP-8 strict."""
    feature_gates: FeatureGates
    """Every Kueue gate with Kueue's default unless changed (FG-5)."""
    kueue_release: KueueRelease
    """The Kueue release whose gate defaults ``feature_gates`` starts from (a
    :class:`FeatureGates` passed in is taken whole)."""

    def __init__(
        self,
        fair_sharing: FairSharingConfig | None = None,
        admission_fair_sharing: bool = False,
        priority_boost: bool = _UNSET,
        priority_sorting_within_cohort: bool = _UNSET,
        fair_sharing_preempt_within_nominal: bool = _UNSET,
        pods_ready_requeuing_timestamp: RequeuingTimestamp | str | None = RequeuingTimestamp.EVICTION,
        preemption_cost_enabled: bool = False,
        non_preemptible_enabled: bool = False,
        non_preemptible_mode: NonPreemptibleMode | str = NonPreemptibleMode.ACCOUNTING,
        feature_gates: FeatureGates | Mapping[str, bool] | None = None,
        kueue_release: str | KueueRelease | None = None,
    ) -> None:
        if fair_sharing is not None and not isinstance(fair_sharing, FairSharingConfig):
            raise ConfigurationError(
                f"PreemptionConfig.fair_sharing: expected FairSharingConfig or None, got {type(fair_sharing).__name__}"
            )
        release = _release(kueue_release)
        gates = _gates(feature_gates, release)
        explicit = {
            name: _switch(name, value)
            for name, value in (
                ("priority_boost", priority_boost),
                ("priority_sorting_within_cohort", priority_sorting_within_cohort),
                ("fair_sharing_preempt_within_nominal", fair_sharing_preempt_within_nominal),
            )
            if value is not _UNSET
        }
        gates = attrs.evolve(gates, **explicit)
        afs = _switch("admission_fair_sharing", admission_fair_sharing)
        self.__attrs_init__(
            fair_sharing,
            afs and gates.admission_fair_sharing,  # FG-4: the block alone does nothing without the gate
            _requeuing(pods_ready_requeuing_timestamp),
            _switch("preemption_cost_enabled", preemption_cost_enabled),
            _switch("non_preemptible_enabled", non_preemptible_enabled),
            _np_mode(non_preemptible_mode),
            gates,
            release,
        )

    @property
    def priority_boost(self) -> bool:
        """Gate ``PriorityBoost`` (EP-2): when off the boost annotation is ignored. Kueue: off."""
        return self.feature_gates.priority_boost

    @property
    def priority_sorting_within_cohort(self) -> bool:
        """Gate ``PrioritySortingWithinCohort`` (POL-5(c)). Kueue: on."""
        return self.feature_gates.priority_sorting_within_cohort

    @property
    def fair_sharing_preempt_within_nominal(self) -> bool:
        """Gate ``FairSharingPreemptWithinNominal`` (FS-NOM-1). Kueue: on."""
        return self.feature_gates.fair_sharing_preempt_within_nominal

    @classmethod
    def kueue_defaults(cls) -> PreemptionConfig:
        """Kueue's defaults at the reference commit (FG-1, DM-10); the same as ``PreemptionConfig()``."""
        return cls()


def _seconds(name: str, *, optional: bool = False) -> Any:
    def check(inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if optional and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigurationError(f"{name}.{attr.name}: expected a non-negative int, got {value!r:.40}")

    return check


def _requeuing_set(value: RequeuingTimestamp | str) -> RequeuingTimestamp:
    # In the configuration the timestamp is always set (Eviction by default); "unset" exists
    # only in Kueue's unit tests that bypass the configuration (DM-10).
    out = _requeuing(value)
    if out is None:
        raise ConfigurationError("waitForPodsReady.requeuing_timestamp: expected Eviction or Creation, got None")
    return out


@attrs.frozen
class WaitForPodsReady:
    """Kueue's ``waitForPodsReady`` configuration block with its v1beta2 defaults (DM-10).

    Kueue always defaults this block (it is on unless gate ``DisableWaitForPodsReady`` is set,
    FG-2); :attr:`requeuing_timestamp` is what preemption reads, as
    ``PreemptionConfig.pods_ready_requeuing_timestamp`` (POL-5(a)). The timing fields are for
    the scheduling-cycle modules (timeouts and requeue backoff); times are whole seconds.
    """

    timeout_seconds: int = attrs.field(default=1800, validator=_seconds("waitForPodsReady"))
    recovery_timeout_seconds: int | None = attrs.field(default=None, validator=_seconds("waitForPodsReady", optional=True))
    """``None`` means "same as ``timeout_seconds``", Kueue's default."""
    block_admission: bool = attrs.field(default=False)
    requeuing_timestamp: RequeuingTimestamp = attrs.field(default=RequeuingTimestamp.EVICTION, converter=_requeuing_set)
    backoff_base_seconds: int = attrs.field(default=60, validator=_seconds("waitForPodsReady"))
    backoff_max_seconds: int = attrs.field(default=3600, validator=_seconds("waitForPodsReady"))
    backoff_limit_count: int | None = attrs.field(default=None, validator=_seconds("waitForPodsReady", optional=True))
    """``None``: requeue without limit (Kueue's default)."""

    @block_admission.validator
    def _check_block(self, attribute: attrs.Attribute[bool], value: object) -> None:
        if not isinstance(value, bool):
            raise ConfigurationError(f"waitForPodsReady.block_admission: expected a bool, got {value!r:.40}")

    @property
    def effective_recovery_timeout_seconds(self) -> int:
        """``recovery_timeout_seconds``, defaulting to ``timeout_seconds`` as in Kueue."""
        return self.timeout_seconds if self.recovery_timeout_seconds is None else self.recovery_timeout_seconds


def _weights(value: Mapping[str, float | int]) -> FrozenMap[str, float]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"admissionFairSharing.resource_weights: expected a mapping, got {type(value).__name__}")
    out: dict[str, float] = {}
    for resource, weight in value.items():
        if (
            not isinstance(resource, str)
            or isinstance(weight, bool)
            or not isinstance(weight, (int, float))
            or not weight >= 0
            or weight == float("inf")
        ):
            raise ConfigurationError(
                f"admissionFairSharing.resource_weights[{resource!r}]: expected a finite weight >= 0, got {weight!r:.40}"
            )
        out[resource] = float(weight)
    return frozen_map(out)


@attrs.frozen
class AdmissionFairSharing:
    """Kueue's ``admissionFairSharing`` configuration block with its defaults (FG-4, ORD-3).

    Its presence (with gate ``AdmissionFairSharing``, on by default) enables LocalQueue-usage
    ordering; absent is Kueue's default. ``resource_weights`` missing a resource weigh 1.
    """

    usage_sampling_interval_seconds: int = attrs.field(default=300, validator=_seconds("admissionFairSharing"))
    usage_half_life_time_seconds: int = attrs.field(default=0, validator=_seconds("admissionFairSharing"))
    """0 means usage is reset to zero at every sample (Kueue has no default)."""
    resource_weights: FrozenMap[str, float] = attrs.field(factory=FrozenMap, converter=_weights)

    def weight(self, resource: str) -> float:
        """The weight of ``resource``, 1 when not listed."""
        return self.resource_weights.get(resource, 1.0)
