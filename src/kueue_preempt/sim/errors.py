"""Errors of the simulator's inputs and optional extras; all are
:class:`~kueue_preempt.errors.KueuePreemptError` subclasses.

An arrivals file is usually written by hand or by a script, so its errors name the file, the
line and the field (``arrivals.jsonl:3: field 'duration': must be a number > 0``): the reader
must be able to jump to the row to fix.
"""

from __future__ import annotations

from kueue_preempt.errors import KueuePreemptError
from kueue_preempt.io.errors import ManifestError

__all__ = ["ArrivalError", "ExtraUnavailable", "TimelineError"]


class ArrivalError(ManifestError):
    """A row of an arrivals file is malformed or does not resolve against the dump.

    ``source`` is the file, ``line`` the 1-based line (the CSV header is line 1), ``field``
    the field path inside the row (``""`` for the row as a whole). It is a
    :class:`~kueue_preempt.io.ManifestError`, so code that reports manifest errors reports
    these too.
    """

    def __init__(self, source: str, line: int, field: str, reason: str) -> None:
        self.line = line
        self.field = field
        super().__init__(source, "", "", "", reason)
        where = f"{source}:{line}" if source else f"line {line}"
        text = f"{where}: field {field!r}: {reason}" if field else f"{where}: {reason}"
        self.args = (text,)

    def __str__(self) -> str:
        return str(self.args[0])


class TimelineError(ManifestError):
    """A timeline (JSONL) line cannot be read back: bad JSON or an unknown event shape."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        self.line = line
        super().__init__(source, "", "", "", reason)
        self.args = (f"{source or 'timeline'}:{line}: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])


class ExtraUnavailable(KueuePreemptError, ImportError):
    """An optional feature needs a package that is not installed (``[plot]``, ``[dask]``)."""

    def __init__(self, feature: str, extra: str, package: str) -> None:
        self.feature = feature
        self.extra = extra
        self.package = package
        super().__init__(
            f"{feature} needs {package}, which is not installed; install it with "
            f"`python3 -m pip install 'kueue-preempt[{extra}]'` (from a checkout: `python3 -m pip install '.[{extra}]'`)"
        )
