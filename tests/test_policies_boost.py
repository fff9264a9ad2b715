"""Reference boost controllers (BOOST-1..BOOST-13) and the shared action types (BOOST-11)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
    ClusterQueue,
    ClusterQueuePreemption,
    ConfigurationError,
    FlavorResource,
    KueuePreemptError,
    PodSetUsage,
    PreemptionConfig,
    ResourceQuota,
    Snapshot,
    Workload,
    get_targets,
)
from kueue_preempt.model import Condition, EvictionStat, effective_priority
from kueue_preempt.policies import (
    DEFAULT_NEGATIVE_BOOST,
    EVENT_BOOST_CLEARED,
    EVENT_BOOST_SET,
    ActionKind,
    AnnotationAction,
    BoostDecision,
    BoostPhase,
    InvalidDuration,
    LabelSelector,
    LabelSelectorRequirement,
    PhaseBoostConfig,
    ReconcileResult,
    SelectorOperator,
    ThresholdBoostConfig,
    TimeSharingConfig,
    WeightedBoostConfig,
    boost_annotation_action,
    clamp_int32,
    combine_boosts,
    out_of_scope_action,
    parse_go_duration,
    parse_go_duration_ns,
    preempted_count,
    reconcile_boost,
    reconcile_phase_boost,
    reconcile_threshold,
    reconcile_time_sharing,
    time_sharing_boost,
    watch_filter,
    wrap_int32,
)
from kueue_preempt.model.priority import BOOST_ANNOTATION

BOOST_ON = PreemptionConfig(priority_boost=True)  # the boost policies need the gate (EP-2)

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
INTERVAL = timedelta(minutes=30)
NS = 1
US = 1_000
MS = 1_000_000
S = 1_000_000_000
M = 60 * S
H = 60 * M


def admitted(
    at: datetime | None = T0,
    *,
    status: str = "True",
    priority: int | None = 0,
    annotation: str | None = None,
    labels: dict[str, str] | None = None,
) -> Workload:
    annotations = {} if annotation is None else {BOOST_ANNOTATION: annotation}
    return Workload(
        name="w",
        namespace="ns",
        priority=priority,
        annotations=annotations,
        labels=labels or {},
        conditions=(Condition("Admitted", status, "Admitted", at),),
    )


def preempted(n: int, *, cause: str = "", annotation: str | None = None) -> Workload:
    annotations = {} if annotation is None else {BOOST_ANNOTATION: annotation}
    stats = (EvictionStat("Preempted", cause, n),) if n else ()
    return Workload(name="w", namespace="ns", annotations=annotations, evictions=stats)


def ts(interval: str | timedelta = INTERVAL, **kw: object) -> TimeSharingConfig:
    return TimeSharingConfig(interval=interval, **kw)  # type: ignore[arg-type]


def converge(workload: Workload, result: ReconcileResult) -> Workload:
    return result.action.apply_to(workload)


# ---------------------------------------------------------------------------- BOOST-1 durations


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("30m", 30 * M),
        ("1h30m", 90 * M),
        ("1.5h", 90 * M),
        ("300ms", 300 * MS),
        ("0", 0),
        ("+0", 0),
        ("-0", 0),
        ("0s", 0),
        ("1ns", 1),
        ("1us", US),
        ("1\u00b5s", US),  # micro sign
        ("1\u03bcs", US),  # Greek mu
        ("2h45m0.5s", 2 * H + 45 * M + 500 * MS),
        (".5s", 500 * MS),
        ("5.s", 5 * S),
        ("+5m", 5 * M),
        ("-5m", -5 * M),
        ("1h1h", 2 * H),  # repeated units add up, as in Go
        ("0.000000001s", 1),
        ("1.0000000001s", S),  # below 1 ns: truncated by Go's float64 formula
        ("9223372036854775807ns", 2**63 - 1),
        ("-9223372036854775808ns", -(2**63)),
        ("2562047h", 2562047 * H),
        ("0100ms", 100 * MS),
    ],
)
def test_boost1_go_duration_parses_like_go(text: str, ns: int) -> None:
    assert parse_go_duration_ns(text) == ns


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",  # a non-zero number needs a unit
        "-1",
        "abc",
        "1x",
        "1 h",
        " 1h",
        "1h ",
        ".s",
        "-.s",
        ".",
        "1h-5m",  # the sign is only allowed once, at the front
        "1H",  # units are case-sensitive
        "1d",
        "--1s",
        "9223372036854775808ns",  # int64 overflow
        "2562048h",
        "99999999999999999999s",
        "\uff11s",  # full-width digit
    ],
)
def test_boost1_go_duration_errors_are_typed(text: str) -> None:
    with pytest.raises(InvalidDuration) as info:
        parse_go_duration_ns(text)
    assert isinstance(info.value, ConfigurationError)
    assert isinstance(info.value, KueuePreemptError)
    assert repr(text) in str(info.value)


def test_boost1_timedelta_conversion_keeps_positive_durations_positive() -> None:
    assert parse_go_duration("1h30m") == timedelta(hours=1, minutes=30)
    assert parse_go_duration("1.5h") == timedelta(minutes=90)
    # 300 ns cannot be represented in a timedelta; rounding up keeps the controller enabled.
    assert parse_go_duration("300ns") == timedelta(microseconds=1)
    assert ts("300ns").enabled
    assert parse_go_duration("-300ns") == timedelta(microseconds=-1)


def test_boost1_non_string_duration_is_an_error() -> None:
    with pytest.raises(InvalidDuration):
        parse_go_duration_ns(30)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- BOOST-1 config


def test_boost1_from_mapping_reads_every_key() -> None:
    cfg = TimeSharingConfig.from_mapping(
        {
            "timeSharing": {"interval": "1h30m", "negativeBoost": 5000},
            "workloadSelector": {
                "matchLabels": {"team": "ml"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["batch", "dev"]}],
            },
            "maxWorkloadPriority": 1000,
        }
    )
    assert cfg.interval == timedelta(hours=1, minutes=30)
    assert cfg.negative_boost == 5000
    assert cfg.max_workload_priority == 1000
    assert cfg.workload_selector == LabelSelector(
        match_labels={"team": "ml"},
        match_expressions=(LabelSelectorRequirement("tier", SelectorOperator.IN, ("batch", "dev")),),
    )


def test_boost1_defaults() -> None:
    cfg = TimeSharingConfig.from_mapping({})
    assert cfg == TimeSharingConfig()
    assert cfg.interval == timedelta(0) and not cfg.enabled
    assert cfg.negative_boost == DEFAULT_NEGATIVE_BOOST == 100_000
    assert cfg.workload_selector is None
    assert cfg.max_workload_priority is None
    assert TimeSharingConfig.from_mapping({"timeSharing": {"interval": "30m"}}).negative_boost == 100_000


@pytest.mark.parametrize("interval", ["", "0", "-0", "-5m", "0s"])
def test_boost1_empty_zero_or_negative_interval_disables(interval: str) -> None:
    cfg = TimeSharingConfig.from_mapping({"timeSharing": {"interval": interval}})
    assert not cfg.enabled


def test_boost1_readme_duration_key_is_ignored_and_silently_disables() -> None:
    cfg = TimeSharingConfig.from_mapping({"timeSharing": {"duration": "30m"}, "somethingElse": 1})
    assert not cfg.enabled
    long_ago = admitted(T0)
    assert reconcile_time_sharing(long_ago, cfg, T0 + timedelta(days=1)).action == AnnotationAction.none()


def test_boost1_unparsable_interval_is_a_startup_error() -> None:
    with pytest.raises(InvalidDuration):
        TimeSharingConfig.from_mapping({"timeSharing": {"interval": "30 minutes"}})
    with pytest.raises(InvalidDuration):
        TimeSharingConfig.from_mapping({"timeSharing": {"interval": 30}})


def test_boost1_explicit_zero_negative_boost_is_kept() -> None:
    assert TimeSharingConfig.from_mapping({"timeSharing": {"negativeBoost": 0}}).negative_boost == 0


@pytest.mark.parametrize(
    "data",
    [
        {"timeSharing": {"negativeBoost": 2**31}},
        {"timeSharing": {"negativeBoost": "100"}},
        {"timeSharing": {"negativeBoost": True}},
        {"maxWorkloadPriority": -(2**31) - 1},
        {"maxWorkloadPriority": 1.5},
        {"timeSharing": "30m"},
        {"workloadSelector": ["a"]},
        {"workloadSelector": {"matchLabels": {"a": 1}}},
        {"workloadSelector": {"matchExpressions": {"key": "a"}}},
        {"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}},
        {"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
        {"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}},
        {"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}},
        {"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}},
        {"workloadSelector": {"matchExpressions": [{"operator": "Exists"}]}},
    ],
)
def test_boost1_invalid_config_values_raise_configuration_error(data: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        TimeSharingConfig.from_mapping(data)


# ---------------------------------------------------------------------------- BOOST-2 scope


def test_boost2_absent_and_empty_selector_match_everything() -> None:
    w = admitted(labels={"x": "y"})
    assert ts().in_scope(w)
    assert ts(workload_selector=LabelSelector()).in_scope(w)
    assert TimeSharingConfig.from_mapping({"workloadSelector": {}}).in_scope(admitted())


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        ({"matchLabels": {"team": "ml"}}, {"team": "ml", "x": "1"}, True),
        ({"matchLabels": {"team": "ml"}}, {"team": "web"}, False),
        ({"matchLabels": {"team": "ml"}}, {}, False),
        ({"matchExpressions": [{"key": "t", "operator": "In", "values": ["a", "b"]}]}, {"t": "b"}, True),
        ({"matchExpressions": [{"key": "t", "operator": "In", "values": ["a"]}]}, {"t": "c"}, False),
        ({"matchExpressions": [{"key": "t", "operator": "In", "values": ["a"]}]}, {}, False),
        ({"matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["a"]}]}, {"t": "c"}, True),
        ({"matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["a"]}]}, {"t": "a"}, False),
        ({"matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "t", "operator": "Exists"}]}, {"t": ""}, True),
        ({"matchExpressions": [{"key": "t", "operator": "Exists"}]}, {}, False),
        ({"matchExpressions": [{"key": "t", "operator": "DoesNotExist"}]}, {}, True),
        ({"matchExpressions": [{"key": "t", "operator": "DoesNotExist"}]}, {"t": "a"}, False),
        (
            {
                "matchLabels": {"team": "ml"},
                "matchExpressions": [{"key": "tier", "operator": "Exists"}],
            },
            {"team": "ml"},
            False,
        ),
    ],
)
def test_boost2_label_selector(selector: dict[str, object], labels: dict[str, str], expected: bool) -> None:
    cfg = TimeSharingConfig.from_mapping({"workloadSelector": selector})
    assert cfg.in_scope(admitted(labels=labels)) is expected


def test_boost2_max_priority_compares_base_not_effective_priority() -> None:
    cfg = ts(max_workload_priority=100)
    assert cfg.in_scope(admitted(priority=100))
    assert not cfg.in_scope(admitted(priority=101))
    # A boost does not move a workload in or out of scope: base priority only.
    assert cfg.in_scope(admitted(priority=50, annotation="1000"))
    assert not cfg.in_scope(admitted(priority=200, annotation="-100000"))


def test_boost2_unset_priority_is_zero() -> None:
    assert ts(max_workload_priority=0).in_scope(admitted(priority=None))
    assert not ts(max_workload_priority=-1).in_scope(admitted(priority=None))


# ---------------------------------------------------------------------------- BOOST-3 desired boost


def test_boost3_before_interval_requeues_for_the_remainder() -> None:
    d = time_sharing_boost(admitted(T0), ts(), T0 + timedelta(minutes=10))
    assert d == BoostDecision(0, timedelta(minutes=20))


def test_boost3_at_and_after_interval_boost_is_negative_without_requeue() -> None:
    assert time_sharing_boost(admitted(T0), ts(), T0 + INTERVAL) == BoostDecision(-100_000, None)
    assert time_sharing_boost(admitted(T0), ts(), T0 + timedelta(days=3)) == BoostDecision(-100_000, None)
    assert time_sharing_boost(admitted(T0), ts(), T0 + INTERVAL - timedelta(microseconds=1)) == BoostDecision(
        0, timedelta(microseconds=1)
    )


def test_boost3_requires_admitted_true() -> None:
    now = T0 + timedelta(days=1)
    assert time_sharing_boost(admitted(T0, status="False"), ts(), now) == BoostDecision(0)
    assert time_sharing_boost(admitted(T0, status="Unknown"), ts(), now) == BoostDecision(0)
    assert time_sharing_boost(Workload(name="w"), ts(), now) == BoostDecision(0)


def test_boost3_keys_on_admitted_not_quota_reserved() -> None:
    reserved_only = Workload(
        name="w", quota_reserved_at=T0, conditions=(Condition("QuotaReserved", "True", "", T0),)
    )
    assert time_sharing_boost(reserved_only, ts(), T0 + timedelta(days=1)) == BoostDecision(0)


def test_boost3_disabled_interval_gives_zero_without_requeue() -> None:
    assert time_sharing_boost(admitted(T0), ts("0"), T0 + timedelta(days=1)) == BoostDecision(0)
    assert time_sharing_boost(admitted(T0), ts("-1h"), T0 + timedelta(days=1)) == BoostDecision(0)


def test_boost3_last_admitted_condition_wins_and_missing_time_is_long_ago() -> None:
    w = Workload(
        name="w",
        conditions=(Condition("Admitted", "True", "", T0), Condition("Admitted", "False", "", T0)),
    )
    assert time_sharing_boost(w, ts(), T0 + timedelta(days=1)) == BoostDecision(0)
    no_time = Workload(name="w", conditions=(Condition("Admitted", "True", "", None),))
    assert time_sharing_boost(no_time, ts(), T0) == BoostDecision(-100_000)


def test_boost3_naive_now_is_taken_as_utc() -> None:
    naive_now = datetime(2026, 1, 1, 0, 10)
    assert time_sharing_boost(admitted(T0), ts(), naive_now) == BoostDecision(0, timedelta(minutes=20))


# ---------------------------------------------------------------------------- BOOST-4 writes


@pytest.mark.parametrize(
    ("current", "boost", "expected"),
    [
        (None, 0, AnnotationAction.none()),
        ("", 0, AnnotationAction.none()),  # missing and "" are the same desired state
        (None, -100000, AnnotationAction.set("-100000")),
        ("", -5, AnnotationAction.set("-5")),
        ("-100000", -100000, AnnotationAction.none()),
        ("-99", -100000, AnnotationAction.set("-100000")),
        ("+7", 7, AnnotationAction.set("7")),  # string comparison: rewritten canonically
        ("007", 7, AnnotationAction.set("7")),
        ("500", 0, AnnotationAction.delete()),  # a manual annotation is removed at boost 0
        ("garbage", 0, AnnotationAction.delete()),
        ("0", 0, AnnotationAction.delete()),
    ],
)
def test_boost4_annotation_action(current: str | None, boost: int, expected: AnnotationAction) -> None:
    assert boost_annotation_action(current, boost) == expected


def test_boost4_in_scope_manual_annotation_removed_even_when_disabled() -> None:
    w = admitted(T0, annotation="1000")
    for cfg in (ts("0"), ts(""), TimeSharingConfig.from_mapping({"timeSharing": {"duration": "30m"}})):
        result = reconcile_time_sharing(w, cfg, T0 + timedelta(days=1))
        assert result.action == AnnotationAction.delete()
        assert result.requeue_after is None
    # Also while the window is running (computed boost 0).
    result = reconcile_time_sharing(w, ts(), T0 + timedelta(minutes=1))
    assert result.action == AnnotationAction.delete()
    assert result.requeue_after == timedelta(minutes=29)


def test_boost4_set_then_no_write() -> None:
    w = admitted(T0)
    now = T0 + timedelta(hours=1)
    first = reconcile_time_sharing(w, ts(), now)
    assert first == ReconcileResult(AnnotationAction.set("-100000"), None, -100_000)
    w2 = converge(w, first)
    assert w2.annotations[BOOST_ANNOTATION] == "-100000"
    assert effective_priority(w2, BOOST_ON) == -100_000
    assert reconcile_time_sharing(w2, ts(), now).action.is_none
    # Re-admission (new Admitted time) restarts the window: the annotation goes away.
    readmitted = attrs.evolve(w2, conditions=(Condition("Admitted", "True", "", now),))
    again = reconcile_time_sharing(readmitted, ts(), now)
    assert again == ReconcileResult(AnnotationAction.delete(), INTERVAL, 0)
    assert BOOST_ANNOTATION not in converge(readmitted, again).annotations


annotation_values = st.one_of(
    st.none(),
    st.sampled_from(["", "0", "-0", "5", "-5", "+5", "-100000", "-99999999999", "abc", "1.5", "-2147483648"]),
    st.integers(-(2**40), 2**40).map(str),
)


@settings(max_examples=300, deadline=None)
@given(
    annotation=annotation_values,
    priority=st.one_of(st.none(), st.integers(-300, 300)),
    max_priority=st.one_of(st.none(), st.integers(-300, 300)),
    label=st.sampled_from(["a", "b", None]),
    selector=st.sampled_from([None, "a", "empty"]),
    interval_min=st.integers(-5, 60),
    negative_boost=st.integers(-(2**31), 2**31 - 1),
    admitted_offset=st.one_of(st.none(), st.integers(-120, 120)),
    now_offset=st.integers(0, 240),
)
def test_boost4_and_boost11_reconcile_is_idempotent(
    annotation: str | None,
    priority: int | None,
    max_priority: int | None,
    label: str | None,
    selector: str | None,
    interval_min: int,
    negative_boost: int,
    admitted_offset: int | None,
    now_offset: int,
) -> None:
    sel = None if selector is None else LabelSelector() if selector == "empty" else LabelSelector({"k": selector})
    cfg = TimeSharingConfig(
        interval=timedelta(minutes=interval_min),
        negative_boost=negative_boost,
        workload_selector=sel,
        max_workload_priority=max_priority,
    )
    conditions = (
        ()
        if admitted_offset is None
        else (Condition("Admitted", "True", "", T0 + timedelta(minutes=admitted_offset)),)
    )
    w = Workload(
        name="w",
        priority=priority,
        annotations={} if annotation is None else {BOOST_ANNOTATION: annotation},
        labels={} if label is None else {"k": label},
        conditions=conditions,
    )
    now = T0 + timedelta(minutes=now_offset)
    first = reconcile_time_sharing(w, cfg, now)
    assert reconcile_time_sharing(w, cfg, now) == first  # pure
    after = converge(w, first)
    second = reconcile_time_sharing(after, cfg, now)
    assert second.action.is_none
    assert second.requeue_after == first.requeue_after
    if cfg.in_scope(w):
        # In scope the annotation ends up saying exactly the computed boost (EP-4 parseable).
        assert effective_priority(after, BOOST_ON) - (priority or 0) == first.boost
        if first.requeue_after is not None:
            assert first.requeue_after > timedelta(0)


# ---------------------------------------------------------------------------- BOOST-5 out of scope


@pytest.mark.parametrize(
    ("current", "expected"),
    [
        (None, AnnotationAction.none()),
        ("", AnnotationAction.none()),
        ("-5", AnnotationAction.delete()),
        ("-100000", AnnotationAction.delete()),
        ("-99999999999", AnnotationAction.delete()),  # beyond int32, still an int64 < 0
        ("-9223372036854775808", AnnotationAction.delete()),
        ("-9223372036854775809", AnnotationAction.none()),  # not an int64: left alone
        ("-0", AnnotationAction.none()),
        ("0", AnnotationAction.none()),
        ("5", AnnotationAction.none()),
        ("+5", AnnotationAction.none()),
        ("abc", AnnotationAction.none()),
        ("-1.5", AnnotationAction.none()),
        (" -5", AnnotationAction.none()),
    ],
)
def test_boost5_out_of_scope_removes_only_negative_int64(current: str | None, expected: AnnotationAction) -> None:
    assert out_of_scope_action(current) == expected


def test_boost5_reconcile_out_of_scope() -> None:
    cfg = ts(max_workload_priority=10)
    long_admitted = admitted(T0, priority=50, annotation="-100000")
    result = reconcile_time_sharing(long_admitted, cfg, T0 + timedelta(days=1))
    assert result == ReconcileResult(AnnotationAction.delete(), None, 0)
    manual = admitted(T0, priority=50, annotation="300")
    assert reconcile_time_sharing(manual, cfg, T0 + timedelta(days=1)) == ReconcileResult(
        AnnotationAction.none(), None, 0
    )


# ---------------------------------------------------------------------------- BOOST-6 events


def test_boost6_event_reasons() -> None:
    assert AnnotationAction.set("-1").event_reason == EVENT_BOOST_SET == "PriorityBoostSet"
    assert AnnotationAction.delete().event_reason == EVENT_BOOST_CLEARED == "PriorityBoostCleared"
    assert AnnotationAction.none().event_reason is None


# ---------------------------------------------------------------------------- BOOST-7 watch filter


def test_boost7_watch_filter() -> None:
    cfg = ts(max_workload_priority=10)
    inside = admitted(priority=5)
    outside = admitted(priority=50)
    assert watch_filter(cfg, inside)
    assert not watch_filter(cfg, outside)
    assert watch_filter(cfg, admitted(priority=50, annotation="7"))
    assert not watch_filter(cfg, admitted(priority=50, annotation=""))
    assert watch_filter(cfg, outside, old=inside)  # it left the scope: old version counts
    assert watch_filter(cfg, inside, old=outside)
    assert not watch_filter(cfg, inside, deleting=True)


# ---------------------------------------------------------------------------- BOOST-8 arithmetic


def test_boost8_zero_negative_boost_removes_annotation() -> None:
    w = admitted(T0, annotation="-100000")
    result = reconcile_time_sharing(w, ts(negative_boost=0), T0 + timedelta(days=1))
    assert result == ReconcileResult(AnnotationAction.delete(), None, 0)


def test_boost8_negative_negative_boost_gives_positive_boost() -> None:
    result = reconcile_time_sharing(admitted(T0), ts(negative_boost=-250), T0 + timedelta(days=1))
    assert result.action == AnnotationAction.set("250")


def test_boost8_min_int32_wraps() -> None:
    result = reconcile_time_sharing(admitted(T0), ts(negative_boost=-(2**31)), T0 + timedelta(days=1))
    assert result.action == AnnotationAction.set("-2147483648")
    assert result.boost == -(2**31)


def test_boost8_int32_helpers() -> None:
    assert wrap_int32(2**31) == -(2**31)
    assert wrap_int32(-(2**31)) == -(2**31)
    assert wrap_int32(2**32 + 5) == 5
    assert wrap_int32(-7) == -7
    assert clamp_int32(2**40) == 2**31 - 1
    assert clamp_int32(-(2**40)) == -(2**31)


def test_boost8_config_rejects_non_int32() -> None:
    with pytest.raises(ConfigurationError):
        TimeSharingConfig(negative_boost=2**31)
    with pytest.raises(ConfigurationError):
        TimeSharingConfig(max_workload_priority=2**31)


# ---------------------------------------------------------------------------- BOOST-9 future times


def test_boost9_future_admitted_time_requeues_after_more_than_interval() -> None:
    future = admitted(T0 + timedelta(minutes=10))
    result = reconcile_time_sharing(future, ts(), T0)
    assert result == ReconcileResult(AnnotationAction.none(), timedelta(minutes=40), 0)


# ---------------------------------------------------------------------------- BOOST-10 intended use

FR = FlavorResource("default", "cpu")


def test_boost10_time_sharing_lets_equal_priority_pending_workload_preempt() -> None:
    cq = ClusterQueue(
        "cq",
        quotas={FR: ResourceQuota(nominal=10)},
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"),
    )
    running = Workload(
        name="a",
        namespace="ns",
        uid="a",
        priority=100,
        cluster_queue="cq",
        quota_reserved_at=T0,
        conditions=(Condition("QuotaReserved", "True", "", T0), Condition("Admitted", "True", "", T0)),
        pod_sets=(PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 10}),),
    )
    pending = Workload(name="b", namespace="ns", uid="b", priority=100)
    assignment = Assignment(requests={FR: 10}, preempt={FR})
    config = PreemptionConfig(priority_boost=True)

    def targets_at(now: datetime) -> list[str]:
        w = converge(running, reconcile_time_sharing(running, ts(), now))
        snapshot = Snapshot([cq], workloads=[w])
        return [t.workload.name for t in get_targets(pending, "cq", assignment, snapshot, config=config, now=now)]

    assert targets_at(T0 + timedelta(minutes=10)) == []  # equal EP: LowerPriority is strict
    assert targets_at(T0 + timedelta(minutes=31)) == ["a"]  # after the window a's EP is base - 100000


# ---------------------------------------------------------------------------- BOOST-11 result type


def test_boost11_reconcile_does_not_mutate_and_returns_frozen_result() -> None:
    w = admitted(T0, annotation="9")
    before = attrs.evolve(w)
    result = reconcile_time_sharing(w, ts(), T0 + timedelta(hours=1))
    assert w == before
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        result.requeue_after = None  # type: ignore[misc]


def test_boost11_action_types_validate_their_payload() -> None:
    with pytest.raises(ValueError):
        AnnotationAction(ActionKind.SET)
    with pytest.raises(ValueError):
        AnnotationAction(ActionKind.DELETE, "x")
    with pytest.raises(ValueError):
        AnnotationAction(ActionKind.CLEAR)  # CLEAR is for status fields
    assert AnnotationAction("Set", "1") == AnnotationAction.set("1")


def test_boost11_apply_copies() -> None:
    original = {"other": "x", BOOST_ANNOTATION: "1"}
    assert AnnotationAction.delete().apply(original) == {"other": "x"}
    assert AnnotationAction.set("2").apply(original) == {"other": "x", BOOST_ANNOTATION: "2"}
    assert AnnotationAction.none().apply(original) == original
    assert original == {"other": "x", BOOST_ANNOTATION: "1"}
    w = admitted()
    assert AnnotationAction.none().apply_to(w) is w
    assert AnnotationAction.delete().apply_to(w).annotations == {}


# ---------------------------------------------------------------------------- BOOST-12 threshold


@pytest.mark.parametrize(
    ("n", "boost"),
    [(0, 0), (1, 0), (2, 100), (3, 100), (4, 200), (19, 900), (20, 1000), (21, 1000), (500, 1000)],
)
def test_boost12_default_threshold_table(n: int, boost: int) -> None:
    assert ThresholdBoostConfig().boost_for(preempted(n)) == boost


def test_boost12_counts_only_preempted_across_underlying_causes() -> None:
    w = Workload(
        name="w",
        evictions=(
            EvictionStat("Preempted", "", 1),
            EvictionStat("Preempted", "InCohortFairSharing", 2),
            EvictionStat("PodsReadyTimeout", "", 7),
            EvictionStat("InactiveWorkload", "", 3),
        ),
    )
    assert preempted_count(w) == 3
    assert ThresholdBoostConfig().boost_for(w) == 100


def test_boost12_naive_and_parameters() -> None:
    naive = ThresholdBoostConfig.naive(step=20)
    assert naive == ThresholdBoostConfig(every_n=1, step=20, cap=None)
    assert [naive.boost_for(preempted(n)) for n in range(4)] == [0, 20, 40, 60]
    assert ThresholdBoostConfig(every_n=3, step=7, cap=None).boost_for(preempted(10)) == 21
    # Without a cap the boost is clamped to int32, so the annotation stays valid (EP-4).
    assert ThresholdBoostConfig(every_n=1, step=2**31 - 1, cap=None).boost_for(preempted(5)) == 2**31 - 1
    assert ThresholdBoostConfig(cap=0).boost_for(preempted(10)) == 0


@pytest.mark.parametrize(
    "kwargs",
    [{"every_n": 0}, {"every_n": True}, {"step": -1}, {"cap": -1}, {"step": 2**31}, {"every_n": 1.5}],
)
def test_boost12_config_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        ThresholdBoostConfig(**kwargs)  # type: ignore[arg-type]


def test_boost12_write_rules_follow_boost4() -> None:
    cfg = ThresholdBoostConfig()
    assert reconcile_threshold(preempted(1), cfg) == ReconcileResult(AnnotationAction.none(), None, 0)
    assert reconcile_threshold(preempted(2), cfg) == ReconcileResult(AnnotationAction.set("100"), None, 100)
    assert reconcile_threshold(preempted(2, annotation="100"), cfg).action.is_none
    # A manual annotation is removed while the computed boost is 0.
    assert reconcile_threshold(preempted(1, annotation="500"), cfg).action == AnnotationAction.delete()


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(0, 100),
    annotation=annotation_values,
    every_n=st.integers(1, 5),
    step=st.integers(0, 2**31 - 1),
    cap=st.one_of(st.none(), st.integers(0, 2**31 - 1)),
)
def test_boost12_reconcile_is_idempotent(
    n: int, annotation: str | None, every_n: int, step: int, cap: int | None
) -> None:
    cfg = ThresholdBoostConfig(every_n=every_n, step=step, cap=cap)
    w = preempted(n, annotation=annotation)
    first = reconcile_threshold(w, cfg)
    after = converge(w, first)
    assert reconcile_threshold(after, cfg).action.is_none
    assert effective_priority(after, BOOST_ON) == first.boost
    assert 0 <= first.boost <= (cap if cap is not None else 2**31 - 1)


# ---------------------------------------------------------------------------- BOOST-13 no cooldown


def test_boost13_no_recently_admitted_safeguard() -> None:
    # Admitted a microsecond ago and preempted twice before: the KEP's "skip recently admitted
    # workloads" safeguard is not implemented, so the boost applies at once.
    w = attrs.evolve(preempted(2), conditions=(Condition("Admitted", "True", "", T0),))
    assert ThresholdBoostConfig().decide(w, T0 + timedelta(microseconds=1)) == BoostDecision(100, None)


# ---------------------------------------------------------------------------- phases (library reading)

PHASES = PhaseBoostConfig(((timedelta(hours=1), 10), BoostPhase(timedelta(hours=3), 50)))


def created(at: datetime | None = T0, annotation: str | None = None) -> Workload:
    annotations = {} if annotation is None else {BOOST_ANNOTATION: annotation}
    return Workload(name="w", creation_time=at, annotations=annotations)


@pytest.mark.parametrize(
    ("age", "decision"),
    [
        (timedelta(0), BoostDecision(0, timedelta(hours=1))),
        (timedelta(minutes=59), BoostDecision(0, timedelta(minutes=1))),
        (timedelta(hours=1), BoostDecision(10, timedelta(hours=2))),
        (timedelta(hours=2), BoostDecision(10, timedelta(hours=1))),
        (timedelta(hours=3), BoostDecision(50, None)),
        (timedelta(days=9), BoostDecision(50, None)),
        (-timedelta(minutes=5), BoostDecision(0, timedelta(minutes=65))),  # created in the future
    ],
)
def test_phase_boost_is_a_step_function_with_requeue_at_the_boundary(age: timedelta, decision: BoostDecision) -> None:
    assert PHASES.decide(created(), T0 + age) == decision


def test_phase_boost_phase_at_zero_and_no_creation_time() -> None:
    cfg = PhaseBoostConfig([(timedelta(0), 5)])
    assert cfg.decide(created(), T0) == BoostDecision(5, None)
    assert cfg.decide(created(None), T0) == BoostDecision(0, None)
    assert PhaseBoostConfig(()).decide(created(), T0) == BoostDecision(0, None)


def test_phase_boost_reconcile_and_idempotency() -> None:
    now = T0 + timedelta(hours=2)
    result = reconcile_phase_boost(created(), PHASES, now)
    assert result == ReconcileResult(AnnotationAction.set("10"), timedelta(hours=1), 10)
    after = converge(created(), result)
    assert reconcile_phase_boost(after, PHASES, now) == ReconcileResult(AnnotationAction.none(), timedelta(hours=1), 10)


@pytest.mark.parametrize(
    "phases",
    [
        [(timedelta(hours=2), 1), (timedelta(hours=1), 2)],  # not sorted
        [(timedelta(hours=1), 1), (timedelta(hours=1), 2)],  # duplicate threshold
        [(-timedelta(seconds=1), 1)],
        [(timedelta(hours=1), 2**31)],
        [(3600, 1)],
    ],
)
def test_phase_boost_validation(phases: list[tuple[object, int]]) -> None:
    with pytest.raises(ConfigurationError):
        PhaseBoostConfig(phases)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- weighted combination


def fixed(boost: int, requeue: timedelta | None = None) -> WeightedBoostConfig:
    return WeightedBoostConfig([(1, lambda w, now: BoostDecision(boost, requeue))])


def test_weighted_sum_and_earliest_requeue() -> None:
    combined = combine_boosts(
        [
            (2, fixed(10, timedelta(minutes=5)).decide),
            (3, fixed(-4, timedelta(minutes=2)).decide),
            (1, fixed(1).decide),
        ]
    )
    assert combined.decide(created(), T0) == BoostDecision(2 * 10 + 3 * -4 + 1, timedelta(minutes=2))


def test_weighted_cap_and_int32_clamp() -> None:
    assert combine_boosts([(5, fixed(100).decide)], cap=300).decide(created(), T0).boost == 300
    assert combine_boosts([(5, fixed(-100).decide)], cap=300).decide(created(), T0).boost == -500
    big = combine_boosts([(4, fixed(2**31 - 1).decide)])
    assert big.decide(created(), T0).boost == 2**31 - 1
    small = combine_boosts([(4, fixed(-(2**31)).decide)])
    assert small.decide(created(), T0).boost == -(2**31)


def test_weighted_combines_real_policies() -> None:
    w = attrs.evolve(preempted(4), creation_time=T0, conditions=(Condition("Admitted", "True", "", T0),))
    combined = combine_boosts(
        [(1, ThresholdBoostConfig().decide), (1, PHASES.decide), (1, ts().decide)], cap=1000
    )
    # At 10 min: 200 (4 preemptions) + 0 (first phase at 1 h) + 0 (time-sharing window runs
    # until 30 min); the earliest requeue is the time-sharing one.
    assert combined.decide(w, T0 + timedelta(minutes=10)) == BoostDecision(200, timedelta(minutes=20))
    now = T0 + timedelta(hours=1)
    assert combined.decide(w, now) == BoostDecision(200 + 10 - 100_000, timedelta(hours=2))
    result = reconcile_boost(w, combined.decide, now)
    assert result.action == AnnotationAction.set(str(210 - 100_000))
    assert reconcile_boost(converge(w, result), combined.decide, now).action.is_none


def test_weighted_validation() -> None:
    with pytest.raises(ConfigurationError):
        combine_boosts([(1.5, fixed(1).decide)])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError):
        combine_boosts([(1, "not callable")])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError):
        combine_boosts([], cap=2**31)


def test_time_sharing_decide_is_zero_out_of_scope() -> None:
    cfg = ts(max_workload_priority=0)
    assert cfg.decide(admitted(T0, priority=5), T0 + timedelta(days=1)) == BoostDecision(0)
    assert cfg.decide(admitted(T0, priority=0), T0 + timedelta(days=1)) == BoostDecision(-100_000)
