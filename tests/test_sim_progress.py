"""The stderr progress bar draws only on a terminal."""

from __future__ import annotations

import io

from kueue_preempt.sim.progress import ProgressBar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_not_a_terminal() -> None:
    out = io.StringIO()
    with ProgressBar(100, stream=out) as bar:
        for t in range(0, 101, 10):
            bar.update(t)
    assert out.getvalue() == ""


def test_draws_on_a_terminal_and_only_when_the_percentage_changes() -> None:
    out = _Tty()
    with ProgressBar(200, stream=out, width=10) as bar:
        bar.update(0)
        bar.update(1)  # still 0 %: no redraw
        bar.update(100)
        bar.update(250)  # clamped to 100 %
    frames = out.getvalue().split("\r")[1:]
    assert frames == [
        "simulating [----------]   0% (t=0 s)",
        "simulating [#####-----]  50% (t=100 s)",
        "simulating [##########] 100% (t=250 s)\n",
    ]


def test_closed_stream_counts_as_not_a_terminal() -> None:
    out = io.StringIO()
    out.close()
    bar = ProgressBar(1, stream=out)
    assert not bar.enabled
    bar.update(1)
    bar.close()
