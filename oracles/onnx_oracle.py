"""ONNX: single-node models of ``Gather`` (1, 11, 13), ``GatherElements``
(11, 13) and ``GatherND`` (11, 12, 13), run by onnxruntime and by
``onnx.reference.ReferenceEvaluator`` ("onnx-reference").

onnxruntime runs in the session modes of :data:`ORT_MODES` on the CPU
execution provider: "onnxruntime" (every graph optimization, symbolic
shapes), "onnxruntime-noopt" (``ORT_DISABLE_ALL``) and "onnxruntime-static"
(every optimization, the case's own shapes fixed in the model); and in the
default mode on each other compute provider installed
("onnxruntime-<provider>"; :func:`unavailable_here` says why CUDA is not).

By default one model serves every shape: its inputs have symbolic dimensions
(``dim_param``) and only their element types and ranks are fixed. Its IR
version is the lowest that carries the opset, which every onnxruntime reads.
Every dtype with an ONNX element type is written into the model as it is,
whether or not the op's schema (at that opset) allows it (bfloat16 before
opset 13, int8 or float indices): the runtime's answer is the outcome
(onnxruntime refuses such a model at session creation; onnx.reference may run
it). Only a dtype ONNX cannot write at all (Python objects) is unsupported.

>>> import numpy as np
>>> ort = oracles_here()[0]
>>> ort.run_in_process("onnx.Gather-13", np.array([[1, 2], [3, 4]]), np.array([-1]), {"axis": 0}).value.tolist()
[[3, 4]]
>>> ort.run_in_process("onnx.Gather-11", np.array([1, 2]), np.array([0], np.int8), {}).error_type  # at session creation
'InvalidGraph'
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from conformance.core.arrays import BFLOAT16, as_dtype
from conformance.core.case import Case, OpKey
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import Snippet
from conformance.execution.scripts import EAGER, value_source
from oracles._common import STRINGS_LIKE, FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

ONNX_OPS = (
    "onnx.Gather-1",
    "onnx.Gather-11",
    "onnx.Gather-13",
    "onnx.GatherElements-11",
    "onnx.GatherElements-13",
    "onnx.GatherND-11",
    "onnx.GatherND-12",
    "onnx.GatherND-13",
)

ONNX_UNITS = tuple(OpUnit(op, "run_model(MODEL, data, indices)") for op in ONNX_OPS)
"""Every ONNX op runs the same way: the op itself is the single-node ``MODEL``
(:func:`model_bytes`: its node type and opset from the key, its attributes as given)."""

NOT_COMPUTE_PROVIDERS = ("CPUExecutionProvider", "AzureExecutionProvider")
"""CPU gets the plain "onnxruntime" name; Azure runs remote endpoints, not kernels."""


@dataclass(frozen=True)
class OrtMode:
    """One way of running a session: a name suffix, the mode's words, the
    ``GraphOptimizationLevel`` and whether the model's input shapes are the case's own."""

    suffix: str
    words: str
    optimization: str
    static_shapes: bool


ORT_MODES = (
    OrtMode("", "session", "ORT_ENABLE_ALL", False),
    OrtMode("noopt", "session (no optimizations)", "ORT_DISABLE_ALL", False),
    OrtMode("static", "session (static shapes)", "ORT_ENABLE_ALL", True),
)
"""onnxruntime's execution modes on the CPU, each an oracle: "onnxruntime", "onnxruntime-noopt",
"onnxruntime-static"."""

ONNX_PATTERNS: Patterns = (
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        ("out of bounds", "out of range", "must be within the inclusive range", "invalid index"),
    ),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        (
            "could not find an implementation",
            "not implemented",
            "type error",
            "unsupported type*",
            "is invalid",
            "unexpected input data type",
            "type mismatch",
            "not currently registered",
            "can't be converted to mldatatype",
        ),
    ),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "batch_dims")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*")),
)

COMPILED_MODEL_RUNNER = """

@functools.lru_cache(maxsize=256)
def built(model):
    \"\"\"The model compiled, or the exception its compilation raised: a model that fails to compile or load fails
    the same way every time, and compiling it again for each case made the run after a warm-up compile too (IREE's
    rank-30 GatherND: "dispatch requiring 66 constants exceeds limit of 64", 2 to 6 s a time, a "hang" on a busy
    machine; issue 43).\"\"\"
    try:
        return compiled(model), None
    except Exception as exc:  # noqa: BLE001 - the case's answer, kept
        return None, exc


def run_model(model, data, indices):
    module, failure = built(model)
    if failure is not None:
        raise failure
    return module(data, indices)
"""
"""The tail of the prelude of an oracle that compiles each model itself (IREE, TVM; the prelude imports
``functools`` and defines ``compiled(model)``): ``run_model`` runs the module ``compiled(model)`` gave, one per
model, keeping a failure to compile or load with the model as it keeps a module."""

ORT_PRELUDE = (
    """
import ctypes
import functools

import numpy as np
import onnxruntime as ort

ort.set_default_logger_severity(4)  # kernel errors are outcomes: don't also log them
BFLOAT16 = 16  # onnx.TensorProto.BFLOAT16


@functools.lru_cache(maxsize=256)
def session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPTIMIZATION)
    return ort.InferenceSession(model, options, providers=PROVIDERS)


def to_native(a):
    \"\"\"What onnxruntime takes: bfloat16 (no ORT input type in NumPy) as an OrtValue of its bits, strings as str
    objects.\"\"\"
    if a.dtype.name == "bfloat16":
        bits = np.require(a, requirements="C").view(np.uint16)
        return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, BFLOAT16)
    return a.astype(object) if a.dtype.kind in "US" else a


def run_model(model, data, indices):
    feed = {"data": data, "indices": indices}
    if not any(isinstance(v, ort.OrtValue) for v in feed.values()):
        return session(model).run(None, feed)[0]
    feed = {
        k: v if isinstance(v, ort.OrtValue) else ort.OrtValue.ortvalue_from_numpy(np.require(v, requirements="C"))
        for k, v in feed.items()
    }
    return session(model).run_with_ort_values(None, feed)[0]


def to_numpy(x, like):
    \"\"\"The answer as NumPy: a bfloat16 OrtValue's bytes copied out (ORT has no NumPy type for it),
    strings (str objects) in like's own string dtype.\"\"\"
    if isinstance(x, ort.OrtValue):
        size = x.tensor_size_in_bytes()
        raw = ctypes.string_at(x.data_ptr(), size) if size else b""
        return np.frombuffer(raw, dtype=like.dtype).reshape(x.shape()).copy()
    value = np.asarray(x)
    return strings_like(value, like) if like.dtype.kind in "US" else value
"""
    + STRINGS_LIKE
)

REFERENCE_PRELUDE = (
    """
import functools

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator


@functools.lru_cache(maxsize=256)
def session(model):
    return ReferenceEvaluator(onnx.load_from_string(model))


def to_native(a):
    return a.astype(object) if a.dtype.kind in "US" else a


def run_model(model, data, indices):
    return session(model).run(None, {"data": data, "indices": indices})[0]


def to_numpy(x, like):
    value = np.asarray(x)
    return strings_like(value, like) if like.dtype.kind in "US" else value
"""
    + STRINGS_LIKE
)


def tensor_type(dtype: np.dtype) -> int:
    """The ONNX element type of a NumPy dtype (unicode and bytes are STRING).

    >>> from onnx import TensorProto
    >>> (tensor_type(np.dtype("<U3")) == TensorProto.STRING,
    ...  tensor_type(as_dtype("bfloat16")) == TensorProto.BFLOAT16 == 16)
    (True, True)
    """
    import onnx

    if dtype.kind in "US":
        return onnx.TensorProto.STRING
    return onnx.helper.np_dtype_to_tensor_dtype(dtype)


def node_and_opset(op: str) -> tuple[str, int]:
    """The node type and opset of an ONNX catalog key.

    >>> node_and_opset("onnx.GatherND-12")
    ('GatherND', 12)
    """
    key = OpKey.parse(op)
    if key.framework != "onnx" or key.opset is None:
        raise ValueError(f"{op} is no ONNX op with an opset")
    return key.name, key.opset


def type_problem(dtype: np.dtype) -> str | None:
    """Why ``dtype`` cannot be written in an ONNX model at all (no ONNX element type), or None.
    A type the op's schema does not allow is written all the same: the runtime answers
    (onnxruntime refuses the model at session creation, onnx.reference may run it).

    >>> type_problem(np.dtype("float32")) is None, type_problem(np.dtype("int8")) is None
    (True, True)
    >>> type_problem(np.dtype("O"))
    'ONNX has no tensor type for Python objects'
    """
    if dtype.kind == "O":
        return "ONNX has no tensor type for Python objects"
    try:
        tensor_type(dtype)
    except (KeyError, TypeError, ValueError) as exc:
        return f"ONNX has no tensor type for {dtype}: {exc}"
    return None


Dims = tuple[int | str, ...]


def attribute_problem(value: Any) -> str | None:
    """Why no single-node model can carry ``value`` as an attribute, or None.
    ONNX attributes are typed protobuf fields with no bool, no None and no
    integer held in an array: ``onnx.helper.make_node`` writes a bool as the
    INT 1 and drops None (the op's default applies), so no model gives a
    runtime either (run, the case would be another one: the baseline's
    reviews by hand found eight findings that were these); it refuses a 0-d
    array ("iteration over a 0-d array"), and a TENSOR attribute would be
    another type than the integer the case means. A NumPy integer is what a
    user writes and ``make_node`` takes: it is the INT it holds, and runs; so
    do a float or a string (a FLOAT or STRING attribute), which the runtime must
    judge.

    >>> [attribute_problem(v) is None for v in (1, -2**63, 1.5, "raise", np.int64(1))]
    [True, True, True, True, True]
    >>> attribute_problem(None)
    'ONNX has no None attribute: onnx.helper drops it and the default applies (no model gives a runtime None)'
    >>> attribute_problem(True)
    'ONNX has no bool attribute: onnx.helper writes True as the INT 1 (no model gives a runtime a bool)'
    """
    if value is None:
        return (
            "ONNX has no None attribute: onnx.helper drops it and the default applies (no model gives a runtime None)"
        )
    if isinstance(value, (bool, np.bool_)):
        return (
            f"ONNX has no bool attribute: onnx.helper writes {value!r} as the INT {int(value)} "
            "(no model gives a runtime a bool)"
        )
    if isinstance(value, np.ndarray):
        return (
            "ONNX has no integer attribute held in an array: onnx.helper refuses a 0-d array, and a TENSOR "
            "attribute is another type than the integer it holds"
        )
    return None


def _dims(shape: int | Dims, prefix: str) -> Dims:
    """A rank as symbolic dimensions (``d0, d1, ...``), or a shape as it is.

    >>> _dims(2, "d"), _dims((3, 0), "d")
    (('d0', 'd1'), (3, 0))
    """
    return tuple(f"{prefix}{i}" for i in range(shape)) if isinstance(shape, int) else tuple(shape)


@functools.lru_cache(maxsize=256)
def _model_bytes(
    op: str, data_type: int, index_type: int, data_dims: Dims, index_dims: Dims, attrs: tuple[tuple[str, Any], ...]
) -> bytes:
    from onnx import helper

    name, opset = node_and_opset(op)
    node = helper.make_node(name, ["data", "indices"], ["output"], **dict(attrs))
    graph = helper.make_graph(
        [node],
        f"{name.lower()}_{opset}",
        [
            helper.make_tensor_value_info("data", data_type, list(data_dims)),
            helper.make_tensor_value_info("indices", index_type, list(index_dims)),
        ],
        [helper.make_tensor_value_info("output", data_type, None)],
    )
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="gather-conformance")
    model.ir_version = helper.find_min_ir_version_for(opsets)  # onnx 1.23 writes IR 14, which onnxruntime 1.31 refuses
    return model.SerializeToString()


def model_bytes(
    op: str,
    data_dtype: Any,
    index_dtype: Any,
    data_shape: int | Dims,
    index_shape: int | Dims,
    attrs: Mapping[str, Any],
) -> bytes:
    """The serialized single-node model for ``op`` (a catalog key such as
    ``"onnx.Gather-13"``) with these element types and exactly these
    attributes (ONNX's defaults apply to the others); a shape given as a rank
    has symbolic dimensions, a tuple gives each (a size, or a name for a symbolic one). Its IR version is the lowest
    that carries the opset.

    >>> import onnx
    >>> m = onnx.load_from_string(model_bytes("onnx.GatherND-12", "float32", "int64", 3, 2, {"batch_dims": 1}))
    >>> m.ir_version, m.opset_import[0].version, m.graph.input[0].type.tensor_type.shape.dim[2].dim_param
    (7, 12, 'd2')
    >>> onnx.load_from_string(model_bytes("onnx.Gather-13", "float32", "int64", (4, 3), (2,),
    ...     {})).graph.input[0].type.tensor_type.shape.dim[0].dim_value
    4
    """
    items = tuple(sorted(attrs.items()))
    data_dims, index_dims = _dims(data_shape, "d"), _dims(index_shape, "i")
    return _model_bytes(
        op, tensor_type(as_dtype(data_dtype)), tensor_type(as_dtype(index_dtype)), data_dims, index_dims, items
    )


def model_lines(
    op: str, data_dtype: Any, index_dtype: Any, data_dims: Dims, index_dims: Dims, attrs: Mapping[str, Any]
) -> tuple[str, ...]:
    """The model of :func:`model_bytes` as a short script builds it with ``onnx.helper`` (the same node,
    graph name, inputs, opset and IR version; only the producer's name is left out), into ``model``.

    >>> import onnx
    >>> lines = model_lines("onnx.Gather-13", "float32", "int64", ("d0",), ("i0",), {"axis": 0})
    >>> print(lines[0])
    node = onnx.helper.make_node('Gather', ['data', 'indices'], ['output'], axis=0)
    >>> built = {"onnx": onnx}
    >>> exec("\\n".join(lines), built)
    >>> m = onnx.load_from_string(model_bytes("onnx.Gather-13", "float32", "int64", 1, 1, {"axis": 0}))
    >>> m.ClearField("producer_name")
    >>> built["model"] == m
    True
    """
    import onnx
    from onnx import helper

    name, opset = node_and_opset(op)
    kwargs = "".join(f", {k}={value_source(v)}" for k, v in sorted(attrs.items()))
    types = [onnx.TensorProto.DataType.Name(tensor_type(as_dtype(d))) for d in (data_dtype, index_dtype)]
    ir_version = helper.find_min_ir_version_for([helper.make_opsetid("", opset)])
    info = "onnx.helper.make_tensor_value_info"
    return (
        f"node = onnx.helper.make_node({name!r}, ['data', 'indices'], ['output']{kwargs})",
        f"data_info = {info}('data', onnx.TensorProto.{types[0]}, {list(data_dims)!r})",
        f"indices_info = {info}('indices', onnx.TensorProto.{types[1]}, {list(index_dims)!r})",
        f"output_info = {info}('output', onnx.TensorProto.{types[0]}, None)",
        f"graph = onnx.helper.make_graph([node], '{name.lower()}_{opset}', [data_info, indices_info], [output_info])",
        f"opsets = [onnx.helper.make_opsetid('', {opset})]  # IR {ir_version}, the lowest for it (onnx would write 14)",
        f"model = onnx.helper.make_model(graph, opset_imports=opsets, ir_version={ir_version})",
    )


class OnnxOracle(FrameworkOracle):
    """An ONNX runtime: the op is a single-node ``MODEL`` its reproducer embeds and attaches (``model.onnx``)."""

    patterns = ONNX_PATTERNS

    fixed_tuple_length = False
    """GatherND's index tuple length (``indices.shape[-1]``) fixed in a symbolic-shape model: compilers that
    need the output's rank at compile time (IREE, TVM) cannot take it symbolic."""

    def __init__(self, info: OracleInfo, prelude: str, static_shapes: bool = False) -> None:
        super().__init__(info, prelude, EAGER, ONNX_UNITS)
        self.static_shapes = static_shapes

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        return type_problem(a.dtype)

    def unsupported_reason(
        self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]
    ) -> str | None:
        """Also a case whose attribute a model cannot carry as it is
        (:func:`attribute_problem`): the runtime would see another value.

        >>> OnnxOracle.unsupported_reason(OrtOracle(), "onnx.Gather-13", np.zeros(2), np.zeros(1, int), {"axis": True})
        'onnxruntime: axis=True: ONNX has no bool attribute: onnx.helper writes True as the INT 1 (no model gives a \
runtime a bool)'
        """
        reason = super().unsupported_reason(op, data, indices, attrs)
        if reason:
            return reason
        for name, value in attrs.items():
            if problem := attribute_problem(value):
                return f"{self.name}: {name}={value!r}: {problem}"
        return None

    def model_shapes(self, op: str, data: np.ndarray, indices: np.ndarray) -> tuple[int | Dims, int | Dims]:
        """The shapes of the model's inputs (see :func:`model_bytes`): the case's own with static shapes,
        else their ranks (symbolic dimensions), GatherND's index tuple length fixed where the runtime needs it."""
        if self.static_shapes:
            return data.shape, indices.shape
        index_dims: int | Dims = indices.ndim
        if self.fixed_tuple_length and node_and_opset(op)[0] == "GatherND" and indices.ndim:
            index_dims = (*_dims(indices.ndim - 1, "i"), indices.shape[-1])
        return data.ndim, index_dims

    def constants(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]) -> dict[str, bytes]:
        data_dims, index_dims = self.model_shapes(op, data, indices)
        return {"MODEL": model_bytes(op, data.dtype, indices.dtype, data_dims, index_dims, attrs)}

    def call_snippet(self, case: Case) -> Snippet | None:
        """The op as the single-node model a short script builds (:func:`model_lines`, the very model this
        oracle runs), then run as :meth:`snippet` (the runtime's frame) says: its run lines follow the model's.

        >>> s = ReferenceOracle().call_snippet(Case("onnx.GatherND-13", np.zeros((2, 2)), np.array([[1]])))
        >>> s.imports, s.run[1], s.run[-1]
        (('import onnx', 'from onnx.reference import ReferenceEvaluator'), \
"data_info = onnx.helper.make_tensor_value_info('data', onnx.TensorProto.DOUBLE, ['d0', 'd1'])", \
"out = ReferenceEvaluator(model).run(None, {'data': data, 'indices': indices})[0]")
        """
        frame = self.snippet(case)
        if frame is None:
            return None
        data, indices = np.asarray(case.data), np.asarray(case.indices)
        shapes = self.model_shapes(case.op, data, indices)
        dims = (_dims(shapes[0], "d"), _dims(shapes[1], "i"))
        lines = model_lines(case.op, data.dtype, indices.dtype, *dims, case.attrs)
        return replace(frame, imports=("import onnx", *frame.imports), run=(*lines, *frame.run))

    def attachments(self, constants: Mapping[str, bytes]) -> dict[str, bytes]:
        return {"model.onnx": constants["MODEL"]}


class OrtOracle(OnnxOracle):
    """onnxruntime with one execution provider (CPU as fallback for others), in one of :data:`ORT_MODES`.

    >>> from conformance.core.arrays import BFLOAT16
    >>> OrtOracle().run_in_process("onnx.Gather-13", np.array([1.5, -0.0], BFLOAT16), np.array([1, 0]),
    ...     {}).value.tolist()
    [-0.0, 1.5]
    """

    def __init__(self, provider: str = "CPUExecutionProvider", mode: OrtMode = ORT_MODES[0]) -> None:
        import onnxruntime as ort

        short = provider.removesuffix("ExecutionProvider").lower()
        name = "-".join(part for part in ("onnxruntime", "" if short == "cpu" else short, mode.suffix) if part)
        providers = [provider] if provider == "CPUExecutionProvider" else [provider, "CPUExecutionProvider"]
        info = OracleInfo(
            name, "onnxruntime", ort.__version__, "cpu" if short == "cpu" else f"{short}:0", mode.words, ONNX_OPS
        )
        settings = (
            f"\nPROVIDERS = {providers!r}\nOPTIMIZATION = {mode.optimization!r}  # onnxruntime.GraphOptimizationLevel\n"
        )
        super().__init__(info, ORT_PRELUDE + settings, mode.static_shapes)
        self.providers, self.optimization = providers, mode.optimization

    def snippet(self, case: Case) -> Snippet:
        """A session on the model (its optimization level where it is not onnxruntime's default, ORT_ENABLE_ALL),
        run on NumPy feeds (strings as str objects); bfloat16, which NumPy cannot hand to onnxruntime, as
        OrtValues of its bits, the answer read back from its buffer.

        >>> s = OrtOracle(mode=ORT_MODES[1]).snippet(Case("onnx.Gather-13", np.zeros(2), np.array([1])))
        >>> s.run[1]
        'options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL'
        """
        arrays = [np.asarray(case.data), np.asarray(case.indices)]
        options: tuple[str, ...] = ()
        if self.optimization != "ORT_ENABLE_ALL":
            level = f"ort.GraphOptimizationLevel.{self.optimization}"
            options = ("options = ort.SessionOptions()", f"options.graph_optimization_level = {level}")
        given = ", options" if options else ""
        session = f"session = ort.InferenceSession(model.SerializeToString(){given}, providers={self.providers!r})"
        feed = "{'data': data, 'indices': indices}"
        if not any(a.dtype == BFLOAT16 for a in arrays):
            natives = ["{array}.astype(object)" if a.dtype.kind in "US" else "{array}" for a in arrays]
            run = (*options, session, f"out = session.run(None, {feed})[0]")
            return Snippet(("import onnxruntime as ort",), data=natives[0], indices=natives[1], run=run)
        natives = [
            "ort.OrtValue.ortvalue_from_numpy_with_onnx_type({array}.view(np.uint16), 16)  # 16: BFLOAT16"
            if a.dtype == BFLOAT16
            else "ort.OrtValue.ortvalue_from_numpy({array})"
            for a in arrays
        ]
        run = (*options, session, f"out = session.run_with_ort_values(None, {feed})[0]")
        bits = "{'data': ({out}.data_ptr(), True), 'shape': tuple({out}.shape()), 'typestr': '<u2', 'version': 3}"
        output = "np.array(type('Bits', (), {'__array_interface__': " + bits + "})()).view(ml_dtypes.bfloat16)"
        if arrays[0].dtype != BFLOAT16:
            output = "{out}.numpy()"
        return Snippet(("import onnxruntime as ort",), data=natives[0], indices=natives[1], run=run, output=output)


class ReferenceOracle(OnnxOracle):
    """``onnx.reference.ReferenceEvaluator``, ONNX's executable specification."""

    def __init__(self) -> None:
        import onnx

        super().__init__(
            OracleInfo("onnx-reference", "onnx", onnx.__version__, "cpu", "reference", ONNX_OPS), REFERENCE_PRELUDE
        )

    def snippet(self, case: Case) -> Snippet:
        """The model run by ``ReferenceEvaluator`` on NumPy feeds (strings as str objects)."""
        natives = [
            "{array}.astype(object)" if np.asarray(a).dtype.kind in "US" else "{array}"
            for a in (case.data, case.indices)
        ]
        run = ("out = ReferenceEvaluator(model).run(None, {'data': data, 'indices': indices})[0]",)
        return Snippet(("from onnx.reference import ReferenceEvaluator",), data=natives[0], indices=natives[1], run=run)


def _ort_oracles() -> list[Oracle]:
    import onnxruntime as ort

    others = [p for p in ort.get_available_providers() if p not in NOT_COMPUTE_PROVIDERS]
    return [*(OrtOracle(mode=m) for m in ORT_MODES), *(OrtOracle(p) for p in others)]


def oracles_here() -> list[Oracle]:
    """onnxruntime (CPU, plus any other compute provider) and the ONNX reference evaluator."""
    return when_installed(("onnxruntime", "onnx"), _ort_oracles) + when_installed(
        ("onnx",), lambda: [ReferenceOracle()]
    )


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'onnxruntime-cuda': 'onnxruntime 1.31.1 has no CUDAExecutionProvider here (providers: AzureExecutionProvider,
    CPUExecutionProvider)'}
    """
    import importlib.util

    if importlib.util.find_spec("onnxruntime") is None:
        return {"onnxruntime-cuda": "onnxruntime is not installed"}
    import onnxruntime as ort

    providers = ort.get_available_providers()
    if "CUDAExecutionProvider" in providers:
        return {}
    return {
        "onnxruntime-cuda": f"onnxruntime {ort.__version__} has no CUDAExecutionProvider here (providers: "
        f"{', '.join(providers)})"
    }
