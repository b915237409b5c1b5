"""The compilers' gathers as oracles (issue 40): ``stablehlo.gather`` and ``tosa.gather``, each case written as one
MLIR module (:mod:`conformance.cases.mlir_text`) and run by an executor of :mod:`oracles.mlir_executors`:

* "stablehlo-interpreter": the StableHLO reference interpreter jaxlib ships (the spec's executable semantics);
* "stablehlo-xla": XLA on the CPU, the module compiled by jaxlib's client;
* "stablehlo-iree" and "tosa-iree": IREE, ``llvm-cpu``, run only when named (a whole compiler per shape signature,
  as the ONNX IREE oracle).

A case of ``stablehlo.gather`` is the GatherND the catalog states
(:func:`~conformance.spec.stablehlo.gather_nd_attributes`: ``batch_dims`` as batching dims); one of ``tosa.gather``
is the flattened take, ``values`` the data as ``[1, K, 1]`` and the indices as ``[1, W]`` (the output reshaped back
to the indices' shape). The module text is the case's ``TEXT`` constant: a reproducer prints it, attaches it
(``gather.mlir``) and runs it with the executor's runner, so what a finding shows is exactly what ran.

A case whose attributes break one of the spec's constraints has no module to write (its result type does not
exist): it is not run (:meth:`MlirOracle.unsupported_reason` says which constraint), and the reference's error
stands alone.

>>> import numpy as np
>>> interpreter = MlirOracle("interpreter", "stablehlo.gather")
>>> interpreter.run_in_process("stablehlo.gather", np.arange(1, 9).reshape(4, 2), np.array([[-1], [7], [2]]),
...                            {"batch_dims": 0}).value.tolist()
[[1, 2], [7, 8], [5, 6]]
>>> interpreter.unsupported_reason("stablehlo.gather", np.zeros(3), np.zeros((2, 2), np.int64), {"batch_dims": 0})
'stablehlo-interpreter: no module can be written: stablehlo.gather: (C1) ... does not hold'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib.metadata import version
from typing import Any

import numpy as np

from conformance.cases.mlir_text import ELEMENT_TYPES, module_text, tosa_module_text
from conformance.core.arrays import dtype_name
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass, Outcome
from conformance.core.vocabulary import DtypeArg
from conformance.spec.errors import PreconditionError
from conformance.spec.stablehlo import check, gather_nd_attributes
from oracles._common import WHOLE_COMPILER, FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle
from oracles.mlir_executors import RUNNERS, Runner, reproducer

MLIR_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("out of bounds", "out of range")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("element type*", "unsupported type*", "integer type", "signless integer")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*", "inferred type")),
)
"""The MLIR verifier's and the executors' words."""

INTERPRETER_UNREADABLE = {
    "bfloat16": "jaxlib's MLIR binding cannot read a bfloat16 attribute back into NumPy ('Unsupported floating-point "
    "type')",
    "complex64": "jaxlib's MLIR binding cannot make a complex attribute from NumPy ('unimplemented array format "
    "conversion from format: Zf')",
    "complex128": "jaxlib's MLIR binding cannot make a complex attribute from NumPy ('unimplemented array format "
    "conversion from format: Zd')",
}
"""Element types the interpreter's runner cannot pass: the arrays go in and out as dense attributes through
jaxlib's Python binding, which lacks these (a complex result aborts the process); the harness's limit, not the
interpreter's, so the case is not run."""

REFUSED_TYPE = re.compile(r"but got 'tensor<([^>]*)>'")
"""The tensor type an MLIR verifier names when it refuses an operand: its dims and element type, ``x``-separated."""

PRELUDE_TAIL = '''

@functools.lru_cache(maxsize=256)
def built(text):
    """The module's main, or the exception building it raised (a module that fails to compile fails the same way
    every time)."""
    try:
        return compiled(text), None
    except Exception as exc:  # noqa: BLE001 - the case's answer, kept
        return None, exc


def run_module(text, operand, start_indices):
    """The module (TEXT, bytes) run on the two arrays."""
    main, failure = built(text.decode())
    if failure is not None:
        raise failure
    return main(operand, start_indices)


def to_native(a):
    return np.array(a, copy=True, order="C")


def to_numpy(x, like):
    return np.asarray(x)
'''
"""The prelude after the executor's runner: the module built once per text, NumPy arrays in and out."""

MODE = '''
def prepare(call, attrs):
    """The module runs as it is: nothing to prepare."""
    return lambda data, indices: call(data, indices, attrs)
'''

UNITS = (
    OpUnit("stablehlo.gather", "run_module(TEXT, data, indices)"),
    OpUnit(
        "tosa.gather",
        "run_module(TEXT, data.reshape(1, data.size, 1), indices.reshape(1, indices.size)).reshape(indices.shape)",
    ),
)
"""``TEXT``: the case's module (:meth:`MlirOracle.constants`); TOSA's values ``[N,K,C]`` and indices ``[N,W]`` with
``N = C = 1``."""


class MlirOracle(FrameworkOracle):
    """One executor running one dialect's gather from its module text."""

    patterns = MLIR_PATTERNS

    def __init__(self, executor: str, op: str) -> None:
        runner: Runner = RUNNERS[executor]
        dialect = op.partition(".")[0]
        framework = "iree" if executor == "iree" else "jaxlib"
        installed = version("iree-base-compiler") if executor == "iree" else version("jaxlib")
        modes = {
            "interpreter": "the StableHLO reference interpreter (jaxlib), module text",
            "xla": "XLA CPU, module text compiled by jaxlib's client",
            "iree": "module text, iree-compile llvm-cpu (generic), local-task",
        }
        info = OracleInfo(
            f"{dialect}-{executor}",
            framework,
            installed,
            "cpu",
            modes[executor],
            (op,),
            compiles=executor != "interpreter",
            on_request=WHOLE_COMPILER if executor == "iree" else "",
        )
        super().__init__(
            info, "import functools\n" + runner.source + PRELUDE_TAIL, MODE, [u for u in UNITS if u.op == op]
        )
        self.executor = executor

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        name = dtype_name(a.dtype)
        if name not in ELEMENT_TYPES:
            return "MLIR has no element type for it"
        if self.executor == "interpreter" and name in INTERPRETER_UNREADABLE:
            return INTERPRETER_UNREADABLE[name]
        return None

    def unsupported_reason(
        self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]
    ) -> str | None:
        reason = super().unsupported_reason(op, data, indices, attrs)
        if reason is None and op == "stablehlo.gather":
            try:
                check(np.shape(data), np.shape(indices), self._attributes(data, indices, attrs))
            except PreconditionError as exc:
                return f"{self.name}: no module can be written: {exc}"
        return reason

    @staticmethod
    def _attributes(data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]) -> Any:
        return gather_nd_attributes(np.shape(data), np.shape(indices), attrs.get("batch_dims", 0))

    def constants(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]) -> dict[str, bytes]:
        operand, start_indices = module_inputs(op, data, indices)
        if op == "tosa.gather":
            return {"TEXT": tosa_module_text(operand, start_indices).encode()}
        return {"TEXT": module_text(operand, start_indices, self._attributes(data, indices, attrs)).encode()}

    def attachments(self, constants: Mapping[str, bytes]) -> dict[str, bytes]:
        return {"gather.mlir": constants["TEXT"]}

    def upstream_script(self, case: Case, reference: Outcome, observed: Outcome | None = None) -> str:
        """The module text and the arrays as the module takes them, run by the executor alone
        (:func:`~oracles.mlir_executors.reproducer`: IREE by ``iree-compile`` and ``iree-run-module``)."""
        data, indices = np.asarray(case.data), np.asarray(case.indices)
        if self.unsupported_reason(case.op, data, indices, case.attrs) is not None:
            return ""
        text = self.constants(case.op, data, indices, case.attrs)["TEXT"].decode()
        return reproducer(self.executor, text, *module_inputs(case.op, data, indices))

    def classify(self, exc: BaseException) -> ErrorClass:
        """A tensor type the verifier refuses for a dimension of size 0 is a shape error, though its words list the
        element types the operand may have (MLIR's TOSA dialect: "must be 2D tosa-conformant tensor of 32-bit
        signless integer or 64-bit signless integer values, but got 'tensor<1x0xi32>'")."""
        got = REFUSED_TYPE.search(self.message(exc))
        if got and "0" in got.group(1).split("x")[:-1]:
            return ErrorClass.SHAPE_INVALID
        return super().classify(exc)


def module_inputs(op: str, data: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two arrays as the module of ``op`` takes them: TOSA's values ``[1, K, 1]`` and indices ``[1, W]``.

    >>> [a.shape for a in module_inputs("tosa.gather", np.zeros((2, 3)), np.zeros(4, np.int32))]
    [(1, 6, 1), (1, 4)]
    """
    if op == "tosa.gather":
        return data.reshape(1, data.size, 1), indices.reshape(1, indices.size)
    return data, indices


def _build() -> list[Oracle]:
    here: list[Oracle] = []
    if RUNNERS["interpreter"].installed():
        here += [MlirOracle("interpreter", "stablehlo.gather"), MlirOracle("xla", "stablehlo.gather")]
    if RUNNERS["iree"].installed():
        here += [MlirOracle("iree", "stablehlo.gather"), MlirOracle("iree", "tosa.gather")]
    return here


def oracles_here() -> list[Oracle]:
    """ "stablehlo-interpreter" and "stablehlo-xla" where jax is installed; "stablehlo-iree" and "tosa-iree" where
    IREE is."""
    return when_installed(("numpy",), _build)
