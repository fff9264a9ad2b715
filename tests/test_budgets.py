"""Size limits that bound memory and time: refused before the work, with a clear message.

Each limit is documented in docs/cli.md ("Limits") with the memory it implies; these tests
check the refusals come up front (fast, small memory) and that what a limit admits costs what
the docs say per row.
"""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest

from kueue_preempt.errors import ConfigurationError, InputTooLarge
from kueue_preempt.kperf.scenario import MAX_SCENARIO_OBJECTS, ScenarioError, parse_scenario
from kueue_preempt.policies.boost import TimeSharingConfig
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sim import ArrivalError, parse_arrivals, parse_arrivals_csv, resolve_arrivals
from kueue_preempt.sim.arrivals import read as arrivals_read
from kueue_preempt.sim.arrivals.generate import MAX_ARRIVALS, generate_arrivals, parse_generator_spec
from kueue_preempt.sim.arrivals.read import MAX_ARRIVAL_ROWS
from kueue_preempt.sim.engine import SimulationOptions
from kueue_preempt.sim.run import simulate
from test_sim_cycle import DUMP, STATE


def _fast(seconds: float = 2.0) -> "_Budget":
    return _Budget(seconds)


class _Budget:
    """Within ``seconds`` and 20 MiB of Python allocations (tracemalloc peak)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        tracemalloc.start()
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = time.perf_counter() - self.start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert elapsed < self.seconds, f"took {elapsed:.1f} s"
        assert peak < 20 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_the_generator_refuses_more_than_the_reader_reads() -> None:
    """A 150-byte spec asking for 10 million arrivals is refused before generating anything."""
    assert MAX_ARRIVALS == MAX_ARRIVAL_ROWS
    with _fast(), pytest.raises(ConfigurationError, match=r"at most 200,000 rows"):
        parse_generator_spec({"count": 10_000_000, "classes": [{"template": "t", "rate": 1000, "duration": {"mean": 1}}]})
    with _fast(), pytest.raises(ConfigurationError, match=r"about 1,000,000 arrivals"):
        parse_generator_spec({"horizon": 1000, "classes": [{"template": "t", "rate": 1000, "duration": {"mean": 1}}]})
    # At the limit it is accepted (not generated here: that is the admitted cost).
    parse_generator_spec({"count": MAX_ARRIVALS, "classes": [{"template": "t", "rate": 1000, "duration": {"mean": 1}}]})


def test_a_poisson_draw_above_the_limit_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """The expected count is checked up front; a draw that still passes the limit stops there."""
    from kueue_preempt.sim.arrivals import generate

    spec = parse_generator_spec({"horizon": 10, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}}]})
    monkeypatch.setattr(generate, "MAX_ARRIVALS", 3)
    with pytest.raises(ConfigurationError, match="exceeds 3 arrivals"):
        generate_arrivals(spec)


@pytest.mark.parametrize("csv", [False, True])
def test_the_arrivals_reader_stops_at_its_row_limit(monkeypatch: pytest.MonkeyPatch, csv: bool) -> None:
    """The row past the limit is refused naming the file and line, while reading (both forms)."""
    monkeypatch.setattr(arrivals_read, "MAX_ARRIVAL_ROWS", 3)
    if csv:
        text = "at,duration,template\n" + "".join(f"{i},1,train\n" for i in range(5))
        with pytest.raises(ArrivalError, match=r"a\.csv:5: more than 3 rows, the limit of one arrivals file"):
            parse_arrivals_csv(text, source="a.csv")
    else:
        text = "".join(json.dumps({"at": i, "duration": 1, "template": "train"}) + "\n" for i in range(5))
        with pytest.raises(ArrivalError, match=r"a\.jsonl:4: more than 3 rows"):
            parse_arrivals(text, source="a.jsonl")
        assert len(parse_arrivals("".join(text.splitlines(keepends=True)[:3])).rows) == 3


def test_reading_and_resolving_cost_what_the_limit_documents() -> None:
    """docs/cli.md: about 2.2 KB per row once read and resolved (tracemalloc peak), so the
    200,000-row limit implies about 450 MB. Measured here on 2,000 rows with a 50 % margin."""
    rows = 2000
    text = "".join(
        json.dumps({"at": i * 0.5, "duration": 100, "template": "train", "name": f"a{i}", "podSets": [{"count": 2}]}) + "\n"
        for i in range(rows)
    )
    tracemalloc.start()
    try:
        resolved = resolve_arrivals(parse_arrivals(text), DUMP)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(resolved.arrivals) == rows
    assert peak / rows < 2.2 * 1024 * 1.5, f"{peak / rows:.0f} B per row"


def _scenario(cqs: int, workloads: int) -> str:
    return f"""cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: {cqs}
    nominalQuota: 20
    borrowingLimit: 100
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: {workloads}
      creationIntervalMs: 100
      workloads:
      - className: small
        runtimeMs: 200
        priority: 50
        request: 1
"""


def test_a_scenario_over_the_object_budget_is_refused_before_building() -> None:
    """A 300-byte scenario asking for 10 million objects is refused from its counts, at once."""
    with _fast(), pytest.raises(ScenarioError, match=r"creates 10,000,000 objects .* more than 200,000"):
        parse_scenario(_scenario(10, 999_999))
    just_over = MAX_SCENARIO_OBJECTS // 10  # 10 queues x (1 + workloads) objects
    with _fast(), pytest.raises(ScenarioError, match="more than 200,000"):
        parse_scenario(_scenario(10, just_over))
    assert parse_scenario(_scenario(10, just_over - 1)).cohorts[0].count == 1


def _rows(*rows: dict[str, object]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_a_time_sharing_window_too_short_for_the_horizon_is_refused_up_front() -> None:
    """``1ns`` windows (a timedelta holds 1 µs) over 100 s would need 1e8 instants: refused
    before the first instant, instead of running for minutes until the cap."""
    arrivals = parse_arrivals(_rows({"at": 0, "duration": 100, "template": "train", "name": "a"}))
    policy = PolicySettings(time_sharing=TimeSharingConfig(interval="1ns"))
    with _fast(5), pytest.raises(InputTooLarge, match=r"time sharing every 1e-06 s over 100 s needs about 1e\+08 instants"):
        simulate(STATE, DUMP, arrivals, policy=policy)
    with pytest.raises(InputTooLarge, match="over 50 s"):
        simulate(STATE, DUMP, arrivals, policy=policy, options=SimulationOptions(until=50))
    # A window the cap can hold runs; no cap, no refusal.
    ok = PolicySettings(time_sharing=TimeSharingConfig(interval="10s"))
    assert simulate(STATE, DUMP, arrivals, policy=ok, options=SimulationOptions(until=30)).end <= 30
    uncapped = SimulationOptions(until=1e-6, max_instants=None)
    assert simulate(STATE, DUMP, arrivals, policy=policy, options=uncapped).instants >= 1


def test_the_cli_refuses_an_absurd_scenario_at_once(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --scenario`` on a 300-byte file asking for 10 million objects: one error line, exit 3, fast."""
    from pathlib import Path

    from kueue_preempt.cli.main import main

    path = Path(str(tmp_path)) / "huge.yaml"
    path.write_text(_scenario(10, 999_999))
    started = time.perf_counter()
    assert main(["simulate", "--scenario", str(path)]) == 3
    assert time.perf_counter() - started < 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kueue-preempt: error: ") and "more than 200,000" in err[0]
