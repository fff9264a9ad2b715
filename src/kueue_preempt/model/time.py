"""Timestamps: RFC 3339 parsing and the integer keys the ordering uses.

All model times are timezone-aware UTC ``datetime`` objects. Naive datetimes are taken to be
UTC (Kubernetes only writes UTC). ``ZERO_TIME`` is Go's zero ``time.Time``, which Kueue uses
for an unset creation timestamp (POL-5(d)).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from kueue_preempt.errors import InvalidModel

__all__ = ["ZERO_TIME", "EPOCH", "parse_time", "to_time", "to_optional_time", "micros"]

ZERO_TIME = datetime(1, 1, 1, tzinfo=timezone.utc)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ONE_MICRO = timedelta(microseconds=1)
# ASCII digits only: ``\d`` would also match Arabic-Indic and other Unicode digits.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def parse_time(value: str, *, where: str = "time") -> datetime:
    """Parse an RFC 3339 timestamp (``2026-01-01T00:00:00Z``, up to 9 fraction digits).

    Fractions below a microsecond are truncated (Python's resolution); string order equals
    time order for the fixed-width timestamps Kubernetes writes.
    """
    m = _RFC3339.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise InvalidModel(where, "time", f"{value!r} is not an RFC 3339 timestamp")
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    frac = (m.group(7) or "").ljust(6, "0")[:6]
    if m.group(8):
        tz = timezone.utc
    else:
        hours, minutes = int(m.group(10)), int(m.group(11))
        if hours > 23 or minutes > 59:  # RFC 3339: time-numoffset is 00:00 to 23:59
            raise InvalidModel(where, "time", f"{value!r}: UTC offset {m.group(9)}{m.group(10)}:{m.group(11)} is out of range")
        offset = timedelta(hours=hours, minutes=minutes)
        tz = timezone(offset if m.group(9) == "+" else -offset)
    try:
        dt = datetime(year, month, day, hour, minute, second, int(frac), tzinfo=tz)
        return dt.astimezone(timezone.utc)
    except ValueError as exc:
        raise InvalidModel(where, "time", f"{value!r}: {exc}") from None
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        raise InvalidModel(where, "time", f"{value!r}: outside the years 1 to 9999 in UTC") from None


def to_time(value: datetime | str, *, obj: str = "time", field: str = "time") -> datetime:
    """attrs converter: RFC 3339 string or datetime to an aware UTC datetime.

    ``obj`` and ``field`` name the attribute in errors (``Workload: field 'creation_time'``).
    """
    if isinstance(value, str):
        try:
            return parse_time(value, where=obj)
        except InvalidModel as exc:
            raise InvalidModel(obj, field, exc.reason) from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)
    raise InvalidModel(obj, field, f"{value!r:.60} is neither a datetime nor an RFC 3339 string")


def to_optional_time(value: datetime | str | None, *, obj: str = "time", field: str = "time") -> datetime | None:
    """Like :func:`to_time`, keeping ``None`` (unset)."""
    return None if value is None else to_time(value, obj=obj, field=field)


def micros(value: datetime) -> int:
    """Microseconds since the Unix epoch: an exact integer sort key for a timestamp."""
    return (value - EPOCH) // _ONE_MICRO
