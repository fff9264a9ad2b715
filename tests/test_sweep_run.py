"""Running a sweep: combinations, backends (local processes and a local Dask cluster) giving
equal results, comparison table and JSON.

The evaluation here is real but cheap: the summary (SC-SIM-13 item 8) of a fixed timeline
under each scenario's quotas — utilization depends on the varied nominal quota. Once the
event loop is wired to the scheduling cycle, the same sweep runs whole simulations.
"""

from __future__ import annotations

import json
from typing import Callable, Mapping, Sequence, TypeVar

import pytest

from kueue_preempt import FlavorResource
from kueue_preempt.sim import ExtraUnavailable
from kueue_preempt.sim.output.metrics import summarize
from kueue_preempt.sweep import DaskBackend, LocalBackend, Scenario, SweepPathError, expand, parse_vary, run_sweep, sweep_json, sweep_table
from kueue_preempt.sweep.run import Metric
from kueue_preempt.sweep.vary import MAX_COMBINATIONS, Vary
from sim_dump import small_dump
from test_sim_metrics import TIMELINE

CPU = FlavorResource("default", "cpu")
T = TypeVar("T")
R = TypeVar("R")


def evaluate(scenario: Scenario) -> Mapping[str, Metric]:
    summary = summarize(TIMELINE, dump=scenario.dump)
    boost = scenario.policy.boost
    return {
        "team-a.util": round(summary.queue("team-a").utilization[CPU], 6),
        "all.util": round(summary.queue("all", "Cohort").utilization[CPU], 6),
        "boost.step": None if boost is None else boost.step,
        "fairSharing": "on" if scenario.config.fair_sharing is not None else "off",
    }


VARIES = [
    parse_vary("clusterQueue/team-a/quota/default/cpu.nominal=4,8"),
    parse_vary("config/fairSharing.enabled=false,true"),
    parse_vary("policy/boost.step=100,200"),
]


def test_combinations_in_nested_loop_order() -> None:
    combos = expand(Scenario(small_dump()), VARIES)
    assert [tuple(v for _, v in c.settings) for c in combos] == [
        ("4", "false", "100"), ("4", "false", "200"), ("4", "true", "100"), ("4", "true", "200"),
        ("8", "false", "100"), ("8", "false", "200"), ("8", "true", "100"), ("8", "true", "200"),
    ]


def test_a_bad_value_fails_before_anything_runs() -> None:
    calls: list[int] = []

    class Recording:
        def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
            calls.append(len(items))
            return []

    with pytest.raises(SweepPathError, match="not a number"):
        run_sweep(Scenario(small_dump()), [*VARIES, parse_vary("clusterQueue/team-b/fairSharing.weight=1,x")], evaluate, backend=Recording())
    assert calls == []


def test_limits_on_combinations() -> None:
    many = [Vary(parse_vary("policy/boost.step=1").path, [str(i) for i in range(MAX_COMBINATIONS + 1)])]
    with pytest.raises(SweepPathError, match="combinations"):
        expand(Scenario(small_dump()), many)
    with pytest.raises(SweepPathError, match="varied twice"):
        expand(Scenario(small_dump()), [VARIES[0], VARIES[0]])


def test_results_by_hand_on_local_processes() -> None:
    result = run_sweep(Scenario(small_dump()), VARIES, evaluate, backend=LocalBackend(workers=2))
    first, *_, last = result.rows
    # team-a used 320000 cpu-milli-seconds over 100 s (test_sim_metrics): /4000 = 0.8, /8000 = 0.4;
    # the cohort's subtree quota grows from 8000 to 12000: 580000 / 1.2e6.
    assert dict(first.metrics) == {"team-a.util": 0.8, "all.util": 0.725, "boost.step": 100, "fairSharing": "off"}
    assert dict(last.metrics) == {"team-a.util": 0.4, "all.util": round(580000 / 1.2e6, 6), "boost.step": 200, "fairSharing": "on"}


def test_local_inline_and_process_backends_agree() -> None:
    base = Scenario(small_dump())
    assert run_sweep(base, VARIES, evaluate, backend=LocalBackend(workers=1)) == run_sweep(
        base, VARIES, evaluate, backend=LocalBackend(workers=2)
    )


def test_dask_local_cluster_gives_the_local_results() -> None:
    """The same sweep on a Dask cluster (worker processes started locally) equals the local run."""
    base = Scenario(small_dump())
    local = run_sweep(base, VARIES, evaluate, backend=LocalBackend(workers=2))
    with DaskBackend.local(workers=2) as dask:
        assert run_sweep(base, VARIES, evaluate, backend=dask) == local


def test_dask_backend_arguments_and_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from kueue_preempt.errors import ConfigurationError
    import builtins
    import sys

    with pytest.raises(ConfigurationError):
        DaskBackend()
    real_import = builtins.__import__

    def no_distributed(name: str, *args: object, **kwargs: object) -> object:
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    monkeypatch.delitem(sys.modules, "distributed", raising=False)
    with pytest.raises(ExtraUnavailable, match=r"kueue-preempt\[dask\]"):
        DaskBackend("tcp://127.0.0.1:1").map(str, [1])


def test_table_and_json() -> None:
    result = run_sweep(Scenario(small_dump()), VARIES[:1], evaluate, backend=LocalBackend(workers=1))
    table = sweep_table(result, ["team-a.util", "boost.step"])
    assert table.splitlines() == [
        "clusterQueue/team-a/quota/default/cpu.nominal  team-a.util  boost.step",
        "4                                              0.8          -",
        "8                                              0.4          -",
    ]
    data = sweep_json(result)
    json.dumps(data)
    assert data["runs"][1] == {
        "settings": {"clusterQueue/team-a/quota/default/cpu.nominal": "8"},
        "metrics": {"team-a.util": 0.4, "all.util": round(580000 / 1.2e6, 6), "boost.step": None, "fairSharing": "off"},
    }
