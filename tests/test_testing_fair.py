"""The fair-sharing helpers of kueue_preempt.testing: strategy, checkers with teeth, knobs.

The library's answers pass every fair-sharing checker; mutated answers are rejected; each
knob of :func:`fair_scenarios` narrows the space as documented; and the reference itself
agrees with Kueue's own fair-sharing unit cases.
"""

from __future__ import annotations

import random
from typing import Any, Callable, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from kueue_preempt.model import BOOST_ANNOTATION, parse_boost
from kueue_preempt.testing.invariants import check_fair, fair_answers
from kueue_preempt.testing.mutations import fair_mutants, measure
from kueue_preempt.testing.strategies import STRATEGY_LISTS, FairScenario, fair_scenarios
from kueue_cases import cluster_queue_of, cohort_of, config_of, incoming_of, load_cases, now_of, workload_of

T = TypeVar("T")
QUICK = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _drawn(strategy: st.SearchStrategy[FairScenario], feature: Callable[[FairScenario], T], n: int = 100) -> set[T]:
    """``feature`` of ``n`` drawn scenarios (``find`` would also shrink, which is slow)."""
    seen: set[T] = set()

    @seed(0)
    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(s: FairScenario) -> None:
        seen.add(feature(s))

    run()
    return seen


def _answer(s: FairScenario, rng: random.Random | None = None) -> list[tuple[str, str]]:
    return [(t.workload.key, t.reason.value) for t in s.decide(rng=rng)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fair_scenarios(), st.randoms(use_true_random=False))
def test_library_passes_the_fair_checkers_and_ignores_input_order(s: FairScenario, rng: random.Random) -> None:
    """check_fair holds; with distinct UIDs ORD is strict, so the answer (and its GT-7 order)
    does not depend on the order of the input lists."""
    check_fair(s, s.decide())
    assert _answer(s, rng) == _answer(s)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fair_scenarios(unique_uids=False, hierarchical=True, invalid_boosts=True))
def test_library_passes_the_fair_checkers_with_ties(s: FairScenario) -> None:
    check_fair(s, s.decide())


def test_fair_checkers_kill_the_mutants() -> None:
    m = measure(fair_scenarios(), decide=lambda s: s.decide(), check=check_fair, mutants=fair_mutants, examples=200)
    assert m.nonempty_share >= 0.30, m.as_dict()
    assert m.discard_rate <= 0.2, m.as_dict()
    for operator in ("drop-target", "add-non-target", "wrong-reason"):
        rate = m.rate(operator)
        assert rate.applicable >= 40, (operator, m.as_dict())
        assert rate.rate >= 0.8, (operator, rate)


# ----------------------------------------------------------------------------------- knobs


@QUICK
@given(fair_scenarios(strategies=[("LessThanInitialShare",)]))
def test_knob_strategies(s: FairScenario) -> None:
    assert s.config.fair_sharing is not None
    assert [x.value for x in s.config.fair_sharing.preemption_strategies] == ["LessThanInitialShare"]


def test_default_strategies_draw_every_valid_list() -> None:
    def strategies(s: FairScenario) -> tuple[str, ...]:
        assert s.config.fair_sharing is not None
        return tuple(x.value for x in s.config.fair_sharing.preemption_strategies)

    assert _drawn(fair_scenarios(), strategies) == set(STRATEGY_LISTS)


@QUICK
@given(fair_scenarios(max_workloads=2, max_cluster_queues=2))
def test_knob_sizes(s: FairScenario) -> None:
    assert 1 <= len(s.workloads) <= 2
    assert 1 <= len(s.cluster_queues) <= 2


@QUICK
@given(fair_scenarios(hierarchical=True))
def test_knob_hierarchical(s: FairScenario) -> None:
    """Cohort depth > 1: the preemptor's tree (root ``c``) always has child cohorts."""
    assert any(c.parent == "c" for c in s.cohorts)


@QUICK
@given(fair_scenarios(hierarchical=False))
def test_knob_flat(s: FairScenario) -> None:
    assert all(c.parent is None for c in s.cohorts)


@QUICK
@given(fair_scenarios(weights=False))
def test_knob_no_weights(s: FairScenario) -> None:
    assert all(q.fair_weight == 1.0 for q in s.cluster_queues)
    assert all(c.fair_weight == 1.0 for c in s.cohorts)


def test_knob_weights_draw_zero() -> None:
    """FS-W-3: weight 0 on ClusterQueues and on child cohorts is drawn by default."""
    zero = _drawn(
        fair_scenarios(hierarchical=True),
        lambda s: (
            any(q.fair_weight == 0 for q in s.cluster_queues),
            any(c.fair_weight == 0 and c.parent is not None for c in s.cohorts),
        ),
    )
    assert any(q for q, _ in zero) and any(c for _, c in zero)


@QUICK
@given(fair_scenarios())
def test_knob_unique_uids(s: FairScenario) -> None:
    uids = [w.uid for w in s.workloads]
    assert all(uids) and len(set(uids)) == len(uids)


def _invalid_boost(s: FairScenario) -> bool:
    values = [w.annotations.get(BOOST_ANNOTATION) for w in [*s.workloads, s.preemptor]]
    return any(v is not None and v != "" and parse_boost(v) is None for v in values)


@QUICK
@given(fair_scenarios())
def test_knob_invalid_boosts_off(s: FairScenario) -> None:
    """EP-5: invalid boosts (logged by the library) only on request."""
    assert not _invalid_boost(s)


def test_knob_invalid_boosts_on() -> None:
    assert True in _drawn(fair_scenarios(invalid_boosts=True), _invalid_boost)


# ----------------------------------------------------------------------- the reference itself


def _kueue_fair_cases() -> list[Any]:
    return [*load_cases("TestFairPreemptions"), *load_cases("TestFairPreemptionSkipsUnsatisfiableTournament")]


@pytest.mark.parametrize("case", _kueue_fair_cases())
def test_reference_agrees_with_kueues_fair_cases(case: dict[str, Any]) -> None:
    """The spec transcription (``fair_answers``) gives Kueue's own expected targets and reasons
    on the vendored fair-sharing unit cases: evidence that the reference is right, independently
    of the library."""
    preemptor, assignment = incoming_of(case["incoming"])
    s = FairScenario(
        cluster_queues=tuple(cluster_queue_of(q) for q in case["clusterQueues"]),
        cohorts=tuple(cohort_of(c) for c in case.get("cohorts") or []),
        workloads=tuple(workload_of(w) for w in case.get("admitted") or []),
        preemptor=preemptor,
        cluster_queue=case["incoming"]["clusterQueue"],
        assignment=assignment,
        now=now_of(case),
        config=config_of(case),
    )
    runs = fair_answers(s)
    assert runs is not None
    expected = case["expected"]["targets"]
    want = sorted(f"{t['namespace']}/{t['name']}" for t in expected)
    reasons = {f"{t['namespace']}/{t['name']}": t["reason"] for t in expected if t.get("reason")}
    assert any(
        sorted(key for key, _ in r.targets) == want and all(dict(r.targets)[k] == v for k, v in reasons.items())
        for r in runs
    ), [r.targets for r in runs]
