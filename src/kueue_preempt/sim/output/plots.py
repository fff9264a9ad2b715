"""Charts of a simulation, as PNG or SVG — optional extra ``[plot]`` (matplotlib).

All charts are drawn from a timeline (and the dump, for quotas), like the summary:

* :func:`plot_utilization` — usage ÷ nominal quota of every ClusterQueue over time, one line
  per ClusterQueue and FlavorResource (victims count until release, SC-SIM-13 item 8);
* :func:`plot_waits` — the distribution of arrival waits per ClusterQueue (histogram);
* :func:`plot_preemptions` — every preemption as a point: time × the victim's ClusterQueue,
  coloured by reason;
* :func:`write_plots` — the three into a directory.

matplotlib is imported only when a chart is drawn, with the non-interactive ``Agg`` backend;
without it, :class:`~kueue_preempt.sim.errors.ExtraUnavailable` says what to install. SVG
output is reproducible (no date, fixed id salt, text kept as text).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ClusterDump
from kueue_preempt.sim.errors import ExtraUnavailable
from kueue_preempt.sim.output.metrics import arrival_waits, summarize
from kueue_preempt.sim.output.timeline import Event, Preempted

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "plot_utilization",
    "plot_waits",
    "plot_preemptions",
    "write_plots",
    "PLOT_FORMATS",
    "plot_format",
    "pyplot",
    "save_figure",
]

PLOT_FORMATS = ("png", "svg")


def pyplot() -> Any:
    """``matplotlib.pyplot`` set up for files: the non-interactive Agg backend and SVG output
    that is the same bytes on every run (fixed hash salt, text as text). Raises
    :class:`~kueue_preempt.errors.ExtraUnavailable` without the ``plot`` extra."""
    try:
        import matplotlib
    except ImportError:
        raise ExtraUnavailable("drawing plots", "plot", "matplotlib") from None
    matplotlib.use("Agg", force=True)
    matplotlib.rcParams["svg.hashsalt"] = "kueue-preempt"
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    return plt


def plot_format(path: str | os.PathLike[str], format: str | None) -> str:
    """The file format of a plot: ``format`` if given, else ``path``'s suffix; one of
    :data:`PLOT_FORMATS`, else :class:`~kueue_preempt.errors.ConfigurationError`."""
    fmt = (format or Path(path).suffix.lstrip(".")).lower()
    if fmt not in PLOT_FORMATS:
        raise ConfigurationError(f"{os.fspath(path)}: plot format must be one of {', '.join(PLOT_FORMATS)}, got {fmt!r}")
    return fmt


def save_figure(fig: Figure, plt: Any, path: str | os.PathLike[str], fmt: str) -> Path:
    """Write ``fig`` to ``path`` in ``fmt`` without the date or software stamp (the same
    inputs give the same file), close it (``plt`` from :func:`pyplot`) and return the path."""
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(path, format=fmt, metadata=metadata, bbox_inches="tight")
    plt.close(fig)
    return Path(path)


def plot_utilization(
    events: Iterable[Event], dump: ClusterDump, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Usage ÷ nominal quota per ClusterQueue and FlavorResource over time (a step chart)."""
    fmt = plot_format(path, format)
    plt = pyplot()
    summary = summarize(events, dump=dump)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for q in summary.queues:
        if q.kind != "ClusterQueue":
            continue
        for fr, quota in q.quota.items():
            if quota <= 0:
                continue
            points = [(p.t, p.usage.get(fr, 0) / quota) for p in q.usage]
            if not points or points[0][0] > 0:
                points.insert(0, (0.0, 0.0))  # nothing charged before the first change
            points.append((summary.span, points[-1][1]))
            ax.step([x for x, _ in points], [y for _, y in points], where="post", label=f"{q.name} {fr}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("usage / nominal quota")
    ax.set_title("Utilization per ClusterQueue")
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper right", fontsize="small")
    return save_figure(fig, plt, path, fmt)


def plot_waits(events: Iterable[Event], path: str | os.PathLike[str], *, format: str | None = None, bins: int = 30) -> Path:
    """Histogram of the arrivals' waits (first admission − arrival) per ClusterQueue."""
    fmt = plot_format(path, format)
    plt = pyplot()
    waits = arrival_waits(events)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if waits:
        ax.hist(list(waits.values()), bins=bins, label=list(waits), stacked=True)
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xlabel("wait (s)")
    ax.set_ylabel("workloads")
    ax.set_title("Wait time distribution")
    return save_figure(fig, plt, path, fmt)


def plot_preemptions(events: Iterable[Event], path: str | os.PathLike[str], *, format: str | None = None) -> Path:
    """Every preemption: time on x, the victim's ClusterQueue on y, colour by reason."""
    fmt = plot_format(path, format)
    plt = pyplot()
    preempted = [e for e in events if isinstance(e, Preempted)]
    queues = sorted({e.cluster_queue for e in preempted})
    row = {q: i for i, q in enumerate(queues)}
    fig, ax = plt.subplots(figsize=(9, max(2.5, 0.5 * len(queues) + 1.5)))
    for reason in sorted({e.reason for e in preempted}):
        mine = [e for e in preempted if e.reason == reason]
        ax.scatter([e.t for e in mine], [row[e.cluster_queue] for e in mine], label=reason, marker="x")
    ax.set_yticks(range(len(queues)), queues)
    ax.set_xlabel("time (s)")
    ax.set_title(f"Preemptions ({len(preempted)})")
    if preempted:
        ax.legend(loc="upper right", fontsize="small")
    return save_figure(fig, plt, path, fmt)


def write_plots(
    events: Iterable[Event], dump: ClusterDump, directory: str | os.PathLike[str], *, format: str = "png"
) -> list[Path]:
    """``utilization``, ``waits`` and ``preemptions`` charts in ``directory`` (created if needed)."""
    if format not in PLOT_FORMATS:
        raise ConfigurationError(f"plot format must be one of {', '.join(PLOT_FORMATS)}, got {format!r}")
    timeline = tuple(events)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    return [
        plot_utilization(timeline, dump, out / f"utilization.{format}"),
        plot_waits(timeline, out / f"waits.{format}"),
        plot_preemptions(timeline, out / f"preemptions.{format}"),
    ]
