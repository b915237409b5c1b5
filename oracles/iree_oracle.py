"""IREE, an ONNX compiler: the single-node ONNX models the ONNX oracles run
(:func:`oracles.onnx_oracle.model_bytes`: ``Gather`` 1/11/13,
``GatherElements`` 11/13, ``GatherND`` 11/12/13; inputs of symbolic
dimensions but GatherND's index tuple length; the output's shape inferred by ``onnx.shape_inference``, as the
importer needs its rank) imported by ``iree.compiler``'s ONNX importer (the one
``iree-import-onnx`` uses), compiled by ``iree-compile`` for the ``llvm-cpu``
backend and run by ``iree.runtime`` on the ``local-sync`` driver ("iree").
One compilation per model (op, attributes, element types, ranks).

IREE 3.13 lowers ``GatherElements`` and ``GatherND`` only at opset 13: the
older versions fail to compile ("failed to legalize operation 'torch.operator'",
classified internal), which the baseline records.

IREE is handed every model ONNX can write, as the ONNX oracles are: a type the
ONNX schema allows but IREE cannot compile (strings: "unimplemented: conversion
of dtype '!torch.str'") is its error.

>>> import numpy as np
>>> (iree,) = oracles_here()
>>> iree.run_in_process("onnx.Gather-13", np.arange(6).reshape(2, 3), np.array([-1]), {"axis": 1}).value.tolist()
[[2], [5]]
>>> iree.run_in_process("onnx.Gather-13", np.array(["a"]), np.array([0]), {}).error_class.name  # at compile time
'DTYPE_UNSUPPORTED'
"""

from __future__ import annotations

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.execution.glance import Snippet
from oracles._common import WHOLE_COMPILER, Patterns, when_installed
from oracles.base import Oracle
from oracles.onnx_oracle import COMPILED_MODEL_RUNNER, ONNX_OPS, OnnxOracle

IREE_PATTERNS: Patterns = (
    (ErrorClass.INTERNAL, ("failed to legalize operation 'torch.operator'",)),  # an ONNX op (version) it cannot lower
    (ErrorClass.DTYPE_UNSUPPORTED, ("unsupported element type*", "element type*", "unsupported type*")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "batch_dims")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*")),
)

IREE_PRELUDE = (
    '''
import functools

import numpy as np
import onnx
import iree.compiler as compiler
import iree.runtime as runtime
from iree.compiler.extras import onnx_importer
from iree.compiler.ir import Context


def compiled(model):
    """The ONNX model imported as MLIR (iree-import-onnx's importer), compiled for llvm-cpu, loaded for local-sync."""
    proto = onnx.shape_inference.infer_shapes(onnx.load_from_string(model))  # the output's rank: the importer needs it
    info = onnx_importer.ModelInfo(proto)
    module = info.create_module(context=Context()).operation
    onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
    mlir, flags = str(module), ["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"]
    vmfb = compile_kept(mlir + " ".join(flags), lambda: compile_vmfb(mlir, flags))
    context = runtime.SystemContext(config=runtime.Config("local-sync"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
    return context.modules.module[proto.graph.name]


def compile_vmfb(mlir, flags):
    """The MLIR module compiled for llvm-cpu (flags: the host's CPU, and float64 kept float64)."""
    return compiler.compile_str(mlir, target_backends=["llvm-cpu"], input_type="onnx", extra_args=flags)


def compile_kept(key, make):
    """make(): what compiles the model (key: the text it compiles from, for the suite's cache of compilations)."""
    return make()


def to_native(a):
    return np.array(a, copy=True, order="C")  # contiguous, 0-d kept


def to_numpy(x, like):
    """The answer as NumPy, copied out of IREE's buffer (a view of it changes once IREE reuses the memory: the
    next cases' compilations overwrote uint8 answers with zeros, issue 43), in like's dtype where IREE answers the
    same bits as another (signless integers come back signed: uint8 as int8)."""
    value = np.array(x.to_host(), copy=True)
    same_size = value.dtype != like.dtype and value.dtype.itemsize == like.dtype.itemsize
    return value.view(like.dtype) if same_size else value
'''
    + COMPILED_MODEL_RUNNER
)


IREE_SNIPPET = Snippet(
    (
        "import iree.compiler as compiler",
        "import iree.runtime as runtime",
        "from iree.compiler.extras import onnx_importer",
        "from iree.compiler.ir import Context",
    ),
    run=(
        "proto = onnx.shape_inference.infer_shapes(model)  # the output's rank: the importer needs it",
        "info = onnx_importer.ModelInfo(proto)",
        "module = info.create_module(context=Context()).operation",
        "onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()",
        "flags = ['--iree-llvmcpu-target-cpu=host', '--iree-input-demote-f64-to-f32=false']  # float64 stays float64",
        "vmfb = compiler.compile_str(str(module), target_backends=['llvm-cpu'], input_type='onnx', extra_args=flags)",
        "module = runtime.load_vm_flatbuffer(vmfb, driver='local-sync')",
        "out = module[proto.graph.name](data, indices)",
    ),
    output="np.asarray({out}.to_host())",
)
"""A short script's frame: the model imported as iree-import-onnx does, compiled for llvm-cpu and run on
local-sync, as the prelude's ``compiled`` does."""


class IreeOracle(OnnxOracle):
    """IREE compiling the ONNX oracles' models for the CPU."""

    patterns = IREE_PATTERNS + OnnxOracle.patterns
    fixed_tuple_length = True

    def __init__(self) -> None:
        from importlib.metadata import version

        mode = "ONNX import, iree-compile llvm-cpu, local-sync"
        info = OracleInfo(
            "iree",
            "iree",
            version("iree-base-compiler"),
            "cpu",
            mode,
            ONNX_OPS,
            compiles=True,
            on_request=WHOLE_COMPILER,
        )
        super().__init__(info, IREE_PRELUDE)

    def snippet(self, case: Case) -> Snippet:
        return IREE_SNIPPET


def oracles_here() -> list[Oracle]:
    """ "iree" (llvm-cpu)."""
    return when_installed(("iree.compiler", "iree.runtime", "onnx"), lambda: [IreeOracle()])
