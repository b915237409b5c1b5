"""Benchmark the reference against NumPy's own gathers, in one run.

Run: ``python benchmarks/bench_reference.py [--repeats 7]``. For each case it
prints the median wall time of ``gather_multiaxis`` (through the catalog's plan,
as users call it) and of the NumPy baseline, their ratio against the target,
and the peak extra memory of each call (tracemalloc) beside the output's size.

Cases (issue 2, section 4):

* element gather: float32 2000x5000, indices of the same shape, axis 0,
  against ``np.take_along_axis`` (target <= 1.0x);
* block gather (embedding lookup): float32 table 50000x1024, 8192 ids,
  against ``np.take(axis=0)`` (target <= 1.25x);
* ND gather: 1M coordinate triples from a float32 256x256x64 volume, against
  advanced indexing ``x[i0, i1, i2]`` (target <= 1.25x).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance import reference


@dataclass(frozen=True)
class Case:
    name: str
    ours: Callable[[], Any]
    baseline: Callable[[], Any]
    baseline_name: str
    target: float


def cases(rng: np.random.Generator) -> list[Case]:
    """The three cases, with inputs drawn once from ``rng``."""
    x = rng.random((2000, 5000), dtype=np.float32)
    idx = rng.integers(0, 2000, size=(2000, 5000), dtype=np.int64)
    table = rng.random((50000, 1024), dtype=np.float32)
    ids = rng.integers(0, 50000, size=8192, dtype=np.int64)
    vol = rng.random((256, 256, 64), dtype=np.float32)
    coords = np.stack([rng.integers(0, n, size=1_000_000) for n in vol.shape], axis=-1)
    i0, i1, i2 = coords.T  # what a user with an (N, 3) array writes: x[tuple(coords.T)]
    return [
        Case("element 2000x5000 axis 0", lambda: reference("onnx.GatherElements", x, idx, axis=0),
             lambda: np.take_along_axis(x, idx, axis=0), "np.take_along_axis", 1.0),
        Case("block 50000x1024, 8192 ids", lambda: reference("onnx.Gather", table, ids, axis=0),
             lambda: np.take(table, ids, axis=0), "np.take(axis=0)", 1.25),
        Case("ND 1M triples from 256x256x64", lambda: reference("onnx.GatherND", vol, coords),
             lambda: vol[i0, i1, i2], "x[i0, i1, i2]", 1.25),
    ]  # fmt: skip


def median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_extra_bytes(fn: Callable[[], Any]) -> tuple[int, int]:
    """``(peak bytes allocated during fn(), bytes of its result)``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak, out.nbytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = []
    for case in cases(np.random.default_rng(args.seed)):
        assert np.array_equal(case.ours(), case.baseline()), case.name
        ours, base = median_seconds(case.ours, args.repeats), median_seconds(case.baseline, args.repeats)
        (peak_o, size), (peak_b, _) = peak_extra_bytes(case.ours), peak_extra_bytes(case.baseline)
        ratio = ours / base
        rows.append((case.name, ours, case.baseline_name, base, ratio, case.target, peak_o, peak_b, size))
    print(f"{'case':32} {'ours ms':>8} {'baseline':>20} {'base ms':>8} {'ratio':>6} {'target':>6}  "
          f"{'peak ours MB':>12} {'peak base MB':>12} {'output MB':>9}")  # fmt: skip
    ok = True
    for name, ours, bname, base, ratio, target, po, pb, size in rows:
        ok &= ratio <= target
        flag = "ok" if ratio <= target else "SLOW"
        print(f"{name:32} {ours * 1e3:8.2f} {bname:>20} {base * 1e3:8.2f} {ratio:6.2f} {target:6.2f}  "
              f"{po / 2**20:12.1f} {pb / 2**20:12.1f} {size / 2**20:9.1f} {flag}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
