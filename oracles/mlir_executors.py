"""The executors of one gather's MLIR module text (issue 40, points 2 and 3), each a short runner written once as
source text: run here (:func:`executor`) and printed in a reproducer (:func:`reproducer`), so that what a finding
shows is exactly what ran.

* ``interpreter``: the StableHLO reference interpreter jaxlib ships (the spec's executable semantics; StableHLO);
* ``xla``: XLA on the CPU, the text compiled by jaxlib's client (``compile_and_load``) as JAX compiles its own
  (StableHLO);
* ``iree``: IREE, ``llvm-cpu``, the text compiled with its input dialect detected (``input_type="auto"``):
  ``stablehlo.gather`` and ``tosa.gather`` alike.

Each runner defines ``compiled(text)``: the module's ``@main`` as a function of the two arrays, returning a NumPy
array (:mod:`conformance.cases.mlir_text`: for TOSA, the values and the indices).

>>> sorted(RUNNERS)
['interpreter', 'iree', 'xla']
>>> "def compiled(text):" in RUNNERS["xla"].source
True
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.execution.scripts import array_source


@dataclass(frozen=True)
class Runner:
    """One executor's runner: the module it needs installed and its source text (imports included)."""

    needs: str
    source: str

    def installed(self) -> bool:
        """Whether what it needs is importable here."""
        return importlib.util.find_spec(self.needs) is not None


INTERPRETER = Runner(
    "jaxlib",
    '''
import numpy as np
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _stablehlo


def compiled(text):
    """The StableHLO reference interpreter on the module text: nothing is compiled, the module is parsed and
    interpreted on each call, the arrays given as typed dense attributes."""

    def main(operand, start_indices):
        context = jax_mlir.make_ir_context()
        _stablehlo.register_interpreter_dialect(context)
        with context:
            module = ir.Module.parse(text)
            (out,) = _stablehlo.eval_module(module, [dense(operand), dense(start_indices)])
            out = np.array(out)
            return out.view(operand.dtype) if out.dtype.itemsize == operand.dtype.itemsize else out  # ui8 as i8

    return main


def dense(a):
    """a as a dense attribute of its own type (an unsigned integer as uiN, not the signless iN NumPy's gives)."""
    if a.dtype.kind == "u":
        unsigned = ir.IntegerType.get_unsigned(a.dtype.itemsize * 8)
        return ir.DenseElementsAttr.get(a, type=unsigned, shape=list(a.shape))
    return ir.DenseElementsAttr.get(a)
''',
)

XLA = Runner(
    "jax",
    '''
import numpy as np
import jax
from jax.extend import backend
from jax._src.lib import xla_client


def compiled(text):
    """XLA on the CPU: the module text compiled by jaxlib's client; its main runs on the two arrays (64-bit ones
    kept 64-bit: x64 on for the call only)."""
    client = backend.get_backend("cpu")
    device = client.devices()[0]
    executable = client.compile_and_load(text, xla_client.DeviceList((device,)), xla_client.CompileOptions())

    def main(operand, start_indices):
        with jax.enable_x64(True):
            arguments = [jax.device_put(operand, device), jax.device_put(start_indices, device)]
            (out,) = executable.execute_sharded(arguments).disassemble_into_single_device_arrays()
            return np.asarray(out[0])

    return main
''',
)

IREE_FLAGS = ("--iree-llvmcpu-target-cpu=generic", "--iree-input-demote-f64-to-f32=false")
"""IREE's compile flags beyond the target: a generic CPU (an artefact that runs on any x86-64), float64 kept float64
(IREE demotes it to float32 by default)."""

IREE = Runner(
    "iree",
    '''
import numpy as np
from iree import compiler, runtime


def compile_kept(key, make):
    """make(): what compiles the module (key: the text it compiles from, for the suite's cache of compilations)."""
    return make()


def compiled(text):
    """IREE: the module text compiled for llvm-cpu (generic CPU, float64 kept), its dialect detected; its main runs
    on the local-task driver, the answer copied out of IREE's buffer (a view of it changes once IREE reuses the
    memory)."""
    flags = FLAGS
    vmfb = compile_kept(
        text, lambda: compiler.compile_str(text, target_backends=["llvm-cpu"], input_type="auto", extra_args=flags)
    )
    context = runtime.SystemContext(config=runtime.Config("local-task"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, vmfb))
    function = context.modules.module["main"]

    def main(operand, start_indices):
        return np.array(function(operand, start_indices).to_host(), copy=True)

    return main
'''
    + f"\n\nFLAGS = {list(IREE_FLAGS)!r}\n",
)

IREE_COMMANDS = (
    ("iree-compile", "--iree-input-type=auto", "--iree-hal-target-backends=llvm-cpu", *IREE_FLAGS)
    + ("gather.mlir", "-o", "gather.vmfb"),
    ("iree-run-module", "--device=local-task", "--module=gather.vmfb", "--function=main")
    + ("--input=@operand.npy", "--input=@start_indices.npy", "--output=@result.npy"),
)
"""The IREE runner as command lines: what an upstream issue gives (the same flags and driver)."""

RUNNERS = {"interpreter": INTERPRETER, "xla": XLA, "iree": IREE}


def executor(name: str) -> Callable[[str, np.ndarray, np.ndarray], np.ndarray]:
    """The runner ``name`` as a function here (its source executed once per call of this).

    >>> executor("tvm")
    Traceback (most recent call last):
    ...
    KeyError: "no MLIR executor 'tvm'; there are: interpreter, iree, xla"
    """
    if name not in RUNNERS:
        raise KeyError(f"no MLIR executor {name!r}; there are: {', '.join(sorted(RUNNERS))}")
    namespace: dict[str, Any] = {}
    exec(compile(RUNNERS[name].source, f"<mlir executor {name}>", "exec"), namespace)  # noqa: S102 - our text
    compiled: Callable[[str], Callable[[np.ndarray, np.ndarray], np.ndarray]] = namespace["compiled"]
    return lambda text, operand, start_indices: compiled(text)(operand, start_indices)


def script_name(name: str) -> str:
    """The file name of ``name``'s reproducer: never the executor's own name (a script ``iree.py`` imports itself
    where it means the ``iree`` package).

    >>> script_name("iree")
    'stablehlo_gather_on_iree.py'
    """
    return f"stablehlo_gather_on_{name}.py"


def reproducer(name: str, text: str, operand: np.ndarray, start_indices: np.ndarray) -> str:
    """A standalone script: the module text and the two arrays, run by ``name``'s runner (IREE: by the command lines
    :data:`IREE_COMMANDS`, which it prints); it prints the result.

    >>> script = reproducer("xla", "func.func @main() {}", np.zeros(2, np.int32), np.zeros((1, 1), np.int64))
    >>> "TEXT = " in script and "compiled(TEXT)(OPERAND, START_INDICES)" in script
    True
    >>> print(reproducer("iree", "func.func @main() {}", np.zeros(2, np.int32), np.zeros((1, 1), np.int64)))
    # The gather module below, compiled by iree-compile and run by iree-run-module on the two arrays below.
    ...
    COMMANDS = [['iree-compile', '--iree-input-type=auto', ..., 'gather.mlir', '-o', 'gather.vmfb'], ...]
    ...
    """
    inputs = f"TEXT = {text!r}\nOPERAND = {array_source(operand)}\nSTART_INDICES = {array_source(start_indices)}\n\n"
    if name == "iree":
        return (
            "# The gather module below, compiled by iree-compile and run by iree-run-module on the two arrays below.\n"
            "import base64\nimport pathlib\nimport subprocess\n\nimport numpy as np\n\n"
            + inputs
            + f"COMMANDS = {[list(c) for c in IREE_COMMANDS]!r}\n\n"
            'if __name__ == "__main__":\n'
            '    pathlib.Path("gather.mlir").write_text(TEXT)\n'
            '    np.save("operand.npy", OPERAND)\n'
            '    np.save("start_indices.npy", START_INDICES)\n'
            "    print(TEXT)\n"
            "    for command in COMMANDS:\n"
            '        print("$", " ".join(command))\n'
            "        subprocess.run(command, check=True)\n"
            '    print(np.load("result.npy").tolist())\n'
        )
    return (
        f"# The gather module below, run by {name} on the two arrays below.\nimport base64\n"
        f"{RUNNERS[name].source}\n" + inputs + 'if __name__ == "__main__":\n'
        "    print(TEXT)\n"
        "    print(compiled(TEXT)(OPERAND, START_INDICES).tolist())\n"
    )
