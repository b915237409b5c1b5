"""OpenVINO on the CPU, in two modes:

* "openvino": its own opset, ``Gather-8``, ``GatherElements-6`` and
  ``GatherND-8`` ("openvino.Gather-8", ...), each built as a one-node
  ``ov.Model`` (``openvino.opset8``; inputs of dynamic shape, their rank and
  element type fixed, each attribute handed to its ``ops`` function as the case
  gives it) and compiled for the CPU once per op, attributes, element types and ranks;
* "openvino-onnx": its ONNX front end (``FrontEndManager().load_by_framework("onnx")``,
  which ``ov.convert_model`` runs for an ONNX model) on the very
  single-node ONNX models the ONNX oracles run (:func:`oracles.onnx_oracle.model_bytes`,
  their IR version the lowest that carries the opset; symbolic dimensions but
  GatherND's index tuple length, which the CPU plugin needs), compiled for the CPU.

**Attributes go in as given.** ``Gather-8``'s axis is an input: ``ops.gather``
makes a constant of ``np.array(axis)``'s own type (an int an i64 constant;
``axis=1.5`` an f64 one, which OpenVINO refuses at validation, "Check
'get_input_element_type(2).is_integral_number()' failed"; ``True`` a boolean
one, refused the same way; a str or None no constant: ``OVTypeError``
"Unidentified data type"). An ``np.int64(axis)`` the oracle used to wrap it in
turned 1.5, True and "1" into axis 1, and OpenVINO's answer for axis 1 was
reported as its answer for axis 1.5. The other attributes (``batch_dims``,
``GatherElements-6``'s axis) are pybind ints: a float, str or None is refused
("Unable to cast Python instance of type <class 'float'>"), a bool taken as
0 or 1, OpenVINO 2026.4.1, checked by hand.

**A compiled model that refused an input is compiled again.** OpenVINO
2026.4.1's CPU plugin keeps the indices shape of a GatherElements input it
refused: after a call whose indices do not match the data (shape (3, 3, 2)
against data (2, 5, 2), axis 1), the same compiled model refuses every later
valid input ("Shapes {2,5,2} and {3,3,2} are not consistent"), checked by
hand: a valid call, the refused one, then the valid one twice give value,
error, error, error on one compiled model. Run on the models a worker kept,
a case's answer depended on the cases before it (the atlas read "raises" on
in-range int64 and float32 probes; two findings' scripts did not reproduce),
so a compiled model that raised is dropped and the next call compiles it afresh.

Inputs go in as NumPy arrays of the same dtype; bfloat16 as an ``ov.Tensor``
of its bits (OpenVINO's Python API answers bfloat16 as float16 *bits*, which
:func:`to_numpy` reads back as bfloat16); strings as NumPy string arrays
(``ov.Type.string``; an answer of ``str`` read back in the input's own string
dtype). OpenVINO has no complex or object element type: its opset cannot be
handed those, so they are unsupported there; its ONNX front end is handed every
model ONNX can write (complex and string tensors included) and answers for
itself (it refuses complex ones at conversion). What the CPU plugin
does to 64-bit inputs (it computes in 32 bits) is its outcome, judged as any.

:func:`unavailable_here` says why there is no "openvino-gpu" (no Intel GPU).

>>> import numpy as np
>>> opset, front_end = oracles_here()
>>> opset.run_in_process("openvino.Gather-8", np.arange(5.0), np.array([-1, 7]), {"axis": 0}).value.tolist()
[4.0, 0.0]
>>> front_end.run_in_process("onnx.Gather-13", np.arange(6).reshape(2, 3), np.array([-1]), {"axis": 1}).value.tolist()
[[2], [5]]
>>> opset.run_in_process("openvino.GatherND-8", np.array([1 + 2j]), np.array([[0]]), {}).describe()
'not supported: openvino: data dtype complex128: OpenVINO has no complex element type'
>>> opset.run_in_process("openvino.Gather-8", np.array(["a", "bc"]), np.array([1]), {"axis": 0}).value.tolist()
['bc']
>>> front_end.run_in_process("onnx.Gather-13", np.array([1j]), np.array([0]), {}).message.splitlines()[1][:36]
'Unsupported data type COMPLEX128 exp'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import Snippet
from conformance.execution.scripts import EAGER, dtype_source
from oracles._common import STRINGS_LIKE, FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle
from oracles.onnx_oracle import ONNX_OPS, OnnxOracle

OPENVINO_OPS = ("openvino.Gather-8", "openvino.GatherElements-6", "openvino.GatherND-8")

OPENVINO_UNITS = (
    OpUnit(
        "openvino.Gather-8",
        "gather_8(data, indices, **attrs)",
        "ops.gather(d, i, {axis}, {batch_dims=0})",
    ),
    OpUnit(
        "openvino.GatherElements-6", "gather_elements_6(data, indices, **attrs)", "ops.gather_elements(d, i, {axis})"
    ),
    OpUnit("openvino.GatherND-8", "gather_nd_8(data, indices, **attrs)", "ops.gather_nd(d, i, {batch_dims=0})"),
)
"""Each op through the prelude's helpers (one compiled model per op, attributes and input types), and, for a short
script, the node itself over the parameters ``d`` and ``i``."""

OPENVINO_PATTERNS: Patterns = (
    # the CPU plugin's checks: "Check 'index < axisDimSize && index >= -axisDimSize' failed" (GatherElements)
    (ErrorClass.INDEX_OUT_OF_RANGE, ("index < axisdimsize", "out of bound*", "out of range")),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        # the CPU plugin on strings: "GatherND node ... has unsupported 'data' input precision: string"
        ("must be of int32 or int64", "unsupported data type*", "element type*", "not supported", "input precision"),
    ),
    # shape inference's "Check 'output_shape.merge_into(output_shape, indices_pshape)' failed ... Shapes ... are not
    # consistent, except for the dimension at axis index.1" (GatherElements) is about the shapes, whatever "axis" says
    (ErrorClass.SHAPE_INVALID, ("merge_into", "are not consistent")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "batch_dims")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*")),
)

OPSET_PATTERNS: Patterns = (
    # Gather-8's axis of a non-integral type (1.5, True), refused at validation: "Check
    # 'get_input_element_type(2).is_integral_number()' failed ... Axis element type must be of an integral number
    # type"; one with no element type (a str, None): ops.gather's constant of it raises OVTypeError "('Unidentified
    # data type %s', dtype('<U1'))" (the opset oracle makes no other constant, and refuses inputs of such dtypes first)
    (ErrorClass.ATTRIBUTE_INVALID, ("axis element type", "unidentified data type")),
    *OPENVINO_PATTERNS,
)
"""The opset oracle's patterns: an axis refused for its type is the attribute's error, whatever "element type" says."""

OPENVINO_PRELUDE = (
    '''
import numpy as np
import openvino as ov

CORE = ov.Core()


def to_native(a):
    """What OpenVINO takes: a contiguous NumPy array; bfloat16 (no NumPy type in OpenVINO) as an ov.Tensor of its
    bits."""
    a = np.array(a, copy=True, order="C")  # contiguous, 0-d kept
    if a.dtype.name != "bfloat16":
        return a
    tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(a.shape)))
    tensor.data.view(np.uint16)[...] = a.view(np.uint16)  # its .data is a float16 view of the bits
    return tensor


def element_type(x):
    return x.element_type if isinstance(x, ov.Tensor) else ov.Type(x.dtype)


def compile_kept(key, make):
    """make(): the model compiled for the CPU (key: what it is made from, for the suite's cache of compilations)."""
    return make()


def infer(compiled, inputs):
    """One call on an infer request of its own: a compiled model's own request hands back its last output where a
    kernel writes nothing (Gather-8 on an empty axis answered the previous case's [8.0, 11.0]), so each case's
    answer would depend on the one before it."""
    return compiled.create_infer_request().infer(inputs)[0]


def to_numpy(x, like):
    """The answer as NumPy; a bfloat16 answer comes as its bits in a float16 array, read back as bfloat16; a string
    answer (str) in like's own string dtype."""
    value = np.asarray(x)
    if like.dtype.kind in "US":
        return strings_like(value, like)
    return value.view(like.dtype) if like.dtype.name == "bfloat16" else value
'''
    + STRINGS_LIKE
)

OPSET_PRELUDE = (
    OPENVINO_PRELUDE
    + '''
import openvino.opset8 as ops

COMPILED = {}


def run_op(key, make, data, indices, fixed_last=False):
    """The node make(data, indices) as a one-node ov.Model whose inputs have dynamic shapes (their element types and
    ranks fixed; with fixed_last, the indices' last dimension too), compiled for the CPU once per key and input
    types, and run. The key is taken by its repr: as a tuple, True, 1 and np.int64(1) are equal keys, and a 0-d array
    no key at all."""
    index_dims = [-1] * len(indices.shape)
    if fixed_last and index_dims:  # 0-d indices have no last dimension: OpenVINO itself says what it makes of them
        index_dims[-1] = indices.shape[-1]  # GatherND's output rank depends on it: the CPU plugin wants it known
    types = (element_type(data), len(data.shape), element_type(indices), tuple(index_dims))
    signature = (repr(key), *map(str, types))
    if signature not in COMPILED:
        d = ops.parameter(ov.PartialShape([-1] * types[1]), types[0], name="data")
        i = ops.parameter(ov.PartialShape(index_dims), types[2], name="indices")
        model = lambda: ov.Model([make(d, i)], [d, i])
        COMPILED[signature] = compile_kept(repr(signature), lambda: CORE.compile_model(model(), "CPU"))
    try:
        return infer(COMPILED[signature], [data, indices])
    except Exception:
        del COMPILED[signature]  # it may now refuse valid inputs too: compiled afresh next time
        raise


def gather_8(data, indices, axis, batch_dims=0):
    """Gather-8: axis is its third input, handed to ops.gather as given (OpenVINO makes it a constant of
    np.array(axis)'s type: an int an i64, 1.5 an f64, True a boolean, each refused at validation but the int; a str
    or None no constant at all), batch_dims its attribute (as given too: pybind refuses a float)."""
    make = lambda d, i: ops.gather(d, i, axis, batch_dims)
    return run_op(("Gather-8", axis, batch_dims), make, data, indices)


def gather_elements_6(data, indices, axis):
    return run_op(("GatherElements-6", axis), lambda d, i: ops.gather_elements(d, i, axis), data, indices)


def gather_nd_8(data, indices, batch_dims=0):
    return run_op(("GatherND-8", batch_dims), lambda d, i: ops.gather_nd(d, i, batch_dims), data, indices, True)
'''
)

FRONT_END_PRELUDE = (
    OPENVINO_PRELUDE
    + '''
import io

from openvino.frontend import FrontEndManager

ONNX_FRONT_END = FrontEndManager().load_by_framework("onnx")
COMPILED = {}


def run_model(model, data, indices):
    """The ONNX model through OpenVINO's ONNX front end (what ov.convert_model runs on an ONNX model, without its
    0.35 s of argument handling per call), compiled for the CPU once (at most 256 kept), and run; one that raised
    is compiled afresh next time (it may now refuse valid inputs too)."""
    if model not in COMPILED:
        if len(COMPILED) >= 256:
            COMPILED.pop(next(iter(COMPILED)))
        convert = lambda: ONNX_FRONT_END.convert(ONNX_FRONT_END.load(io.BytesIO(model)))
        COMPILED[model] = compile_kept(model, lambda: CORE.compile_model(convert(), "CPU"))
    try:
        return infer(COMPILED[model], [data, indices])
    except Exception:
        del COMPILED[model]
        raise
'''
)


def openvino_dtype_problem(a: np.ndarray) -> str | None:
    """Why an OpenVINO tensor cannot hold ``a``, or None: OpenVINO has no element type for complex numbers or
    Python objects (``ov.Type(np.dtype(object))`` raises); strings are ``ov.Type.string``.

    >>> openvino_dtype_problem(np.array([1j])), openvino_dtype_problem(np.array(["a"])) is None
    ('OpenVINO has no complex element type', True)
    >>> openvino_dtype_problem(np.array([None]))
    'OpenVINO has no element type for Python objects'
    """
    if a.dtype.kind == "O":
        return "OpenVINO has no element type for Python objects"
    return "OpenVINO has no complex element type" if a.dtype.kind == "c" else None


def openvino_native(a: np.ndarray) -> str:
    """A short script's OpenVINO input: the NumPy array, bfloat16 as an ``ov.Tensor`` of its bits.

    >>> openvino_native(np.zeros((2, 1), BFLOAT16))
    'ov.Tensor({array}.view(np.uint16), ov.Shape([2, 1]), ov.Type.bf16)'
    """
    if a.dtype != BFLOAT16:
        return "{array}"
    return f"ov.Tensor({{array}}.view(np.uint16), ov.Shape({list(a.shape)!r}), ov.Type.bf16)"


def openvino_output(data: np.ndarray) -> str:
    """A short script's answer as NumPy (a bfloat16 answer comes as float16 bits)."""
    return "np.asarray({out})" + (".view(ml_dtypes.bfloat16)" if data.dtype == BFLOAT16 else "")


def _element_type(a: np.ndarray) -> str:
    return "ov.Type.bf16" if a.dtype == BFLOAT16 else f"ov.Type({dtype_source(a.dtype)})"


def _info(name: str, mode: str, ops: tuple[str, ...]) -> OracleInfo:
    from importlib.metadata import version

    return OracleInfo(name, "openvino", version("openvino"), "cpu", mode, ops, compiles=True)


class CompiledModels:
    """OpenVINO's compiled models as the suite's artefact cache keeps them (:meth:`FrameworkOracle.keep_compilations`):
    exported (``export_model``) and imported back (``import_model``), 5 to 7 times faster than compiling a one-node
    model again (here, 40 models: 0.6-1.0 s to import against 4.6-5.1 s to compile; OpenVINO's own ``CACHE_DIR``
    saved nothing on models this small)."""

    _namespace: dict[str, Any]

    def dump_artefact(self, artefact: Any) -> bytes:
        return bytes(artefact.export_model().getvalue())

    def load_artefact(self, data: bytes) -> Any:
        return self._namespace["CORE"].import_model(data, "CPU")


class OpenVinoOracle(CompiledModels, FrameworkOracle):
    """OpenVINO's own opset on the CPU plugin."""

    patterns = OPSET_PATTERNS

    def __init__(self) -> None:
        info = _info("openvino", "opset (one-node ov.Model, CPU plugin)", OPENVINO_OPS)
        super().__init__(info, OPSET_PRELUDE, EAGER, OPENVINO_UNITS)

    def snippet(self, case: Case) -> Snippet:
        """The node over two parameters of dynamic shapes (their ranks and element types fixed, GatherND's index
        tuple length too, as the prelude's ``run_op`` builds them) in a one-node ``ov.Model`` compiled for the CPU.

        >>> s = OpenVinoOracle().call_snippet(Case("openvino.GatherND-8", np.zeros((2, 2)), np.array([[1]])))
        >>> print("\\n".join(s.run[:2]))
        d = ops.parameter(ov.PartialShape([-1, -1]), ov.Type(np.float64), name='data')
        i = ops.parameter(ov.PartialShape([-1, 1]), ov.Type(np.int64), name='indices')
        >>> s.call
        'ops.gather_nd(d, i, 0)'
        """
        data, indices = np.asarray(case.data), np.asarray(case.indices)
        index_dims = [-1] * indices.ndim
        if case.op == "openvino.GatherND-8" and index_dims:
            index_dims[-1] = indices.shape[-1]
        run = (
            f"d = ops.parameter(ov.PartialShape({[-1] * data.ndim!r}), {_element_type(data)}, name='data')",
            f"i = ops.parameter(ov.PartialShape({index_dims!r}), {_element_type(indices)}, name='indices')",
            "model = ov.Model([{call}], [d, i])",
            "out = ov.Core().compile_model(model, 'CPU')([data, indices])[0]",
        )
        return Snippet(
            ("import openvino as ov", "import openvino.opset8 as ops"),
            data=openvino_native(data),
            indices=openvino_native(indices),
            run=run,
            output=openvino_output(data),
        )

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        return openvino_dtype_problem(a)


class OpenVinoOnnxOracle(CompiledModels, OnnxOracle):
    """OpenVINO's ONNX front end on the CPU plugin: the ONNX oracles' models, converted and compiled."""

    patterns = OPENVINO_PATTERNS + OnnxOracle.patterns
    fixed_tuple_length = True

    def __init__(self) -> None:
        info = _info("openvino-onnx", "ONNX front end (openvino.frontend onnx, CPU plugin)", ONNX_OPS)
        super().__init__(info, FRONT_END_PRELUDE)

    def snippet(self, case: Case) -> Snippet:
        """The model read by OpenVINO (``read_model`` picks its ONNX front end) and compiled for the CPU."""
        data, indices = np.asarray(case.data), np.asarray(case.indices)
        run = (
            "out = ov.Core().compile_model(ov.Core().read_model(model.SerializeToString()), 'CPU')([data, indices])[0]",
        )
        return Snippet(
            ("import openvino as ov",),
            data=openvino_native(data),
            indices=openvino_native(indices),
            run=run,
            output=openvino_output(data),
        )

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        """Only what ONNX cannot write (:func:`~oracles.onnx_oracle.type_problem`): a model with complex or
        string tensors is written, and the front end answers for itself."""
        return super().dtype_problem(op, arg, a)


def oracles_here() -> list[Oracle]:
    """ "openvino" (its opset) and "openvino-onnx" (its ONNX front end), both on the CPU."""
    return when_installed(("openvino",), lambda: [OpenVinoOracle()]) + when_installed(
        ("openvino", "onnx"), lambda: [OpenVinoOnnxOracle()]
    )


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'openvino-gpu': 'OpenVINO 2026.4.1 sees no GPU device here (devices: CPU)'}
    """
    import importlib.util

    if importlib.util.find_spec("openvino") is None:
        return {"openvino-gpu": "openvino is not installed"}
    import openvino as ov

    devices = ov.Core().available_devices
    if any(d.startswith("GPU") for d in devices):
        return {"openvino-gpu": "an Intel GPU is available, but no oracle runs OpenVINO on it yet"}
    return {
        "openvino-gpu": f"OpenVINO {ov.__version__.split('-')[0]} sees no GPU device here (devices: "
        f"{', '.join(devices)})"
    }
