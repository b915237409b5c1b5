"""ONNX: single-node models of ``Gather`` (1, 11, 13), ``GatherElements``
(11, 13) and ``GatherND`` (11, 12, 13), run by onnxruntime ("onnxruntime" on
the CPU execution provider, "onnxruntime-<provider>" for each other compute
provider installed) and by ``onnx.reference.ReferenceEvaluator``
("onnx-reference").

One model serves every shape: its inputs have symbolic dimensions
(``dim_param``) and only their element types and ranks are fixed. Its IR
version is the lowest that carries the opset, which every onnxruntime reads.
A dtype is unsupported when the op's ONNX schema (at that opset) has no type
for it, e.g. bfloat16 before opset 13 or int8 indices; a type the schema
allows but a runtime has no kernel for is that runtime's *error*.

>>> import numpy as np
>>> ort = oracles_here()[0]
>>> ort.run_in_process("onnx.Gather-13", np.array([[1, 2], [3, 4]]), np.array([-1]), {"axis": 0}).value.tolist()
[[3, 4]]
>>> ort.run_in_process("onnx.Gather-11", np.array([1, 2]), np.array([0], np.int8), {}).describe()
'not supported: onnxruntime: indices dtype int8: onnx.Gather-11 (opset 11) has no type tensor(int8) for its indices'
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from conformance.arrays import BFLOAT16, to_numpy
from oracles._common import FrameworkOracle, Patterns, bound, is_text, safely, strings_like
from conformance.model import ErrorClass
from oracles.base import Oracle

ONNX_OPS = ("onnx.Gather-1", "onnx.Gather-11", "onnx.Gather-13", "onnx.GatherElements-11", "onnx.GatherElements-13",
            "onnx.GatherND-11", "onnx.GatherND-12", "onnx.GatherND-13")  # fmt: skip

NOT_COMPUTE_PROVIDERS = ("CPUExecutionProvider", "AzureExecutionProvider")
"""CPU gets the plain "onnxruntime" name; Azure runs remote endpoints, not kernels."""

ONNX_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("out of bounds", "out of range", "must be within the inclusive range", "invalid index")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("could not find an implementation", "not implemented", "type error", "unsupported type",
                                    "is invalid", "unexpected input data type", "type mismatch", "not currently registered",
                                    "can't be converted to mldatatype")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "batch_dims")),
    (ErrorClass.SHAPE_INVALID, ("shape", "rank", "dimension")),
)  # fmt: skip


def split_key(op: str) -> tuple[str, int]:
    """``("Gather", 13)`` for ``"onnx.Gather-13"``.

    >>> split_key("onnx.GatherND-12")
    ('GatherND', 12)
    """
    name, opset = op.split(".", 1)[1].rsplit("-", 1)
    return name, int(opset)


def tensor_type(dtype: np.dtype) -> int:
    """The ONNX element type of a NumPy dtype (unicode and bytes are STRING).

    >>> from onnx import TensorProto
    >>> tensor_type(np.dtype("<U3")) == TensorProto.STRING
    True
    """
    import onnx

    if dtype.kind in "US":
        return onnx.TensorProto.STRING
    return onnx.helper.np_dtype_to_tensor_dtype(dtype)


def schema_problem(op: str, arg: str, dtype: np.dtype) -> str | None:
    """Why the ONNX schema of ``op`` has no place for ``dtype`` as ``arg``, or None.

    >>> schema_problem("onnx.Gather-11", "data", np.dtype("float32")) is None
    True
    """
    import onnx

    if dtype.kind == "O":
        return "ONNX has no object tensors"
    name, opset = split_key(op)
    schema = onnx.defs.get_schema(name, opset)
    formal = schema.inputs[0 if arg == "data" else 1]
    allowed = next((c.allowed_type_strs for c in schema.type_constraints if c.type_param_str == formal.type_str), [formal.type_str])
    type_str = f"tensor({onnx.helper.tensor_dtype_to_string(tensor_type(dtype)).split('.')[-1].lower()})"
    if type_str not in allowed:
        return f"{op} (opset {opset}) has no type {type_str} for its {arg}"
    return None


@functools.lru_cache(maxsize=256)
def _model_bytes(op: str, data_type: int, index_type: int, data_rank: int, index_rank: int, attrs: tuple[tuple[str, Any], ...]) -> bytes:
    from onnx import helper

    name, opset = split_key(op)
    node = helper.make_node(name, ["data", "indices"], ["output"], **dict(attrs))
    graph = helper.make_graph(
        [node],
        f"{name.lower()}_{opset}",
        [helper.make_tensor_value_info("data", data_type, [f"d{i}" for i in range(data_rank)]),
         helper.make_tensor_value_info("indices", index_type, [f"i{i}" for i in range(index_rank)])],
        [helper.make_tensor_value_info("output", data_type, None)],
    )  # fmt: skip
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="gather-conformance")
    model.ir_version = helper.find_min_ir_version_for(opsets)
    return model.SerializeToString()


def model_bytes(op: str, data_dtype: Any, index_dtype: Any, data_rank: int, index_rank: int, attrs: dict[str, Any]) -> bytes:
    """The serialized single-node model for ``op`` (a catalog key such as
    ``"onnx.Gather-13"``) with these element types and ranks; every dimension
    is symbolic. Attributes at their catalog defaults are written anyway.

    >>> import onnx
    >>> m = onnx.load_from_string(model_bytes("onnx.GatherND-12", "float32", "int64", 3, 2, {"batch_dims": 1}))
    >>> m.ir_version, m.opset_import[0].version, m.graph.input[0].type.tensor_type.shape.dim[2].dim_param
    (7, 12, 'd2')
    """
    from conformance.arrays import as_dtype

    items = tuple(sorted(bound(op, attrs).items()))
    return _model_bytes(op, tensor_type(as_dtype(data_dtype)), tensor_type(as_dtype(index_dtype)), data_rank, index_rank, items)


class OnnxOracle(FrameworkOracle):
    """An ONNX runtime; subclasses make and run a session for one model."""

    patterns = ONNX_PATTERNS

    def __init__(self, name: str, framework: str, version: str, device: str, mode: str) -> None:
        super().__init__(name, framework, version, device, mode, ONNX_OPS)
        self._sessions: dict[tuple[Any, ...], Any] = {}

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        return schema_problem(op, arg, a.dtype)

    def session(self, model: bytes) -> Any:
        """A runner for ``model``."""
        raise NotImplementedError

    def run_session(self, session: Any, data: np.ndarray, indices: np.ndarray) -> Any:
        """Run ``session`` on the two inputs; the output as an array."""
        return session.run(None, {"data": data, "indices": indices})[0]

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        key = (op, tuple(sorted(bound(op, attrs).items())), data.dtype.str, indices.dtype.str, data.ndim, indices.ndim)
        if key not in self._sessions:
            self._sessions[key] = self.session(model_bytes(op, data.dtype, indices.dtype, data.ndim, indices.ndim, attrs))
        value = to_numpy(self.run_session(self._sessions[key], data.astype(object) if is_text(data) else data, indices))
        return strings_like(value, data) if is_text(data) else value


class OrtOracle(OnnxOracle):
    """onnxruntime with one execution provider (CPU as fallback for others)."""

    def __init__(self, provider: str = "CPUExecutionProvider") -> None:
        import onnxruntime as ort

        short = provider.removesuffix("ExecutionProvider").lower()
        name = "onnxruntime" if provider == "CPUExecutionProvider" else f"onnxruntime-{short}"
        super().__init__(name, "onnxruntime", ort.__version__, "cpu" if short == "cpu" else f"{short}:0", "session")
        self.providers = [provider] if provider == "CPUExecutionProvider" else [provider, "CPUExecutionProvider"]

    def session(self, model: bytes) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 4
        options.intra_op_num_threads = 1
        return ort.InferenceSession(model, options, providers=self.providers)

    def run_session(self, session: Any, data: np.ndarray, indices: np.ndarray) -> Any:
        if data.dtype != BFLOAT16:
            return super().run_session(session, data, indices)
        return run_bfloat16(session, data, indices)


def run_bfloat16(session: Any, data: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Run an onnxruntime session on bfloat16 ``data``: NumPy's ml_dtypes
    bfloat16 is not an ORT input type, so its bits go in as an OrtValue typed
    BFLOAT16 and the output's bytes are copied out (ORT has no NumPy type for it).

    >>> from conformance.arrays import BFLOAT16
    >>> ort = OrtOracle()
    >>> s = ort.session(model_bytes("onnx.Gather-13", "bfloat16", "int64", 1, 1, {}))
    >>> run_bfloat16(s, np.array([1.5, -0.0], BFLOAT16), np.array([1, 0])).tolist()
    [-0.0, 1.5]
    """
    import ctypes

    import onnx
    import onnxruntime as ort

    feed = {
        "data": ort.OrtValue.ortvalue_from_numpy_with_onnx_type(np.asarray(data, order="C").view(np.uint16), onnx.TensorProto.BFLOAT16),
        "indices": ort.OrtValue.ortvalue_from_numpy(np.asarray(indices, order="C")),
    }
    (out,) = session.run_with_ort_values(None, feed)
    raw = ctypes.string_at(out.data_ptr(), out.tensor_size_in_bytes()) if out.tensor_size_in_bytes() else b""
    return np.frombuffer(raw, dtype=BFLOAT16).reshape(out.shape()).copy()


class ReferenceOracle(OnnxOracle):
    """``onnx.reference.ReferenceEvaluator``, ONNX's executable specification."""

    def __init__(self) -> None:
        import onnx

        super().__init__("onnx-reference", "onnx", onnx.__version__, "cpu", "reference")

    def session(self, model: bytes) -> Any:
        import onnx
        from onnx.reference import ReferenceEvaluator

        return ReferenceEvaluator(onnx.load_from_string(model))


def _ort_oracles() -> list[Oracle]:
    import onnxruntime as ort

    _quiet_ort()
    others = [p for p in ort.get_available_providers() if p not in NOT_COMPUTE_PROVIDERS]
    return [OrtOracle()] + [OrtOracle(p) for p in others]


def oracles_here() -> list[Oracle]:
    """onnxruntime (CPU, plus any other compute provider) and the ONNX reference evaluator."""
    return safely(_ort_oracles) + safely(lambda: [ReferenceOracle()])


def _quiet_ort() -> None:
    """Kernel errors are outcomes here; keep onnxruntime from also logging them."""
    import onnxruntime as ort

    ort.set_default_logger_severity(4)
