"""Charts from a timeline (the ``[plot]`` extra; matplotlib is in the ``test`` extra, so these run)."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from typing import Any

import pytest

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim import ExtraUnavailable
from kueue_preempt.sim.output.plots import plot_preemptions, plot_utilization, plot_waits, write_plots
from sim_dump import small_dump
from test_sim_metrics import TIMELINE


def test_png_charts(tmp_path: Path) -> None:
    paths = write_plots(TIMELINE, small_dump(), tmp_path / "charts")
    assert [p.name for p in paths] == ["utilization.png", "waits.png", "preemptions.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_svg_charts_show_the_queues_and_are_reproducible(tmp_path: Path) -> None:
    first = plot_utilization(TIMELINE, small_dump(), tmp_path / "u1.svg").read_text()
    second = plot_utilization(TIMELINE, small_dump(), tmp_path / "u2.svg").read_text()
    assert first == second
    assert "team-a default/cpu" in first and "team-b default/cpu" in first
    waits = plot_waits(TIMELINE, tmp_path / "w.svg").read_text()
    assert "Wait time distribution" in waits
    pre = plot_preemptions(TIMELINE, tmp_path / "p.svg").read_text()
    assert "Preemptions (2)" in pre and "InClusterQueue" in pre


def test_empty_timeline_still_draws(tmp_path: Path) -> None:
    assert all(p.stat().st_size > 0 for p in write_plots([], small_dump(), tmp_path, format="svg"))


def test_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="png, svg"):
        plot_waits(TIMELINE, tmp_path / "w.jpg")


def test_missing_matplotlib_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    with pytest.raises(ExtraUnavailable, match=r"pip install 'kueue-preempt\[plot\]'"):
        plot_waits(TIMELINE, tmp_path / "w.png")
