"""Parameter sweeps over what-if scenarios (issue 20): paths, combinations, backends.

* :mod:`~kueue_preempt.sweep.scenario` — :class:`Scenario` and the ``--vary`` path grammar;
* :mod:`~kueue_preempt.sweep.vary` — ``PATH=V1,V2`` and the cartesian combinations;
* :mod:`~kueue_preempt.sweep.backends` — local processes or a Dask cluster (``[dask]``);
* :mod:`~kueue_preempt.sweep.run` — :func:`run_sweep` and the comparison table / JSON.

See ``docs/simulation.md``.
"""

from __future__ import annotations

from kueue_preempt.sweep.backends import Backend, DaskBackend, LocalBackend
from kueue_preempt.sweep.run import SweepResult, SweepRow, run_sweep, sweep_json, sweep_table
from kueue_preempt.sweep.scenario import PolicySettings, Scenario, SweepPath, SweepPathError, apply_value, parse_path
from kueue_preempt.sweep.vary import Combination, Vary, expand, parse_vary

__all__ = [
    "Backend",
    "Combination",
    "DaskBackend",
    "LocalBackend",
    "PolicySettings",
    "Scenario",
    "SweepPath",
    "SweepPathError",
    "SweepResult",
    "SweepRow",
    "Vary",
    "apply_value",
    "expand",
    "parse_path",
    "parse_vary",
    "run_sweep",
    "sweep_json",
    "sweep_table",
]
