"""The oracles and ops of issue 13: TensorFlow NumPy, indexing as users write
it (torch, JAX, ``jax.lax.gather``) and execution modes as oracles
(``torch-compile``, ``jax-default``, ``onnxruntime-noopt``/``-static``,
``tensorflow-function``), plus the GPU oracles that say why they are absent.

In-range conformance of every new (oracle, op) pair runs with the others in
``tests/test_oracles_conform.py``; here: the registry lists each new oracle
with its version, device and mode; NumPy behaviour stays in the
``tensorflow-numpy`` worker; each mode is what its reproducer says it is; each
new oracle's reproducers run standalone; and what each mode shows that the
eager oracles do not.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from conformance import reference
from conformance.core.case import Case
from conformance.core.outcome import ErrorClass, Kind
from conformance.execution import registry
from conformance.execution.environment import describe
from conformance.execution.scripts import save
from conformance.judge.verdict import reference_outcome
from conformance.spec.catalog import spec
from oracles import cupy_oracle, jax_oracle, onnx_oracle, tensorflow_oracle, tf_numpy_oracle, torch_oracle
from oracles.base import Oracle

NEW_ORACLES = (
    "torch-compile",
    "jax-default",
    "onnxruntime-noopt",
    "onnxruntime-static",
    "tensorflow-function",
    "tensorflow-numpy",
)
NEW_OPS = (
    "tensorflow.experimental.numpy.take",
    "tensorflow.experimental.numpy.take_along_axis",
    "torch.advanced_indexing",
    "jax.advanced_indexing",
    "jax.lax.gather",
)
GPU_ORACLES = {
    "torch-cuda": torch_oracle,
    "torch-cuda-compile": torch_oracle,
    "jax-gpu": jax_oracle,
    "onnxruntime-cuda": onnx_oracle,
    "cupy": cupy_oracle,
}

MODULES = (torch_oracle, tensorflow_oracle, tf_numpy_oracle, onnx_oracle, jax_oracle)
ORACLES: dict[str, Oracle] = {o.name: o for m in MODULES for o in m.oracles_here()}
X = np.arange(3.0)


def _needs(*names: str) -> Any:
    return pytest.mark.skipif(not set(names) <= set(ORACLES), reason=f"needs {', '.join(names)}")


# -- listed, with version, device and mode --------------------------------------------


@pytest.mark.parametrize("name", NEW_ORACLES)
def test_each_new_oracle_is_listed_with_version_device_and_mode(name: str) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name}'s framework is not installed")
    infos = {i.name: i for i in registry.infos()}
    assert name in infos, f"{name} missing from {sorted(infos)}"
    info = infos[name]
    assert info.version and info.device == "cpu" and info.mode and info.ops
    assert name in describe()


def test_modes_are_named_apart_from_their_eager_oracles() -> None:
    modes = {i.name: i.mode for i in registry.infos()}
    pairs = [
        ("torch", "torch-compile"),
        ("jax", "jax-default"),
        ("onnxruntime", "onnxruntime-noopt"),
        ("onnxruntime", "onnxruntime-static"),
        ("tensorflow", "tensorflow-function"),
    ]
    for eager, mode in pairs:
        if eager in modes and mode in modes:
            assert modes[eager] != modes[mode], (eager, mode)
    assert registry.module_for("tensorflow-numpy") == "oracles.tf_numpy_oracle"
    assert registry.module_for("torch-compile") == "oracles.torch_oracle"


@pytest.mark.parametrize("op", NEW_OPS)
def test_each_new_op_has_a_documented_policy_and_an_oracle(op: str) -> None:
    s = spec(op)
    assert s.doc.startswith("https://") and s.policy_note and s.data_dtypes and s.index_dtypes
    assert any(op in o.info().ops for o in ORACLES.values()) or not ORACLES


@pytest.mark.parametrize("name", sorted(GPU_ORACLES))
def test_gpu_oracles_say_why_they_are_not_here(name: str) -> None:
    module = GPU_ORACLES[name]
    here = {o.name for o in module.oracles_here()}
    missing = module.unavailable_here()
    assert (name in here) != (name in missing), (here, missing)
    if name in missing:
        assert len(missing[name]) > 10, missing


# -- TensorFlow NumPy: its behaviour stays in its own worker ----------------------------

PROBE = """
import sys
from conformance.execution.loading import load_oracle
from conformance.execution.registry import module_for
oracle = load_oracle(module_for(sys.argv[1]), sys.argv[1])  # what the worker does
import tensorflow as tf
print("numpy-behaviour" if hasattr(tf.constant(1), "reshape") else "tensorflow-behaviour")
"""


@_needs("tensorflow", "tensorflow-numpy")
def test_numpy_behaviour_is_switched_on_in_the_tensorflow_numpy_worker_only() -> None:
    def behaviour(name: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", PROBE, name], capture_output=True, text=True, timeout=300, check=True
        )
        return run.stdout.split()[-1]

    with ThreadPoolExecutor(max_workers=3) as pool:
        seen = dict(
            zip(
                ("tensorflow", "tensorflow-xla", "tensorflow-numpy"),
                pool.map(behaviour, ("tensorflow", "tensorflow-xla", "tensorflow-numpy")),
            )
        )
    assert seen == {
        "tensorflow": "tensorflow-behaviour",
        "tensorflow-xla": "tensorflow-behaviour",
        "tensorflow-numpy": "numpy-behaviour",
    }


@_needs("tensorflow-numpy")
def test_tensorflow_numpy_take_clips_by_default_and_refuses_raise() -> None:
    o = ORACLES["tensorflow-numpy"]
    assert o.run_in_process("tensorflow.experimental.numpy.take", X, np.array([-1, 3, 1]), {}).value.tolist() == [
        0.0,
        2.0,
        1.0,
    ]
    assert o.run_in_process(
        "tensorflow.experimental.numpy.take", X, np.array([-1, 3]), {"mode": "wrap"}
    ).value.tolist() == [2.0, 0.0]
    refused = o.run_in_process("tensorflow.experimental.numpy.take", X, np.array([1]), {"mode": "raise"})
    assert refused.kind is Kind.ERROR and "'raise' mode" in (refused.message or "")
    assert (
        o.run_in_process("tensorflow.experimental.numpy.take", X, np.array([1], np.int16), {}).error_class
        is ErrorClass.DTYPE_UNSUPPORTED
    )


# -- modes: what the reproducer says, and what each shows -------------------------------


@_needs("torch", "torch-compile")
def test_torch_compile_wraps_negative_index_select_indices_that_eager_rejects() -> None:
    eager = ORACLES["torch"].run_in_process("torch.index_select", X, np.array([-1]), {"dim": 0})
    compiled = ORACLES["torch-compile"].run_in_process("torch.index_select", X, np.array([-1]), {"dim": 0})
    assert eager.kind is Kind.ERROR and compiled.value.tolist() == [2.0]
    assert (
        "torch.compile(" in ORACLES["torch-compile"].mode_source
        and 'backend="inductor"' in ORACLES["torch-compile"].mode_source
    )


@_needs("torch", "torch-compile")
def test_torch_reads_a_uint8_index_tensor_as_a_mask() -> None:
    data, idx = np.arange(6.0).reshape(2, 3), np.array([[1], [0]], np.uint8)
    out = ORACLES["torch"].run_in_process("torch.advanced_indexing", data, idx, {})
    assert out.kind is Kind.VALUE and out.value.tolist() == [[0.0, 1.0, 2.0]]  # the mask [True, False] keeps row 0
    assert reference("numpy.advanced_indexing", data, idx).tolist() == [
        [3.0, 4.0, 5.0],
        [0.0, 1.0, 2.0],
    ]  # rows 1 and 0


@_needs("jax", "jax-default")
def test_jax_default_narrows_64_bit_inputs_and_x64_does_not() -> None:
    data = np.array([2**40, 7], np.int64)
    x64 = ORACLES["jax"].run_in_process("jax.advanced_indexing", data, np.array([[0]]), {})
    default = ORACLES["jax-default"].run_in_process("jax.advanced_indexing", data, np.array([[0]]), {})
    assert x64.value.tolist() == [2**40] and (default.value.dtype.name, default.value.tolist()) == ("int32", [0])
    assert "X64 = False" in ORACLES["jax-default"].prelude and "X64 = True" in ORACLES["jax"].prelude


@_needs("jax", "jax-default")
def test_both_jax_configurations_live_in_one_process() -> None:
    for _ in range(2):  # alternating: neither configuration leaks into the other
        assert ORACLES["jax"].run_in_process("jax.numpy.take", X, np.array([0]), {}).value.dtype.name == "float64"
        assert (
            ORACLES["jax-default"].run_in_process("jax.numpy.take", X, np.array([0]), {}).value.dtype.name == "float32"
        )


@_needs("jax")
def test_jax_indexing_wraps_then_clamps_and_lax_gather_clamps_the_raw_value() -> None:
    data, idx = np.arange(6.0).reshape(2, 3), np.array([[-1, 7], [5, -9]])
    for op in ("jax.advanced_indexing", "jax.lax.gather"):
        out = ORACLES["jax"].run_in_process(op, data, idx, {})
        assert out.value.tolist() == reference(op, data, idx).tolist(), op
    assert reference("jax.advanced_indexing", data, idx).tolist() == [5.0, 3.0]  # [1, 2] and [1, 0 (-9 + 3 clamped)]
    assert reference("jax.lax.gather", data, idx).tolist() == [2.0, 3.0]  # [0 (-1 clamped), 2] and [1, 0]


@_needs("onnxruntime-static", "onnxruntime-noopt")
def test_onnxruntime_modes_differ_in_session_options_and_model_shapes() -> None:
    static, noopt = ORACLES["onnxruntime-static"], ORACLES["onnxruntime-noopt"]
    model = onnx.load_from_string(
        static.constants("onnx.Gather-13", np.zeros((4, 3)), np.zeros(2, np.int64), {"axis": 0})["MODEL"]
    )
    assert [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim] == [4, 3]
    model = onnx.load_from_string(
        noopt.constants("onnx.Gather-13", np.zeros((4, 3)), np.zeros(2, np.int64), {"axis": 0})["MODEL"]
    )
    assert [d.dim_param for d in model.graph.input[0].type.tensor_type.shape.dim] == ["d0", "d1"]
    assert "OPTIMIZATION = 'ORT_DISABLE_ALL'" in noopt.prelude and "OPTIMIZATION = 'ORT_ENABLE_ALL'" in static.prelude


@_needs("tensorflow-function")
def test_tensorflow_function_traces_without_xla() -> None:
    o = ORACLES["tensorflow-function"]
    assert "jit_compile=False" in o.mode_source and "jit_compile=True" not in o.mode_source
    assert (
        o.run_in_process("tensorflow.gather", X, np.array([3]), {}).error_class is ErrorClass.INDEX_OUT_OF_RANGE
    )  # XLA clamps


# -- reproducers, run as a user would ------------------------------------------------------

SCRIPTS: tuple[tuple[str, Case, bool], ...] = (
    ("torch-compile", Case("torch.index_select", X, np.array([-1]), {"dim": 0}), True),  # wraps; eager raises
    ("torch-compile", Case("torch.advanced_indexing", np.arange(6.0).reshape(2, 3), np.array([[1, -1]]), {}), False),
    (
        "jax-default",
        Case("jax.advanced_indexing", np.array([2**40, 7], np.int64), np.array([[0]]), {}),
        True,
    ),  # int32 0
    (
        "jax-default",
        Case("jax.lax.gather", np.arange(6, dtype=np.int32).reshape(2, 3), np.array([[-1], [5]]), {}),
        False,
    ),
    (
        "tensorflow-numpy",
        Case("tensorflow.experimental.numpy.take", X, np.array([1]), {"axis": None, "mode": "raise"}),
        True,
    ),
    ("tensorflow-numpy", Case("tensorflow.experimental.numpy.take_along_axis", X, np.array([-1]), {"axis": 0}), False),
    ("tensorflow-function", Case("tensorflow.gather", X, np.array([3]), {"axis": 0, "batch_dims": 0}), False),
    (
        "onnxruntime-noopt",
        Case("onnx.Gather-13", np.array([["a", "b"]]), np.array([0]), {"axis": 0}),
        True,
    ),  # ORT's string Gather
    ("onnxruntime-static", Case("onnx.GatherND-13", np.arange(6.0).reshape(2, 3), np.array([[1, 2]]), {}), False),
)


def _run_script(n: int, name: str, case: Case, root: Path) -> subprocess.CompletedProcess[str]:
    repro = ORACLES[name].reproducer(case, reference_outcome(case))
    path = save(repro, root / f"{n}-{name}")
    return subprocess.run(
        [sys.executable, str(path)], cwd=root, capture_output=True, text=True, timeout=300, check=False
    )


def test_new_oracles_reproducers_run_standalone(tmp_path: Path) -> None:
    runnable = [(n, c, d) for n, c, d in SCRIPTS if n in ORACLES]
    if not runnable:
        pytest.skip("no new oracle here")
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = list(pool.map(lambda job: _run_script(job[0], *job[1][:2], tmp_path), enumerate(runnable)))
    failures = []
    for (name, case, differs), run in zip(runnable, runs):
        verdict = "REPRODUCED" if differs else "not reproduced"
        lines = run.stdout.splitlines()
        if not lines or lines[-1] != verdict or run.returncode != (1 if differs else 0):
            failures.append(
                textwrap.shorten(
                    f"{name} {case.op}: want {verdict}, rc {run.returncode}: {run.stdout[-300:]} {run.stderr[-300:]}",
                    900,
                )
            )
    assert failures == []
