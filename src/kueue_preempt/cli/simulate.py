"""``kueue-preempt simulate`` and ``kueue-preempt sweep``: replay arrivals over time
with the real scheduling cycle, and compare what-if variations of the cluster.

Registered by :func:`add_sim_parsers`; the shared error handling and exit codes are the CLI's.
"""

from __future__ import annotations

import argparse
import json
import logging
from datetime import timedelta
from typing import Any, Callable

import attrs

from kueue_preempt.cli.common import OUTPUT_HELP, CommandLineError, int_flag, seconds_flag
from kueue_preempt.cli.gates import add_feature_gates_flag, note_release
from kueue_preempt.io.text import number_text
from kueue_preempt.model.quantity import INT32_MAX
from kueue_preempt.cli.logging_flags import LOGGER_NAME
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.cycle import CycleConfig
from kueue_preempt.cli.kperf import add_api_arguments, add_scenario_arguments, api_limits, scenario_command
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import parse_documents, read_bytes
from kueue_preempt.cli.cluster_input import add_dump_arguments, cluster_state_of
from kueue_preempt.sim.arrivals.model import ArrivalsFile, write_arrivals
from kueue_preempt.sim.arrivals.read import load_arrivals
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.sim.engine import SimulationOptions
from kueue_preempt.kperf.config import configured_api_limits
from kueue_preempt.sim.arrivals.generate import generate_arrivals, load_generator_spec
from kueue_preempt.sim.output.metrics import summarize
from kueue_preempt.sim.output.plots import PLOT_FORMATS, write_plots
from kueue_preempt.sim.progress import ProgressBar
from kueue_preempt.sim.output.report import summary_json, summary_table
from kueue_preempt.sim.run import simulate
from kueue_preempt.sim.partition import PartitionedResult, partition_refusal, simulate_partitioned
from kueue_preempt.sim.output.timeline import write_timeline
from kueue_preempt.policies.boost import ThresholdBoostConfig, TimeSharingConfig
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sweep.evaluate import metric_names
from kueue_preempt.sweep import DEFAULT_METRICS, DaskBackend, LocalBackend, Scenario, SimulationEvaluator, parse_vary, run_sweep, sweep_json, sweep_table
from kueue_preempt.sweep.scenario import parse_window
from kueue_preempt.sweep.backends import Backend

__all__ = ["add_sim_parsers", "simulate_command", "sweep_command"]

EXIT_LIVELOCK = 1
_WINDOW_FIELDS = ("boost.window", "timeSharing.interval")


def _cycle_config(args: argparse.Namespace) -> CycleConfig:
    """``--config`` (Kueue's Configuration file) with the flags over it, as for ``cycle``."""
    config_of: Callable[[argparse.Namespace], PreemptionConfig] = args.config_of
    return CycleConfig(config_of(args))


def _time_sharing(args: argparse.Namespace) -> TimeSharingConfig | None:
    """``--time-sharing FILE`` (the booster's own YAML, BOOST-1) with ``--time-sharing-interval``
    over its interval; the interval alone runs the booster with Kueue's other defaults; an
    interval of 0 alone runs nothing (the plain way to say "without time sharing")."""
    window: timedelta | None = args.time_sharing_interval
    if args.time_sharing is None:
        return None if not window else TimeSharingConfig(interval=window)
    objects = parse_documents(read_bytes(args.time_sharing), source=args.time_sharing)
    if len(objects) != 1:
        raise ConfigurationError(f"{args.time_sharing}: expected one booster configuration, found {len(objects)} documents")
    try:
        config = TimeSharingConfig.from_mapping(objects[0].data)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{args.time_sharing}: {exc}") from None
    if window is not None:
        config = attrs.evolve(config, interval=window)
    if not config.enabled:
        # Kueue starts such a booster without complaint (BOOST-1): say why nothing is boosted.
        logging.getLogger(LOGGER_NAME).warning(
            "%s: timeSharing.interval is empty or 0: the booster boosts nothing and only removes "
            "boost annotations from the workloads it selects (BOOST-1, BOOST-4; the README's "
            "'duration' key is not read)",
            args.time_sharing,
        )
    return config


def _policy(args: argparse.Namespace) -> PolicySettings:
    policy = PolicySettings(
        boost=ThresholdBoostConfig() if args.boost else None, cost_base=args.cost_base, time_sharing=_time_sharing(args)
    )
    if policy.time_sharing is not None and policy.time_sharing.enabled:
        _warn_unbounded(args)
    return policy


def _warn_unbounded(args: argparse.Namespace) -> None:
    if args.until is None and not getattr(args, "resume_after_preemption", False):
        logging.getLogger(LOGGER_NAME).warning(
            "time sharing without --until: workloads longer than the window may take turns for ever "
            "(a re-admitted workload runs its whole duration again), and the run then "
            "stops only at --max-instants; give --until, or --resume-after-preemption for jobs that checkpoint"
        )


def _api(args: argparse.Namespace) -> ApiModel | None:
    """``--api-qps``/``--api-burst``, else ``--config``'s ``clientConnection`` if the file has
    one (a file that states its client limits asks for them), else an ideal API."""
    from_file = configured_api_limits(args.config) if args.config else None
    if getattr(args, "api_qps", None) is not None or getattr(args, "api_burst", None) is not None:
        if from_file is not None:
            raise ConfigurationError("--config has a clientConnection and --api-qps/--api-burst: give the client limits one way")
        return ApiModel.of(api_limits(args))
    return None if from_file is None else ApiModel.of(from_file)


def _options(args: argparse.Namespace) -> SimulationOptions:
    return SimulationOptions(
        until=args.until,
        termination_time=args.termination_time,
        inadmissible_requeue_delay=args.requeue_delay,
        max_instants=args.max_instants,
        api=_api(args),
        resume_after_preemption=args.resume_after_preemption,
        queue_moves=args.debug_queue_moves,
    )


def _arrivals(args: argparse.Namespace) -> ArrivalsFile:
    if args.generate:
        spec = load_generator_spec(args.generate)
        if args.seed is not None:
            spec = attrs.evolve(spec, seed=args.seed)
        file = generate_arrivals(spec)
        write_arrivals(file, args.arrivals)
        return attrs.evolve(file, source=args.arrivals)
    return load_arrivals(args.arrivals)


def _partitioned(args: argparse.Namespace) -> bool:
    return bool(args.workers or args.dask or args.dask_local)


def simulate_command(args: argparse.Namespace) -> tuple[int, str]:
    if args.scenario:
        if _partitioned(args):
            raise ConfigurationError("--workers/--dask/--dask-local split an --arrivals simulation by root cohort, not a --scenario run")
        return scenario_command(args)
    if args.head_order_seed is not None or args.seeds is not None:
        raise ConfigurationError("--head-order-seed and --seeds need --scenario")
    if not args.arrivals:
        raise ConfigurationError("simulate needs --arrivals FILE (with DUMP files, or none to read the cluster), or --scenario FILE")
    state, dump = cluster_state_of(args)
    note_release([w.workload for w in dump.workloads], _cycle_config(args).preemption.kueue_release)
    file = _arrivals(args)
    resolve_arrivals(file, dump)  # every row checked before anything runs
    options = _options(args)
    split: PartitionedResult | None = None
    if _partitioned(args):
        config, policy = _cycle_config(args), _policy(args)
        # Refused before any worker starts (a Dask cluster takes seconds to come up).
        why = partition_refusal(dump, state, config=config, options=options, policy=policy)
        if why is not None:
            raise ConfigurationError(f"cannot split the simulation by root cohort (--workers/--dask/--dask-local): {why}")
        backend, ctx = _backend(args)
        try:
            split = simulate_partitioned(state, dump, file, config=config, options=options, policy=policy, mapper=backend)
        finally:
            if ctx is not None:
                ctx.__exit__(None, None, None)
        result = split.result
    else:
        last = max((r.at for r in file.rows), default=0.0)
        with ProgressBar(options.until if options.until is not None else last) as bar:
            result = simulate(
                state, dump, file, config=_cycle_config(args), options=options, policy=_policy(args), progress=bar.update
            )
    if args.timeline:
        write_timeline(result.timeline, args.timeline)
    if args.plots:
        write_plots(result.timeline, dump, args.plots, format=args.plot_format)
    summary = summarize(result.timeline, dump=dump, until=options.until)
    code = EXIT_LIVELOCK if summary.livelocks or result.truncated else 0
    if args.output == "json":
        doc: dict[str, Any] = {
            "truncated": result.truncated,
            "instants": result.instants,
            "cycles": result.cycles,
            "events": len(result.timeline),
            "summary": summary_json(summary, series=args.series),
        }
        if split is not None:
            doc["partitions"] = [
                {
                    "root": p.root,
                    "clusterQueues": list(p.cluster_queues),
                    "instants": p.instants,
                    "cycles": p.cycles,
                    "events": p.events,
                    "livelocks": p.livelocks,
                    "truncated": p.truncated,
                    "cpuSeconds": round(p.cpu_seconds, 3),
                }
                for p in split.partitions
            ]
        if result.api is not None and options.api is not None:
            doc["api"] = {
                "qps": options.api.qps,
                "burst": options.api.burst,
                "requests": result.api.requests,
                "delayed": result.api.delayed,
                "byKind": dict(result.api.by_kind),
            }
        return code, json.dumps(doc, indent=2) + "\n"
    head = f"{len(file.rows)} arrivals, {result.instants} instants, {result.cycles} cycles, {len(result.timeline)} events\n"
    if split is not None:
        largest = max(split.partitions, key=lambda p: p.cpu_seconds, default=None)
        head += f"split by root cohort: {len(split.partitions)} partitions"
        if largest is not None:
            head += f", the largest ({largest.root}) {number_text(largest.cpu_seconds, 3)} CPU s"
        head += "\n"
    if result.api is not None and options.api is not None:
        head += (
            f"API {number_text(options.api.qps, 6)} qps, burst {options.api.burst}: {result.api.requests} requests "
            f"({result.api.delayed} delayed)\n"
        )
    tail = ""
    if result.truncated:
        tail = (
            f"STOPPED after {result.instants} instants (--max-instants) at t={number_text(result.end, 6)} s: the run does not "
            "settle; look at the preemption cycles above\n"
        )
    return code, head + summary_table(summary) + tail


def _backend(args: argparse.Namespace) -> tuple[Backend, Any]:
    if args.dask_local:
        ctx = DaskBackend.local(workers=args.dask_local)
        return ctx.__enter__(), ctx
    if args.dask:
        return DaskBackend(args.dask), None
    return LocalBackend(workers=args.workers), None


def sweep_command(args: argparse.Namespace) -> tuple[int, str]:
    state, dump = cluster_state_of(args)
    note_release([w.workload for w in dump.workloads], _cycle_config(args).preemption.kueue_release)
    file = load_arrivals(args.arrivals)
    resolve_arrivals(file, dump)  # every row checked before anything runs
    varies = [parse_vary(v) for v in args.vary]
    _check_metrics(args.metric or [], metric_names(dump))
    config = _cycle_config(args)
    base = Scenario(dump, config=config.preemption, policy=_policy(args))
    if base.policy.time_sharing is None and any(v.path.field in _WINDOW_FIELDS for v in varies):
        _warn_unbounded(args)
    evaluate = SimulationEvaluator(state, file, _options(args), config)
    backend, ctx = _backend(args)
    try:
        result = run_sweep(base, varies, evaluate, backend=backend)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
    code = EXIT_LIVELOCK if any((r.metrics.get("livelocks") or 0) for r in result.rows) else 0
    if args.output == "json":
        return code, json.dumps(sweep_json(result), indent=2) + "\n"
    return code, sweep_table(result, args.metric or list(DEFAULT_METRICS))


_NAMES_SHOWN = 40


def _check_metrics(asked: list[str], valid: list[str]) -> None:
    """An unknown ``--metric`` is a usage error naming the valid columns (before any run)."""
    unknown = [m for m in asked if m not in valid]
    if unknown:
        shown = ", ".join(valid[:_NAMES_SHOWN]) + (f" and {len(valid) - _NAMES_SHOWN} more" if len(valid) > _NAMES_SHOWN else "")
        raise CommandLineError(f"--metric: unknown metric {unknown[0]!r}; valid: {shown}")


def _window(value: str) -> timedelta:
    try:
        window = parse_window(value, where="--time-sharing-interval")
    except ConfigurationError as exc:  # argparse names the flag already
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--time-sharing-interval: ")) from None
    return timedelta(0) if window is None else window  # 0 given is not "absent" (None)


_count = int_flag(1, 1024)
_count_large = int_flag(1, 2**63 - 1)
_seconds = seconds_flag


def _common(
    p: argparse.ArgumentParser,
    strategies: Any,
    config_of: Callable[[argparse.Namespace], PreemptionConfig],
    config_help: str,
) -> None:
    add_dump_arguments(p)
    p.add_argument("--config", metavar="FILE", help=config_help)
    add_feature_gates_flag(p)
    p.set_defaults(config_of=config_of)
    p.add_argument("--until", type=_seconds, metavar="SECONDS", help="stop after this time (default: when nothing is left)")
    p.add_argument(
        "--requeue-delay", type=_seconds, default=1.0, metavar="SECONDS",
        help="inadmissible-requeue batching period (Kueue: 1 s; 0 = at once)",
    )
    p.add_argument(
        "--max-instants", type=_count_large, default=1_000_000, metavar="N",
        help="stop a run that never settles after N instants (default 1000000)",
    )
    p.add_argument("--termination-time", type=_seconds, default=0.0, metavar="SECONDS", help="eviction to release (default 0)")
    p.add_argument(
        "--resume-after-preemption", action="store_true",
        help="checkpoint credit: a preempted workload, admitted again, runs only the time it had left "
        "(default: its full duration again)",
    )
    p.add_argument(
        "--debug-queue-moves", action="store_true",
        help="timeline: besides one requeue-run event per inadmissible-requeue run, a requeued event "
        "for every workload it moved (internal queue bookkeeping; large)",
    )
    p.add_argument("--fair-sharing", action="store_true", help="Kueue configured with fairSharing (overrides --config)")
    p.add_argument(
        "--strategies", type=strategies, metavar="S1[,S2]", help="fair-sharing strategies (implies --fair-sharing; overrides --config)"
    )
    p.add_argument("--boost", action="store_true", help="run the preemption-count booster (default settings)")
    p.add_argument("--cost-base", type=int_flag(0, INT32_MAX), metavar="N", help="run the preemption-cost controller with this base")
    p.add_argument(
        "--time-sharing", metavar="FILE",
        help="run Kueue's time-sharing booster (kueue-priority-booster) with this config (YAML/JSON: "
        "timeSharing.interval/negativeBoost, workloadSelector, maxWorkloadPriority)",
    )
    p.add_argument(
        "--time-sharing-interval", type=_window, metavar="DURATION",
        help="its window: a Go duration (30m, 1h30m) or seconds; alone, runs the booster with "
        "Kueue's defaults (0 = off); with --time-sharing, replaces the file's interval",
    )
    p.add_argument("--output", "-o", choices=("table", "json"), default="table", help=OUTPUT_HELP)


def add_sim_parsers(
    sub: Any, strategies: Any, config_of: Callable[[argparse.Namespace], PreemptionConfig], config_help: str
) -> None:
    """Register ``simulate`` and ``sweep`` on the CLI's subparsers (``config_of`` builds the
    configuration from ``--config``, ``--feature-gates`` and the fair-sharing flags)."""
    sim = sub.add_parser(
        "simulate",
        help="replay arrivals over time with Kueue's scheduling cycle",
        description="Simulate a dump over time: arrivals from a file (or generated), cycles until nothing "
        "changes at each instant, completions, preemptions, requeues. Prints the "
        "summary: waits p50/p90/p99, preemptions, cycles, utilization. Exit 1 if a livelock was reported.",
    )
    _common(sim, strategies, config_of, config_help)
    sim.add_argument("--arrivals", metavar="FILE", help="arrivals (JSONL, or CSV by extension); with --generate, written")
    sim.add_argument("--generate", metavar="SPEC", help="generate the arrivals from a JSON generator spec into --arrivals")
    sim.add_argument("--seed", type=int_flag(-(2**63), 2**63 - 1), metavar="N", help="override the generator spec's seed")
    sim.add_argument("--timeline", metavar="FILE", help="write the per-workload timeline (JSONL)")
    sim.add_argument("--plots", metavar="DIR", help="write utilization/waits/preemptions charts (needs the [plot] extra)")
    sim.add_argument("--plot-format", choices=PLOT_FORMATS, default="png", help="file format of the --plots charts (default: png)")
    sim.add_argument("--series", action="store_true", help="-o json: include usage and DRS over time")
    add_api_arguments(sim)
    add_scenario_arguments(sim)
    _where(
        sim,
        "split the simulation by root cohort (and cohort-less ClusterQueue) and run the parts on N local "
        "worker processes; the merged result is the one-process run's (docs/simulation.md says what cannot be split)",
        "split it by root cohort and run the parts on the Dask scheduler at ADDRESS ([dask] extra)",
        "split it by root cohort and run the parts on a local Dask cluster of N worker processes",
    )
    sim.set_defaults(func=simulate_command)

    sweep = sub.add_parser(
        "sweep",
        help="compare what-if variations of a dump over the same arrivals",
        description="Run every combination of --vary values (docs/simulation.md has the path grammar) and "
        "print a comparison table. Local worker processes by default, or a Dask cluster ([dask] extra).",
    )
    _common(sweep, strategies, config_of, config_help)
    sweep.add_argument("--arrivals", required=True, metavar="FILE", help="arrivals (JSONL, or CSV by extension)")
    sweep.add_argument("--vary", action="append", required=True, metavar="PATH=V1,V2", help="repeatable")
    sweep.add_argument(
        "--metric", action="append", metavar="NAME",
        help="a table column, repeatable (default: the whole-cluster figures " + ", ".join(DEFAULT_METRICS) + "); "
        "per ClusterQueue or cohort: NODE.wait.p50|p90|p99, NODE.preemptions, NODE.utilization.FLAVOR/RESOURCE",
    )
    _where(sweep, "local worker processes (default: one per CPU)", "run on the Dask scheduler at ADDRESS",
           "start a local Dask cluster of N worker processes")
    sweep.set_defaults(func=sweep_command)


def _where(p: argparse.ArgumentParser, workers: str, dask: str, dask_local: str) -> None:
    """``--workers`` / ``--dask`` / ``--dask-local``: where runs execute (one of them)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_count, metavar="N", help=workers)
    where.add_argument("--dask", metavar="ADDRESS", help=dask)
    where.add_argument("--dask-local", type=_count, metavar="N", help=dask_local)
