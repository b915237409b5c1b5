"""Benchmark the reference against NumPy's own gathers, side by side in one run.

Run: ``python benchmarks/bench_reference.py [--repeats 7] [--memory-size 10000] [--json PATH]``.
For each case it prints the median wall time of the reference (through the
catalog's plan, as users call it) and of the NumPy baseline, their ratio
against the target, and the peak extra memory of each call (tracemalloc,
output included) beside the output's size. The two are timed alternately,
one call of each per round, so that a load that comes and goes on a shared
machine weighs on both alike; the ratio is of the two medians.

Cases and targets (issue 25: ratios to NumPy's own gather, lower is better):

* element gather: float32 2000x5000, int64 indices of the same shape, axis 0
  (``onnx.GatherElements``), against ``np.take_along_axis``: at most 0.45x;
* block gather (embedding lookup): float32 table 50000x1024, 8192 int64 ids
  (``onnx.Gather``), against ``np.take(axis=0)``: at most 1.05x (issue 42: the
  path is one ``np.take`` plus the reference's argument checks);
* ND gather: 1M int64 coordinate triples from a float32 256x256x64 volume
  (``onnx.GatherND``), against advanced indexing ``x[i0, i1, i2]``: at most 0.45x;
* memory: int8 data ``N x N`` (``--memory-size``, default 10000) gathered by
  int8 indices of the same shape, half of them negative, along axis 0
  (``numpy.take_along_axis``), against ``np.take_along_axis``: peak extra
  memory at most 1.1x NumPy's (which is about the output's size); its time
  is shown, with no target (``--repeats-memory`` rounds, default 3).

Every case prints its peak extra memory beside NumPy's. Each figure is
reported against its goal, and the exit status is 1 when one is missed (a
time goal ``SLOW``, a memory goal ``OVER``; ``"met": false`` in the JSON) or
a result differs from NumPy's (an AssertionError): a regression shows in the
bench job (issue 42), not in a later audit. The two sides alternate round by
round and the ratio is of their medians, so a load that comes and goes weighs
on both alike; a goal missed on a busy machine is worth one run again before
it is believed.

``--json PATH`` writes every figure: per case the median seconds of each side
over its rounds, the ratio and its target, the peak extra bytes of each side,
the output's bytes and the memory ratio and target; plus the machine's facts
and the versions of Python and NumPy.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conformance import reference
from conformance.core.machine import machine_facts

FORMAT = "bench_reference/1"
"""The ``format`` field of the ``--json`` output."""


@dataclass(frozen=True)
class Case:
    name: str
    ours: Callable[[], Any]
    baseline: Callable[[], Any]
    baseline_name: str
    target: float | None
    memory_target: float | None = None
    repeats: int | None = None


@dataclass(frozen=True)
class Result:
    """One case's figures: median seconds and peak extra bytes of each side."""

    case: Case
    ours_s: float
    baseline_s: float
    peak_ours: int
    peak_baseline: int
    output_bytes: int

    @property
    def ratio(self) -> float:
        return self.ours_s / self.baseline_s

    @property
    def memory_ratio(self) -> float:
        return self.peak_ours / max(self.peak_baseline, 1)

    @property
    def time_met(self) -> bool | None:
        return None if self.case.target is None else self.ratio <= self.case.target

    @property
    def memory_met(self) -> bool | None:
        return None if self.case.memory_target is None else self.memory_ratio <= self.case.memory_target


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
            0.45,
        ),
        Case(
            "block 50000x1024, 8192 ids",
            lambda: reference("onnx.Gather", table, ids, axis=0),
            lambda: np.take(table, ids, axis=0),
            "np.take(axis=0)",
            1.05,
        ),
        Case(
            "ND 1M triples from 256x256x64",
            lambda: reference("onnx.GatherND", vol, coords),
            lambda: vol[i0, i1, i2],
            "x[i0, i1, i2]",
            0.45,
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
        None,
        1.1,
        repeats,
    )


def median_seconds_side_by_side(
    ours: Callable[[], Any], baseline: Callable[[], Any], repeats: int
) -> tuple[float, float]:
    """Median wall times of ``ours()`` and ``baseline()`` over ``repeats``
    rounds of one call each (after one warm-up call of each), alternating
    which goes first.

    >>> a, b = median_seconds_side_by_side(lambda: None, lambda: None, 3)
    >>> 0 <= a < 1 and 0 <= b < 1
    True
    """
    ours(), baseline()
    times: tuple[list[float], list[float]] = ([], [])
    for r in range(repeats):
        for side in (0, 1) if r % 2 == 0 else (1, 0):
            fn = (ours, baseline)[side]
            start = time.perf_counter()
            fn()
            times[side].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def peak_extra_bytes(fn: Callable[[], Any]) -> tuple[int, int]:
    """``(peak bytes allocated during fn(), bytes of its result)``.

    >>> peak, size = peak_extra_bytes(lambda: np.zeros(1000))
    >>> size, peak >= size
    (8000, True)
    """
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        return tracemalloc.get_traced_memory()[1] - before, out.nbytes
    finally:
        tracemalloc.stop()


def measure(case: Case, repeats: int) -> Result:
    """Check that ``case``'s two sides agree, then time and trace them."""
    if not np.array_equal(case.ours(), case.baseline()):
        raise AssertionError(f"{case.name}: the reference differs from {case.baseline_name}")
    ours, base = median_seconds_side_by_side(case.ours, case.baseline, case.repeats or repeats)
    (peak_o, size), (peak_b, _) = peak_extra_bytes(case.ours), peak_extra_bytes(case.baseline)
    return Result(case, ours, base, peak_o, peak_b, size)


def table(results: list[Result]) -> str:
    """The results as a table: time and peak extra memory of each side."""
    header = (
        f"{'case':30} {'ours ms':>8} {'base ms':>8} {'ratio':>6} {'target':>6}  {'peak ours MiB':>13} "
        f"{'peak base MiB':>13} {'mem ratio':>9} {'output MiB':>10}  {'baseline':20} verdict"
    )
    lines = [header]
    for r in results:
        target = "-" if r.case.target is None else f"{r.case.target:.2f}"
        verdict = ["-" if r.time_met is None else ("ok" if r.time_met else "SLOW")]
        if r.memory_met is not None:
            verdict.append(f"mem<={r.case.memory_target:.2f}x " + ("ok" if r.memory_met else "OVER"))
        lines.append(
            f"{r.case.name:30} {r.ours_s * 1e3:8.2f} {r.baseline_s * 1e3:8.2f} {r.ratio:6.2f} {target:>6}  "
            f"{r.peak_ours / 2**20:13.1f} {r.peak_baseline / 2**20:13.1f} {r.memory_ratio:9.3f} "
            f"{r.output_bytes / 2**20:10.1f}  {r.case.baseline_name:20} {' '.join(verdict)}"
        )
    return "\n".join(lines)


def as_json(results: list[Result], repeats: int, seed: int) -> dict[str, Any]:
    """Every figure of the run, with the machine's facts and the versions."""
    return {
        "format": FORMAT,
        "seed": seed,
        "repeats": repeats,
        "machine": machine_facts(),
        "versions": {"python": platform.python_version(), "numpy": np.__version__},
        "cases": [
            {
                "name": r.case.name,
                "baseline": r.case.baseline_name,
                "repeats": r.case.repeats or repeats,
                "ours_s": r.ours_s,
                "baseline_s": r.baseline_s,
                "ratio": r.ratio,
                "target": r.case.target,
                "met": r.time_met,
                "peak_extra_bytes_ours": r.peak_ours,
                "peak_extra_bytes_baseline": r.peak_baseline,
                "output_bytes": r.output_bytes,
                "memory_ratio": r.memory_ratio,
                "memory_target": r.case.memory_target,
                "memory_met": r.memory_met,
            }
            for r in results
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="rounds per case (the median is reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-size", type=int, default=10000, help="N of the N x N int8 memory case")
    parser.add_argument("--repeats-memory", type=int, default=3)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every figure to PATH as JSON")
    args = parser.parse_args(argv)
    drawn = cases(np.random.default_rng(args.seed), args.memory_size, args.repeats_memory)
    results = [measure(c, args.repeats) for c in drawn]
    print(table(results))
    if args.json is not None:
        args.json.write_text(json.dumps(as_json(results, args.repeats, args.seed), indent=2) + "\n")
    missed = missed_goals(results)
    print("every goal met" if not missed else "goals missed: " + "; ".join(missed))
    return 1 if missed else 0


def missed_goals(results: list[Result]) -> list[str]:
    """Each goal a result misses, in words: ``element 2000x5000 axis 0: 0.57x of np.take_along_axis > 0.45x``."""
    missed = []
    for r in results:
        if r.time_met is False:
            missed.append(f"{r.case.name}: {r.ratio:.2f}x of {r.case.baseline_name} > {r.case.target:.2f}x")
        if r.memory_met is False:
            missed.append(f"{r.case.name}: peak memory {r.memory_ratio:.3f}x of NumPy's > {r.case.memory_target:.2f}x")
    return missed


if __name__ == "__main__":
    sys.exit(main())
