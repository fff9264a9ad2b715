"""Command-line interface ``kueue-preempt``: explain preemption decisions on real cluster dumps.

Subcommands:

* ``explain DUMP... (--workload NS/NAME | --incoming FILE)``: which workloads Kueue would
  preempt so that a pending (or hypothetical) workload fits, why, and the decision trace;
* ``check DUMP...``: validate a dump and show what was loaded (counts, skipped kinds, quota tree);
* ``cycle DUMP...``: what Kueue's next scheduling cycle(s) do with every pending workload
  (:mod:`kueue_preempt.cli.cycle`);
* ``simulate DUMP... --arrivals FILE`` and ``sweep DUMP... --arrivals FILE --vary PATH=V1,V2``:
  replay arrivals over time, and compare what-if variations (:mod:`kueue_preempt.cli.simulate`);
* ``demo``: a classic decision on a bundled example cohort.

The CLI is an edge: it reads files through :mod:`kueue_preempt.io`, calls the public API and
formats the result; it holds no algorithm logic. Output is built completely before anything is
printed, so an error never leaves partial output on stdout; an error is one line on stderr.

Exit codes:

===  ==============================================================================
0    success (``explain``: at least one target)
1    ``explain`` found nothing to preempt: the workload fits already, cannot fit
     (NoFit), or no complete target set exists
2    usage error (unknown option, missing argument, bad ``--now``/``--strategies``)
3    invalid input (malformed manifest, quantity, annotation, assignment; unknown
     workload, LocalQueue or ClusterQueue; input too large)
4    I/O error (file missing, unreadable, a directory; kubectl cannot read the cluster:
     no context, unreachable, forbidden, Kueue not installed, timeout)
5    a YAML input without PyYAML installed (``pip install 'kueue-preempt[yaml]'``, from a
     checkout ``pip install '.[yaml]'``), or no DUMP given and no ``kubectl`` on PATH
70   internal error (a bug: please report it)
===  ==============================================================================
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from typing import NoReturn, Sequence

from kueue_preempt import __version__
from kueue_preempt.cli.check import run_check
from kueue_preempt.cli.common import (
    EXIT_INTERNAL_ERROR,
    EXIT_INVALID_INPUT,
    EXIT_IO_ERROR,
    EXIT_MISSING_DEPENDENCY,
    EXIT_NO_TARGETS,
    EXIT_OK,
    EXIT_USAGE,
    OUTPUT_HELP,
    PROG,
    CommandLineError,
    kueue_config_of,
    preemption_config_of,
)
from kueue_preempt.cli.demo import run_demo
from kueue_preempt.cli.explain import run_explain
from kueue_preempt.cli.podgroup import run_podgroup
from kueue_preempt.cli.gates import add_feature_gates_flag
from kueue_preempt.model.releases import DEFAULT_RELEASE, REFERENCE_COMMIT
from kueue_preempt.cli.logging_flags import add_logging_flags, cli_logging, level_for
from kueue_preempt.model.time import parse_time
from kueue_preempt.model.config import FairSharingConfig
from kueue_preempt.errors import ConfigurationError, InvalidModel, KueuePreemptError
from kueue_preempt.io import (
    YamlUnavailable,
)
from kueue_preempt.sim.errors import ExtraUnavailable
from kueue_preempt.io.kubectl import ClusterReadError, KubectlNotFound
from kueue_preempt.cli.simulate import add_sim_parsers
from kueue_preempt.cli.cluster_input import add_dump_arguments
from kueue_preempt.cli.cycle import add_cycle_parser

__all__ = [
    "main",
    "EXIT_OK",
    "EXIT_NO_TARGETS",
    "EXIT_USAGE",
    "EXIT_INVALID_INPUT",
    "EXIT_IO_ERROR",
    "EXIT_MISSING_DEPENDENCY",
    "EXIT_INTERNAL_ERROR",
]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (``error`` is called for every one)."""

    def error(self, message: str) -> NoReturn:
        # One format for every refusal: the program name, then what is wrong; the command's
        # own help is named at the end (argparse would start with "kueue-preempt COMMAND:").
        raise _UsageError(f"{message} (see {self.prog} --help)")


class _VersionAction(argparse.Action):
    """``--version`` as one line: argparse's own action wraps it to the terminal width."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        release = f"default Kueue release: {DEFAULT_RELEASE.name}, main at {REFERENCE_COMMIT}"
        print(f"{parser.prog} {__version__} ({release})")
        parser.exit()


# --------------------------------------------------------------------------- arguments


def _rfc3339(value: str) -> datetime:
    try:
        return parse_time(value)
    except InvalidModel as exc:
        raise argparse.ArgumentTypeError(f"{exc.reason} (an RFC 3339 time such as 2026-01-01T12:00:00Z)") from None


def _strategies(value: str) -> tuple[str, ...]:
    names = tuple(s.strip() for s in value.split(",") if s.strip())
    try:
        FairSharingConfig(preemption_strategies=names)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return names


def _workload_key(value: str) -> str:
    namespace, sep, name = value.partition("/")
    if not sep or not name or "/" in name:
        raise argparse.ArgumentTypeError(f"{value!r} is not NAMESPACE/NAME")
    return value


_CONFIG_HELP = (
    "Kueue's Configuration file (config.kueue.x-k8s.io v1beta1/v1beta2): fair sharing, admission fair "
    "sharing, feature gates, waitForPodsReady; explicit flags override it (default: the defaults of the "
    "--kueue-version release)"
)


def _parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog,
        description="Explain Kueue preemption decisions on the current cluster (read with kubectl) or on dump files.",
        epilog=f"Defaults are those of {DEFAULT_RELEASE.label}: feature gates and configuration; "
        "--kueue-version selects another release (0.16 to 0.19). "
        "Options given on the command line override the same settings read from a --config file.",
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        help="print the version and the Kueue release reproduced by default, then exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run a classic preemption decision on a bundled example cohort")
    demo.set_defaults(func=run_demo)

    explain = sub.add_parser(
        "explain",
        help="which workloads would be preempted for a pending workload, and why",
        description="Explain which workloads Kueue would preempt so that a workload fits. "
        "Exit 0 with targets, 1 without (fits already, NoFit, or no complete target set).",
    )
    add_dump_arguments(explain)
    which = explain.add_mutually_exclusive_group(required=True)
    which.add_argument("--workload", type=_workload_key, metavar="NS/NAME", help="a pending Workload of the dump")
    which.add_argument(
        "--incoming", metavar="FILE", help="a Workload not in the dump, or a Job, JobSet or Pod you are about to submit"
    )
    explain.add_argument("--cluster-queue", metavar="NAME", help="the ClusterQueue (default: from the LocalQueue)")
    explain.add_argument(
        "--assignment", metavar="FILE", help="explicit flavor assignment (default: Kueue's flavor assignment from the first flavor)"
    )
    explain.add_argument("--config", metavar="FILE", help=_CONFIG_HELP)
    explain.add_argument("--fair-sharing", action="store_true", help="use fair-sharing preemption (overrides --config)")
    explain.add_argument(
        "--strategies",
        type=_strategies,
        metavar="S1[,S2]",
        help="fair-sharing strategies (implies --fair-sharing; overrides --config): "
        "LessThanOrEqualToFinalShare, LessThanInitialShare",
    )
    explain.add_argument("--now", type=_rfc3339, metavar="RFC3339", help="the decision time (default: now)")
    explain.add_argument("--output", "-o", choices=("table", "json"), default="table", help=OUTPUT_HELP)
    explain.add_argument("--no-trace", action="store_true", help="leave the decision trace out of the table")
    explain.set_defaults(func=run_explain)

    podgroup = sub.add_parser(
        "podgroup",
        help="which pods kube-scheduler would preempt for a pending PodGroup (KEP-5710)",
        description="Workload-aware preemption for a pending PodGroup on a dump of nodes, pods, "
        "PodGroups and PDBs. Exit 0 with victims, 1 without.",
    )
    add_dump_arguments(podgroup)
    podgroup.add_argument(
        "--group", required=True, type=_workload_key, metavar="NS/NAME", help="the pending PodGroup"
    )
    podgroup.add_argument(
        "--mode",
        choices=("kep", "kube"),
        default="kep",
        help="kep: search the smallest sufficient priority level (default); kube: kube-scheduler's remove-all",
    )
    podgroup.add_argument("--search", choices=("binary", "linear"), default="binary", help="how kep mode searches")
    podgroup.add_argument("--output", "-o", choices=("table", "json"), default="table", help=OUTPUT_HELP)
    podgroup.add_argument("--no-trace", action="store_true", help="leave the decision trace out of the table")
    podgroup.set_defaults(func=run_podgroup)

    check = sub.add_parser(
        "check",
        help="validate a dump and show what was loaded",
        description="Validate a dump: counts per kind, skipped kinds, the quota tree, pending workloads, warnings.",
    )
    add_dump_arguments(check)
    check.add_argument("--config", metavar="FILE", help=_CONFIG_HELP)
    check.add_argument("--output", "-o", choices=("table", "json"), default="table", help=OUTPUT_HELP)
    check.set_defaults(func=run_check)
    for command in (explain, check):
        add_feature_gates_flag(command)

    add_cycle_parser(sub, _rfc3339, _strategies, lambda args: preemption_config_of(args, kueue_config_of(args)), _CONFIG_HELP)
    add_sim_parsers(sub, _strategies, lambda args: preemption_config_of(args, kueue_config_of(args)), _CONFIG_HELP)
    add_logging_flags(parser, sub.choices.values())
    return parser


# --------------------------------------------------------------------------- main


def _fail(message: str, prog: str = PROG) -> None:
    print(f"{prog}: error: {message}", file=sys.stderr)


def _write(text: str) -> None:
    """Write all of ``text`` at once; characters the terminal cannot encode are escaped."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    sys.stdout.flush()
    buffer.write(text.encode(sys.stdout.encoding or "utf-8", "backslashreplace"))
    buffer.flush()


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Entry point of the ``kueue-preempt`` console script; returns the exit code. ``prog`` is
    the program name in help and messages (``kubectl kueue-preempt`` for the kubectl plugin)."""
    parser = _parser(prog)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        _fail(str(exc), prog)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return int(exc.code) if isinstance(exc.code, int) else EXIT_OK
    try:
        with cli_logging(level_for(args), prog):
            result: tuple[int, str] = args.func(args)
        code, text = result
    except CommandLineError as exc:
        _fail(f"{exc} (see {prog} --help)", prog)
        return EXIT_USAGE
    except (YamlUnavailable, ExtraUnavailable, KubectlNotFound) as exc:
        _fail(str(exc), prog)
        return EXIT_MISSING_DEPENDENCY
    except ClusterReadError as exc:
        _fail(str(exc), prog)
        return EXIT_IO_ERROR
    except KueuePreemptError as exc:
        _fail(str(exc), prog)
        return EXIT_INVALID_INPUT
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}", prog)
        return EXIT_IO_ERROR
    except KeyboardInterrupt:
        _fail("interrupted", prog)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI must never print a traceback
        _fail(f"internal error: {type(exc).__name__}: {exc} (please report this)", prog)
        return EXIT_INTERNAL_ERROR
    try:
        _write(text)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, without Python's exit-time warning.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
