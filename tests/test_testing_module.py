"""The documented use of :mod:`kueue_preempt.testing` works as written in its docstring."""

from __future__ import annotations

from hypothesis import given, settings

from kueue_preempt import get_targets
from kueue_preempt.testing import invariants
from kueue_preempt.testing.strategies import Scenario, scenarios


@settings(max_examples=50, deadline=None)
@given(scenarios())
def test_documented_example(s: Scenario) -> None:
    snapshot = s.snapshot()
    targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snapshot, config=s.config, now=s.now)
    invariants.check_fits_after_removal(s, targets)
    invariants.check_targets_policy(s, targets)
    invariants.check_minimality(s, targets)


def test_import_does_not_need_hypothesis_for_the_library() -> None:
    """``import kueue_preempt`` never imports the testing helpers (hypothesis is optional)."""
    import subprocess
    import sys

    code = "import sys, kueue_preempt; print('kueue_preempt.testing' in sys.modules, 'hypothesis' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def _boosts(s: Scenario) -> set[str]:
    from kueue_preempt.model import BOOST_ANNOTATION

    return {w.annotations[BOOST_ANNOTATION] for w in [*s.workloads, s.preemptor] if BOOST_ANNOTATION in w.annotations}


def test_scenarios_draw_only_valid_boosts_unless_asked() -> None:
    """EP-5: an invalid boost is ignored with a warning per workload, so the strategies draw
    none by default (a user's test run stays quiet) and draw them on request."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    from kueue_preempt.model import parse_boost

    def invalid(s: Scenario) -> bool:
        return any(v != "" and parse_boost(v) is None for v in _boosts(s))

    try:
        found = find(scenarios(), invalid, settings=settings(max_examples=300, database=None))
    except NoSuchExample:
        found = None
    assert found is None
    assert invalid(find(scenarios(invalid_boosts=True), invalid, settings=settings(max_examples=2000, database=None)))
