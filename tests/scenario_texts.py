"""Hypothesis strategy shared by the simulator property tests: small Kueue-perf generator files.

Cohorts of ClusterQueues with random quotas, borrowing limits and both preemption policies;
sets of different priorities arriving faster than they finish, so that most examples have
contention, parking and preemptions (within the queue and across the cohort).
"""

from __future__ import annotations

from hypothesis import strategies as st

POLICIES = st.tuples(
    st.sampled_from(["Never", "LowerPriority", "Any"]),
    st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
)


@st.composite
def scenario_texts(draw: st.DrawFn) -> str:
    """One generator file (YAML text) for :func:`kueue_preempt.kperf.scenario.parse_scenario`."""
    nominal = draw(st.integers(1, 5))
    bl = draw(st.integers(0, 5))
    reclaim, within = draw(POLICIES)
    lines = [
        "cohorts:",
        "- className: co",
        f"  count: {draw(st.integers(1, 2))}",
        "  queuesSets:",
        "  - className: cq",
        f"    count: {draw(st.integers(1, 3))}",
        f"    nominalQuota: {nominal}",
        f"    borrowingLimit: {bl}",
        f"    reclaimWithinCohort: {reclaim}",
        f"    withinClusterQueue: {within}",
        "    workloadsSets:",
    ]
    priorities = draw(st.permutations([0, 50, 100, 200]))
    for i in range(draw(st.integers(1, 3))):
        lines += [
            f"    - count: {draw(st.integers(1, 8))}",
            f"      creationIntervalMs: {100 * draw(st.integers(1, 5))}",
            "      workloads:",
            f"      - {{className: c{i}, runtimeMs: {100 * draw(st.integers(3, 20))}, "
            f"priority: {priorities[i]}, request: {draw(st.integers(1, nominal + bl))}}}",
        ]
    return "\n".join(lines) + "\n"
