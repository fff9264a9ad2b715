"""Hand-derived scenarios: ``whenCanBorrow`` x ``whenCanPreempt`` x ``preference`` (FAS-8..FAS-10).

Every expected outcome below was worked out by hand from the rules, not copied from the
code's output. The flavors of the scenarios (one resource group covering ``cpu``, 2 CPUs
requested by one pod):

* ``P`` (needs preemption): ``cq`` has 4 nominal CPUs on P, all used by its own workload;
  the request fits the nominal quota (FAS-6: ``nominal >= val``) so the oracle runs; the stub
  oracle answers Preempt at level 0 -> granular mode (preempt, 0), API mode Preempt.
* ``B`` and ``B2`` (fit by borrowing): ``cq`` has 0 nominal, the sibling ``other`` lends 4
  unused CPUs; the request fits Available through the cohort, whose height is 1 (Q-16) ->
  (fit, 1), API mode Fit, borrowing level 1.

FAS-10 stops after a flavor unless (a) noFit/noCandidates, (b) preempt/reclaim with
``whenCanPreempt=TryNextFlavor``, (c) borrowing level > 0 with ``whenCanBorrow=TryNextFlavor``;
otherwise the scan remembers the flavor if FAS-9 prefers it over the best so far. FAS-9:
``BorrowingOverPreemption`` (also the unset preference) prefers the higher preemption mode
(fit > preempt), ``PreemptionOverBorrowing`` the lower borrowing level.
"""

from __future__ import annotations

import pytest

from kueue_preempt import (
    ClusterQueue,
    ClusterQueuePreemption,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    PodSetSpec,
    PodSetUsage,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    assign_flavors,
)
from kueue_preempt.assignment import OracleResult, PreemptionPossibility

MSS, TNF = "MayStopSearch", "TryNextFlavor"
BOP, POB = "BorrowingOverPreemption", "PreemptionOverBorrowing"
NOMINAL = {"P": 4000, "B": 0, "B2": 0}
LENT = {"P": 0, "B": 4000, "B2": 4000}


def _preempt_oracle(workload: Workload, cq: str, fr: FlavorResource, amount: int, snapshot: Snapshot) -> OracleResult:
    return OracleResult(PreemptionPossibility.PREEMPT, 0)


def _run(order: list[str], borrow: str, preempt: str, preference: str | None) -> tuple[str, str, int, int, str]:
    cq = ClusterQueue(
        name="cq",
        cohort="co",
        resource_groups=[
            ResourceGroup(["cpu"], [FlavorQuotas(f, {"cpu": ResourceQuota(NOMINAL[f])}) for f in order])
        ],
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"),
        flavor_fungibility=FlavorFungibility(borrow, preempt, preference),
    )
    other = ClusterQueue(
        name="other",
        cohort="co",
        resource_groups=[ResourceGroup(["cpu"], [FlavorQuotas(f, {"cpu": ResourceQuota(LENT[f])}) for f in order])],
    )
    running = Workload(
        name="running",
        namespace="ns",
        cluster_queue="cq",
        pod_sets=[PodSetUsage(flavors={"cpu": "P"}, usage={"cpu": 4000})],
    ) if "P" in order else None
    snapshot = Snapshot([cq, other], workloads=[running] if running else [])
    wl = Workload(name="in", namespace="ns", spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 2000})])
    a = assign_flavors(wl, "cq", snapshot, [ResourceFlavor(f) for f in order], oracle=_preempt_oracle)
    choice = a.pod_sets[0].flavors["cpu"]
    return choice.flavor, choice.mode.value, choice.tried_flavor_idx, a.borrowing, a.mode.value


# (order, whenCanBorrow, whenCanPreempt, preference) -> (flavor, cpu mode, triedFlavorIdx, borrowing, mode)
SCENARIOS = [
    # --- two flavors [P, B]
    # P is (preempt, 0): whenCanPreempt=MayStopSearch -> no FAS-10 exception applies: stop at P.
    (["P", "B"], MSS, MSS, None, ("P", "Preempt", 0, 0, "Preempt")),
    # P: FAS-10(b) goes on (remember P); B is (fit, 1) and whenCanBorrow=MayStopSearch: stop at B.
    (["P", "B"], MSS, TNF, None, ("B", "Fit", -1, 1, "Fit")),
    # P: whenCanPreempt=MayStopSearch and level 0 -> stop at P.
    (["P", "B"], TNF, MSS, None, ("P", "Preempt", 0, 0, "Preempt")),
    # P remembered (b); B goes on (c); FAS-9 unset = BorrowingOverPreemption: fit beats preempt -> B.
    (["P", "B"], TNF, TNF, None, ("B", "Fit", -1, 1, "Fit")),
    # Same with the preference spelled out (FAS-9).
    (["P", "B"], TNF, TNF, BOP, ("B", "Fit", -1, 1, "Fit")),
    # PreemptionOverBorrowing: level 0 (P) beats level 1 (B) -> P, and the assignment needs preemption.
    (["P", "B"], TNF, TNF, POB, ("P", "Preempt", -1, 0, "Preempt")),
    # --- three flavors [B, P, B2]
    # B is (fit, 1) and whenCanBorrow=MayStopSearch: stop at the first flavor.
    (["B", "P", "B2"], MSS, MSS, None, ("B", "Fit", 0, 1, "Fit")),
    (["B", "P", "B2"], MSS, TNF, None, ("B", "Fit", 0, 1, "Fit")),
    # B goes on (c); P is (preempt, 0) with whenCanPreempt=MayStopSearch: stop at P (index 1).
    (["B", "P", "B2"], TNF, MSS, None, ("P", "Preempt", 1, 0, "Preempt")),
    # All three examined; BorrowingOverPreemption: B beats P, B2 ties with B (equal is not
    # preferred, the first stays) -> B; the last examined flavor is the last one -> -1.
    (["B", "P", "B2"], TNF, TNF, None, ("B", "Fit", -1, 1, "Fit")),
    (["B", "P", "B2"], TNF, TNF, BOP, ("B", "Fit", -1, 1, "Fit")),
    # PreemptionOverBorrowing: P (level 0) beats B (level 1); B2 (level 1) does not beat P.
    (["B", "P", "B2"], TNF, TNF, POB, ("P", "Preempt", -1, 0, "Preempt")),
]


@pytest.mark.parametrize(("order", "borrow", "preempt", "preference", "expected"), SCENARIOS)
def test_fungibility_combinations(
    order: list[str], borrow: str, preempt: str, preference: str | None, expected: tuple[str, str, int, int, str]
) -> None:
    """FAS-9/FAS-10: the flavor each fungibility setting chooses, derived by hand (see module doc)."""
    assert _run(order, borrow, preempt, preference) == expected


def test_old_spellings_mean_may_stop_search() -> None:
    """FAS-8: ``Borrow``/``Preempt`` are the older spellings of ``MayStopSearch``."""
    assert _run(["P", "B"], "Borrow", "Preempt", None) == _run(["P", "B"], MSS, MSS, None)
    ff = FlavorFungibility("Borrow", "Preempt")
    assert (ff.when_can_borrow.value, ff.when_can_preempt.value) == (MSS, MSS)


def test_defaults_are_kueues() -> None:
    """FAS-8: absent fields are whenCanBorrow=MayStopSearch, whenCanPreempt=TryNextFlavor."""
    assert _run(["P", "B"], "", "", None) == _run(["P", "B"], MSS, TNF, None)
    assert FlavorFungibility().effective_preference.value == BOP
