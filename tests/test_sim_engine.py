"""The event loop (SC-T-2, SC-T-3, SC-SIM-3, SC-SIM-13) driven by a tiny fake scheduler.

The fake has one resource (cpu) per ClusterQueue, nominal quota only, one head per queue per
cycle (queues by name), priority order within a queue, LowerPriority preemption of the
lowest-priority admitted workloads, and parks a head that neither fits nor can preempt. It is
deliberately simple: these tests are about *when* things happen, not Kueue's decisions.
"""

from __future__ import annotations

import json
from typing import Sequence

import attrs
import pytest

from kueue_preempt import FlavorResource
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ClusterDump
from kueue_preempt.sim import Arrivals, parse_arrivals, resolve_arrivals
from kueue_preempt.sim.arrivals.model import Arrival
from kueue_preempt.sim.engine import (
    Admission,
    CycleResult,
    Eviction,
    Parked,
    Scheduler,
    SimulationOptions,
    root_keys,
    run_simulation,
)
from kueue_preempt.sim.output.timeline import AdmittedPodSet, Event, Livelock, Requeued, RequeueRun, event_json
from kueue_preempt.sim.output.metrics import summarize
from sim_dump import small_dump

CPU = FlavorResource("default", "cpu")


@attrs.define
class _W:
    key: str
    cq: str
    priority: int
    cpu: int
    order: int


class FakeScheduler:
    def __init__(self, dump: ClusterDump) -> None:
        self.nominal = {cq.name: cq.quotas[CPU].nominal for cq in dump.cluster_queues}
        self.info: dict[str, _W] = {}
        self.active: dict[str, list[str]] = {cq: [] for cq in self.nominal}
        self.parked: dict[str, set[str]] = {cq: set() for cq in self.nominal}
        self.admitted: dict[str, set[str]] = {cq: set() for cq in self.nominal}
        self.evicting: set[str] = set()
        self.calls: list[tuple[str, str, float]] = []
        for i, lw in enumerate(dump.workloads):
            w = lw.workload
            if lw.holds_quota:
                self.info[w.key] = _W(w.key, w.cluster_queue, w.priority or 0, w.usage.get(CPU, 0), i)
                self.admitted[w.cluster_queue].add(w.key)
            elif lw.is_pending:  # the dump's pending workloads are queued from the start
                cq = dump.cluster_queue_for(lw)
                cpu = sum(ps.count * ps.requests.get("cpu", 0) for ps in lw.pod_sets)
                self.info[w.key] = _W(w.key, cq, w.priority or 0, cpu, i)
                self.active[cq].append(w.key)

    def used(self, cq: str) -> int:
        return sum(self.info[k].cpu for k in self.admitted[cq])

    def arrive(self, arrival: Arrival, now: float) -> None:
        self.calls.append(("arrive", arrival.key, now))
        cpu = sum(ps.count * ps.requests.get("cpu", 0) for ps in arrival.workload.pod_sets)
        self.info[arrival.key] = _W(arrival.key, arrival.cluster_queue, arrival.workload.workload.priority or 0, cpu, len(self.info))
        self.active[arrival.cluster_queue].append(arrival.key)

    def finish(self, workload: str, now: float) -> None:
        self.calls.append(("finish", workload, now))
        self.admitted[self.info[workload].cq].discard(workload)

    def release(self, workload: str, now: float) -> None:
        self.calls.append(("release", workload, now))
        w = self.info[workload]
        self.admitted[w.cq].discard(workload)
        self.evicting.discard(workload)
        self.active[w.cq].append(workload)

    def requeue_inadmissible(self, cluster_queues: Sequence[str], now: float, moved: list[str] | None = None) -> int:
        self.calls.append(("requeue", ",".join(cluster_queues), now))
        keys: list[str] = []
        for cq in cluster_queues:
            keys += sorted(self.parked[cq], key=lambda k: self.info[k].order)
            self.active[cq] += sorted(self.parked[cq], key=lambda k: self.info[k].order)
            self.parked[cq].clear()
        if moved is not None:
            moved += keys
        return len(keys)

    def pending_count(self) -> int:
        return sum(len(v) for v in self.active.values()) + sum(len(v) for v in self.parked.values())

    def take_notifications(self) -> Sequence[str]:
        return ()

    def cycle(self, now: float) -> CycleResult:
        admitted: list[Admission] = []
        evicted: list[Eviction] = []
        parked: list[Parked] = []
        for cq in sorted(self.active):
            queue = self.active[cq]
            if not queue:
                continue
            queue.sort(key=lambda k: (-self.info[k].priority, self.info[k].order))
            head = self.info[queue.pop(0)]
            if self.used(cq) + head.cpu <= self.nominal[cq]:
                self.admitted[cq].add(head.key)
                admitted.append(Admission(head.key, cq, [AdmittedPodSet("main", 1, {"cpu": "default"})], {CPU: head.cpu}))
                continue
            lower = sorted(
                (self.info[k] for k in self.admitted[cq] if k not in self.evicting and self.info[k].priority < head.priority),
                key=lambda w: (w.priority, -w.order),
            )
            need = self.used(cq) + head.cpu - self.nominal[cq]
            victims: list[_W] = []
            for w in lower:
                if need <= 0:
                    break
                victims.append(w)
                need -= w.cpu
            if victims and need <= 0:
                for v in victims:
                    self.evicting.add(v.key)
                    evicted.append(Eviction(v.key, cq, head.key, "InClusterQueue", "", head.priority, v.priority))
                queue.insert(0, head.key)
            else:
                self.parked[cq].add(head.key)
                parked.append(Parked(head.key, cq, "insufficient unused quota"))
        return CycleResult(changed=bool(admitted or evicted or parked), admitted=admitted, evicted=evicted, parked=parked)


def _arrivals(*rows: dict[str, object], running: Sequence[dict[str, object]] = ()) -> Arrivals:
    text = "".join(json.dumps(r) + "\n" for r in (*rows, *running))
    return resolve_arrivals(parse_arrivals(text), small_dump())


def _run(arrivals: Arrivals, **options: float) -> tuple[list[tuple[object, ...]], FakeScheduler]:
    dump = small_dump()
    fake = FakeScheduler(dump)
    result = run_simulation(fake, dump, arrivals, options=SimulationOptions(**options))  # type: ignore[arg-type]
    return [_brief(e) for e in result.timeline], fake


def _brief(e: Event) -> tuple[object, ...]:
    data = event_json(e)
    return (data["t"], data["event"], data.get("workload", data.get("workloads", data.get("root"))))


THREE: list[dict[str, object]] = [{"at": 0, "duration": 10, "template": "train", "name": n, "podSets": [{"requests": {"cpu": "2"}}]} for n in ("w1", "w2", "w3")]


def test_cycles_until_quiescent_then_completions_notify_and_requeue_after_the_delay() -> None:
    """SC-SIM-3: one head per queue per cycle, so w1 and w2 are admitted by two cycles at 0;
    w3 is parked. Completions at 10 notify the root cohort (SC-IN-4); the requeue run comes one
    second later (SC-IN-3) and w3 is admitted at 11."""
    timeline, fake = _run(_arrivals(*THREE))
    assert timeline == _expected_three(delay=1)
    # One notification batch per root: two completions at 10 give one run (SC-SIM-13 item 4).
    assert [c for c in fake.calls if c[0] == "requeue"] == [("requeue", "team-a,team-b", 11), ("requeue", "team-a,team-b", 22)]


def _expected_three(delay: float) -> list[tuple[object, ...]]:
    t = 10 + delay
    t_out = int(t) if float(t).is_integer() else t
    return [
        (0, "admitted", "team-b/etl"),
        (0, "arrived", "team-a/w1"),
        (0, "arrived", "team-a/w2"),
        (0, "arrived", "team-a/w3"),
        (0, "admitted", "team-a/w1"),
        (0, "admitted", "team-a/w2"),
        (0, "inadmissible", "team-a/w3"),
        (10, "finished", "team-a/w1"),
        (10, "finished", "team-a/w2"),
        (t_out, "requeue-run", "Cohort/all"),
        (t_out, "admitted", "team-a/w3"),
        (t_out + 10, "finished", "team-a/w3"),
    ]


def test_a_requeue_run_is_one_event_and_the_debug_option_lists_its_moves() -> None:
    """A requeue run is Kueue's internal queue bookkeeping: one ``requeue-run`` event with its
    root and how many workloads it moved; ``queue_moves`` adds one ``requeued`` event per
    workload moved (reason ``InadmissibleRequeue``), right after the run's event."""
    dump = small_dump()
    plain = run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE)).timeline
    debug = run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE), options=SimulationOptions(queue_moves=True)).timeline
    assert [e for e in plain if isinstance(e, RequeueRun)] == [RequeueRun(11, "Cohort/all", 1)]
    assert not [e for e in plain if isinstance(e, Requeued)]
    at = debug.index(RequeueRun(11, "Cohort/all", 1))
    assert debug[at + 1] == Requeued(11, "team-a/w3", "team-a", "InadmissibleRequeue")
    assert [e for e in debug if not isinstance(e, Requeued)] == list(plain)


def test_requeue_delay_zero_runs_in_the_same_instant_before_the_cycles() -> None:
    """SC-SIM-4 / SC-SIM-13 item 4: with delay 0 the parked workload competes at once."""
    timeline, _ = _run(_arrivals(*THREE), inadmissible_requeue_delay=0)
    assert timeline == _expected_three(delay=0)


def test_preemption_victim_released_after_the_issuing_cycle_and_preemptor_admitted_next_cycle() -> None:
    """SC-SIM-13 item 1 (termination 0), SC-EV-3 (victim back to the active set), item 2 (the
    victim's pending completion is cancelled; re-admitted, it runs its remaining time again)."""
    arrivals = _arrivals(
        {"at": 5, "duration": 10, "template": "etl", "name": "vip", "priority": 1000, "podSets": [{"count": 4}]},
        running=[{"running": "team-b/etl", "remaining": 100}],
    )
    timeline, _ = _run(arrivals)
    assert timeline == [
        (0, "admitted", "team-b/etl"),
        (5, "arrived", "team-b/vip"),
        (5, "preempted", "team-b/etl"),
        (5, "released", "team-b/etl"),
        (5, "requeued", "team-b/etl"),
        (5, "admitted", "team-b/vip"),
        (5, "inadmissible", "team-b/etl"),
        # The release itself notified the cohort (SC-IN-4): a requeue run one second later.
        (6, "requeue-run", "Cohort/all"),
        (6, "inadmissible", "team-b/etl"),
        (15, "finished", "team-b/vip"),
        (16, "requeue-run", "Cohort/all"),
        (16, "admitted", "team-b/etl"),
        (116, "finished", "team-b/etl"),  # not at 100: that completion was cancelled
    ]


def test_positive_termination_time_delays_the_release() -> None:
    """SC-SIM-2: the release comes termination_time after the eviction."""
    arrivals = _arrivals({"at": 5, "duration": 10, "template": "etl", "name": "vip", "priority": 1000, "podSets": [{"count": 4}]})
    timeline, _ = _run(arrivals, termination_time=3, inadmissible_requeue_delay=0)
    assert timeline[:8] == [
        (0, "admitted", "team-b/etl"),
        (5, "arrived", "team-b/vip"),
        (5, "preempted", "team-b/etl"),
        (5, "inadmissible", "team-b/vip"),  # the fake parks it: its victim still holds quota
        (8, "released", "team-b/etl"),
        (8, "requeued", "team-b/etl"),
        (8, "requeue-run", "Cohort/all"),  # the release notified the cohort (delay 0)
        (8, "admitted", "team-b/vip"),
    ]


def test_admitted_dump_workload_without_remaining_runs_until_the_end() -> None:
    timeline, _ = _run(_arrivals({"at": 1, "duration": 2, "template": "train", "name": "x"}))
    assert (3, "finished", "team-a/x") in timeline
    assert not any(e[1] == "finished" and e[2] == "team-b/etl" for e in timeline)


class Busy:
    """A scheduler whose cycles always change something: a livelock."""

    def __init__(self) -> None:
        self.cycles = 0

    def arrive(self, arrival: Arrival, now: float) -> None: ...
    def finish(self, workload: str, now: float) -> None: ...
    def release(self, workload: str, now: float) -> None: ...
    def requeue_inadmissible(self, cluster_queues: Sequence[str], now: float, moved: list[str] | None = None) -> int:
        return 0

    def pending_count(self) -> int:
        return 2

    def take_notifications(self) -> Sequence[str]:
        return ()

    def cycle(self, now: float) -> CycleResult:
        self.cycles += 1
        return CycleResult(changed=True, parked=[Parked("ns/ping" if self.cycles % 2 else "ns/pong", "team-a")])


def test_livelock_is_reported_with_the_workloads_and_the_run_goes_on() -> None:
    """SC-SIM-13 item 5: cap = 10 x pending + 10 cycles per instant; reaching it is reported."""
    busy = Busy()
    result = run_simulation(busy, small_dump(), _arrivals({"at": 7, "duration": 1, "template": "train", "name": "x"}))
    assert result.livelocks == (Livelock(0, 30, ["ns/ping", "ns/pong"]), Livelock(7, 30, ["ns/ping", "ns/pong"]))
    assert busy.cycles == 60 and result.cycles == 60
    assert summarize(result.timeline).livelocks == result.livelocks


def test_until_stops_after_that_instant() -> None:
    timeline, _ = _run(_arrivals(*THREE), until=10)
    assert timeline[-1] == (10, "finished", "team-a/w2")


def test_deterministic() -> None:
    arrivals = _arrivals(*THREE, {"at": 3, "duration": 4, "template": "etl", "name": "vip", "priority": 9, "podSets": [{"count": 4}]})
    first, _ = _run(arrivals)
    second, _ = _run(arrivals)
    assert first == second


def test_controllers_run_each_instant_and_can_ask_for_a_wake_up() -> None:
    seen: list[float] = []

    def controller(now: float, scheduler: Scheduler) -> float | None:
        seen.append(now)
        return 4.5 if now == 0 else None

    progress: list[float] = []
    dump = small_dump()
    run_simulation(FakeScheduler(dump), dump, _arrivals(THREE[0]), controllers=[controller], progress=progress.append)
    assert seen == [0, 4.5, 10, 11] and progress == seen


def test_options_are_validated() -> None:
    with pytest.raises(ConfigurationError, match="termination_time"):
        SimulationOptions(termination_time=-1)
    with pytest.raises(ConfigurationError, match="until"):
        SimulationOptions(until=float("nan"))


def test_root_keys() -> None:
    assert root_keys(small_dump()) == {"team-a": "Cohort/all", "team-b": "Cohort/all"}


def test_pending_dump_workloads_are_in_the_start_state_without_a_wait() -> None:
    """The dump's pending workloads are present at 0 (``initial``) and get cycles at 0 even
    when the first arrival is later; they have no wait time (SC-SIM-13 item 8)."""
    base = small_dump()
    train = base.workload("team-a/train")
    dump = attrs.evolve(base, workloads=[attrs.evolve(train, status=attrs.evolve(train.status, active=True)), *[w for w in base.workloads if w is not train]])
    fake = FakeScheduler(dump)
    arrivals = resolve_arrivals(parse_arrivals(json.dumps({"at": 50, "duration": 1, "template": "etl", "name": "late"})), dump)
    result = run_simulation(fake, dump, arrivals)
    assert [_brief(e) for e in result.timeline][:3] == [
        (0, "arrived", "team-a/train"),
        (0, "admitted", "team-b/etl"),
        (0, "admitted", "team-a/train"),
    ]
    assert summarize(result.timeline, dump=dump).queue("team-a").wait.count == 0



def test_a_run_restores_the_collector_thresholds_and_leaves_a_disabled_collector_off() -> None:
    """The loop raises the young-generation threshold for the run (engine.fewer_collections)
    and puts the caller's settings back, even when the caller switched collection off."""
    import gc

    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []

    def controller(now: float, scheduler: Scheduler) -> float | None:
        seen.append(gc.get_threshold())
        return None

    dump = small_dump()
    run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE), controllers=[controller])
    assert seen and all(t[0] >= 50_000 for t in seen) and gc.get_threshold() == before
    gc.disable()
    try:
        run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE))
        assert not gc.isenabled() and gc.get_threshold() == before
    finally:
        gc.enable()
