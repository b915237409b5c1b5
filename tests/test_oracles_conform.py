"""Every in-process oracle agrees with the reference, bit for bit, on valid
in-range inputs; refuses what its framework cannot hold; and classifies the
errors it really raises.

Known differences on valid input are listed in :data:`KNOWN_DIFFERENCES`;
each is checked to still reproduce (a fixed one fails the test, like a strict
xfail), never skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import reference
from conformance.core.arrays import BFLOAT16, INDEX_DTYPES, same_bits
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.spec.catalog import spec
from oracles import (
    array_api_oracle,
    cupy_oracle,
    iree_oracle,
    jax_oracle,
    mlir_oracle,
    mlx_oracle,
    numpy_oracle,
    onnx_oracle,
    openvino_oracle,
    paddle_oracle,
    tensorflow_oracle,
    tf_numpy_oracle,
    torch_oracle,
    tvm_oracle,
)
from oracles.base import Oracle
from tests.oracle_strategies import data_array, valid_cases

MODULES = (numpy_oracle, torch_oracle, tensorflow_oracle, tf_numpy_oracle, onnx_oracle, jax_oracle, cupy_oracle)
MODULES += (mlx_oracle, paddle_oracle, array_api_oracle)  # each offers nothing where its framework is not installed
MODULES += (openvino_oracle, iree_oracle, tvm_oracle, mlir_oracle)
ORACLES: dict[str, Oracle] = {o.name: o for m in MODULES for o in m.oracles_here()}
PAIRS = [(name, op) for name, o in ORACLES.items() for op in o.info().ops]
SLOW_COMPILERS = ("iree", "tvm", "stablehlo-iree", "tosa-iree")
"""Oracles whose every new model costs a compilation of a second or more: fewer examples (see below)."""

ACCEPTED_INDEX_DTYPES: dict[str, tuple[str, ...]] = {
    "numpy": INDEX_DTYPES,
    "jax": INDEX_DTYPES,
    "cupy": INDEX_DTYPES,
    "torch.take": ("int64",),
    "torch.take_along_dim": ("int64",),  # with dim=None it takes int32 too; with a dim it refuses it
    "torch": ("int32", "int64"),  # gather / index_select / indexing take int32 (gather documents int64 only)
    "tensorflow.experimental.numpy.take": (
        "int32",
        "int64",
    ),  # the docs defer to NumPy (any integer); TF's Shape op refuses the rest
    "tensorflow.experimental.numpy.take_along_axis": ("int32", "int64"),
    "tensorflow": ("int16", "int32", "int64"),
    "onnx.GatherND": ("int64",),
    "onnx": ("int32", "int64"),
    "mlx": INDEX_DTYPES,
    "array_api": INDEX_DTYPES,
    "paddle": ("int32", "int64"),
    "openvino.GatherElements": ("int32", "int64"),  # 'indices must be of int32 or int64 type'
    "openvino": INDEX_DTYPES,  # Gather-8 and GatherND-8 take every integer type (int32/int64 documented)
    "stablehlo": INDEX_DTYPES,  # '(I2) start_indices: tensor of integer type'
    "tosa": ("int32", "int64"),
}
"""Index dtypes each op accepts (probed), by op name, else by framework."""

ORACLE_INDEX_DTYPES: dict[str, tuple[str, ...]] = {
    "onnx-reference": INDEX_DTYPES,
    "openvino-onnx:onnx.Gather": INDEX_DTYPES,
    "openvino-onnx:onnx.GatherND": INDEX_DTYPES,
    "tvm:onnx.Gather": INDEX_DTYPES,
    "tvm:onnx.GatherElements": INDEX_DTYPES,
    "iree": INDEX_DTYPES,
}
"""Oracles (or oracle:op) that accept more index dtypes than their op's framework: onnx.reference, handed a model
outside the schema (int8, uint64 indices), gathers all the same (observed since issue 22); so do OpenVINO's
ONNX front end (Gather, GatherND), TVM (Gather, GatherElements) and IREE (every op it lowers)."""

MASK_INDEX_DTYPES: dict[str, tuple[str, ...]] = {"torch.advanced_indexing": ("uint8",)}
"""Index dtypes an op takes, but as something else: torch reads a uint8 index tensor as a boolean mask."""

MISREAD_INDEX_DTYPES: dict[str, tuple[str, ...]] = {"paddle.take_along_axis": ("int8", "int16", "uint8")}
"""Index dtypes an op neither refuses nor reads: Paddle's take_along_axis (int32/int64 documented) answers garbage
for these, even in range (pinned in tests/test_oracles_mlx_paddle_array_api.py and in the baseline)."""

REQUIRED_ATTRS: dict[str, dict[str, Any]] = {
    "torch.gather": {"dim": 0},
    "torch.index_select": {"dim": 0},
    "torch.take_along_dim": {"dim": 0},
    "tensorflow.experimental.numpy.take_along_axis": {"axis": 0},
    "paddle.take_along_axis": {"axis": 0},
    "openvino.Gather": {"axis": 0},
    "openvino.GatherElements": {"axis": 0},
}
"""Attributes an op needs to be called at all (probes pass these, or none)."""


def accepted_index_dtypes(op: str) -> tuple[str, ...]:
    """``accepted_index_dtypes("onnx.GatherND-12") == ("int64",)``."""
    s = spec(op)
    return ACCEPTED_INDEX_DTYPES.get(s.name) or ACCEPTED_INDEX_DTYPES[s.framework]


def representable_data_dtypes(oracle: Oracle, op: str) -> tuple[str, ...]:
    """The op's documented data dtypes that the oracle can be handed."""
    idx = np.zeros(1, dtype=accepted_index_dtypes(op)[0])
    return tuple(
        d for d in spec(op).data_dtypes if oracle.unsupported_reason(op, data_array(d, (1,), 0), idx, {}) is None
    )


@dataclass(frozen=True)
class KnownDifference:
    """A real disagreement with the reference on valid input."""

    oracle: str  # name prefix
    op: str  # catalog key prefix
    applies: Callable[[np.ndarray, np.ndarray, dict[str, Any]], bool]
    reason: str
    not_in: tuple[str, ...] = ()  # oracles of the prefix without the difference

    def matches(self, oracle: str, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> bool:
        mine = oracle.startswith(self.oracle) and oracle not in self.not_in
        return mine and op.startswith(self.op) and self.applies(data, indices, attrs)


def onnx_reference_cross_section(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """The shape onnx.reference's GatherElements compares: ``shape[:axis] + shape[axis + 1:]``
    with the raw axis, so ``axis=-1`` keeps the whole shape (its bug)."""
    return shape[:axis] + shape[axis + 1 :]


def gathers_bfloat16_nan(op: str) -> Callable[[np.ndarray, np.ndarray, dict[str, Any]], bool]:
    """True when a rank >= 2 bfloat16 gather along a dim would copy a NaN."""

    def applies(d: np.ndarray, i: np.ndarray, a: dict[str, Any]) -> bool:
        if d.dtype != BFLOAT16 or d.ndim < 2 or a.get("dim") is None:
            return False
        return bool(np.isnan(np.asarray(reference(op, d, i, check_dtypes=False, **a)).astype(np.float32)).any())

    return applies


KNOWN_DIFFERENCES: tuple[KnownDifference, ...] = (
    *(
        KnownDifference(
            "torch",
            op,
            gathers_bfloat16_nan(op),
            "torch's CPU gather kernel turns a bfloat16 NaN 0x7FC0 into 0xFFFF for inputs of rank >= 2 "
            "(torch.gather(tensor([[nan, 1.]], bfloat16), 1, tensor([[0, 1]])) has bits [0xFFFF, 0x3F80]); "
            "inductor's generated code (torch-compile) keeps the bits",
            not_in=("torch-compile", "torch-cuda", "torch-cuda-compile"),  # a CPU kernel's
        )
        for op in ("torch.gather", "torch.take_along_dim")
    ),
    KnownDifference(
        "torch",
        "torch.take_along_dim",
        lambda d, i, a: a.get("dim") is None and i.size > 0 and bool((i < 0).any()),
        "torch.take_along_dim with dim=None raises on a negative index ('index -1 is out of bounds for dimension 0 "
        "with size 6') where numpy.take_along_axis, which its docs defer to, wraps it once (with a dim, torch wraps)",
        not_in=("torch-cuda-compile",),  # GPU check (torch 2.11.0+cu130, H200): inductor's Triton code wraps it
    ),
    KnownDifference(
        "tensorflow-xla",
        "tensorflow.",
        lambda d, i, a: d.dtype.kind in "USO",
        "XLA has no string type: compiling tf.gather on a tf.string tensor fails (InvalidArgumentError: Detected "
        "unsupported operations when trying to compile graph ... on XLA_CPU_JIT: _Arg ... T=DT_STRING); observed, not "
        "declared",
    ),
    KnownDifference(
        "onnx-reference",
        "onnx.GatherElements",
        lambda d, i, a: (
            i.size > 0
            and onnx_reference_cross_section(i.shape, a["axis"]) != onnx_reference_cross_section(d.shape, a["axis"])
        ),
        "onnx.reference's GatherElements demands indices.shape == data.shape outside the axis (the spec allows smaller "
        "indices) and, for a negative axis, compares the wrong dimensions: ValueError 'Except for dimension -1, ...'",
    ),
    KnownDifference(
        "jax-default",
        "jax.",
        lambda d, i, a: d.dtype.name in ("int64", "uint64", "float64", "complex128"),
        "JAX's default configuration (jax_enable_x64 off) turns 64-bit data into 32-bit arrays when they are made "
        "(int64 -> int32, uint64 -> uint32, float64 -> float32, complex128 -> complex64; int64 2**40 becomes 0)",
    ),
    KnownDifference(
        "tensorflow-numpy",
        "tensorflow.experimental.numpy.take",
        lambda d, i, a: a.get("mode") == "raise",
        "tf.experimental.numpy.take refuses mode='raise' for every input (ValueError: The 'raise' mode to take is not "
        "supported), though its docs defer to numpy.take, whose default it is",
    ),
    KnownDifference(
        "onnxruntime",
        "onnx.Gather-",
        lambda d, i, a: d.dtype.kind in "US" and i.size > 0 and math.prod(d.shape[a.get("axis", 0) % d.ndim + 1 :]) > 1,
        "onnxruntime 1.31's Gather on string tensors copies only the first string of each gathered block and leaves "
        "the rest empty, whenever a block has more than one element (data [['a', 'b']], indices 0, axis 0 gives ['a', "
        "''])",
    ),
    KnownDifference(
        "onnxruntime",
        "onnx.",
        lambda d, i, a: d.dtype.kind == "c",
        "onnxruntime 1.31 cannot load complex64/complex128 tensors ('MLDataType for: tensor(complex64) is not "
        "currently registered or supported') although the Gather/GatherElements/GatherND schemas allow them",
    ),
    KnownDifference(
        "paddle",
        "paddle.",
        lambda d, i, a: d.dtype.name in ("float16", "bfloat16"),
        "Paddle 3.3.1 has no CPU kernel for float16 (gather_nd, take_along_axis, index_select) nor bfloat16 "
        "(take_along_axis), which their docs list without naming a device ('The kernel with key (CPU, ..., float16) "
        "of kernel `gather_nd` is not registered'; only paddle.gather's docs say 'float16 (only for GPU)')",
    ),
    KnownDifference(
        "paddle-static",
        "paddle.gather",
        lambda d, i, a: i.size == 0 and d.ndim > 1 and (a.get("axis") or 0) % d.ndim != 0,
        "Paddle 3.3.1's static graph gathers empty indices along axis 0 whatever the axis: paddle.gather of a (2, 3) "
        "input with index [] and axis=1 has shape (0, 3) in a static program, (2, 0) in dygraph",
    ),
)


def gathers_float64_nan(op: str) -> Callable[[np.ndarray, np.ndarray, dict[str, Any]], bool]:
    """True when a float64 gather would copy a NaN (whose payload a 32-bit computation loses)."""

    def applies(d: np.ndarray, i: np.ndarray, a: dict[str, Any]) -> bool:
        return d.dtype == np.float64 and bool(np.isnan(np.asarray(reference(op, d, i, check_dtypes=False, **a))).any())

    return applies


def smaller_outside_axis(d: np.ndarray, i: np.ndarray, a: dict[str, Any]) -> bool:
    """Indices smaller than the data in a dimension other than the axis (ONNX GatherElements allows it)."""
    axis = a.get("axis", 0) % d.ndim
    return any(i.shape[k] != d.shape[k] for k in range(d.ndim) if k != axis)


OPENVINO_DIFFERENCES = (
    *(
        KnownDifference(
            "openvino",
            op,
            gathers_float64_nan(op),
            "OpenVINO 2026.4's CPU plugin computes float64 in float32: a float64 NaN loses its payload (bits "
            "0x7FF8000000000005 come back 0x7FF8000000000000; 1 + 2**-40 comes back 1.0)",
        )
        for op in sorted(
            (*openvino_oracle.OPENVINO_OPS, *onnx_oracle.ONNX_OPS), reverse=True
        )  # onnx.Gather-11 before -1
    ),
    KnownDifference(
        "openvino-onnx",
        "onnx.GatherElements",
        smaller_outside_axis,
        "OpenVINO 2026.4's ONNX front end refuses GatherElements indices smaller than the data outside the axis "
        "('Shapes {2,1,3} and {1,1,3} are not consistent, `data` and `indices` must have equal or intersecting "
        "dimensions, except for the dimension at axis'), which the ONNX spec allows",
    ),
    KnownDifference(
        "openvino-onnx",
        "onnx.",
        lambda d, i, a: d.dtype.kind == "c",
        "OpenVINO 2026.4's ONNX front end refuses a model with complex tensors when it converts it ('Unsupported data "
        "type COMPLEX64 expected: BOOL, BFLOAT16, ..., STRING'): OpenVINO has no complex element type, although the "
        "Gather/GatherElements/GatherND schemas allow them",
    ),
    *(
        KnownDifference(
            "openvino",
            op,
            lambda d, i, a: d.dtype.kind in "US",
            "OpenVINO 2026.4's CPU plugin has no GatherElements or GatherND kernel for strings ('GatherND node ... has "
            "unsupported 'data' input precision: string'); its Gather gathers them",
        )
        for op in ("onnx.GatherElements", "onnx.GatherND", "openvino.GatherElements", "openvino.GatherND")
    ),
    KnownDifference(
        "iree",
        "onnx.",
        lambda d, i, a: d.dtype.kind in "US",
        "IREE 3.13 compiles no string tensors ('unimplemented: conversion of dtype '!torch.str' to builtin tensor "
        "element type'), which the ONNX schemas allow",
    ),
    KnownDifference(
        "tvm",
        "onnx.",
        lambda d, i, a: d.dtype.kind in "cUS",
        "TVM has no complex or string dtype: tvm.runtime.tensor refuses such an input ('unknown dtype `complex64`', "
        "'unknown dtype `<U1`'), which the ONNX schemas allow",
    ),
    *(
        KnownDifference(
            "iree",
            op,
            lambda d, i, a: True,
            "IREE 3.13 lowers GatherElements and GatherND only at opset 13: a model of an older version fails to "
            "compile (\"failed to legalize operation 'torch.operator' that was explicitly marked illegal ... "
            'onnx.GatherND")',
        )
        for op in ("onnx.GatherElements-11", "onnx.GatherND-11", "onnx.GatherND-12")
    ),
)


def known_difference(
    oracle: str, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]
) -> KnownDifference | None:
    known = (*KNOWN_DIFFERENCES, *OPENVINO_DIFFERENCES)
    return next((k for k in known if k.matches(oracle, op, data, indices, attrs)), None)


def agrees(outcome: Outcome, expected: np.ndarray) -> bool:
    return outcome.kind is Kind.VALUE and outcome.value is not None and same_bits(outcome.value, expected)


FAST_PAIRS = [(n, op) for n, op in PAIRS if n not in SLOW_COMPILERS]
SLOW_PAIRS = [(n, op) for n, op in PAIRS if n in SLOW_COMPILERS]


@pytest.mark.parametrize(("oracle_name", "op"), FAST_PAIRS, ids=[f"{n}:{op}" for n, op in FAST_PAIRS])
@settings(derandomize=True, max_examples=25, deadline=None)
@given(draw=st.data())
def test_valid_in_range_inputs_give_the_reference_bits(oracle_name: str, op: str, draw: st.DataObject) -> None:
    check_in_range(oracle_name, op, draw)


@pytest.mark.parametrize(("oracle_name", "op"), SLOW_PAIRS, ids=[f"{n}:{op}" for n, op in SLOW_PAIRS])
@settings(derandomize=True, max_examples=6, deadline=None)
@given(draw=st.data())
def test_valid_in_range_inputs_give_the_reference_bits_on_slow_compilers(
    oracle_name: str, op: str, draw: st.DataObject
) -> None:
    check_in_range(oracle_name, op, draw)


SPENT: dict[str, str] = {}
"""Oracles of this process that a case left unable to run another (``spent_by``: CUDA's device-side assert)."""


def usable(name: str) -> Oracle:
    """``ORACLES[name]``; the test skips (saying why) where an earlier case of this process spent it."""
    if name in SPENT:
        pytest.skip(f"an earlier case left {name} unusable in this process ({SPENT[name]})")
    return ORACLES[name]


UNSUPPORTED_VALID = {("cupy", "numpy.take"): "cupy.take has no mode argument"}
"""Valid cases an oracle refuses before the call, by (oracle, op): the reason it gives."""


def check_in_range(oracle_name: str, op: str, draw: st.DataObject) -> None:
    """One valid, in-range case of ``op`` gives the reference's bits on the oracle (or its known difference)."""
    oracle = ORACLES[oracle_name]
    data, indices, attrs = draw.draw(valid_cases(op, representable_data_dtypes(oracle, op), accepted_index_dtypes(op)))
    usable(oracle_name)  # after the draw: every example draws alike (Hypothesis requires it)
    expected = np.asarray(reference(op, data, indices, check_dtypes=False, **attrs))
    outcome = oracle.run_in_process(op, data, indices, attrs)
    why = oracle.spent_by(outcome)
    if why:
        SPENT[oracle_name] = why
    if outcome.kind is Kind.UNSUPPORTED and outcome.reason == UNSUPPORTED_VALID.get((oracle_name, op)):
        return
    known = known_difference(oracle_name, op, data, indices, attrs)
    if known:
        assert not agrees(outcome, expected), f"known difference no longer reproduces: {known.reason}"
        return
    assert outcome.kind is Kind.VALUE, f"{outcome.describe()}: {outcome.message}"
    assert same_bits(outcome.value, expected), f"got {outcome.value!r}, reference {expected!r}"


# -- known differences, minimal examples ----------------------------------------


@pytest.mark.skipif("onnxruntime" not in ORACLES, reason="no onnxruntime")
def test_onnxruntime_cannot_load_complex_gather_models() -> None:
    out = ORACLES["onnxruntime"].run_in_process("onnx.Gather-13", np.array([1 + 2j], np.complex64), np.array([0]), {})
    assert out.kind is Kind.ERROR and out.error_class is ErrorClass.DTYPE_UNSUPPORTED


@pytest.mark.skipif("onnxruntime" not in ORACLES, reason="no onnxruntime")
@pytest.mark.parametrize("name", ["onnxruntime", "onnxruntime-noopt", "onnxruntime-static"])
def test_onnxruntime_gather_of_strings_keeps_only_the_first_string_of_each_block(name: str) -> None:
    out = usable(name).run_in_process(
        "onnx.Gather-13", np.array([["a", "b"], ["c", "d"]]), np.array([1, 0]), {"axis": 0}
    )
    assert out.value.tolist() == [["c", ""], ["a", ""]]  # the reference: [["c", "d"], ["a", "b"]]


@pytest.mark.skipif("torch" not in ORACLES, reason="no torch")
def test_torch_gather_changes_the_bits_of_a_bfloat16_nan() -> None:
    data = np.array([[np.nan, 1.0]], dtype=BFLOAT16)
    out = ORACLES["torch"].run_in_process("torch.gather", data, np.array([[0, 1]]), {"dim": 1})
    assert out.value.view(np.uint16).tolist() == [[0xFFFF, 0x3F80]] and data.view(np.uint16).tolist() == [
        [0x7FC0, 0x3F80]
    ]


@pytest.mark.skipif("torch" not in ORACLES, reason="no torch")
def test_torch_take_along_dim_without_dim_flattens_indices_too_as_the_reference_does() -> None:
    data, idx = np.arange(6.0).reshape(2, 3), np.array([[0, 1], [2, 3]])
    out = ORACLES["torch"].run_in_process("torch.take_along_dim", data, idx, {})
    assert out.value.tolist() == reference("torch.take_along_dim", data, idx).tolist() == [0.0, 1.0, 2.0, 3.0]


# -- what frameworks cannot be handed ---------------------------------------------

UNSUPPORTED = [
    ("torch", "torch.take", np.array(["a", "b"]), np.array([0]), {}),
    ("torch", "torch.gather", np.array([1, 2]), np.array(["0"]), {"dim": 0}),
    ("jax", "jax.numpy.take", np.array(["a", "b"]), np.array([0]), {}),
    ("onnxruntime", "onnx.Gather-13", np.array([1, None], dtype=object), np.array([0]), {}),
    ("numpy", "torch.gather", np.array([1.5]), np.array([0]), {"dim": 0}),
]


@pytest.mark.parametrize(
    ("name", "op", "data", "indices", "attrs"),
    UNSUPPORTED,
    ids=[f"{u[0]}:{u[1]}:{u[2].dtype}/{u[3].dtype}" for u in UNSUPPORTED],
)
def test_inputs_the_framework_cannot_hold_are_unsupported_without_a_call(name, op, data, indices, attrs) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name} not here")
    oracle = usable(name)
    oracle_call = oracle.call
    oracle.call = lambda *a: pytest.fail("call() made for unsupported input")  # type: ignore[method-assign]
    try:
        out = oracle.run_in_process(op, data, indices, attrs)
    finally:
        oracle.call = oracle_call  # type: ignore[method-assign]
    assert out.kind is Kind.UNSUPPORTED and out.reason


@pytest.mark.skipif("tensorflow" not in ORACLES, reason="no tensorflow")
def test_tensorflow_answers_object_arrays_itself_gathering_bytes_and_refusing_ints() -> None:
    """Observed, not declared: TF makes tf.string of an object array of bytes and refuses one of ints itself."""
    tf_eager = ORACLES["tensorflow"]
    strings = tf_eager.run_in_process("tensorflow.gather", np.array([b"a", b"bc"], dtype=object), np.array([1]), {})
    assert strings.value.tolist() == [b"bc"]
    ints = tf_eager.run_in_process("tensorflow.gather", np.array([1, None], dtype=object), np.array([0]), {})
    assert ints.kind is Kind.ERROR and "Failed to convert" in (ints.message or "")


OBSERVED = [
    ("tensorflow-xla", "tensorflow.gather", np.array(["a", "b"]), np.array([0]), "InvalidArgumentError"),
    ("onnxruntime", "onnx.Gather-11", np.array([1.5], dtype=BFLOAT16), np.array([0]), "InvalidGraph"),
    ("onnxruntime", "onnx.Gather-13", np.array([1.5, 2.5]), np.array([1.0], np.float32), "InvalidGraph"),
    ("onnx-reference", "onnx.GatherND-13", np.array([1.5]), np.array([[0]], np.int32), None),
    ("onnx-reference", "onnx.Gather-13", np.array([1.5, 2.5]), np.array([1.0], np.float32), None),
    ("openvino-onnx", "onnx.Gather-13", np.array([1 + 2j], np.complex64), np.array([0]), "RuntimeError"),
    ("openvino-onnx", "onnx.GatherND-13", np.array(["a", "b"]), np.array([[0]]), "RuntimeError"),
    ("openvino-onnx", "onnx.Gather-13", np.array(["a", "bé"]), np.array([1]), None),
    ("iree", "onnx.Gather-13", np.array(["a", "b"]), np.array([0]), "CompilerToolError"),
    ("tvm", "onnx.Gather-13", np.array([1 + 2j], np.complex64), np.array([0]), "ValueError"),
]
"""Inputs outside a schema or a compiler's types, run all the same (issues 22 and 39): the framework answers
(onnxruntime refuses the model at session creation, XLA the function at compile time, onnx.reference runs it;
OpenVINO's ONNX front end refuses complex tensors at conversion and its CPU plugin strings in GatherND, IREE strings
at compile time, TVM complex inputs)."""


@pytest.mark.parametrize(
    ("name", "op", "data", "indices", "error_type"), OBSERVED, ids=[f"{o[0]}:{o[1]}:{o[3].dtype}" for o in OBSERVED]
)
def test_inputs_outside_the_schema_are_run_and_the_framework_answers(name, op, data, indices, error_type) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name} not here")
    out = usable(name).run_in_process(op, data, indices, {})
    assert out.kind is not Kind.UNSUPPORTED, out.reason
    if error_type is None:
        assert out.kind is Kind.VALUE, out.message  # onnx.reference gathers with int32 / float32 indices
    else:
        assert (
            out.kind is Kind.ERROR and out.error_type == error_type and out.error_class is ErrorClass.DTYPE_UNSUPPORTED
        )


def test_numpy_holds_object_arrays() -> None:
    out = ORACLES["numpy"].run_in_process("numpy.take", np.array([1, "x", None], dtype=object), np.array([1]), {})
    assert out.kind is Kind.VALUE and out.value.tolist() == ["x"]


def test_cupy_module_imports_and_offers_nothing_without_a_device() -> None:
    assert isinstance(cupy_oracle.oracles_here(), list)


@pytest.mark.parametrize(("name", "op"), PAIRS, ids=[f"{n}:{op}" for n, op in PAIRS])
def test_index_dtypes_outside_the_accepted_set_are_refused_as_dtype_problems(name: str, op: str) -> None:
    oracle = usable(name)
    data = np.arange(3.0)
    for idt in sorted(
        set(INDEX_DTYPES)
        - set(
            ORACLE_INDEX_DTYPES.get(f"{name}:{spec(op).name}", ORACLE_INDEX_DTYPES.get(name, accepted_index_dtypes(op)))
        )
        - set(MASK_INDEX_DTYPES.get(spec(op).name, ()))
        - set(MISREAD_INDEX_DTYPES.get(spec(op).name, ()))
    ):
        indices = np.zeros((1, 1) if spec(op).eq_class.name == "ND" else (1,), dtype=idt)
        out = oracle.run_in_process(op, data, indices, REQUIRED_ATTRS.get(spec(op).name, {}))
        assert out.kind is Kind.UNSUPPORTED or out.error_class is ErrorClass.DTYPE_UNSUPPORTED, (
            f"{idt}: {out.describe()} {out.message}"
        )


# -- real errors, classified ------------------------------------------------------

X = np.arange(3.0)
PROVOKED = [
    ("numpy", "numpy.take", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("numpy", "numpy.take_along_axis", X, [-4], {"axis": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("numpy", "numpy.take", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("torch", "torch.gather", X, [3], {"dim": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.gather", X, [-1], {"dim": 0}, ErrorClass.NEGATIVE_INDEX),
    ("torch", "torch.take", X, [-4], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.take_along_dim", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.index_select", X, [3], {"dim": 0}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.gather", X, [0], {"dim": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("torch", "torch.take", np.arange(3, dtype=np.uint16), [0], {}, ErrorClass.DTYPE_UNSUPPORTED),
    ("tensorflow", "tensorflow.gather", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("tensorflow", "tensorflow.gather", X, [-1], {}, ErrorClass.NEGATIVE_INDEX),
    ("tensorflow", "tensorflow.gather_nd", X, [[3]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("tensorflow", "tensorflow.gather_nd", X, [[-1]], {}, ErrorClass.NEGATIVE_INDEX),
    ("onnxruntime", "onnx.Gather-13", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime", "onnx.GatherElements-13", X, [-4], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime", "onnx.GatherND-13", X, [[3]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime", "onnx.Gather-13", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("onnx-reference", "onnx.Gather-13", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnx-reference", "onnx.GatherND-13", X, [[-4]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("jax", "jax.numpy.take", X, [0], {"mode": "raise"}, ErrorClass.ATTRIBUTE_INVALID),
    ("jax", "jax.numpy.take", X, [0], {"axis": 1}, ErrorClass.ATTRIBUTE_INVALID),
    ("torch", "torch.advanced_indexing", X, [[3]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    (
        "torch",
        "torch.advanced_indexing",
        X,
        [[-4]],
        {},
        ErrorClass.INDEX_OUT_OF_RANGE,
    ),  # negatives wrap: -4 of 3 is out of range
    ("torch", "torch.advanced_indexing", X, [[0, 0]], {}, ErrorClass.SHAPE_INVALID),
    ("torch-compile", "torch.gather", X, [3], {"dim": 0}, ErrorClass.INDEX_OUT_OF_RANGE),  # inductor's own bounds check
    ("tensorflow-numpy", "tensorflow.experimental.numpy.take", X, [0], {"mode": "raise"}, ErrorClass.ATTRIBUTE_INVALID),
    (
        "tensorflow-numpy",
        "tensorflow.experimental.numpy.take_along_axis",
        X,
        [3],
        {"axis": 0},
        ErrorClass.INDEX_OUT_OF_RANGE,
    ),
    ("tensorflow-function", "tensorflow.gather", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime-noopt", "onnx.Gather-13", X, [3], {}, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime-static", "onnx.GatherND-13", X, [[3]], {}, ErrorClass.INDEX_OUT_OF_RANGE),
]


@pytest.mark.parametrize(
    ("name", "op", "data", "indices", "attrs", "expected"),
    PROVOKED,
    ids=[f"{p[0]}:{p[1]}:{p[3]}:{p[4]}" for p in PROVOKED],
)
def test_real_errors_are_classified(name, op, data, indices, attrs, expected) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name} not here")
    out = usable(name).run_in_process(op, data, np.array(indices), attrs)
    assert out.kind is Kind.ERROR, out.describe()
    assert out.error_class is expected, out.message


# -- what each framework does with negative and out-of-range indices (baseline seed)

PROBES: dict[tuple[str, str], tuple[Any, Any, Any]] = {
    # (oracle, op): outcome for indices -1, 3, -4 on [0., 1., 2.]: a value list or an ErrorClass
    ("numpy", "numpy.take"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.take"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
    ("torch", "torch.take_along_dim"): ([2.0], [0.0], [2.0]),  # with dim=0: silently modulo
    ("torch", "torch.index_select"): (ErrorClass.INDEX_OUT_OF_RANGE,) * 3,
    ("tensorflow-xla", "tensorflow.gather"): ([0.0], [2.0], [0.0]),  # XLA clamps the raw index
    ("tensorflow-xla", "tensorflow.gather_nd"): ([0.0], [2.0], [0.0]),
    ("onnxruntime", "onnx.Gather-1"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnx-reference", "onnx.GatherElements-13"): ([2.0], [0.0], [2.0]),  # silently modulo
    ("jax", "jax.numpy.take"): ([2.0], [np.nan], [np.nan]),
    ("jax", "jax.advanced_indexing"): ([2.0], [2.0], [0.0]),  # wrap negatives once, then clamp
    ("jax-default", "jax.advanced_indexing"): ([2.0], [2.0], [0.0]),
    ("jax", "jax.lax.gather"): ([0.0], [2.0], [0.0]),  # clamps the raw value: -1 -> 0
    ("torch", "torch.advanced_indexing"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
    ("tensorflow-numpy", "tensorflow.experimental.numpy.take"): ([0.0], [2.0], [0.0]),  # mode="clip" by default
    ("tensorflow-numpy", "tensorflow.experimental.numpy.take_along_axis"): (
        [2.0],
        ErrorClass.INDEX_OUT_OF_RANGE,
        ErrorClass.INDEX_OUT_OF_RANGE,
    ),
    ("tensorflow-function", "tensorflow.gather"): (
        ErrorClass.NEGATIVE_INDEX,
        ErrorClass.INDEX_OUT_OF_RANGE,
        ErrorClass.NEGATIVE_INDEX,
    ),
    ("onnxruntime-noopt", "onnx.Gather-13"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
    ("onnxruntime-static", "onnx.Gather-13"): ([2.0], ErrorClass.INDEX_OUT_OF_RANGE, ErrorClass.INDEX_OUT_OF_RANGE),
}


@pytest.mark.parametrize(("name", "op"), list(PROBES), ids=[f"{n}:{op}" for n, op in PROBES])
def test_negative_and_out_of_range_behaviour_is_as_probed(name: str, op: str) -> None:
    if name not in ORACLES:
        pytest.skip(f"{name} not here")
    attrs = (
        {"dim": 0} if op in ("torch.take_along_dim", "torch.index_select") else REQUIRED_ATTRS.get(spec(op).name, {})
    )
    for value, expected in zip((-1, 3, -4), PROBES[name, op]):
        idx = np.array([[value]] if spec(op).eq_class.name == "ND" else [value])
        out = usable(name).run_in_process(op, X, idx, attrs)
        if isinstance(expected, ErrorClass):
            assert out.error_class is expected, (value, out.describe())
        else:
            assert out.kind is Kind.VALUE and np.array_equal(out.value, expected, equal_nan=True), (
                value,
                out.describe(),
            )
