#!/usr/bin/env python3
"""What each mechanism of the API model does to Kueue's scalability scenarios: an ablation.

For each scenario (baseline, large-scale) it runs the scenario with Kueue's test client limits
(``ApiModel(50, 100)``, every other parameter at its default: facts of Kueue's code and the
one documented constant), then once per mechanism of ``kueue_preempt.sim.api_model.MECHANISMS``
with that mechanism switched off, and once with an ideal API. The baseline is also run with the
``SchedulingEquivalenceHashing`` gate off (Kueue measured that too). Each run gives both
definitions of time to admission (observed and decision). No parameter differs between the
scenarios.

Usage::

    python benchmarks/kperf_ablation.py [--scenarios baseline,large-scale] [--mechanisms all|none|a,b]
                                        [--no-hashing-runs | --only-hashing-off] [--out benchmarks/results]

Writes ``<out>/kperf-ablation.json`` (merged with what is already there, so scenarios can be
run in separate processes) and ``<out>/kperf-ablation.md``. Each run of the large-scale
scenario takes about 25 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import attrs

from kueue_preempt.kperf.run import ScenarioOptions, run_scenario, scenario_summary
from kueue_preempt.kperf.scenario import BuiltScenario, build_scenario, load_scenario
from kueue_preempt.sim.api_model import MECHANISMS, ApiModel

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = {
    "baseline": ROOT / "examples" / "kueue-perf" / "baseline-generator.yaml",
    "large-scale": ROOT / "examples" / "kueue-perf" / "large-scale-generator.yaml",
}
# Kueue's measured means (range file of the baseline, 5 runs; /work/shared/kueue-perf/README.md).
KUEUE = {
    ("baseline", True): {"large": 16_501, "medium": 76_768, "small": 215_468, "usage": 55.9, "wall": 351_116},
    ("baseline", False): {"large": 6_666, "usage": 58.7},
}
CLASSES = ("large", "medium", "small")


def one_run(name: str, built: BuiltScenario, label: str, api: ApiModel | None, hashing: bool) -> dict[str, Any]:
    c0 = time.process_time()
    opts = ScenarioOptions(api=api, scheduling_equivalence_hashing=hashing)
    run = run_scenario(built, opts)
    row: dict[str, Any] = {"scenario": name, "run": label, "hashing": hashing}
    for definition in ("observed", "decision"):
        s = scenario_summary(built, run.result, attrs.evolve(opts, admission_time=definition))
        row[definition] = {c: round(w.average_time_to_admission_ms or 0.0) for c, w in s.workload_classes.items()}
        row["usagePercent"] = round(s.cluster_queue_classes["cq"].usage_percent, 1)
        row["wallMs"] = round(s.duration * 1000)
        row["evictions"] = sum(w.total_evictions for w in s.workload_classes.values())
    row["cycles"] = run.result.cycles
    row["cpuSeconds"] = round(time.process_time() - c0, 1)
    print(json.dumps(row), flush=True)
    return row


def _order(row: dict[str, Any]) -> int:
    """All mechanisms first, then each one off in MECHANISMS order, the ideal API last."""
    run = str(row["run"])
    if run.startswith("without "):
        m = run[len("without "):]
        return 1 + MECHANISMS.index(m) if m in MECHANISMS else len(MECHANISMS) + 1
    return len(MECHANISMS) + 2 if run == "ideal API" else 0


def markdown(rows: list[dict[str, Any]]) -> str:
    out = []
    for name in SCENARIOS:
        for hashing in (True, False):
            sel = sorted((r for r in rows if r["scenario"] == name and r["hashing"] == hashing), key=_order)
            if not sel:
                continue
            out.append(f"**{name}**, SchedulingEquivalenceHashing {'on' if hashing else 'off'} "
                       "(time to admission in ms, observed / decision)\n")
            out.append("| run | large | medium | small | usage % | run (s) | evictions |")
            out.append("|---|---|---|---|---|---|---|")
            kueue = KUEUE.get((name, hashing))
            if kueue:
                cells = [f"{kueue[c]:,}" if c in kueue else "" for c in CLASSES]
                usage = kueue.get("usage", "")
                wall = f"{kueue['wall'] / 1000:,.1f}" if "wall" in kueue else ""
                out.append(f"| Kueue measured (observed) | {' | '.join(cells)} | {usage} | {wall} | |")
            for r in sel:
                cells = [f"{r['observed'][c]:,} / {r['decision'][c]:,}" for c in CLASSES]
                out.append(f"| {r['run']} | {' | '.join(cells)} | {r['usagePercent']} | {r['wallMs'] / 1000:,.1f} | {r['evictions']} |")
            missing = [m for m in MECHANISMS if not any(r["run"] == f"without {m}" for r in sel)]
            if missing:
                out.append(f"Not run: without {', without '.join(missing)}.")
            out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", default="baseline,large-scale")
    parser.add_argument("--mechanisms", default="all", help="all, none, or a comma-separated list")
    parser.add_argument("--no-hashing-runs", action="store_true", help="skip the baseline runs with hashing off")
    parser.add_argument("--only-hashing-off", action="store_true", help="only the baseline runs with hashing off")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args()
    mechanisms = list(MECHANISMS) if args.mechanisms == "all" else [] if args.mechanisms == "none" else args.mechanisms.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "kperf-ablation.json"
    rows: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []
    for name in args.scenarios.split(","):
        built = build_scenario(load_scenario(SCENARIOS[name]))
        hashings = [True] if name != "baseline" or args.no_hashing_runs else [True, False]
        if args.only_hashing_off and name == "baseline":
            hashings = [False]
        for hashing in hashings:
            runs: list[tuple[str, ApiModel | None]] = [("all mechanisms (Q=50, B=100)", ApiModel(50, 100))]
            runs += [(f"without {m}", ApiModel(50, 100, disabled=[m])) for m in mechanisms]
            runs.append(("ideal API", None))
            for label, api in runs:
                row = one_run(name, built, label, api, hashing)
                rows = [r for r in rows if (r["scenario"], r["run"], r["hashing"]) != (name, label, hashing)] + [row]
                path.write_text(json.dumps(rows, indent=2) + "\n")
                (out / "kperf-ablation.md").write_text(markdown(rows))


if __name__ == "__main__":
    main()
