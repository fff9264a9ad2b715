"""A decision's shortcut quota computations equal the what-if walks they replace (GT-5, Q-7,
Q-9, Q-11, FB-2, FS-LCA-2, DM-11).

Issue 18's flatness work answers several questions without changing the snapshot, or with
less bookkeeping, where the code used to change it inside a what-if block and read it back:

* :class:`~kueue_preempt.snapshot.quota.FitTest` (GT-5 prepared once per decision): ``fits`` equals
  ``Snapshot.fits``; ``fits_with`` equals adding the usage (Q-7) then ``fits`` (fill-back's
  re-admission test, FB-2); ``fits_without`` equals removing it then ``fits`` (FS-RUN-1);
* ``Snapshot.removal_reach`` is what ``remove_usage`` subtracts from an ancestor (Q-7), and
  fair sharing's ``tNew`` share computed from it equals the share after the removal (FS-LCA-2);
* ``take_usage`` / ``return_usage`` change usages exactly as ``remove_workload`` /
  ``add_workload`` do, and a what-if block restores everything (DM-11).

The trees are tier H's shape (root -> cohorts -> ClusterQueues, quotas on every level), with
ordinary amounts (the plain-arithmetic paths) or amounts near the int64 bounds (the saturating
fallbacks), from ``test_quota_plans``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import ClusterQueue, Cohort, Snapshot, Workload
from kueue_preempt.snapshot import quota
from kueue_preempt.snapshot.drs import drs_of
from kueue_preempt.preemption.fairsharing import target_share_after_removal
from kueue_preempt.model.quantity import amount_sub
from test_quota_plans import CPU, HUGE, trees

Tree = tuple[list[ClusterQueue], list[Cohort], list[Workload]]
amounts = st.integers(0, 14) | st.integers(HUGE, 2**63 - 1)


def _usage_without_sets(snap: Snapshot) -> dict[str, tuple[object, object]]:
    """Every node's usage and non-preemptible usage, without the workload sets."""
    nodes = list(snap.cluster_queues.values()) + list(snap.cohorts.values())
    return {n.name: (sorted(n.usage.items()), sorted(n.np_usage.items())) for n in nodes}


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.data())
def test_fit_test_equals_the_what_if_walks(tree: Tree, data: st.DataObject) -> None:
    """GT-5, FB-2, FS-RUN-1: every FitTest answer equals the snapshot changed and read back."""
    queues, cohorts, workloads = tree
    snap = Snapshot(queues, cohorts, workloads)
    cq = snap.cluster_queue(data.draw(st.sampled_from([q.name for q in queues])))
    request = {CPU: data.draw(amounts)}
    test = snap.fit_test(cq, request)
    before = snap.state()
    with snap.preserved():
        # Usages change between the questions, as they do during a decision.
        for w in data.draw(st.lists(st.sampled_from(workloads), unique=True)) if workloads else []:
            snap.take_usage(snap.cluster_queue(w.cluster_queue), w)
            for allow in (True, False):
                assert test.fits(allow) == snap.fits(cq, request, allow_borrowing=allow)
                other = snap.cluster_queue(data.draw(st.sampled_from([q.name for q in queues])))
                extra = {CPU: data.draw(amounts)}
                old = {n: n.usage.get(CPU, 0) for n in other.path}
                written = quota._plain_after_add(other.plans.get(CPU) or snap._plan(other, CPU), CPU, extra[CPU])
                with snap.preserved():
                    snap.add_usage(other, extra)
                    expected_with = snap.fits(cq, request, allow_borrowing=allow)
                    if written is not None:  # None: out of the plain range (the fallback runs)
                        assert written == {n: n.usage[CPU] for n in written}
                        assert all(n.usage.get(CPU, 0) == old[n] for n in other.path if n not in written)
                assert test.fits_with(other, extra, allow) == expected_with
                assert snap.fits_with(cq, request, other, extra, allow_borrowing=allow) == expected_with
                taken = quota._plain_after_remove(cq.plans.get(CPU) or snap._plan(cq, CPU), CPU, extra[CPU])
                with snap.preserved():
                    snap.remove_usage(cq, extra)
                    expected_without = snap.fits(cq, request, allow_borrowing=allow)
                    if taken is not None:
                        assert taken == {n: n.usage[CPU] for n in taken}
                assert test.fits_without(extra, allow) == expected_without
                assert snap.fits_without(cq, request, extra, allow_borrowing=allow) == expected_without
    assert snap.state() == before


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.data())
def test_removal_reach_is_what_remove_usage_takes(tree: Tree, data: st.DataObject) -> None:
    """Q-7: ``removal_reach`` at every ancestor equals the usage ``remove_usage`` takes from it;
    FS-LCA-2's ``tNew`` computed from it equals the share read after the removal."""
    queues, cohorts, workloads = tree
    snap = Snapshot(queues, cohorts, workloads)
    cq = snap.cluster_queue(data.draw(st.sampled_from([q.name for q in queues])))
    usage = {CPU: data.draw(amounts)}
    for ancestor in cq.ancestors():
        reach = snap.removal_reach(cq, usage, ancestor)
        old = ancestor.usage.get(CPU, 0)
        with snap.preserved():
            snap.remove_usage(cq, usage)
            new = ancestor.usage.get(CPU, 0)
            share_after = drs_of(snap, ancestor)
        assert new == (amount_sub(old, reach[CPU]) if CPU in reach else old)
        assert drs_of(snap, ancestor, None, reach) == share_after
    # The public tNew for a workload of this queue, against a preemptor in another subtree.
    others = [q for q in snap.cluster_queues.values() if q.path[1] is not cq.path[1]]
    if others and cq.parent is not None:
        preemptor = data.draw(st.sampled_from(others))
        w = Workload(name="probe", uid="probe", cluster_queue=cq.name, pod_sets=workloads[0].pod_sets) if workloads else None
        if w is not None:
            t_almost = cq.path[1]  # the preemptor is under the other cohort: LCA is the root
            with snap.preserved():
                snap.remove_usage(cq, w.usage)
                expected = drs_of(snap, t_almost)
            assert target_share_after_removal(snap, preemptor, w) == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.data())
def test_take_usage_changes_usages_as_remove_workload_does(tree: Tree, data: st.DataObject) -> None:
    """DM-11, NP-5: ``take_usage``/``return_usage`` leave every usage as ``remove_workload``/
    ``add_workload`` do, keep the workload sets, and a what-if block restores all of it."""
    queues, cohorts, workloads = tree
    light = Snapshot(queues, cohorts, workloads)
    full = Snapshot(queues, cohorts, workloads)
    before = light.state()
    chosen = data.draw(st.lists(st.sampled_from(workloads), unique=True)) if workloads else []
    with light.preserved(), full.preserved():
        for w in chosen:
            light.take_usage(light.cluster_queue(w.cluster_queue), w)
            full.remove_workload(w)
            assert _usage_without_sets(light) == _usage_without_sets(full)
        assert {n: sorted(q.workloads) for n, q in light.cluster_queues.items()} == {
            n: sorted(q.workloads) for n, q in Snapshot(queues, cohorts, workloads).cluster_queues.items()
        }
        for w in reversed(chosen):
            if data.draw(st.booleans()):
                light.return_usage(light.cluster_queue(w.cluster_queue), w)
                full.add_workload(w)
                assert _usage_without_sets(light) == _usage_without_sets(full)
    assert light.state() == before == full.state()
