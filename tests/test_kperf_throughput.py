"""The API-throughput model (kueue_preempt.sim.throughput): a token bucket of Q requests per
second with bursts of B, reservations served in call order (Go's rate.Limiter), hand-worked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.throughput import ApiLimits, TokenBucket


def test_burst_then_one_token_per_period() -> None:
    # Q = 2/s, B = 3, bucket full at 0: five requests at t=0 complete at 0, 0, 0, 0.5, 1.0
    # (tokens 3 -> 2 -> 1 -> 0 -> -1 -> -2; a debt of d tokens waits d / Q seconds).
    b = TokenBucket(ApiLimits(qps=2, burst=3))
    assert [b.reserve(0.0) for _ in range(5)] == [0.0, 0.0, 0.0, 0.5, 1.0]
    # At t=1.0 the debt of 2 has been repaid (1 s x 2/s = 2 tokens): tokens 0,
    # so the next request owes 1 token: it completes at 1.5.
    assert b.reserve(1.0) == 1.5
    # A quiet period refills up to B only: at t=10 the bucket holds 3 again.
    assert [b.reserve(10.0) for _ in range(4)] == [10.0, 10.0, 10.0, 10.5]
    assert b.requests == 10
    assert b.delayed == 4
    assert b.total_delay == pytest.approx(0.5 + 1.0 + 0.5 + 0.5)


def test_requests_spread_out_never_wait() -> None:
    b = TokenBucket(ApiLimits(qps=4, burst=1))
    assert [b.reserve(t / 4) for t in range(8)] == [t / 4 for t in range(8)]
    assert b.delayed == 0


def test_ideal_api_is_instant() -> None:
    b = TokenBucket(ApiLimits())
    assert ApiLimits().ideal
    assert [b.reserve(1.0) for _ in range(1000)] == [1.0] * 1000
    assert b.requests == 1000 and b.delayed == 0


@pytest.mark.parametrize(("qps", "burst"), [(0, 1), (-1, 1), (float("inf"), 1), (1, 0), (1, 1.5), (True, 1)])
def test_invalid_limits(qps: float, burst: int) -> None:
    with pytest.raises(ConfigurationError):
        ApiLimits(qps=qps, burst=burst)


@settings(max_examples=200, deadline=None)
@given(
    st.floats(min_value=0.5, max_value=100),
    st.integers(min_value=1, max_value=50),
    st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=200),
)
def test_never_more_than_burst_plus_rate_in_any_window(qps: float, burst: int, gaps: list[float]) -> None:
    """Invariant of a token bucket: completions in FIFO order, never before the request, and
    at most B + Q x w requests complete within any window of length w after the first."""
    b = TokenBucket(ApiLimits(qps=qps, burst=burst))
    t = 0.0
    done = []
    for g in gaps:
        t += g
        c = b.reserve(t)
        assert c >= t
        done.append(c)
    assert done == sorted(done)
    for i in range(len(done)):
        for j in range(i, len(done)):
            w = done[j] - done[i]
            assert j - i + 1 <= burst + qps * w + 1e-6
