"""PaddlePaddle: ``paddle.gather`` (``axis`` incl. None), ``paddle.gather_nd``,
``paddle.take_along_axis`` (``axis``, ``broadcast``), ``paddle.index_select``
and ``paddle.take`` (``mode`` "raise"/"wrap"/"clip"), on the CPU, in two
execution modes:

* "paddle": dynamic graph (dygraph), Paddle's default: each op runs as called;
* "paddle-static": a static graph, as ``paddle.enable_static()`` code builds
  it: the op is put into a ``paddle.static.Program`` (a PIR program in Paddle 3)
  with ``paddle.static.data`` inputs of the case's shapes and dtypes, and a
  ``paddle.static.Executor`` runs it on NumPy feeds; the answer is fetched as a
  tensor (``return_numpy=False``) and read here, since ``return_numpy=True``
  fetches None for an empty output that holds no memory (the float32[0, 2]
  gather of a 0-d index along axis 1: shape [0]). Static mode is switched on
  only while a program is built and run, so both oracles can live in one process.
  (``paddle.jit.to_static`` is not used: its default SOT translator runs graphs
  under ``MIN_GRAPH_SIZE`` = 10 ops eagerly, so a one-op gather would silently be
  dygraph, and its AST translator needs the source file of the function.)

Inputs become Paddle tensors of the same dtype; bfloat16 travels as its uint16
bits, which Paddle reads as bfloat16 (and answers the same way). Paddle has no
uint16, uint32, uint64, string or object tensors (a NumPy uint16 array would be
read as bfloat16), so those are unsupported. Paddle's C++ log lines are turned
down (``GLOG_minloglevel``) before it is imported; the worker discards its output anyway.

:func:`unavailable_here` says why there is no "paddle-gpu" (the CPU wheel).

>>> import numpy as np
>>> dygraph, static = oracles_here()
>>> dygraph.run_in_process("paddle.gather", np.arange(6).reshape(2, 3), np.array([1, -1]), {"axis": 1}).value.tolist()
[[1, 2], [4, 5]]
>>> static.run_in_process("paddle.take", np.arange(5.0), np.array([-1, 7]), {"mode": "wrap"}).value.tolist()
[4.0, 2.0]
>>> dygraph.run_in_process("paddle.index_select", np.arange(3.0), np.array([3]), {"axis": 0}).error_class.name
'INDEX_OUT_OF_RANGE'
>>> dygraph.run_in_process("paddle.take", np.arange(3, dtype=np.uint16), np.array([0]), {}).reason
'paddle: data dtype uint16: Paddle has no uint16 tensors (paddle.uint16 is bfloat16: it reads a NumPy uint16 array \
as bfloat16 bits)'
"""

from __future__ import annotations

import numpy as np

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import EAGER_RUN, Snippet
from conformance.execution.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

PADDLE_OPS = ("paddle.gather", "paddle.gather_nd", "paddle.take_along_axis", "paddle.index_select", "paddle.take")

PADDLE_UNITS = (
    OpUnit("paddle.gather", "paddle.gather(data, indices, **attrs)"),
    OpUnit("paddle.gather_nd", "paddle.gather_nd(data, indices)"),
    OpUnit("paddle.take_along_axis", "paddle.take_along_axis(data, indices, **attrs)"),
    OpUnit("paddle.index_select", "paddle.index_select(data, indices, **attrs)"),
    OpUnit("paddle.take", "paddle.take(data, indices, **attrs)"),
)

PADDLE_PATTERNS: Patterns = (
    (ErrorClass.INTERNAL, ("tensor's dimension is out of bound*",)),  # a static graph's output bigger than its memory
    (  # "(OutOfRange) ...": Paddle's category, not an index's; an int argument cast to int32 (axis=-2**63): its own
        ErrorClass.ATTRIBUTE_INVALID,
        ("attr(dim) is out of range", "attr(axis) is out of range", "exceeds int32 range"),
    ),
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        (
            "the element of index must be",  # gather: "... less than the size of input dim size of axis"
            "variable value (index)",  # index_select, take_along_axis: "expected >= -5 and < 5, but got 5"
            "has wrong value",  # gather_nd: "Input(index[-1)] has wrong value, it is [5]"
        ),
    ),
    (
        ErrorClass.DTYPE_UNSUPPORTED,
        ("holds the wrong type", "data type*", "dtype*", "not registered", "kernel not found"),
    ),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis", "'mode'")),
    (ErrorClass.SHAPE_INVALID, ("shape*", "rank*", "dimension*", "broadcast*", "size does not match")),
)

UNHELD = {
    "uint16": "(paddle.uint16 is bfloat16: it reads a NumPy uint16 array as bfloat16 bits)",
    "uint32": "(paddle.uint32 names no tensor type: paddle.to_tensor and paddle.cast refuse it)",
    "uint64": "(paddle.uint64 names no tensor type: paddle.to_tensor and paddle.cast refuse it)",
}
"""NumPy dtypes Paddle has no tensors of (Paddle 3.3.1, checked by hand: ``paddle.cast(x, "uint32")`` raises
"Not supported numpy dtype uint32", ``paddle.to_tensor`` of a NumPy uint32 array "tensor.set() supports array with
bool, float16, float32, float64, int8, int16, int32, int64, uint8 or uint16"; ``paddle.uint16`` prints as
``paddle.bfloat16``)."""

PADDLE_PRELUDE = '''
import os

os.environ.setdefault("GLOG_minloglevel", "2")  # Paddle's C++ info lines ("New Executor is Running ...")

import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "No ccache found" at import
    import paddle

paddle.set_device("cpu")
# Paddle's own SIGSEGV handler prints a C++ stack (a second or more of CPU) and exits 0: on a busy machine a
# crash outlived the case's time limit and became a false 'hangs' finding. Without it a crash is a crash at once.
paddle.disable_signal_handler()


def to_native(a):
    """The Paddle tensor holding exactly a (bfloat16 through its uint16 bits, which Paddle reads as bfloat16)."""
    a = np.array(a, copy=True, order="C")  # contiguous, 0-d kept (np.ascontiguousarray makes it 1-d)
    return paddle.to_tensor(a.view(np.uint16) if a.dtype.name == "bfloat16" else a)


def to_numpy(x, like):
    """A tensor (or a static graph's NumPy answer) as NumPy; uint16 is bfloat16's bits (Paddle has no uint16)."""
    out = x.numpy() if isinstance(x, paddle.Tensor) else np.asarray(x)
    if out.dtype == np.uint16:
        import ml_dtypes

        return out.view(ml_dtypes.bfloat16)
    return out
'''

PADDLE_STATIC = '''
def fetched_array(tensor, dtype):
    """A DenseTensor the executor fetched (return_numpy=False) as NumPy: its elements bit for bit (np.array, what
    the executor's own return_numpy=True does; bfloat16 as its uint16 bits). An output with no elements may hold no
    memory (tensor._is_initialized() is False: paddle.gather of float32[0, 2], a 0-d index, axis 1, whose output
    is [0]): return_numpy=True fetches None for it, np.array float64 (0,) whatever its shape and dtype, so it is
    an empty array of its own shape and the program's dtype (convert_dtype: bfloat16 as "uint16"). One with
    elements and no memory stays None (what the executor fetches): there is no value to read (Paddle 3.3.1)."""
    if tensor._is_initialized():
        return np.array(tensor)
    if 0 in tensor.shape():
        return np.empty(tensor.shape(), paddle.base.data_feeder.convert_dtype(dtype))
    return None


def prepare(call, attrs):
    """A static graph: the op built into a paddle.static.Program (one per input shape and dtype), the attributes
    constants, run by a paddle.static.Executor on the CPU with NumPy feeds (bfloat16 as its uint16 bits), each
    program in a paddle.static.Scope of its own: in the global scope one program's feed variables ("data",
    "indices") kept what another program's run left there, and int8 indices gave None in a fresh process but
    raised "numel() * SizeOf(dtype()) <= memory_size()" after an int64 run (Paddle 3.3.1, checked by hand).
    The answer is fetched as a tensor and read by fetched_array."""
    programs = {}
    executor = paddle.static.Executor(paddle.CPUPlace())

    def run(data, indices):
        key = tuple((tuple(t.shape), str(t.dtype)) for t in (data, indices))
        feed = {"data": data.numpy(), "indices": indices.numpy()}
        paddle.enable_static()
        try:
            if key not in programs:
                main = paddle.static.Program()
                with paddle.static.program_guard(main, paddle.static.Program()):
                    pairs = (("data", data), ("indices", indices))
                    inputs = [paddle.static.data(n, t.shape, t.dtype) for n, t in pairs]
                    programs[key] = main, call(*inputs, attrs), paddle.static.Scope()
            main, out, scope = programs[key]
            with paddle.static.scope_guard(scope):
                fetched = executor.run(main, feed=feed, fetch_list=[out], return_numpy=False)[0]
            return fetched_array(fetched, out.dtype)
        finally:
            paddle.disable_static()

    return run
'''
"""The ``paddle-static`` mode: a static graph (see the module docstring)."""

PADDLE_MODES = {"eager": EAGER, "static": PADDLE_STATIC}

PADDLE_RUNS = {
    "eager": EAGER_RUN,
    "static": (
        "paddle.enable_static()",
        'feed, main = {"data": data, "indices": indices}, paddle.static.Program()',
        "with paddle.static.program_guard(main, paddle.static.Program()):",
        "    data, indices = (paddle.static.data(k, v.shape, v.dtype) for k, v in feed.items())",
        "    out = {call}",
        "dtype = paddle.base.data_feeder.convert_dtype(out.dtype)  # the program's (bfloat16: 'uint16')",
        "out = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=[out], return_numpy=False)[0]",
        "# an output with no elements may hold no memory (return_numpy=True fetches None): its shape, the dtype",
        "out = np.array(out) if out._is_initialized() else np.empty(out.shape(), dtype) if 0 in out.shape() else None",
    ),
}
"""Each mode in a short script (:class:`~conformance.execution.glance.Snippet`): dygraph, or the op built into a
static program and run by an executor on NumPy feeds."""

PADDLE_SETUP = (
    'paddle.set_device("cpu")',
    "paddle.disable_signal_handler()  # a crash dies as one (Paddle's handler prints a C++ stack and exits 0)",
)
"""A short script's settings, as the prelude's."""


def paddle_error(message: str) -> str:
    r"""The error itself, without the "In user code:" traceback a static graph puts before it (whose source
    lines, ``_C_ops.gather(x, index, axis)``, would match any pattern).

    >>> paddle_error("In user code:\n    File 'x.py'\n      f(axis)\n\n"
    ...              "    OutOfRangeError: The element of Index must be")
    'OutOfRangeError: The element of Index must be'
    """
    if not message.startswith("In user code:"):
        return message
    blocks = [b.strip() for b in message.split("\n\n") if b.strip()]
    return blocks[-1] if blocks else message


MAX_RANK = 9
RANK_LIMIT = (
    'Paddle tensors have at most 9 dimensions, by design (paddle.to_tensor: "Invalid dimension to be accessed. Now '
    'only supports access to dimension 0 to 9"; a maintainer, https://github.com/PaddlePaddle/Paddle/issues/78463: '
    "tensors of ten or more dimensions are not supported by design)"
)
"""Why Paddle is never handed an array of more than :data:`MAX_RANK` dimensions (9-D made, 10-D refused, by hand,
Paddle 3.3.1)."""


class PaddleOracle(FrameworkOracle):
    """Paddle on the CPU, in dygraph or as a static graph. A tensor of more than :data:`MAX_RANK` dimensions cannot
    be made: gather is never called (audit of stop 46, 7B n=47: "paddle.gather: shapes refused" on 30-D data was
    ``paddle.to_tensor``'s refusal).

    >>> PaddleOracle().unsupported_reason("paddle.gather", np.zeros((1,) * 10), np.zeros(1, int), {})[:47]
    'paddle: data of rank 10: Paddle tensors have at'
    """

    patterns = PADDLE_PATTERNS
    max_rank = MAX_RANK
    rank_limit = RANK_LIMIT

    def message(self, exc: BaseException) -> str:
        return paddle_error(str(exc))

    def __init__(self, mode: str = "eager") -> None:
        from importlib.metadata import version  # paddle itself is imported by the prelude, its log level set first

        name = "paddle" + ("" if mode == "eager" else f"-{mode}")
        described = "static graph (paddle.static.Executor)" if mode == "static" else "eager (dygraph)"
        info = OracleInfo(
            name, "paddle", version("paddlepaddle"), "cpu", described, PADDLE_OPS, compiles=mode == "static"
        )
        super().__init__(info, PADDLE_PRELUDE, PADDLE_MODES[mode], PADDLE_UNITS)
        self._static = mode == "static"

    def snippet(self, case: Case) -> Snippet:
        """Tensors from NumPy in dygraph, NumPy feeds in a static graph; bfloat16 as its uint16 bits either way.

        >>> PaddleOracle("static").call_snippet(Case("paddle.gather_nd", np.zeros(2), np.array([[1]]))).run[4]
        '    out = {call}'
        """
        bits = ".view(np.uint16)" if np.asarray(case.data).dtype == BFLOAT16 else ""
        native = "{array}" if self._static else "paddle.to_tensor({array})"
        output = ("np.asarray({out})" if self._static else "{out}.numpy()") + (
            ".view(ml_dtypes.bfloat16)" if bits else ""
        )
        data = native.replace("{array}", "{array}" + bits)
        return Snippet(
            ("import paddle",),
            data=data,
            indices=native,
            setup=PADDLE_SETUP,
            run=PADDLE_RUNS["static" if self._static else "eager"],
            output=output,
        )

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        if a.dtype.kind in "USO":
            return "Paddle has no string or object tensors"
        if a.dtype.name in UNHELD:
            return f"Paddle has no {a.dtype.name} tensors {UNHELD[a.dtype.name]}".rstrip()
        return None


class PaddleAfterTensorFlow(ImportError):
    """Paddle asked to load into a process that has loaded TensorFlow: libpaddle.so dies there (SIGSEGV in
    ``paddle/base/core.py``'s ``from . import libpaddle``, Paddle 3.3.1 after TensorFlow 2.21), so it is refused."""


def _build() -> list[Oracle]:
    import sys

    if "tensorflow" in sys.modules and "paddle" not in sys.modules:
        raise PaddleAfterTensorFlow(
            "this process has loaded TensorFlow, after which importing paddle kills it (SIGSEGV loading libpaddle.so): "
            "import paddle first, or run Paddle in a process of its own (every oracle worker is one)"
        )
    return [PaddleOracle(), PaddleOracle("static")]


def oracles_here() -> list[Oracle]:
    """ "paddle" (CPU, dygraph) and "paddle-static" (CPU, static graph)."""
    return when_installed(("paddle",), _build)


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'paddle-gpu': 'this paddlepaddle (3.3.1) is built without CUDA (the CPU wheel; paddlepaddle-gpu has it)'}
    """
    import importlib.util

    if importlib.util.find_spec("paddle") is None:
        return {"paddle-gpu": "paddlepaddle is not installed"}
    import paddle

    if not paddle.is_compiled_with_cuda():
        why = "is built without CUDA (the CPU wheel; paddlepaddle-gpu has it)"
        return {"paddle-gpu": f"this paddlepaddle ({paddle.__version__}) {why}"}
    return {"paddle-gpu": "a CUDA build, but no oracle runs Paddle on a GPU yet"}
