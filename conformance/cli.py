"""``gather-conformance``: the command line.

Subcommands:

* ``run``: the default campaign; writes ``reports/results.json`` and ``reports/index.html``.
* ``check``: run the deterministic CI campaign (or read ``--results``) and
  compare with the baseline; non-zero on new or vanished behaviour.
* ``report RESULTS...``: rebuild the HTML report from saved results.
* ``oracles``: each oracle that can run here, with version, device, mode and ops.
* ``ops``: the op catalog.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance.catalog import OpSpec, specs


def format_catalog(entries: Sequence[OpSpec]) -> str:
    """The catalog as a plain-text table, one op (and ONNX opset) a line.

    >>> print(format_catalog([s for s in specs() if s.key == "torch.take"]))  # doctest: +NORMALIZE_WHITESPACE
    op          class          documented index policy   attributes
    torch.take  flattened 1-D  error                     -
    """
    rows = [("op", "class", "documented index policy", "attributes")]
    for s in entries:
        attrs = ", ".join(f"{a.name}={a.default!r}" for a in s.attrs) or "-"
        policy = s.policy.name if not s.mode_attr else "by " + s.mode_attr + ": " + ", ".join(f"{k}->{v.name}" for k, v in s.mode_policies.items())
        rows.append((s.key, s.eq_class.value, policy, attrs))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in rows)


def _ops(args: argparse.Namespace) -> int:
    print(format_catalog(specs()))
    return 0


def _oracles(args: argparse.Namespace) -> int:
    import oracles

    print(oracles.describe())
    return 0


def _run(args: argparse.Namespace) -> int:
    """The campaign, then each finding marked known/new against the baseline,
    then the report (``index.html``, ``findings.json``, ``summary.md``)."""
    from conformance.campaign import main_run

    rc = main_run(args)
    from conformance.baseline import check, load
    from conformance.findings import RunResult
    from conformance.report import build_report

    path = Path(args.out) / "results.json"
    result = RunResult.load(path)
    problems = check(result, load())
    result.save(path)
    print(f"report: {build_report([result], Path(args.out))}")
    print(f"{len(problems)} differences from the baseline (`gather-conformance check` fails on them)")
    return rc


def _check(args: argparse.Namespace) -> int:
    from conformance.baseline import main_check

    return main_check(args)


def _report(args: argparse.Namespace) -> int:
    from conformance.report import main_report

    return main_report(args)


def _campaign_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="Hypothesis seed (default 0: deterministic)")
    p.add_argument("--max-examples", type=int, default=None, help="examples per equivalence class (default: the campaign's)")
    p.add_argument("--budget", type=float, default=None, help="time budget in seconds (default: none)")
    p.add_argument("--ops", nargs="*", default=None, help="catalog ops to include (default: all)")
    p.add_argument("--oracles", nargs="*", default=None, help="oracles to run (default: every available one)")
    p.add_argument("--in-process", action="store_true", help="run oracles in this process (faster, no crash isolation)")
    p.add_argument("--out", default="reports", help="output folder (default: reports)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gather-conformance", description="Differential conformance suite for gather operators.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign and write the report")
    _campaign_options(run)
    run.set_defaults(func=_run)
    check = sub.add_parser("check", help="compare a campaign with the baseline (CI gate)")
    _campaign_options(check)
    check.add_argument("--results", default=None, help="check these saved results instead of running")
    check.add_argument("--baseline", default=None, help="baseline file (default: the packaged one)")
    check.set_defaults(func=_check)
    report = sub.add_parser("report", help="rebuild the HTML report from saved results")
    report.add_argument("results", nargs="+", help="results.json files (shards to merge, or two runs with --compare)")
    report.add_argument("--out", default="reports", help="output folder (default: reports)")
    report.add_argument("--compare", action="store_true", help="show what changed between two runs")
    report.set_defaults(func=_report)
    sub.add_parser("oracles", help="list the oracles that can run here").set_defaults(func=_oracles)
    sub.add_parser("ops", help="list the op catalog").set_defaults(func=_ops)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
