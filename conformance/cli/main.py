"""``gather-conformance``: the command line, and the only module that knows argparse.

* ``run``: a campaign; writes ``results.jsonl`` (while running), ``results.json``
  and the report (``index.html``, ``findings.json``, ``summary.md``) into ``--out``.
* ``check``: the same campaign (or ``--results``) against the baseline; the CI gate.
* ``report PATH...``: the report from saved results (a run folder, even one a
  killed run left, shards to merge, or two runs with ``--compare``).
* ``oracles``, ``ops``: what can run here; the op catalog.
* ``cache info|clear``: what the cache on disk holds (compiled artefacts kept across runs), or remove it.
* ``baseline validate|draft``: check a baseline file; draft entries for new findings.
* ``upgrade FRAMEWORK==A FRAMEWORK==B ...``: one environment per version, the
  atlas and the baseline replay in each, one report of what changed (exit 1
  when anything departs from the docs that did not before).

Exit status: 0 fine, 1 the gate fails (new, vanished or changed behaviour, a
harness error, nothing tested), 2 usage error (one line, before any work), 3
the tool itself failed.
"""

from __future__ import annotations

import argparse
import atexit
import faulthandler
import os
import signal
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.campaign import settings
from conformance.campaign.settings import Stop
from conformance.cli.selection import OK, TOOL_FAILED, USAGE, UsageError, writable_file
from conformance.execution.cores import CORES
from conformance.execution.isolation import DEFAULT_TIMEOUT
from conformance.spec.catalog import specs


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("gather-conformance")
    except PackageNotFoundError:
        return "unknown (not installed)"


CAMPAIGN_DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "max_examples": None,
    "budget": None,
    "timeout": DEFAULT_TIMEOUT,
    "ops": None,
    "oracles": None,
    "allow_missing": False,
    "shard": "0/1",
    "in_process": False,
    "workers": None,
    "out": Path("reports"),
}
"""What a campaign option means when it is not given (the parser leaves it
None, so that a mode that runs no campaign can tell that it was given)."""


def _campaign_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=None, help="Hypothesis seed (default 0: deterministic)")
    p.add_argument(
        "--max-examples",
        type=int,
        default=None,
        help="examples per equivalence class (default 60, or unlimited with --budget)",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        help="bound on the whole run in seconds, oracle start-up, atlas, shrinking and report included "
        "(a short one runs part of the atlas and says which cells it skipped)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"CPU seconds one case may take on an oracle's worker (default {DEFAULT_TIMEOUT:g}; a case past it runs "
        "again alone under twice that before it is a hang)",
    )
    p.add_argument(
        "--ops",
        nargs="+",
        action="extend",
        default=None,
        metavar="OP",
        help="catalog ops, op names or globs (default: all; repeated --ops add up)",
    )
    p.add_argument(
        "--oracles",
        nargs="+",
        action="extend",
        default=None,
        metavar="NAME",
        help="oracles to run (default: every one available; repeated --oracles add up)",
    )
    p.add_argument(
        "--allow-missing", action="store_true", default=None, help="go on when an installed framework fails to import"
    )
    p.add_argument("--shard", default=None, help="i/n: judge every n-th drawn case, starting at i (default 0/1)")
    p.add_argument(
        "--in-process",
        action="store_true",
        default=None,
        help="run oracles in this process (faster, no crash isolation, and no probe atlas: some probes hang "
        "frameworks, and only a worker process can be stopped)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="oracle workers running cases at once (default: one per core this process may use); "
        "case time limits are on each worker's CPU time",
    )
    p.add_argument("--out", type=Path, default=None, help="output folder (default: reports)")


def given_campaign_options(args: argparse.Namespace) -> list[str]:
    """The campaign options given on the command line, as their flags.

    >>> given_campaign_options(parser().parse_args(["check", "--seed", "0", "--ops", "numpy.take"]))
    ['--seed', '--ops']
    """
    return ["--" + k.replace("_", "-") for k in CAMPAIGN_DEFAULTS if getattr(args, k, None) is not None]


def with_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with every campaign option not given set to its default."""
    filled = {k: d if getattr(args, k, None) is None else getattr(args, k) for k, d in CAMPAIGN_DEFAULTS.items()}
    return argparse.Namespace(**(vars(args) | filled))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gather-conformance", description="Differential conformance suite for gather operators."
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign and write the report")
    _campaign_options(run)
    check = sub.add_parser("check", help="compare a campaign with the baseline (CI gate)")
    _campaign_options(check)
    check.add_argument("--results", type=Path, default=None, help="check these saved results instead of running")
    check.add_argument("--baseline", type=Path, default=None, help="baseline file (default: the packaged one)")
    check.add_argument(
        "--junit", type=Path, default=None, help="also write JUnit XML (a test case per finding and per baseline entry)"
    )
    check.add_argument(
        "--fail-on-questions",
        action="store_true",
        help="fail on a new question too (what a framework does where its docs are silent); by default only a new "
        "bug or hazard fails, and new questions are listed",
    )
    report = sub.add_parser("report", help="rebuild the report from saved results")
    report.add_argument(
        "results",
        nargs="+",
        type=Path,
        help="run folders or results files (shards to merge, or two runs with --compare)",
    )
    report.add_argument("--out", type=Path, default=Path("reports"), help="output folder (default: reports)")
    report.add_argument("--compare", action="store_true", help="show what changed between two runs")
    sub.add_parser("oracles", help="list the oracles that can run here")
    sub.add_parser("ops", help="list the op catalog")
    cache = sub.add_parser(
        "cache",
        help="what the cache on disk holds (compiled artefacts, discovery reports, upgrade environments), or clear it",
        description="The cache is $GATHER_CONFORMANCE_CACHE, else ~/.cache/gather-conformance; "
        "GATHER_CONFORMANCE_NO_CACHE=1 turns it off.",
    )
    cache.add_argument("action", choices=("info", "clear"))
    base = sub.add_parser(
        "baseline", help="validate a baseline, draft entries for new findings, or re-key it under the current rule"
    )
    base.add_argument("action", choices=("validate", "draft", "rekey"))
    base.add_argument(
        "file",
        type=Path,
        nargs="?",
        default=None,
        help="validate, rekey: the baseline (default: packaged); draft: a results file or run folder",
    )
    base.add_argument(
        "--out", type=Path, default=None, help="rekey: where to write the re-keyed baseline (default: over FILE)"
    )
    _upgrade_parser(sub)
    return p


def _upgrade_parser(sub: Any) -> None:
    from conformance.upgrade.study import UPGRADE_EXAMPLES

    up = sub.add_parser(
        "upgrade",
        help="what changes in gather when a framework moves to another version",
        description="Build one isolated environment per version (cached), run the probe atlas, the baseline replay "
        "and a short seeded fuzz on that framework's oracles in each, and write one report of what changed. "
        "Exit 1 when anything departs from the docs that did not before.",
    )
    up.add_argument(
        "versions",
        nargs="+",
        metavar="FRAMEWORK==VERSION",
        help="two or more, in upgrade order (onnxruntime==1.31.1 onnxruntime==1.32.0; "
        "a bare 1.32.0 repeats the framework)",
    )
    up.add_argument(
        "--out", type=Path, default=Path("reports/upgrade"), help="report folder (default: reports/upgrade)"
    )
    up.add_argument(
        "--max-examples",
        type=int,
        default=UPGRADE_EXAMPLES,
        help=f"drawn cases per equivalence class in each version, besides the atlas (default {UPGRADE_EXAMPLES})",
    )
    up.add_argument("--seed", type=int, default=0, help="Hypothesis seed, the same in every version (default 0)")
    up.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"CPU seconds one case may take on an oracle's worker (default {DEFAULT_TIMEOUT:g})",
    )
    up.add_argument(
        "--oracles", nargs="+", default=None, metavar="NAME", help="oracles to run (default: the framework's own)"
    )
    up.add_argument(
        "--ops", nargs="+", default=None, metavar="OP", help="catalog ops, op names or globs (default: all)"
    )
    up.add_argument("--baseline", type=Path, default=None, help="baseline to replay (default: the packaged one)")
    up.add_argument(
        "--update-baseline",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the baseline with version ranges widened or narrowed from what was observed to PATH, for review",
    )
    up.add_argument(
        "--constraints",
        type=Path,
        default=None,
        help="pins for the other packages (default: the checkout's constraints-ci.txt)",
    )
    up.add_argument("--rebuild", action="store_true", help="build the environments again, ignoring the cache")


def format_catalog() -> str:
    """The catalog as a plain-text table, one op (and ONNX opset) a line.

    >>> print(format_catalog().splitlines()[0].split())
    ['op', 'class', 'documented', 'index', 'policy', 'attributes']
    """
    rows = [("op", "class", "documented index policy", "attributes")]
    for s in specs():
        attrs = ", ".join(f"{a.name}={a.default!r}" for a in s.attrs) or "-"
        policy = (
            s.policy.name
            if not s.mode_attr
            else "by " + s.mode_attr + ": " + ", ".join(f"{k}->{v.name}" for k, v in s.mode_policies.items())
        )
        rows.append((s.key, s.eq_class.value, policy, attrs))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in rows)


class StoppedBeforeStart(Exception):
    """A signal came before the campaign started (while the oracles were being
    found, which takes a minute on a busy machine): nothing ran, nothing is written."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class _Signals:
    """What SIGINT and SIGTERM do: before :meth:`arm`, stop the command at once
    (:class:`StoppedBeforeStart`); after, set ``stop``."""

    stop: Stop = field(default_factory=Stop)
    armed: bool = False

    def arm(self) -> None:
        """From now on a signal stops the campaign, which writes what it found."""
        self.armed = True


@contextmanager
def _stop_on_signals() -> Iterator[_Signals]:
    """SIGINT and SIGTERM before the campaign starts end the command at once
    (nothing ran); once it is armed, they set the event: the campaign, whatever
    its phase, stops within seconds and writes what it has (the process then
    exits at once); a second SIGINT interrupts at once. Whatever happens after
    a stop, the process is gone :data:`~conformance.campaign.settings.STOP_WATCHDOG_S`
    after it, with every thread's stack on stderr if it had to be forced."""
    signals = _Signals()
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum: int, frame: Any) -> None:
        if not signals.armed:
            raise StoppedBeforeStart(signum)
        if signals.stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        if not signals.stop.is_set():
            faulthandler.dump_traceback_later(settings.STOP_WATCHDOG_S, exit=True)
        signals.stop.set()
        # os.write, not print: a handler runs between two bytecodes of the main thread, maybe inside a print to
        # stderr, and a second print there fails ("reentrant call inside <_io.BufferedWriter name='<stderr>'>")
        os.write(2, f"\n{signal.Signals(signum).name}: stopping; writing what was found\n".encode())

    for s in previous:
        signal.signal(s, handler)
    try:
        yield signals
    finally:
        faulthandler.cancel_dump_traceback_later()
        for s, h in previous.items():
            signal.signal(s, h)


def _dispatch(args: argparse.Namespace, started: float) -> int:
    from conformance.cli import commands

    if args.command == "ops":
        print(format_catalog())
        return OK
    if args.command == "oracles":
        print(commands.describe_oracles())
        return OK
    if args.command == "cache":
        print(commands.cache_action(args.action))
        return OK
    if args.command == "report":
        print(f"report: {commands.report(args.results, out=args.out, compare=args.compare)}")
        return OK
    if args.command == "baseline":
        if args.action == "rekey":
            return commands.rekey_baseline(args.file, args.out)
        return commands.baseline_action(args.action, args.file)
    if args.command == "upgrade":
        return commands.upgrade(
            args.versions,
            out=args.out,
            max_examples=args.max_examples,
            seed=args.seed,
            timeout=args.timeout,
            oracles=args.oracles,
            ops=args.ops,
            baseline=args.baseline,
            update_baseline=args.update_baseline,
            constraints=args.constraints,
            rebuild=args.rebuild,
        )
    if args.command == "check" and args.junit is not None:
        writable_file("--junit", args.junit)
    if args.command == "check" and args.results is not None:
        ignored = given_campaign_options(args)
        if ignored:
            raise UsageError(
                f"{ignored[0]}: check --results gates saved results and runs no campaign, so {', '.join(ignored)} "
                "would be ignored; drop it, or run `check` without --results"
            )
        return commands.check_saved(
            args.results, baseline=args.baseline, junit=args.junit, questions_fail=args.fail_on_questions
        )
    args = with_defaults(args)
    with _stop_on_signals() as signals:
        plan = commands.plan_campaign(
            seed=args.seed,
            max_examples=args.max_examples,
            budget=args.budget,
            timeout=args.timeout,
            ops=args.ops,
            oracles=args.oracles,
            allow_missing=args.allow_missing,
            shard=args.shard,
            out=args.out,
            in_process=args.in_process,
            workers=args.workers,
        )
        signals.arm()
        stop = signals.stop
        # at exit, before the workers' clean-up (registered earlier, so run later): no oracle still starting
        # (one the run went on without) may start another worker while the clean-up waits on the last
        atexit.register(CORES.close)
        if args.command == "run":
            code = commands.run(plan, stop=stop, started=started)
        else:
            code = commands.check(
                plan,
                stop=stop,
                baseline=args.baseline,
                junit=args.junit,
                started=started,
                questions_fail=args.fail_on_questions,
            )
        if stop.is_set():  # what was found is written: leave now, not after a worker still busy with the rest
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        return code


def process_age() -> float:
    """Seconds since this process started (Linux's ``/proc``; 0 where it is not
    there), so that the budget's clock counts the interpreter's start and the
    suite's imports too: on a loaded machine they take seconds.

    >>> 0 <= process_age() < 3600
    True
    """
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime, in clock ticks since boot
        return max(time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def main(argv: Sequence[str] | None = None) -> int:
    # the budget's clock: from the process's start for the console script; from now for a caller passing argv
    started = time.monotonic() - (process_age() if argv is None else 0.0)
    args = parser().parse_args(argv)
    try:
        return _dispatch(args, started)
    except UsageError as exc:
        print(f"gather-conformance {args.command}: error: {exc}", file=sys.stderr)
        return USAGE
    except StoppedBeforeStart as exc:
        print(f"{exc}: stopped before the campaign started (nothing was run, nothing written)", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the tool's own failure: say so, exit 3
        traceback.print_exc()
        print(f"gather-conformance {args.command}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return TOOL_FAILED


if __name__ == "__main__":
    sys.exit(main())
