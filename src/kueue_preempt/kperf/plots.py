"""Charts of a Kueue scalability-scenario run (optional extra ``[plot]``, matplotlib):

* :func:`plot_cohort_utilization` — quota charged ÷ nominal quota of every cohort over time
  (the scenarios' queues are many and identical, so one line per cohort reads better than one
  per ClusterQueue; the ClusterQueue-class average is drawn thick);
* :func:`plot_time_to_admission` — every workload's time to admission (as the summary counts
  it) against its creation time, one colour per workload class;
* :func:`write_scenario_plots` — both into a directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.output.plots import PLOT_FORMATS, plot_format, pyplot, save_figure
from kueue_preempt.kperf.scenario import BuiltScenario
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Released

__all__ = ["plot_cohort_utilization", "plot_time_to_admission", "write_scenario_plots"]


def plot_cohort_utilization(
    events: Iterable[Event], built: BuiltScenario, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Quota charged ÷ nominal quota per cohort over time, and for all queues together."""
    fmt = plot_format(path, format)
    plt = pyplot()
    cohort_of = {q.name: q.cohort for q in built.queues}
    nominal: dict[str, int] = {}
    for q in built.queues:
        nominal[q.cohort] = nominal.get(q.cohort, 0) + q.nominal_cpu_millis
    total = sum(nominal.values())
    usage = {c: 0 for c in nominal}
    charged: dict[str, tuple[str, int]] = {}
    series: dict[str, list[tuple[float, float]]] = {c: [(0.0, 0.0)] for c in nominal}
    overall: list[tuple[float, float]] = [(0.0, 0.0)]
    used = 0
    for e in events:
        # Charged from admission until the finish or the release (as the summary counts it).
        if isinstance(e, Admitted) and e.cluster_queue in cohort_of:
            c = cohort_of[e.cluster_queue]
            cpu = sum(v for fr, v in e.usage.items() if fr.resource == "cpu")
            charged[e.workload] = (c, cpu)
        elif isinstance(e, (Finished, Released)) and e.workload in charged:
            c, cpu = charged.pop(e.workload)
            cpu = -cpu
        else:
            continue
        usage[c] += cpu
        used += cpu
        series[c].append((e.t, usage[c] / nominal[c] if nominal[c] else 0.0))
        overall.append((e.t, used / total if total else 0.0))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for c in sorted(series):
        pts = series[c]
        ax.step([x for x, _ in pts], [y * 100 for _, y in pts], where="post", linewidth=0.6, alpha=0.6, label=c)
    ax.step([x for x, _ in overall], [y * 100 for _, y in overall], where="post", color="black", linewidth=1.6, label="all queues")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("quota charged / nominal (%)")
    ax.set_title("Utilization per cohort")
    ax.axhline(100.0, color="grey", linewidth=0.8, linestyle="--")
    ax.legend(loc="upper right", fontsize="small", ncol=2)
    return save_figure(fig, plt, path, fmt)


def plot_time_to_admission(
    events: Iterable[Event],
    built: BuiltScenario,
    path: str | os.PathLike[str],
    *,
    admitted_seen: Iterable[tuple[str, float]] | None = None,
    format: str | None = None,
) -> Path:
    """Each workload's time to admission (``admitted_seen`` when given, as the summary counts
    it; else its timeline admission) against its creation time, one colour per class."""
    fmt = plot_format(path, format)
    plt = pyplot()
    cls = {w.key: w.class_name for w in built.workloads}
    created: dict[str, float] = {}
    admitted: dict[str, float] = {}
    for e in events:
        if isinstance(e, Arrived):
            created.setdefault(e.workload, e.t)
        elif isinstance(e, Admitted) and admitted_seen is None:
            admitted[e.workload] = e.t
    if admitted_seen is not None:
        for key, t in admitted_seen:
            admitted[key] = t
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for c in sorted(set(cls.values())):
        xs = [created[k] for k in admitted if cls.get(k) == c and k in created]
        ys = [admitted[k] - created[k] for k in admitted if cls.get(k) == c and k in created]
        ax.scatter(xs, ys, s=2, label=c)
    ax.set_xlabel("creation time (s)")
    ax.set_ylabel("time to admission (s)")
    ax.set_title("Time to admission per workload class")
    ax.legend(loc="upper left", fontsize="small", markerscale=4)
    return save_figure(fig, plt, path, fmt)


def write_scenario_plots(
    events: Iterable[Event],
    built: BuiltScenario,
    directory: str | os.PathLike[str],
    *,
    admitted_seen: Iterable[tuple[str, float]] | None = None,
    format: str = "png",
) -> list[Path]:
    """``utilization`` and ``time-to-admission`` charts in ``directory`` (created if needed)."""
    if format not in PLOT_FORMATS:
        raise ConfigurationError(f"plot format must be one of {', '.join(PLOT_FORMATS)}, got {format!r}")
    timeline = tuple(events)
    seen = None if admitted_seen is None else tuple(admitted_seen)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    return [
        plot_cohort_utilization(timeline, built, out / f"utilization.{format}"),
        plot_time_to_admission(timeline, built, out / f"time-to-admission.{format}", admitted_seen=seen),
    ]
