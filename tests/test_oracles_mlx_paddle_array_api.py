"""The oracles of issue 23, part B: MLX (``mlx``, ``mlx-compile``), PaddlePaddle
(``paddle``, ``paddle-static``) and the array API standard (``array-api-strict``).

In-range conformance of every (oracle, op) pair runs with the others in
``tests/test_oracles_conform.py``; here: each oracle is listed with its
version, device and mode, and says why its GPU twin is missing; each mode is
what its reproducer says it is; the errors each framework really raises are
classified; what each does with negative and out-of-range indices (the facts
the baseline notes rest on, checked by direct calls where the framework stays
alive: MLX reads out of bounds, so its out-of-range cases are not run here);
and Paddle refuses to load after TensorFlow instead of dying.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.outcome import ErrorClass, Kind
from conformance.execution import registry
from conformance.judge.verdict import reference_outcome
from oracles import array_api_oracle, mlx_oracle, paddle_oracle
from oracles.base import Oracle

MODULES = (mlx_oracle, paddle_oracle, array_api_oracle)
ORACLES: dict[str, Oracle] = {o.name: o for m in MODULES for o in m.oracles_here()}
NEW_ORACLES = {
    "mlx": "eager",
    "mlx-compile": "compile (mx.compile)",
    "paddle": "eager (dygraph)",
    "paddle-static": "static graph (paddle.static.Executor)",
    "array-api-strict": "eager (API",
}
X = np.arange(5.0)


def _needs(*names: str) -> Any:
    return pytest.mark.skipif(not set(names) <= set(ORACLES), reason=f"needs {', '.join(names)}")


@pytest.mark.parametrize("name", sorted(NEW_ORACLES))
def test_each_oracle_is_listed_with_version_device_and_mode(name: str) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name}'s framework is not installed")
    info = {i.name: i for i in registry.infos()}[name]
    assert info.version and info.device == "cpu" and info.mode.startswith(NEW_ORACLES[name]) and info.ops


@pytest.mark.parametrize(("module", "gpu"), [(mlx_oracle, "mlx-gpu"), (paddle_oracle, "paddle-gpu")])
def test_a_missing_gpu_oracle_says_why(module: Any, gpu: str) -> None:
    reasons = module.unavailable_here()
    assert reasons.get(gpu)


@_needs("mlx-compile", "paddle-static")
@pytest.mark.parametrize(
    ("name", "needle"), [("mlx-compile", "mx.compile("), ("paddle-static", "paddle.enable_static()")]
)
def test_a_modes_reproducer_runs_the_op_in_that_mode(name: str, needle: str) -> None:
    op = ORACLES[name].info().ops[0]
    case = Case(op, np.arange(6.0).reshape(2, 3), np.array([1, 0]), {"axis": 1})
    assert needle in ORACLES[name].reproducer(case, reference_outcome(case)).text


# -- errors, classified --------------------------------------------------------------

PROVOKED = [
    ("mlx", "mlx.take", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("mlx", "mlx.take", X, np.array([0.5]), {}, ErrorClass.DTYPE_UNSUPPORTED),
    ("mlx", "mlx.take_along_axis", X.reshape(5, 1), [0], {"axis": 0}, ErrorClass.SHAPE_INVALID),
    ("paddle", "paddle.gather", X, [5], {"axis": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("paddle", "paddle.index_select", X, [5], {"axis": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("paddle", "paddle.index_select", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("paddle", "paddle.gather_nd", X, [[5]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("paddle", "paddle.take_along_axis", X, [5], {"axis": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("paddle", "paddle.take", X, [5], {"mode": "raise"}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("paddle", "paddle.gather_nd", X, np.array([[0]], np.int8), {}, ErrorClass.DTYPE_UNSUPPORTED),
    # Paddle's range check is an ``assert`` with the rule in its message: an axis error, not internal (9A n=130)
    ("paddle", "paddle.take_along_axis", np.array(1.0), np.array(0), {"axis": 0}, ErrorClass.ATTRIBUTE_INVALID),
    ("paddle-static", "paddle.gather", X, [5], {"axis": 0}, ErrorClass.INDEX_OUT_OF_RANGE),  # after "In user code:"
    ("paddle-static", "paddle.index_select", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("array-api-strict", "array_api.take", X, [5], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("array-api-strict", "array_api.take", X.reshape(5, 1), [0], {}, ErrorClass.ATTRIBUTE_INVALID),
    ("array-api-strict", "array_api.take", X, [[0]], {"axis": 0}, ErrorClass.SHAPE_INVALID),
]


@pytest.mark.parametrize(
    ("name", "op", "data", "indices", "attrs", "expected"),
    PROVOKED,
    ids=[f"{p[0]}:{p[1]}:{np.asarray(p[3]).tolist()}:{p[4]}" for p in PROVOKED],
)
def test_real_errors_are_classified(name, op, data, indices, attrs, expected) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name} not here")
    out = ORACLES[name].run_in_process(op, data, np.asarray(indices), attrs)
    assert out.kind is Kind.ERROR, out.describe()
    assert out.error_class is expected, out.message


@_needs("paddle")
def test_paddle_refusing_any_axis_of_0d_data_by_an_assertion_conforms() -> None:
    """Audit of stop 47, 9A n=130: take_along_axis on 0-d data with axis=True raised AssertionError "'axis' must be
    in the range of [-0, 0)" (no axis exists), reported as an internal error for a bool attribute; it is Paddle's
    range check refusing a call the docs do not allow, so the refusal conforms."""
    from conformance.judge.judged import judged_alone

    case = Case("paddle.take_along_axis", np.array(True), np.array(0, np.int32), {"axis": True})
    got = ORACLES["paddle"].run_in_process(case.op, case.data, case.indices, case.attrs)
    assert got.error_type == "AssertionError" and got.error_class is ErrorClass.ATTRIBUTE_INVALID
    assert judged_alone(case, ORACLES["paddle"].info(), got).verdict.conforms


def test_a_static_graphs_traceback_is_not_classified() -> None:
    text = "In user code:\n\n    File 'm.py', line 1\n      _C_ops.gather(x, index, axis)\n\n    ValueError: boom"
    assert paddle_oracle.paddle_error(text) == "ValueError: boom"


# -- what each framework does with bad indices (the baseline's facts) --------------------


@_needs("mlx", "mlx-compile")
@pytest.mark.parametrize("name", ["mlx", "mlx-compile"])
def test_mlx_wraps_negative_indices_once(name: str) -> None:
    out = ORACLES[name].run_in_process("mlx.take", X, np.array([-1, -5]), {})
    assert out.value.tolist() == [4.0, 0.0]


@_needs("paddle", "paddle-static")
@pytest.mark.parametrize("name", ["paddle", "paddle-static"])
def test_paddle_take_in_raise_mode_wraps_indices_down_to_minus_twice_the_size(name: str) -> None:
    """paddle.take adds numel to a negative index, then index_select wraps it again: -6 of 5 reads 4, -11 raises."""
    take = ORACLES[name]
    assert take.run_in_process("paddle.take", X, np.array([-6]), {"mode": "raise"}).value.tolist() == [4.0]
    assert take.run_in_process("paddle.take", X, np.array([-11]), {"mode": "raise"}).kind is Kind.ERROR


@_needs("paddle", "paddle-static")
@pytest.mark.parametrize("name", ["paddle", "paddle-static"])
def test_paddle_is_never_handed_a_tensor_of_ten_dimensions_it_cannot_make(name: str) -> None:
    """Audit of stop 46 (7B n=47, false): "paddle.gather: shapes refused" on 30-D data was paddle.to_tensor refusing
    the rank (by design, PaddlePaddle/Paddle#78463): gather was never called. 9-D still runs."""
    gather = ORACLES[name]
    ten = gather.run_in_process("paddle.gather", np.zeros((1,) * 10, np.float32), np.array([0]), {"axis": 0})
    assert ten.kind is Kind.UNSUPPORTED and "at most 9 dimensions" in ten.reason, ten
    nine = gather.run_in_process("paddle.gather", np.zeros((1,) * 9, np.float32), np.array([0]), {"axis": 0})
    assert nine.kind is Kind.VALUE and nine.value.shape == (1,) * 9, nine


@_needs("paddle")
def test_paddle_take_along_axis_misreads_int8_indices() -> None:
    """int8 indices (Paddle documents int32/int64) are neither refused nor read: in-range ones answer garbage."""
    out = ORACLES["paddle"].run_in_process(
        "paddle.take_along_axis", np.arange(10.0), np.array([1, 2, 0], np.int8), {"axis": 0}
    )
    assert out.kind is Kind.VALUE and out.value.tolist() != [1.0, 2.0, 0.0]


@_needs("paddle-static")
def test_paddle_static_gathers_empty_indices_along_axis_0() -> None:
    out = ORACLES["paddle-static"].run_in_process(
        "paddle.gather", np.zeros((2, 3)), np.array([], np.int64), {"axis": 1}
    )
    assert out.value.shape == (0, 3)  # dygraph and the reference: (2, 0)


@_needs("array-api-strict")
def test_array_api_strict_raises_on_out_of_range_indices_where_the_standard_leaves_them_unspecified() -> None:
    for value in (5, -6):
        out = ORACLES["array-api-strict"].run_in_process("array_api.take", X, np.array([value]), {})
        assert out.error_class is ErrorClass.INDEX_OUT_OF_RANGE


def test_paddle_refuses_to_load_after_tensorflow_instead_of_dying() -> None:
    """libpaddle.so segfaults loading into a process that has loaded TensorFlow; the oracle module refuses first."""
    if "paddle" not in ORACLES or "tensorflow" not in {i.framework for i in registry.infos()}:
        pytest.skip("needs paddle and tensorflow")
    code = (
        "import tensorflow\nfrom oracles import paddle_oracle\n"
        "try:\n    paddle_oracle.oracles_here()\nexcept paddle_oracle.PaddleAfterTensorFlow:\n    print('refused')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0 and "refused" in run.stdout, run.stderr[-500:]


@pytest.mark.skipif("paddle" not in ORACLES, reason="paddle is not installed")
def test_a_paddle_segfault_is_a_crash_at_once_not_a_slow_death_that_reads_as_a_hang() -> None:
    """Regression (check of seed 7, loaded): paddle.gather with a 0-d NumPy array as axis segfaults; Paddle's
    own handler then printed a C++ stack for a second or more of CPU and exited 0, so on a busy machine the case
    passed its limit and became a 'paddle.gather on paddle: timeout, for hangs' finding."""
    with registry.get("paddle", timeout=0.3) as oracle:  # CPU seconds: the handler took more
        outcome = oracle.run("paddle.gather", np.array([[[-0.5]]], np.float32), np.array(0, np.int64), axis=np.array(1))
        assert outcome.kind is Kind.CRASH and outcome.signal == 11, outcome.describe()


@_needs("paddle-static")
def test_a_static_graphs_answer_does_not_depend_on_the_programs_run_before_it() -> None:
    """Regression: run in Paddle's global scope, int8 indices gave None in a
    fresh worker and raised "numel() * SizeOf(dtype()) <= memory_size()" after
    an int64 run (the programs' feed variables share their names); a baseline
    entry was marked not standalone for it. Each program now has its own scope."""
    data, int8 = np.arange(20.0, dtype=np.float32).reshape(4, 5), np.array([1], np.int8)
    with registry.registered({"paddle": "oracles.paddle_oracle"}):
        with registry.get("paddle-static") as fresh:
            alone = fresh.run("paddle.gather", data, int8, axis=1).describe()
        with registry.get("paddle-static") as worker:
            worker.run("paddle.gather", data, np.array([1]), axis=1)
            after = worker.run("paddle.gather", data, int8, axis=1).describe()
    assert after == alone


@_needs("paddle-static")
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, BFLOAT16], ids=lambda d: np.dtype(d).name)
def test_paddle_static_fetches_an_empty_output_as_an_empty_array(dtype: Any) -> None:
    """Regression (a hand audit): paddle.gather of data [0, 2], a 0-d index and axis 1 has an output of shape [0]
    that holds no memory; the executor's return_numpy=True fetches None for it, which the suite reported as
    'returns None' and 'wrong shape'. Fetched as a tensor (return_numpy=False), it is an empty array of its shape
    and the program's dtype, as dygraph answers; a non-empty answer is read bit for bit as before."""
    data = np.zeros((0, 2), dtype)
    for name in ("paddle-static", "paddle"):
        out = ORACLES[name].run_in_process("paddle.gather", data, np.array(1), {"axis": 1})
        assert out.kind is Kind.VALUE and out.value.shape == (0,) and out.value.dtype == data.dtype, out.describe()
    nan = np.array([0x7FC00001, 0x80000000], np.uint32).view(np.float32)  # a NaN payload and -0.0
    out = ORACLES["paddle-static"].run_in_process("paddle.gather", nan, np.array([1, 0]), {"axis": 0})
    assert out.value.view(np.uint32).tolist() == [0x80000000, 0x7FC00001]


@_needs("paddle-static")
def test_paddle_static_short_script_fetches_an_empty_output_as_the_oracle_does() -> None:
    """The script for an upstream issue fetches the answer as the oracle does, not as return_numpy=True's None."""
    case = Case("paddle.gather", np.zeros((0, 2), np.int64), np.array(1), {"axis": 1})
    script = ORACLES["paddle-static"].upstream_script(case, reference_outcome(case))
    assert "return_numpy=False" in script
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0 and "observed: value int64 [0] = []" in run.stdout, run.stderr[-500:]
