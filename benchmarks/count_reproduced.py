"""How many findings of a run their own reproducer reproduces (issue 26's figure).

Run: ``python benchmarks/count_reproduced.py RUN_FOLDER [--jobs 2] [--timeout 300] [--every-mode]``
(``RUN_FOLDER``: the ``--out`` of ``gather-conformance run``, holding ``results.json``).

For each finding, the script of the finding's own oracle is written into a
folder of its own (with its ONNX model, if any) and run by a fresh
interpreter from another folder, as a framework engineer would run it. It
prints one line per finding whose script does not print ``REPRODUCED`` and
exit 1 (its last lines of output), then the figure::

    94 of 94 findings: their own oracle's script prints REPRODUCED (exit 1)

With ``--every-mode``, the script of every execution mode a finding shows in
(``modes``: each mode's own script, on the finding's one case) is run, not only its
own oracle's. Its exit status is 0 when every script run reproduces, 1 otherwise. The
scripts run ``--jobs`` at a time (importing a framework dominates); on a
loaded machine a script near its ``--timeout`` counts as not reproduced.
"""

from __future__ import annotations

import argparse
import base64
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conformance.core.oracle import Reproducer
from conformance.execution.scripts import save
from conformance.results.finding import Finding
from conformance.results.run_result import RunResult


def own_script(finding: Finding, directory: Path, oracle: str | None = None) -> Path | None:
    """The script of ``oracle`` (default: the finding's own) saved into ``directory``; None where it has none."""
    oracle = oracle or finding.signature.oracle
    text = finding.scripts.get(oracle, "")
    if not text or text.startswith("# no reproducer"):
        return None
    model = {"model.onnx": base64.b64decode(finding.onnx_model_b64)} if finding.onnx_model_b64 else {}
    return save(Reproducer(oracle, text, model), directory)


def run_alone(path: Path | None, cwd: Path, timeout: float) -> tuple[bool, str]:
    """Whether the script at ``path`` prints REPRODUCED and exits 1, run from ``cwd``; its last output."""
    if path is None:
        return False, "no reproducer script"
    try:
        proc = subprocess.run(
            [sys.executable, str(path)], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return False, f"no answer within {timeout:g} s"
    reproduced = proc.returncode == 1 and proc.stdout.splitlines()[-1:] == ["REPRODUCED"]
    return reproduced, (proc.stdout[-600:] + proc.stderr[-600:]).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_folder", type=Path, help="a run's --out folder (with results.json)")
    parser.add_argument("--jobs", type=int, default=2, help="scripts run at a time (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one script may take (default 300)")
    parser.add_argument("--every-mode", action="store_true", help="run the script of every mode a finding shows in")
    args = parser.parse_args(argv)
    findings = RunResult.load(args.run_folder / "results.json").findings
    runs_of = [(f, o) for f in findings for o in (f.modes if args.every_mode and f.modes else [f.signature.oracle])]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "elsewhere").mkdir()
        paths = [own_script(f, root / f"f{n}", o) for n, (f, o) in enumerate(runs_of)]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(lambda p: run_alone(p, root / "elsewhere", args.timeout), paths))
    for (f, o), (reproduced, tail) in zip(runs_of, runs):
        if not reproduced:
            print(f"NOT REPRODUCED on {o}: {f.signature.words()}\n    " + tail.replace("\n", "\n    "))
    hits = sum(reproduced for reproduced, _ in runs)
    what = "scripts of every mode" if args.every_mode else "findings: their own oracle's script"
    print(f"{hits} of {len(runs_of)} {what} print REPRODUCED (exit 1)")
    return 0 if hits == len(runs_of) else 1


if __name__ == "__main__":
    sys.exit(main())
