"""``kueue-preempt simulate --scenario FILE``: Kueue's scalability scenario files in, Kueue's
summary out, with Kueue's API throughput as an optional model.

Called by ``simulate`` (:mod:`kueue_preempt.cli.simulate`) when ``--scenario`` is given; the
shared error handling and exit codes are the CLI's.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from kueue_preempt.cli.common import float_flag, int_flag
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.quantity import INT32_MAX
from kueue_preempt.cli.gates import release_of
from kueue_preempt.io.text import number_text
from kueue_preempt.model.config import FeatureGates
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.kperf.config import load_scenario_settings
from kueue_preempt.kperf.summary import ADMISSION_TIMES, summary_json, summary_table
from kueue_preempt.kperf.run import ScenarioOptions, run_scenario
from kueue_preempt.kperf.seeds import MAX_SEEDS, run_seeds, spread_json, spread_table
from kueue_preempt.sim.progress import ProgressBar
from kueue_preempt.kperf.scenario import BuiltScenario, build_scenario, load_scenario
from kueue_preempt.sim.api_model import ApiStats
from kueue_preempt.sim.throughput import MAX_QPS, MIN_QPS, ApiLimits
from kueue_preempt.sim.output.timeline import write_timeline

__all__ = ["add_api_arguments", "add_scenario_arguments", "api_limits", "scenario_command"]


_qps = float_flag(MIN_QPS, MAX_QPS, "a number of requests per second")
_burst = int_flag(1, INT32_MAX)
_seed = int_flag(0, INT32_MAX)
_seeds = int_flag(1, MAX_SEEDS)


def add_api_arguments(sim: argparse.ArgumentParser) -> None:
    """The API-throughput model's options (``simulate`` with a dump or ``--scenario``)."""
    g = sim.add_argument_group("Kueue's API throughput (rate limits on Kueue's status writes)")
    g.add_argument(
        "--api-qps", type=_qps, metavar="Q",
        help="model Kueue's API client: Q requests per second (default: ideal API, or --config's clientConnection)",
    )
    g.add_argument("--api-burst", type=_burst, metavar="B", help="bursts of B requests (default: Q rounded up)")


def add_scenario_arguments(sim: argparse.ArgumentParser) -> None:
    """The options of ``simulate --scenario``."""
    g = sim.add_argument_group("Kueue scalability scenarios (--scenario)")
    g.add_argument("--scenario", metavar="FILE", help="a Kueue scheduler-performance generator file, instead of DUMP and --arrivals")
    g.add_argument(
        "--no-equivalence-hashing", action="store_true", help="turn Kueue's SchedulingEquivalenceHashing gate off"
    )
    g.add_argument(
        "--admission-time", choices=ADMISSION_TIMES, default=ADMISSION_TIMES[0],
        help="time to admission as Kueue's runner measured it: observed (default; it saw Admitted, minus its first "
        "event of the workload: what Kueue's range files were calibrated with) or decision (the Admitted "
        "condition's time minus creationTimestamp, whole seconds)",
    )
    g.add_argument(
        "--head-order-seed", type=_seed, metavar="S",
        help="list each cycle's heads in a random order drawn from seed S, as Kueue's map order is (default: by "
        "ClusterQueue name); with --seeds, the first seed",
    )
    g.add_argument(
        "--seeds", type=_seeds, metavar="N",
        help="run N times, with the head-order seeds S, S+1, ... (S: --head-order-seed, default 0), and print "
        "each figure's mean [min - max] over the runs",
    )


def api_limits(args: argparse.Namespace) -> ApiLimits:
    """``--api-qps``/``--api-burst`` (an ideal API without ``--api-qps``)."""
    if args.api_qps is None:
        if args.api_burst is not None:
            raise ConfigurationError("--api-burst needs --api-qps")
        return ApiLimits()
    burst = args.api_burst if args.api_burst is not None else min(INT32_MAX, max(1, math.ceil(args.api_qps)))
    return ApiLimits(args.api_qps, burst)


def scenario_command(args: argparse.Namespace) -> tuple[int, str]:
    if args.dump or args.arrivals or args.generate:
        raise ConfigurationError("--scenario replaces DUMP, --arrivals and --generate: give one or the other")
    if args.fair_sharing or args.strategies or args.termination_time:
        raise ConfigurationError("--scenario: Kueue's scalability scenarios run without fair sharing and with termination time 0")
    if args.series:
        raise ConfigurationError("--series is not available with --scenario")
    if args.config:
        if args.api_qps is not None or args.api_burst is not None:
            raise ConfigurationError("--config and --api-qps/--api-burst: give the client limits one way")
        settings = load_scenario_settings(args.config, release_of(args))
        limits, hashing = settings.api, settings.scheduling_equivalence_hashing
    else:
        limits, hashing = api_limits(args), FeatureGates.for_release(release_of(args)).scheduling_equivalence_hashing
    options = ScenarioOptions(
        api=ApiModel.of(limits),
        scheduling_equivalence_hashing=hashing and not args.no_equivalence_hashing,
        inadmissible_requeue_delay=args.requeue_delay,
        until=args.until,
        admission_time=args.admission_time,
        head_order_seed=args.head_order_seed,
    )
    built = build_scenario(load_scenario(args.scenario))
    if args.seeds is not None:
        return _seeds_command(args, built, options)
    # The bar runs to the last creation (or --until); the API model's tail comes after it.
    last = max((w.at_ms for w in built.workloads), default=0) / 1000.0
    with ProgressBar(args.until if args.until is not None else last) as bar:
        run = run_scenario(built, options, progress=bar.update)
    if args.timeline:
        write_timeline(run.result.timeline, args.timeline)
    if args.plots:
        from kueue_preempt.kperf.plots import write_scenario_plots

        write_scenario_plots(
            run.result.timeline, run.built, args.plots, admitted_seen=run.admitted_seen, format=args.plot_format
        )
    api = run.result.api or ApiStats(0, 0, 0.0, ())
    if args.output == "json":
        doc: dict[str, Any] = summary_json(run.summary)
        doc["run"] = {
            "scenario": args.scenario,
            "clusterQueues": len(run.built.queues),
            "workloads": len(run.built.workloads),
            "cycles": run.result.cycles,
            "instants": run.result.instants,
            "api": {
                "qps": limits.qps,
                "burst": limits.burst if limits.qps is not None else None,
                "requests": api.requests,
                "delayed": api.delayed,
                "byKind": dict(api.by_kind),
                "runnerRequests": api.runner_requests,
                "eventsSent": api.events_sent,
                "eventsDropped": api.events_dropped,
            },
        }
        return 0, json.dumps(doc, indent=2) + "\n"
    api_text = "ideal API" if limits.qps is None else f"API {number_text(limits.qps, 6)} qps, burst {limits.burst}"
    head = (
        f"{len(run.built.queues)} ClusterQueues, {len(run.built.workloads)} workloads, {run.result.cycles} cycles, "
        f"{api_text}, {api.requests} API requests ({api.delayed} delayed)\n\n"
    )
    return 0, head + summary_table(run.summary)


def _seeds_command(args: argparse.Namespace, built: BuiltScenario, options: ScenarioOptions) -> tuple[int, str]:
    """``--seeds N``: the scenario once per head-order seed, the mean and spread of the summary."""
    if args.timeline or args.plots:
        raise ConfigurationError("--seeds: --timeline and --plots show one run; give --head-order-seed instead")
    first = args.head_order_seed if args.head_order_seed is not None else 0
    with ProgressBar(float(args.seeds), label="runs") as bar:
        runs, spread = run_seeds(built, options, args.seeds, first=first, progress=lambda i, _: bar.update(i + 1.0))
    if args.output == "json":
        doc = spread_json(spread)
        doc["runs"] = [summary_json(r.summary) for r in runs]
        return 0, json.dumps(doc, indent=2) + "\n"
    head = f"{len(built.queues)} ClusterQueues, {len(built.workloads)} workloads\n"
    return 0, head + spread_table(spread)
