"""The cheaper queue writes of the cycle (issue 20 item 7): ``ClusterQueueQueue.with_sets`` is
``attrs.evolve`` of the sets, and the scan progress a nomination records carries the stamp
SC-FR-3 compares (generation, cycle, SC-RQ-8 shape) straight from ``nominate``."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt.cycle import ClusterQueueQueue, Outcome, schedule_cycle, shape_hash
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.queues import PreemptorMarker

from test_cycle_unit import NOW, admitted, cluster, cq, pending

_KEYS = st.frozensets(st.sampled_from(["a", "b", "c", "d"]))


@given(_KEYS, _KEYS, _KEYS, _KEYS, st.frozensets(st.integers(0, 3)), st.booleans())
def test_with_sets_is_evolve_of_the_sets(
    active: frozenset[str],
    inadmissible: frozenset[str],
    new_active: frozenset[str],
    new_inadmissible: frozenset[str],
    hashes: frozenset[int],
    marked: bool,
) -> None:
    """SC-ST-3: replacing the sets keeps the preemptor marker (SC-RQ-6) and, unless new ones
    are given, the failed hashes (SC-RQ-8) — exactly what ``attrs.evolve`` gives."""
    q = ClusterQueueQueue(active, inadmissible, PreemptorMarker("a", 1, True) if marked else None, hashes)
    assert q.with_sets(new_active, new_inadmissible) == attrs.evolve(q, active=new_active, inadmissible=new_inadmissible)
    assert q.with_sets(new_active, new_inadmissible, frozenset()) == attrs.evolve(
        q, active=new_active, inadmissible=new_inadmissible, failed_hashes=frozenset()
    )


def test_recorded_progress_is_stamped_with_cycle_generation_and_shape() -> None:
    """SC-FR-1/SC-FR-3: a head that needs preemption and finds no candidate (the running
    workload has a higher priority, SC-PE-2) keeps its scan progress, stamped with the cycle
    that wrote it, its ClusterQueue's generation and its SC-RQ-8 shape."""
    w = pending("w", "q", 2, 5)
    config = CycleConfig()
    r = schedule_cycle(cluster([cq("q", 2)], [admitted("hi", "q", 2, 100), w]), None, config=config, now=NOW)
    (res,) = r.results
    assert res.outcome is Outcome.NO_CANDIDATES
    progress = r.queues.scan_progress[w.key]
    assert (progress.cycle, progress.generation) == (1, 0)
    assert progress.shape == shape_hash(w, config)
