"""The documented use of :mod:`kueue_preempt.testing` works as written in its docstring.

(The knobs of the classic strategy, ``invalid_boosts`` included, are tested in
``test_testing_classic.py``.)"""

from __future__ import annotations

from hypothesis import given, settings

from kueue_preempt import get_targets
from kueue_preempt.testing import invariants
from kueue_preempt.testing.strategies import ClassicScenario, classic_scenarios


@settings(max_examples=50, deadline=None)
@given(classic_scenarios())
def test_documented_example(s: ClassicScenario) -> None:
    snapshot = s.snapshot()
    targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snapshot, config=s.config, now=s.now)
    invariants.check_classic(s, targets)


def test_import_does_not_need_hypothesis_for_the_library() -> None:
    """``import kueue_preempt`` never imports the testing helpers (hypothesis is optional)."""
    import subprocess
    import sys

    code = "import sys, kueue_preempt; print('kueue_preempt.testing' in sys.modules, 'hypothesis' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
