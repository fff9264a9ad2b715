"""Property-testing helpers for schedulers built on (or compared with) kueue_preempt.

The project's own property tests use exactly these. They need Hypothesis
(``pip install 'kueue-preempt[testing]'``, from a checkout ``pip install '.[testing]'``); importing :mod:`kueue_preempt` never imports them.
Guide with one runnable example per decision kind: ``docs/testing-guide.md``.

* :mod:`kueue_preempt.testing.strategies` — for every decision kind, a Hypothesis strategy
  ``<kind>_scenarios(**knobs)`` of valid scenarios; a scenario holds every input of the
  decision, rebuilds fresh inputs (optionally permuted) and ``decide()`` returns the
  library's own result.
* :mod:`kueue_preempt.testing.invariants` — checkers written from the specification, not from
  the implementation: ``check_<kind>(scenario, result)`` runs every invariant of the decision
  (and, where the spec fixes the answer, compares with an independent reference), raising
  ``AssertionError`` naming the violated rule. The separate checkers stay available.
* :mod:`kueue_preempt.testing.mutations` — wrong answers made on purpose
  (``<kind>_mutants``) and :func:`~kueue_preempt.testing.mutations.measure`, which reports
  how many of them a checker rejects.
* :mod:`kueue_preempt.testing.stateful` — a ``RuleBasedStateMachine`` that drives a snapshot
  through admissions, removals and decisions; subclass it to test your own bookkeeping.

Example::

    from hypothesis import given
    from kueue_preempt import get_targets
    from kueue_preempt.testing.strategies import ClassicScenario, classic_scenarios
    from kueue_preempt.testing import invariants

    @given(classic_scenarios())
    def test_my_scheduler_agrees(s: ClassicScenario) -> None:
        snapshot = s.snapshot()
        targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snapshot, config=s.config, now=s.now)
        invariants.check_classic(s, targets)
"""

from __future__ import annotations

__all__ = ["strategies", "invariants", "mutations", "stateful", "kinds"]
