"""The time a finished (or cut-short) run spends writing its results and its report, part by part.

A run stopped by SIGTERM has a few seconds before a CI runner's SIGKILL, and what it writes then is
this: the gate on the results, ``results.json``, and the report folder. CPU seconds are the figure to
compare (wall seconds depend on what else runs); compare two trees by running this script from each on
the same run folder, one after the other.

Usage: python benchmarks/report_time.py RUN_FOLDER [--out FOLDER]

Measured on the quiet check of seed 7 (210 findings, 7,440 atlas cells; 2-core machine under load):
``build_report`` took 9.70 CPU s before AtlasLinks and the per-op matrix filter, 3.77 CPU s after.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder (results.json, atlas.json)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the report (default: a temp folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="report-time-"))
    out.mkdir(parents=True, exist_ok=True)
    marks = [(time.perf_counter(), time.process_time())]

    def lap(what: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        print(f"{what:<18} {wall - marks[-1][0]:7.2f} s wall {cpu - marks[-1][1]:7.2f} s CPU")
        marks.append((wall, cpu))

    from conformance.gate import baseline as bl
    from conformance.report import build_report
    from conformance.results.run_result import RunResult

    lap("imports")
    result = RunResult.load(args.run / "results.json")
    lap("load")
    entries = bl.load()
    annotated, problems = bl.annotated(result, entries), bl.check(result, entries)
    lap("gate")
    annotated.save(out / "results.json")
    lap("results.json")
    if (args.run / "atlas.json").exists():
        shutil.copy(args.run / "atlas.json", out / "atlas.json")
    build_report([annotated], out)
    lap("build_report")
    print(
        f"{len(result.findings)} findings, {len(problems)} gate problems; report in {out}; "
        f"total {marks[-1][0] - marks[0][0]:.2f} s wall {marks[-1][1] - marks[0][1]:.2f} s CPU"
    )


if __name__ == "__main__":
    main()
