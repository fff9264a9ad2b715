"""Kueue's API client throughput as a model: a token bucket of ``qps`` requests per second with
bursts of ``burst`` (client-go's ``flowcontrol`` limiter, Go's ``golang.org/x/time/rate``).

Every request *reserves* a token when it is made; reservations are served in the order they
are made (Go's limiter hands out tokens in call order, and a waiting caller holds its
reservation). The bucket starts full. A request made at ``t`` completes at

    ``t`` if a token is available then, else the time the bucket, refilled at ``qps`` tokens per
    second since the last reservation, has given back the token this request owes.

With ``qps = None`` the API is ideal: every request completes when it is made.
"""

from __future__ import annotations

import math

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io.text import FLOAT32_MAX, MIN_RATE
from kueue_preempt.model.quantity import UNLIMITED as _INT64_MAX

__all__ = ["ApiLimits", "TokenBucket", "MIN_QPS", "MAX_QPS"]

MAX_QPS = FLOAT32_MAX
"""The largest ``qps``: Kueue's ``clientConnection.qps`` is a float32."""
MIN_QPS = MIN_RATE
"""The smallest ``qps``: one request per ~292 years, so every wait fits the simulated clock."""


def _positive(inst: object, attr: attrs.Attribute[float | None], value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"ApiLimits.{attr.name}: must be a finite number > 0, got {value!r}")
    if not MIN_QPS <= value <= MAX_QPS:
        raise ConfigurationError(f"ApiLimits.{attr.name}: must be between {MIN_QPS:.3g} and {MAX_QPS:.3g}, got {value!r}")


def _burst(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    # int64 here (a model may stand for an unlimited client); Kueue's own burst, an int32,
    # is checked where a Configuration or a flag is read.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _INT64_MAX:
        raise ConfigurationError(f"ApiLimits.{attr.name}: must be an integer between 1 and {_INT64_MAX}, got {value!r:.40}")


@attrs.frozen
class ApiLimits:
    """The client's limits: ``qps`` requests per second (``None``: ideal, unlimited API), bursts
    of ``burst``. Kueue's defaults (Configuration ``clientConnection``, API-32) are 300/500;
    its scalability test uses 50/100."""

    qps: float | None = attrs.field(default=None, validator=_positive)
    burst: int = attrs.field(default=1, validator=_burst)

    @property
    def ideal(self) -> bool:
        return self.qps is None


class TokenBucket:
    """The limiter's state. Not frozen: it is the one mutable clock of a simulation's API."""

    __slots__ = ("qps", "burst", "tokens", "last", "requests", "delayed", "total_delay")

    def __init__(self, limits: ApiLimits) -> None:
        self.qps = limits.qps
        self.burst = float(limits.burst)
        self.tokens = float(limits.burst)
        self.last = 0.0
        self.requests = 0
        self.delayed = 0
        self.total_delay = 0.0

    def reserve(self, now: float) -> float:
        """Reserve one token for a request made at ``now``; return when the request completes.

        ``now`` must not go backwards between calls (the simulation's clock).
        """
        self.requests += 1
        qps = self.qps
        if qps is None:
            return now
        if now > self.last:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * qps)
            self.last = now
        self.tokens -= 1.0
        if self.tokens >= 0:
            return now
        wait = -self.tokens / qps
        self.delayed += 1
        self.total_delay += wait
        return now + wait
