"""How stable a campaign's findings are across seeds, one fact one finding (issue 21's figures).

Run: ``python benchmarks/finding_overlap.py RUN_FOLDER [RUN_FOLDER ...]`` (each the ``--out`` of
``gather-conformance run --seed N``, holding ``results.json``). It prints, for each run, its number of
findings and their number per framework; the pairs of findings of one run that differ only in the
execution mode of one framework (there should be none: such findings are one); then, for every pair
of runs, the Jaccard overlap of their finding identities (a finding's
:meth:`~conformance.results.finding.Finding.fact`: its signature without the execution mode)::

    /tmp/s11 (seed 11): 63 findings (jax 9, numpy 7, onnx 12, ...)
    /tmp/s11 (seed 11): no two findings differ only in the execution mode
    /tmp/s11 (seed 11) / /tmp/s12 (seed 12): Jaccard 0.970 (62 shared of 64)

Its exit status is 1 where some run has two findings of one fact, else 0.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

from conformance.results.run_result import RunResult


def identities(run: RunResult) -> Counter[str]:
    """Each finding's identity across execution modes (its fact's key), with how many findings have it."""
    return Counter(f.fact().key() for f in run.findings)


def jaccard(a: set[str], b: set[str]) -> float:
    """``|a & b| / |a | b|`` (1.0 for two empty sets).

    >>> jaccard({"x", "y"}, {"y", "z"}), jaccard(set(), set())
    (0.3333333333333333, 1.0)
    """
    return len(a & b) / len(a | b) if a | b else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_folders", type=Path, nargs="+", help="runs' --out folders (with results.json)")
    args = parser.parse_args(argv)
    runs = {f"{p} (seed {r.seed})": r for p in args.run_folders for r in [_load(p)]}
    twice = False
    for name, run in runs.items():
        per = Counter(f.framework or f.signature.oracle for f in run.findings)
        print(f"{name}: {len(run.findings)} findings ({', '.join(f'{k} {n}' for k, n in sorted(per.items()))})")
        dup = sorted(k for k, n in identities(run).items() if n > 1)
        twice |= bool(dup)
        print(
            f"{name}: " + ("no two findings differ only in the execution mode" if not dup else f"one fact twice: {dup}")
        )
    for (a, ra), (b, rb) in combinations(runs.items(), 2):
        ia, ib = set(identities(ra)), set(identities(rb))
        print(f"{a} / {b}: Jaccard {jaccard(ia, ib):.3f} ({len(ia & ib)} shared of {len(ia | ib)})")
    return 1 if twice else 0


def _load(folder: Path) -> RunResult:
    path = folder / "results.json" if folder.is_dir() else folder
    return RunResult.load(path)


if __name__ == "__main__":
    sys.exit(main())
