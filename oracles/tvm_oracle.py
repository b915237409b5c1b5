"""Apache TVM, an ONNX compiler: the single-node ONNX models the ONNX oracles
run (:func:`oracles.onnx_oracle.model_bytes`) imported by its Relax ONNX
front end (``tvm.relax.frontend.onnx.from_onnx``; symbolic dimensions but
GatherND's index tuple length), legalized to TensorIR,
compiled for the ``llvm`` (CPU) target and run by the Relax virtual machine
("tvm"). One compilation per model (op, attributes, element types, ranks).

TVM is handed every model ONNX can write, as the ONNX oracles are: it has no
complex or string tensors, and its refusal (``tvm.runtime.tensor``: "unknown
dtype `complex64`") is its answer; a type the ONNX schema allows but TVM cannot
compile is its error.

>>> import numpy as np
>>> (tvm,) = oracles_here()
>>> tvm.run_in_process("onnx.Gather-13", np.arange(6).reshape(2, 3), np.array([-1]), {"axis": 1}).value.tolist()
[[2], [5]]
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.execution.glance import Snippet
from oracles._common import WHOLE_COMPILER, Patterns, when_installed
from oracles.base import Oracle
from oracles.onnx_oracle import COMPILED_MODEL_RUNNER, ONNX_OPS, OnnxOracle

TVM_PATTERNS: Patterns = (
    (ErrorClass.DTYPE_UNSUPPORTED, ("unsupported data type*", "unsupported dtype*", "not supported", "cannot convert")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "batch_dims")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*")),
)

TVM_PRELUDE = (
    '''
import functools
import warnings

import numpy as np
import onnx
import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx


def relax_module(model):
    """The ONNX model through the Relax ONNX front end, legalized."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Field 'shape' of 'type' is required but missing": the output's shape
        module = from_onnx(onnx.load_from_string(model), keep_params_in_input=False)
    return relax.transform.LegalizeOps()(relax.transform.DecomposeOpsForInference()(module))


def compile_kept(key, make):
    """make(): the compiled executable (key: the model it is compiled from, for the suite's cache of compilations)."""
    return make()


def compiled(model):
    """The ONNX model imported and legalized (relax_module), compiled for llvm, on a Relax VM."""
    executable = compile_kept(model, lambda: tvm.compile(relax_module(model), target="llvm"))
    return relax.VirtualMachine(executable, tvm.cpu())["main"]


def to_native(a):
    return tvm.runtime.tensor(np.array(a, copy=True, order="C"))  # contiguous, 0-d kept


def to_numpy(x, like):
    value = x.numpy()
    return value.view(like.dtype) if like.dtype.name == "bfloat16" and value.dtype != like.dtype else value
'''
    + COMPILED_MODEL_RUNNER
)


TVM_SNIPPET = Snippet(
    ("import tvm", "from tvm import relax", "from tvm.relax.frontend.onnx import from_onnx"),
    data="tvm.runtime.tensor({array})",
    indices="tvm.runtime.tensor({array})",
    run=(
        "module = from_onnx(model, keep_params_in_input=False)",
        "module = relax.transform.LegalizeOps()(relax.transform.DecomposeOpsForInference()(module))",
        "out = relax.VirtualMachine(tvm.compile(module, target='llvm'), tvm.cpu())['main'](data, indices)",
    ),
    output="{out}.numpy()",
)
"""A short script's frame: the model through the Relax ONNX front end, legalized, compiled for llvm and run on a
Relax VM, as the prelude's ``compiled`` does."""


class TvmOracle(OnnxOracle):
    """TVM compiling the ONNX oracles' models for the CPU."""

    patterns = TVM_PATTERNS + OnnxOracle.patterns
    fixed_tuple_length = True

    def __init__(self) -> None:
        from importlib.metadata import version

        mode = "Relax ONNX front end, llvm, Relax VM"
        info = OracleInfo(
            "tvm", "tvm", version("apache-tvm"), "cpu", mode, ONNX_OPS, compiles=True, on_request=WHOLE_COMPILER
        )
        super().__init__(info, TVM_PRELUDE)

    def snippet(self, case: Case) -> Snippet:
        return TVM_SNIPPET

    def dump_artefact(self, artefact: Any) -> bytes:
        """The executable as the shared library ``export_library`` links (a C compiler's work: where there is
        none, it raises, and nothing is kept)."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "module.so"
            artefact.export_library(str(path))
            return path.read_bytes()

    def load_artefact(self, data: bytes) -> Any:
        """The library loaded back (``tvm.runtime.load_module``), which a Relax VM runs as it runs the executable."""
        import tvm

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "module.so"
            path.write_bytes(data)
            return tvm.runtime.load_module(str(path))


def oracles_here() -> list[Oracle]:
    """ "tvm" (llvm, CPU)."""
    return when_installed(("tvm", "onnx"), lambda: [TvmOracle()])
