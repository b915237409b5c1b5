"""``benchmarks/bench_reference.py`` (issue 42): every figure is reported against its goal, and a goal missed, of
time or of memory, fails the bench (exit 1), so a regression shows in the bench job."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_reference.py"
    spec = importlib.util.spec_from_file_location("bench_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_goals_are_the_issues_element_nd_045_block_105_memory_11() -> None:
    bench = _bench()
    cases = bench.cases(np.random.default_rng(0), memory_size=8)
    goals = [(c.name.split()[0], c.target, c.memory_target) for c in cases]
    assert goals == [("element", 0.45, None), ("block", 1.05, None), ("ND", 0.45, None), ("memory", None, 1.1)]


def test_a_goal_missed_of_time_or_of_memory_is_named_and_fails_the_bench() -> None:
    bench = _bench()
    case = bench.Case("element", lambda: None, lambda: None, "np.take_along_axis", 0.45, 1.1)
    met = bench.Result(case, 0.40, 1.0, 100, 100, 100)
    slow = bench.Result(case, 0.57, 1.0, 100, 100, 100)
    over = bench.Result(case, 0.40, 1.0, 120, 100, 100)
    assert bench.missed_goals([met]) == []
    assert bench.missed_goals([slow]) == ["element: 0.57x of np.take_along_axis > 0.45x"]
    assert bench.missed_goals([over]) == ["element: peak memory 1.200x of NumPy's > 1.10x"]


def test_the_bench_exits_1_when_a_goal_is_missed() -> None:
    bench = _bench()
    case = bench.Case("ND", lambda: np.zeros(2), lambda: np.zeros(2), "x[i0, i1, i2]", 0.45)
    bench.cases = lambda rng, size, repeats: [case]
    bench.median_seconds_side_by_side = lambda ours, base, repeats: (0.93, 1.0)
    assert bench.main(["--repeats", "1"]) == 1
    bench.median_seconds_side_by_side = lambda ours, base, repeats: (0.40, 1.0)
    assert bench.main(["--repeats", "1"]) == 0
