"""Named sessions that CI and humans both run: ``nox -s tests typecheck lint docs bench``."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "typecheck", "lint"]


@nox.session
def tests(session: nox.Session) -> None:
    """The full test suite (conformance, unit, property tests, mypy)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """``mypy --strict`` over src, tests and this file."""
    session.install("-e", ".[test]", "nox")
    session.run("mypy", "--strict", "src", "tests", "noxfile.py")
    session.run("mypy", "--strict", "benchmarks")


@nox.session
def lint(session: nox.Session) -> None:
    """The architecture contracts of pyproject.toml (layers, no circles, private modules stay home)."""
    session.install("-e", ".", "import-linter>=2.17")
    session.run("lint-imports", "--no-cache")


@nox.session
def docs(session: nox.Session) -> None:
    """Check the docs (rule IDs explained, links, API coverage) and build the site strictly."""
    session.install("-e", ".[docs]")
    session.run("python", "docs/check_docs.py")
    session.run("mkdocs", "build", "--strict", "--site-dir", "site")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks; write benchmarks/results/*.json and markdown tables (``-- --quick`` for a smoke run)."""
    session.install("-e", ".")
    session.run("python", "benchmarks/bench_classic.py", *session.posargs)
    session.run("python", "benchmarks/bench_fair.py", *session.posargs)
    session.run("python", "benchmarks/bench_scale.py", *session.posargs)
    session.run("python", "benchmarks/bench_podgroup.py", *session.posargs)
    session.run("python", "benchmarks/bench_assignment.py", *session.posargs)
    session.run("python", "benchmarks/bench_kueue_perf.py")
    # Issue 18's shared tiers (S..H, ~8 min; S and L only with --quick). Without --out it
    # prints its tables and leaves benchmarks/results/ alone (pass --out to record them).
    session.run("python", "benchmarks/bench_tiers.py", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """The fuzz suite at length: 2,000 examples per reader and entry point (the default test run
    has 40); ``-- N`` for another count."""
    session.install("-e", ".[test]")
    session.env["KUEUE_PREEMPT_FUZZ"] = session.posargs[0] if session.posargs else "long"
    session.run("python", "-m", "pytest", "-q", "tests/test_fuzz_inputs.py")
