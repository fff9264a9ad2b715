"""Property-testing helpers for schedulers built on (or compared with) kueue_preempt.

The project's own property tests use exactly these. They need Hypothesis
(``pip install 'kueue-preempt[testing]'``); importing :mod:`kueue_preempt` never imports them.

* :mod:`kueue_preempt.testing.strategies` — Hypothesis strategies for valid random inputs:
  ``scenarios()`` draws a cohort tree (0–2 levels, optional cohort quota, borrowing and
  lending limits respecting Q-17), 1–5 ClusterQueues with valid preemption policies (POL-7),
  admitted workloads with plausible usage (some borrowing, some evicted, boosts valid and
  invalid), and a preemptor whose assignment needs preemption (FA-1/FA-2). A
  :class:`~kueue_preempt.testing.strategies.Scenario` rebuilds fresh snapshots, optionally
  from permuted lists. ``configs()`` draws the gates that change classic decisions.
* :mod:`kueue_preempt.testing.invariants` — checkers written from the specification, not from
  the implementation: the preemptor fits after the targets are removed
  (``check_fits_after_removal``), the target set is minimal (``check_minimality``), every
  target is allowed by its policy and carries the right reason (``check_targets_policy``),
  and ``reference_classic`` — an independent transcription of classic preemption to compare a
  scheduler's choices with.

Example::

    from hypothesis import given
    from kueue_preempt import get_targets
    from kueue_preempt.testing.strategies import Scenario, scenarios
    from kueue_preempt.testing import invariants

    @given(scenarios())
    def test_my_scheduler_agrees(s: Scenario) -> None:
        snapshot = s.snapshot()
        targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snapshot, s.config, s.now)
        invariants.check_fits_after_removal(s, targets)
"""

from __future__ import annotations

__all__ = ["strategies", "invariants"]
