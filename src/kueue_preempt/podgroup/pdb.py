"""PodDisruptionBudgets: which budgets cover a pod, and which victims violate them (PDB-1..PDB-6).

Reading guide: :class:`PdbIndex` answers "which PDBs cover this pod" (PDB-1) once per pod and
selector semantics; :func:`classify_units` charges the budgets over victims in importance
order and splits them into violating and non-violating units (PDB-2, PDB-3). Budgets are
private copies made per call, so the per-node path gets fresh budgets for every node and the
group path one computation for the whole cluster (PDB-6).

The empty selector (``{}``) is the one place where kube-scheduler's two paths disagree
(PDB-1, spec §9.3): its per-node code matches nothing with it (and never matches a pod
without labels), while the unit-based helper of the group path follows the policy/v1 API
and matches every pod of the namespace. :class:`PdbSelectorSemantics` names both; the
library default is the API meaning on both paths.
"""

from __future__ import annotations

import enum
from typing import Callable, Iterable, Sequence

import attrs

from kueue_preempt.podgroup.model import Pod, PodDisruptionBudget
from kueue_preempt.podgroup.units import PreemptionUnit

__all__ = ["PdbSelectorSemantics", "pdb_covers", "PdbIndex", "ClassifiedUnit", "classify_units"]


class PdbSelectorSemantics(str, enum.Enum):
    """What an empty PDB selector matches (PDB-1, §9.3)."""

    API = "api"
    """policy/v1: ``{}`` matches every pod of the PDB's namespace. The library default."""
    KUBE_PER_NODE = "kube-per-node"
    """kube-scheduler's per-node code: ``{}`` matches nothing, and a pod without labels is
    covered by no PDB at all."""

    def __str__(self) -> str:
        return self.value


def pdb_covers(pdb: PodDisruptionBudget, pod: Pod, semantics: PdbSelectorSemantics = PdbSelectorSemantics.API) -> bool:
    """PDB-1: same namespace and the selector matches the pod's labels.

    An absent or invalid selector matches nothing; the empty selector follows ``semantics``.
    """
    if pdb.namespace != pod.namespace or pdb.selector is None:
        return False
    selector = pdb.selector
    if semantics is PdbSelectorSemantics.KUBE_PER_NODE and (not pod.labels or selector.is_empty):
        return False
    return selector.matches(pod.labels)  # an invalid selector matches nothing (PDB-1)


class PdbIndex:
    """The cluster's PDBs by namespace, with a per-pod cache of covering PDB indices."""

    __slots__ = ("pdbs", "_by_namespace", "_cache")

    def __init__(self, pdbs: Iterable[PodDisruptionBudget] = ()) -> None:
        self.pdbs: tuple[PodDisruptionBudget, ...] = tuple(pdbs)
        self._by_namespace: dict[str, list[int]] = {}
        for i, pdb in enumerate(self.pdbs):
            self._by_namespace.setdefault(pdb.namespace, []).append(i)
        self._cache: dict[tuple[str, str, PdbSelectorSemantics], tuple[int, ...]] = {}

    def covering(self, pod: Pod, semantics: PdbSelectorSemantics) -> tuple[int, ...]:
        """Indices (into :attr:`pdbs`) of the PDBs covering ``pod`` (PDB-1), cached."""
        key = (pod.namespace, pod.name, semantics)
        found = self._cache.get(key)
        if found is None:
            candidates = self._by_namespace.get(pod.namespace, ())
            found = tuple(i for i in candidates if pdb_covers(self.pdbs[i], pod, semantics))
            self._cache[key] = found
        return found


@attrs.frozen
class ClassifiedUnit:
    """A candidate victim unit after PDB classification (PDB-3)."""

    unit: PreemptionUnit
    violating_pods: int = 0
    """How many of the unit's pods violate a budget; the unit violates if this is > 0."""

    @property
    def violating(self) -> bool:
        return self.violating_pods > 0


def classify_units(
    units: Sequence[PreemptionUnit],
    pdbs: Sequence[PodDisruptionBudget],
    covering: Callable[[Pod], Sequence[int]],
) -> tuple[list[ClassifiedUnit], list[ClassifiedUnit]]:
    """Split ``units`` (most important first) into (violating, non-violating) (PDB-2, PDB-3).

    Each PDB's ``disruptions_allowed`` is copied; for every pod of every unit, in order, and
    every PDB covering it that has not already processed its eviction (``disrupted_pods``),
    the copy is decremented and the pod violates if it went negative. Both lists keep the
    input order. Complexity: O(total pods × covering PDBs).
    """
    if not pdbs:
        return [], [ClassifiedUnit(u, 0) for u in units]
    budget = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[ClassifiedUnit] = []
    non_violating: list[ClassifiedUnit] = []
    for unit in units:
        count = 0
        for pod in unit.pods:
            pod_violates = False
            for i in covering(pod):
                if pod.name in pdbs[i].disrupted_pods:
                    continue  # PDB-2: the API server already accounted for this eviction
                budget[i] -= 1
                if budget[i] < 0:
                    pod_violates = True
            count += pod_violates
        if count:
            violating.append(ClassifiedUnit(unit, count))
        else:
            non_violating.append(ClassifiedUnit(unit, 0))
    return violating, non_violating
