"""A progress bar on standard error for long simulations — only when stderr is a terminal.

Piped or redirected output (CI logs, ``2> file``) stays clean: the bar draws nothing unless
its stream reports ``isatty()``. No dependency; the bar redraws only when the shown percentage
changes, so 100,000 instants cost about 100 writes.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """``update(done)`` with ``0 <= done <= total``; ``close()`` ends the line.

    Use it as the simulator's ``progress`` callback: ``run_simulation(..., progress=bar.update)``
    with ``total`` the last arrival's time (or ``until``).
    """

    def __init__(
        self,
        total: float,
        *,
        label: str = "simulating",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        width: int = 30,
    ) -> None:
        self.total = total
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _is_tty(self.stream) if enabled is None else enabled
        self.width = max(1, width)
        self._shown = -1
        self._drawn = False

    def update(self, done: float) -> None:
        if not self.enabled:
            return
        fraction = 1.0 if self.total <= 0 else min(1.0, max(0.0, done / self.total))
        percent = int(fraction * 100)
        if percent == self._shown:
            return
        self._shown = percent
        filled = int(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {percent:3d}% (t={done:g} s)")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or exotic streams: stay silent
        return False
