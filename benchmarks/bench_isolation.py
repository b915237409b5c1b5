"""What isolation costs per case, against calling the oracle in-process.

Run: ``python benchmarks/bench_isolation.py [--repeats 300] [--oracles numpy,onnxruntime]``.

For each oracle that can run here (and the test fake ``fake-returns``), one
small case: a 4x3 int64 array and indices ``[3, 1]``, through the first of
the oracle's ops that answers it with a value with default attributes (e.g.
``numpy.take``, ``onnx.Gather-1``, ``tensorflow.gather``). After a warm-up it
prints the median wall time of

* ``in-process``: ``get(name, isolated=False).run(...)``;
* ``isolated``: ``get(name).run(...)``, one case per round trip;
* ``batched``: ``get(name).run_many([...] * repeats)``, per case;

and the overhead of each over in-process, in percent (target: isolated adds
< 50% on the slowest oracle's small case). Example output::

    oracle          op                 in-process µs  isolated µs  overhead  batched µs  overhead
    onnxruntime     onnx.Gather-13              62.0        160.0     +158%        70.0      +13%

Then, over the same oracles (fake-returns left out) and in the same run, the
oracle runs per second of one batch of ``--batch`` cases per oracle (the
small case, each oracle's op), dispatched *sequentially* (one oracle's
``run_many`` after another) and *concurrently* (:func:`run_on_all`: every
worker at once), best of ``--rounds``::

    dispatch      oracles  cases  seconds  oracle runs/s
    sequential          7  14000     1.20        11667
    concurrent          7  14000     0.70        20000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import oracles
from conformance.core.outcome import Kind
from conformance.execution import IsolatedOracle, registered, run_on_all

DATA = np.arange(12, dtype=np.int64).reshape(4, 3)
INDICES = np.array([3, 1], dtype=np.int64)
FAKES = str(Path(__file__).resolve().parents[1] / "tests" / "fake_oracles.py")


def median_us(call: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``call()`` in microseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def small_op(oracle: Any) -> str | None:
    """The first op of ``oracle`` that returns a value on the small case."""
    for op in oracle.info().ops:
        if oracle.run(op, DATA, INDICES).kind is Kind.VALUE:
            return op
    return None


def measure(name: str, repeats: int) -> tuple[str, float, float, float] | None:
    """(op, in-process µs, isolated µs, batched µs per case) for one oracle."""
    local: Any = oracles.get(name, isolated=False)
    op = small_op(local)
    if op is None:
        return None
    with oracles.get(name) as isolated:
        for _ in range(20):  # warm up both: first calls compile or build sessions
            local.run(op, DATA, INDICES)
            isolated.run(op, DATA, INDICES)
        in_process = median_us(lambda: local.run(op, DATA, INDICES), repeats)
        one_by_one = median_us(lambda: isolated.run(op, DATA, INDICES), repeats)
        batch = [(op, DATA, INDICES)] * repeats
        batched = median_us(lambda: isolated.run_many(batch), 3) / repeats
    return op, in_process, one_by_one, batched


def dispatch_rates(names: list[str], batch: int, rounds: int) -> list[tuple[str, int, int, float]]:
    """(dispatch, oracles, cases, best seconds) for a batch per oracle, sent
    one oracle after another, then to every oracle at once."""
    isolated: list[IsolatedOracle] = []
    cases: dict[str, list[tuple]] = {}
    try:
        for name in names:
            op = small_op(oracles.get(name, isolated=False))
            if op is not None:
                isolated.append(oracles.get(name))
                cases[name] = [(op, DATA, INDICES)] * batch
        run_on_all(isolated, {n: c[:50] for n, c in cases.items()})  # warm up every worker
        total = sum(len(c) for c in cases.values())
        sequential = min(_timed(lambda: [o.run_many(cases[o.name]) for o in isolated]) for _ in range(rounds))
        concurrent = min(_timed(lambda: run_on_all(isolated, cases)) for _ in range(rounds))
    finally:
        for oracle in isolated:
            oracle.close()
    return [("sequential", len(isolated), total, sequential), ("concurrent", len(isolated), total, concurrent)]


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def row(name: str, result: tuple[str, float, float, float]) -> str:
    op, local, isolated, batched = result
    return (
        f"{name:<15} {op:<18} {local:>13.1f} {isolated:>12.1f} {100 * (isolated / local - 1):>+8.0f}%"
        f" {batched:>11.1f} {100 * (batched / local - 1):>+8.0f}%"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument(
        "--oracles", default="", help="comma-separated names (default: all available, and fake-returns)"
    )
    parser.add_argument(
        "--batch", type=int, default=2000, help="cases per oracle for sequential vs concurrent dispatch"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with registered({"fake-returns": FAKES}):
        names = args.oracles.split(",") if args.oracles else list(dict.fromkeys([*oracles.available(), "fake-returns"]))
        print(
            f"{'oracle':<15} {'op':<18} {'in-process µs':>13} {'isolated µs':>12} {'overhead':>9} {'batched µs':>11} "
            f"{'overhead':>9}"
        )
        for name in names:
            result = measure(name, args.repeats)
            print(row(name, result) if result else f"{name:<15} (no op returns a value on the small case)", flush=True)
    real = [n for n in names if not n.startswith("fake-")]
    print(f"\n{'dispatch':<12} {'oracles':>8} {'cases':>6} {'seconds':>8} {'oracle runs/s':>14}  ({', '.join(real)})")
    for how, count, cases, seconds in dispatch_rates(real, args.batch, args.rounds):
        print(f"{how:<12} {count:>8} {cases:>6} {seconds:>8.2f} {cases / seconds:>14.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
