"""The seeded Poisson generator of arrivals files."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim import PodSetOverride, arrivals_text, parse_arrivals, resolve_arrivals
from kueue_preempt.sim.arrivals.generate import ArrivalClass, GeneratorSpec, generate_arrivals, load_generator_spec, parse_generator_spec
from sim_dump import small_dump

TRAIN = ArrivalClass(template="team-a/train", rate=0.5, duration=60, name="tr", priorities=(1, 2, 3),
                     sizes=(PodSetOverride(count=1), PodSetOverride(count=2)))
ETL = ArrivalClass(template="team-b/etl", rate=0.1, duration=30, duration_distribution="fixed")


def test_same_spec_same_file_and_the_seed_matters() -> None:
    spec = GeneratorSpec(classes=[TRAIN, ETL], seed=7, horizon=500)
    text = arrivals_text(generate_arrivals(spec))
    assert text == arrivals_text(generate_arrivals(spec))
    assert text != arrivals_text(generate_arrivals(GeneratorSpec(classes=[TRAIN, ETL], seed=8, horizon=500)))


def test_poisson_rate_and_time_order() -> None:
    rows = generate_arrivals(GeneratorSpec(classes=[TRAIN], seed=1, horizon=10_000)).rows
    times = [r.at for r in rows]
    assert times == sorted(times) and times[-1] <= 10_000
    # Expected 5000 arrivals (rate 0.5 over 10000 s), standard deviation ~71: allow 5 sigma.
    assert abs(len(rows) - 5000) < 355
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert statistics.mean(gaps) == pytest.approx(2.0, rel=0.05)
    # exponential durations with mean 60
    assert statistics.mean(r.duration for r in rows) == pytest.approx(60, rel=0.1)


def test_draws_come_from_the_class_lists() -> None:
    rows = generate_arrivals(GeneratorSpec(classes=[TRAIN, ETL], seed=3, count=400)).rows
    assert len(rows) == 400
    train = [r for r in rows if r.template == "team-a/train"]
    etl = [r for r in rows if r.template == "team-b/etl"]
    assert {r.overrides.priority for r in train} == {1, 2, 3}
    assert {r.overrides.pod_sets[0].count for r in train} == {1, 2}
    assert {r.duration for r in etl} == {30.0} and all(r.overrides.priority is None for r in etl)
    names = [r.overrides.name for r in rows]
    assert len(set(names)) == len(names)


def test_adding_a_class_keeps_the_other_streams() -> None:
    alone = generate_arrivals(GeneratorSpec(classes=[TRAIN], seed=5, horizon=300)).rows
    both = generate_arrivals(GeneratorSpec(classes=[TRAIN, ETL], seed=5, horizon=300)).rows
    assert [r.at for r in alone] == [r.at for r in both if r.template == "team-a/train"]


def test_generated_file_reads_back_and_resolves() -> None:
    file = generate_arrivals(GeneratorSpec(classes=[TRAIN, ETL], seed=2, horizon=200))
    again = parse_arrivals(arrivals_text(file))
    assert again == file
    arrivals = resolve_arrivals(again, small_dump())
    assert len(arrivals.arrivals) == len(file.rows) > 0


def test_spec_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({
        "seed": 4, "horizon": 100,
        "classes": [{"template": "team-a/train", "rate": 0.2, "priorities": [5], "queueName": "lq-a",
                     "sizes": [{"count": 3, "requests": {"cpu": "500m"}}], "duration": {"mean": 10, "distribution": "fixed"}}],
    }))
    spec = load_generator_spec(path)
    assert spec.classes[0].sizes == (PodSetOverride(count=3, requests={"cpu": 500}),)
    assert spec.classes[0].queue_name == "lq-a" and spec.seed == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"classes": [], "horizon": 1}, "at least one class"),
        ({"classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}}]}, "horizon"),
        ({"horizon": 1, "classes": [{"template": "t", "rate": 0, "duration": {"mean": 1}}]}, "rate"),
        ({"horizon": 1, "classes": [{"template": "t", "rate": 1, "duration": 5}]}, "classes[0].duration"),
        ({"horizon": 1, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1, "distribution": "zipf"}}]}, "distribution"),
        ({"horizon": 1, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}, "sizes": [{"requests": {"cpu": "x"}}]}]}, "classes[0].sizes[0].requests.cpu"),
        ({"horizon": 1, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}, "colour": 1}]}, "classes[0].colour"),
        ({"horizon": 1, "seed": "x", "classes": []}, "seed"),
        ({"count": 10**9, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}}]}, "at most 200,000 rows"),
        ({"horizon": 1e9, "classes": [{"template": "t", "rate": 1, "duration": {"mean": 1}}]}, "at most 200,000 rows"),
    ],
)
def test_spec_errors_name_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_generator_spec(data, source="spec.json")
