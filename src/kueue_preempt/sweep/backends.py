"""Where a sweep's runs (or the partitions of one simulation split by root cohort,
:func:`kueue_preempt.sim.partition.simulate_partitioned`) execute: local worker processes,
or an existing Dask cluster.

A backend maps a picklable function over items and returns the results **in input order**,
so a sweep's output does not depend on where or in which order its runs finished — the same
sweep gives equal results on every backend.

* :class:`LocalBackend` — ``concurrent.futures`` processes on this machine (``workers=1``
  runs in this process, which is also the fallback for a single item);
* :class:`DaskBackend` — a Dask ``distributed`` cluster (optional extra ``[dask]``): give the
  scheduler's address, or use :meth:`DaskBackend.local` to start a local cluster of worker
  processes (what the tests do). The reasons for Dask over Ray are in docs/decisions.md.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol, Sequence, TypeVar

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.errors import ExtraUnavailable

__all__ = ["Backend", "LocalBackend", "DaskBackend"]

T = TypeVar("T")
R = TypeVar("R")


class Backend(Protocol):
    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``[fn(item) for item in items]``, possibly in parallel, in input order."""
        ...


class LocalBackend:
    """Worker processes on this machine (default: one per CPU, at most one per item)."""

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or workers < 1):
            raise ConfigurationError(f"LocalBackend: workers must be >= 1, got {workers!r}")
        self.workers = workers

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        workers = min(self.workers or os.cpu_count() or 1, len(items))
        if workers <= 1:
            return [fn(item) for item in items]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(fn, items))


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ExtraUnavailable("running on Dask (a sweep, or a simulation split by root cohort)", "dask", "dask[distributed]") from None
    return distributed


class DaskBackend:
    """Runs on a Dask ``distributed`` cluster through a ``Client``.

    ``DaskBackend("tcp://scheduler:8786")`` connects to an existing cluster (the client is
    created per :meth:`map` and closed after); ``DaskBackend(client=c)`` reuses a client.
    """

    def __init__(self, address: str | None = None, *, client: Any = None) -> None:
        if (address is None) == (client is None):
            raise ConfigurationError("DaskBackend: give exactly one of address or client")
        self.address = address
        self.client = client

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        if not items:
            return []
        if self.client is not None:
            return self._run(self.client, fn, items)
        distributed = _distributed()
        with distributed.Client(self.address) as client:
            return self._run(client, fn, items)

    @staticmethod
    def _run(client: Any, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        # pure=False: equal items are still separate runs (no result caching by hash).
        futures = client.map(fn, list(items), pure=False)
        return list(client.gather(futures))

    @classmethod
    @contextmanager
    def local(cls, workers: int = 2, *, threads_per_worker: int = 1) -> Iterator[DaskBackend]:
        """Start a local cluster of ``workers`` processes (loopback only, no dashboard) for
        the duration of the ``with`` block."""
        distributed = _distributed()
        with distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster, distributed.Client(cluster) as client:
            yield cls(client=client)
