"""Parameter sweeps over what-if scenarios: paths, combinations, backends.

* :mod:`~kueue_preempt.sweep.scenario` — :class:`Scenario` and the ``--vary`` path grammar;
* :mod:`~kueue_preempt.sweep.vary` — ``PATH=V1,V2`` and the cartesian combinations;
* :mod:`~kueue_preempt.sweep.backends` — local processes or a Dask cluster (``[dask]``);
* :mod:`~kueue_preempt.sweep.run` — :func:`run_sweep` and the comparison table / JSON;
* :mod:`~kueue_preempt.sweep.evaluate` — :class:`SimulationEvaluator`, a scenario's metrics by
  simulation.

:class:`~kueue_preempt.policies.PolicySettings` (the reference controllers a scenario runs) is
re-exported from :mod:`kueue_preempt.policies`.

See ``docs/simulation.md``.
"""

from __future__ import annotations

from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sweep.backends import Backend, DaskBackend, LocalBackend
from kueue_preempt.sweep.evaluate import DEFAULT_METRICS, SimulationEvaluator, summary_metrics
from kueue_preempt.sweep.run import SweepResult, SweepRow, run_sweep, sweep_json, sweep_table
from kueue_preempt.sweep.scenario import Scenario, SweepPath, SweepPathError, apply_value, parse_path
from kueue_preempt.sweep.vary import Combination, Vary, expand, parse_vary

__all__ = [
    "DEFAULT_METRICS",
    "Backend",
    "Combination",
    "DaskBackend",
    "LocalBackend",
    "PolicySettings",
    "Scenario",
    "SimulationEvaluator",
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
    "summary_metrics",
    "sweep_table",
]
