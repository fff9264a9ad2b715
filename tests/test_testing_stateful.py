"""kueue_preempt.testing.stateful: the snapshot machine runs clean on the library, and catches
embedders whose bookkeeping is wrong (each failure names its rule: Q-7, DM-11, ORD-1, GT-7)."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from kueue_preempt import Assignment, ClusterQueue, Cohort, FlavorResource, PodSetUsage, PreemptionConfig, ResourceQuota
from kueue_preempt import Snapshot, Target, Workload, get_targets
from kueue_preempt.testing.invariants import check_fits_after_removal
from kueue_preempt.testing.stateful import SnapshotMachine, check_same_snapshot
from kueue_preempt.testing.strategies import Scenario

TestSnapshotMachine = SnapshotMachine.TestCase
TestSnapshotMachine.settings = settings(
    max_examples=100, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# A wrong scheduler must be caught within this budget; no shrinking (the failure is what
# counts), and derandomized so that the test does not depend on luck. Measured over random
# seeds: the bookkeeping bugs show within 2-12 examples, the stale decisions within 2-120.
CATCH = settings(
    max_examples=300,
    derandomize=True,
    stateful_step_count=15,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)


class LeakyRelease(SnapshotMachine):
    """Forgets to release usage: the workload leaves its queue, its usage stays charged."""

    def remove(self, workload: Workload) -> None:
        snapshot = self.observed_snapshot()
        node = snapshot.cluster_queue(workload.cluster_queue)
        charged = node.workloads[workload.key].usage
        snapshot.remove_workload(workload)
        snapshot.add_usage(node, charged)


class ReleasesWhatItIsHanded(SnapshotMachine):
    """Releases the usage of the object it is handed (an updated copy), not what was charged."""

    def remove(self, workload: Workload) -> None:
        snapshot = self.observed_snapshot()
        node = snapshot.cluster_queue(workload.cluster_queue)
        charged = node.workloads[workload.key].usage
        snapshot.remove_workload(workload)
        snapshot.add_usage(node, charged)
        snapshot.remove_usage(node, workload.usage)


class RebuildsWithoutIndex(SnapshotMachine):
    """Rebuilds its snapshot on every admission (right usage) but loses the candidate index."""

    def admit(self, workload: Workload) -> None:
        scenario = self.scenario
        assert scenario is not None
        self.snapshot = Snapshot(scenario.cluster_queues, scenario.cohorts, [*self.observed_snapshot().workloads(), workload])


class DecidesOnAStaleCopy(SnapshotMachine):
    """Keeps its bookkeeping right but decides on a copy of the snapshot made at start."""

    def start(self, scenario: Scenario) -> None:
        super().start(scenario)
        self.decisions = Snapshot(scenario.cluster_queues, scenario.cohorts, scenario.workloads)

    def decide(
        self, preemptor: Workload, cluster_queue: str, assignment: Assignment, config: PreemptionConfig, now: datetime
    ) -> list[Target]:
        return get_targets(preemptor, cluster_queue, assignment, self.decisions, config=config, now=now)


@pytest.mark.parametrize(
    ("machine", "rule"),
    [
        (LeakyRelease, r"Q-[67]"),
        (ReleasesWhatItIsHanded, r"Q-[67]"),
        (RebuildsWithoutIndex, r"ORD-1"),
        (DecidesOnAStaleCopy, r"GT-7"),
    ],
)
def test_wrong_bookkeeping_is_caught(machine: type[SnapshotMachine], rule: str) -> None:
    with pytest.raises(AssertionError, match=rule):
        run_state_machine_as_test(machine, settings=CATCH)


def test_hooks_are_used() -> None:
    """The rules go through the hooks (so a subclass's scheduler is what is tested)."""
    calls: set[str] = set()

    class Counting(SnapshotMachine):
        def admit(self, workload: Workload) -> None:
            calls.add("admit")
            super().admit(workload)

        def remove(self, workload: Workload) -> None:
            calls.add("remove")
            super().remove(workload)

        def set_index(self, config: PreemptionConfig | None) -> None:
            calls.add("set_index")
            super().set_index(config)

        def decide(
            self, preemptor: Workload, cluster_queue: str, assignment: Assignment, config: PreemptionConfig, now: datetime
        ) -> list[Target]:
            calls.add("decide")
            return super().decide(preemptor, cluster_queue, assignment, config, now)

        def observed_snapshot(self) -> Snapshot:
            calls.add("observed_snapshot")
            return super().observed_snapshot()

    run_state_machine_as_test(
        Counting, settings=settings(max_examples=15, stateful_step_count=10, deadline=None, database=None, derandomize=True)
    )
    assert calls == {"admit", "remove", "set_index", "decide", "observed_snapshot"}


def test_check_same_snapshot_names_the_rule() -> None:
    fr = FlavorResource("f0", "cpu")
    queues = [
        ClusterQueue(name="a", cohort="c", quotas={fr: ResourceQuota(nominal=2, lending_limit=1)}),
        ClusterQueue(name="b", cohort="c", quotas={fr: ResourceQuota(nominal=1)}),
    ]
    w = Workload(
        name="w", cluster_queue="a", pod_sets=[PodSetUsage(flavors={"cpu": "f0"}, usage={"cpu": 3})]
    )
    live = Snapshot(queues, [Cohort(name="c")], [w])
    check_same_snapshot(live, Snapshot(queues, [Cohort(name="c")], [w]))
    live.remove_workload(w)
    live.add_workload(w)  # Q-7 both ways: still equal to a rebuilt snapshot
    check_same_snapshot(live, Snapshot(queues, [Cohort(name="c")], [w]))
    live.add_usage(live.cluster_queue("a"), {fr: 1})
    with pytest.raises(AssertionError, match="Q-7: usage of ClusterQueue 'a'"):
        check_same_snapshot(live, Snapshot(queues, [Cohort(name="c")], [w]))
    with pytest.raises(AssertionError, match="DM-11: workloads"):
        check_same_snapshot(live, Snapshot(queues, [Cohort(name="c")], []))


def test_a_relaxed_decision_check() -> None:
    """check_decision receives every input as a classic Scenario: a scheduler that only
    promises a valid answer checks it with the invariants instead of comparing lists."""
    seen: list[int] = []

    class Relaxed(SnapshotMachine):
        def check_decision(self, decision: Scenario, got: list[Target], want: list[Target]) -> None:
            assert decision.workloads == list(self.admitted.values())
            if decision.config.fair_sharing is None:
                check_fits_after_removal(decision, got)
                seen.append(len(got))

    run_state_machine_as_test(
        Relaxed, settings=settings(max_examples=10, stateful_step_count=10, deadline=None, database=None, derandomize=True)
    )
    assert seen
