"""Status writes of the cycle without re-validating the whole workload.

``attrs.evolve`` re-runs every converter and validator of :class:`~kueue_preempt.model.Workload`
(annotations, labels, times, pod sets, spec pod sets...) and recomputes its derived usage. A
cycle rewrites the ``conditions`` of every pending head it requeues (SC-MSG-3) and of every
victim it evicts (SC-PR-1), hundreds of thousands of times in a large simulation, and those
writes touch nothing the other fields or the usage depend on. :func:`with_status` copies the
checked object and sets only the status fields below, each already in its stored form.
"""

from __future__ import annotations

from typing import Iterable

import attrs

from ..errors import InvalidModel
from ..model import Condition, EvictionStat, Workload

__all__ = ["with_status"]

_FIELDS = tuple(a.name for a in attrs.fields(Workload))


def with_status(
    w: Workload,
    *,
    conditions: tuple[Condition, ...],
    evicted: bool | None = None,
    evictions: Iterable[EvictionStat] | None = None,
) -> Workload:
    """``attrs.evolve(w, conditions=..., [evicted=..., evictions=...])`` for values the cycle
    built itself (:func:`~kueue_preempt.cycle.status.set_condition` returns a tuple of
    :class:`Condition`). Neither field feeds ``usage``, so the derived fields are copied."""
    if not isinstance(conditions, tuple) or not all(isinstance(c, Condition) for c in conditions):
        raise InvalidModel(f"Workload {w.key}", "conditions", "must be a tuple of Condition")
    new = object.__new__(Workload)
    for name in _FIELDS:
        object.__setattr__(new, name, getattr(w, name))
    object.__setattr__(new, "conditions", conditions)
    if evicted is not None:
        object.__setattr__(new, "evicted", bool(evicted))
    if evictions is not None:
        stats = tuple(evictions)
        if not all(isinstance(s, EvictionStat) for s in stats):
            raise InvalidModel(f"Workload {w.key}", "evictions", "must be EvictionStat values")
        object.__setattr__(new, "evictions", stats)
    return new
