"""Benchmark the reference against NumPy's own gathers, in one run.

Run: ``python benchmarks/bench_reference.py [--repeats 7] [--memory-size 10000]``.
For each case it prints the median wall time of ``gather_multiaxis`` (through
the catalog's plan, as users call it) and of the NumPy baseline, their ratio
against the target, and the peak extra memory of each call (tracemalloc,
output included) beside the output's size. A case with a memory target also
checks the ratio of the two peaks.

Cases (issue 2, section 4):

* element gather: float32 2000x5000, indices of the same shape, axis 0,
  against ``np.take_along_axis`` (target <= 1.0x);
* block gather (embedding lookup): float32 table 50000x1024, 8192 ids,
  against ``np.take(axis=0)`` (target <= 1.25x);
* ND gather: 1M coordinate triples from a float32 256x256x64 volume, against
  advanced indexing ``x[i0, i1, i2]`` (target <= 1.25x);
* memory: int8 data ``N x N`` (``--memory-size``, default 10000) gathered by
  int8 indices of the same shape along axis 0 (``numpy.take_along_axis``),
  against ``np.take_along_axis``: peak extra memory at most 2x NumPy's (which
  is about the output), time at most 2x (``--repeats-memory`` runs, default 3).
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
    memory_target: float | None = None
    repeats: int | None = None


def cases(rng: np.random.Generator, memory_size: int = 10000, memory_repeats: int = 3) -> list[Case]:
    """The four cases, with inputs drawn once from ``rng``."""
    x = rng.random((2000, 5000), dtype=np.float32)
    idx = rng.integers(0, 2000, size=(2000, 5000), dtype=np.int64)
    table = rng.random((50000, 1024), dtype=np.float32)
    ids = rng.integers(0, 50000, size=8192, dtype=np.int64)
    vol = rng.random((256, 256, 64), dtype=np.float32)
    coords = np.stack([rng.integers(0, n, size=1_000_000) for n in vol.shape], axis=-1)
    i0, i1, i2 = coords.T  # what a user with an (N, 3) array writes: x[tuple(coords.T)]
    return [
        Case(
            "element 2000x5000 axis 0",
            lambda: reference("onnx.GatherElements", x, idx, axis=0),
            lambda: np.take_along_axis(x, idx, axis=0),
            "np.take_along_axis",
            1.0,
        ),
        Case(
            "block 50000x1024, 8192 ids",
            lambda: reference("onnx.Gather", table, ids, axis=0),
            lambda: np.take(table, ids, axis=0),
            "np.take(axis=0)",
            1.25,
        ),
        Case(
            "ND 1M triples from 256x256x64",
            lambda: reference("onnx.GatherND", vol, coords),
            lambda: vol[i0, i1, i2],
            "x[i0, i1, i2]",
            1.25,
        ),
        memory_case(rng, memory_size, memory_repeats),
    ]


def memory_case(rng: np.random.Generator, n: int, repeats: int) -> Case:
    """int8 ``n x n`` data and int8 indices of the same shape, axis 0: the
    output is ``n * n`` bytes, and int64 offsets for all of it would be 8x that."""
    x8 = rng.integers(-128, 128, size=(n, n), dtype=np.int8)
    i8 = rng.integers(-min(n, 128), min(n, 128), size=(n, n), dtype=np.int8)  # negatives wrap
    return Case(
        f"memory int8 {n}x{n} axis 0",
        lambda: reference("numpy.take_along_axis", x8, i8, axis=0),
        lambda: np.take_along_axis(x8, i8, axis=0),
        "np.take_along_axis",
        2.0,
        2.0,
        repeats,
    )


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
    parser.add_argument("--memory-size", type=int, default=10000, help="N of the N x N int8 memory case")
    parser.add_argument("--repeats-memory", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for case in cases(np.random.default_rng(args.seed), args.memory_size, args.repeats_memory):
        assert np.array_equal(case.ours(), case.baseline()), case.name
        repeats = case.repeats or args.repeats
        ours, base = median_seconds(case.ours, repeats), median_seconds(case.baseline, repeats)
        (peak_o, size), (peak_b, _) = peak_extra_bytes(case.ours), peak_extra_bytes(case.baseline)
        rows.append((case, ours, base, peak_o, peak_b, size))
    print(
        f"{'case':32} {'ours ms':>8} {'baseline':>20} {'base ms':>8} {'ratio':>6} {'target':>6}  "
        f"{'peak ours MB':>12} {'peak base MB':>12} {'output MB':>9}"
    )
    ok = True
    for case, ours, base, po, pb, size in rows:
        flags = ["ok" if ours / base <= case.target else "SLOW"]
        if case.memory_target is not None:
            flags.append(f"mem {po / pb:.2f}x " + ("ok" if po <= case.memory_target * pb else "OVER"))
        ok &= "SLOW" not in flags and not flags[-1].endswith("OVER")
        print(
            f"{case.name:32} {ours * 1e3:8.2f} {case.baseline_name:>20} {base * 1e3:8.2f} {ours / base:6.2f} "
            f"{case.target:6.2f}  {po / 2**20:12.1f} {pb / 2**20:12.1f} {size / 2**20:9.1f} " + " ".join(flags)
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
