"""MLX: ``mlx.core.take`` (``axis`` incl. None), ``mlx.core.take_along_axis``
(``axis`` incl. None) and indexing ``x[i0, i1, ...]`` ("mlx.advanced_indexing"),
on the CPU, eager ("mlx": MLX evaluates lazily, ``to_numpy`` forces it) and
compiled by ``mx.compile`` ("mlx-compile": one compiled function per op and
attributes, traced again per dtype and shape).

Inputs become MLX arrays of the same dtype: floating point through their bits
(``mx.array`` of a float64 NumPy array would make it float32, a value cast),
and back the same way. MLX has no complex128, string or object arrays, so
those are unsupported. MLX documents that indexing "does not perform bounds
checking": an index out of range reads whatever lies there (or kills the
worker), which the catalog records as unspecified.

The ``mlx-cpu`` wheel has no GPU backend; :func:`unavailable_here` says so for
"mlx-gpu" (MLX's GPUs are Apple's Metal and, with the ``mlx[cuda]`` build, CUDA).

>>> import numpy as np
>>> eager, compiled = oracles_here()
>>> eager.run_in_process("mlx.take", np.arange(6).reshape(2, 3), np.array([-1, 0]), {"axis": 1}).value.tolist()
[[2, 0], [5, 3]]
>>> compiled.run_in_process("mlx.advanced_indexing", np.arange(6.0).reshape(2, 3), np.array([[1, -1]]), {}).value
array([5.])
>>> eager.run_in_process("mlx.take", np.array([1.0, 2.0**-1074]), np.array([1]), {}).value.view(np.uint64).tolist()
[1]
>>> eager.run_in_process("mlx.take", np.array([1 + 2j]), np.array([0]), {}).describe()
'not supported: mlx: data dtype complex128: MLX has no complex128 arrays'
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

MLX_OPS = ("mlx.take", "mlx.take_along_axis", "mlx.advanced_indexing")

MLX_UNITS = (
    OpUnit("mlx.take", "mx.take(data, indices, **attrs)"),
    OpUnit("mlx.take_along_axis", "mx.take_along_axis(data, indices, **attrs)"),
    OpUnit("mlx.advanced_indexing", "data[tuple(mx.moveaxis(indices, -1, 0))]"),  # GatherND as users write it
)

MLX_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("invalid axis",)),  # an IndexError: "[take] Received invalid axis 1 for ..."
    (ErrorClass.DTYPE_UNSUPPORTED, ("invalid dtype", "must be integral", "boolean indices", "not supported for type")),
    (
        ErrorClass.SHAPE_INVALID,
        ("does not match array of dimension*", "cannot be broadcast*", "too many indices", "shape*", "dimension*"),
    ),
)

MLX_PRELUDE = '''
import mlx.core as mx
import numpy as np

BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}
FLOATS = {"float16": mx.float16, "bfloat16": mx.bfloat16, "float32": mx.float32, "float64": mx.float64,
          "complex64": mx.complex64}


def to_native(a):
    """The MLX array holding exactly a: floating point through its bits (mx.array would make float64 float32)."""
    a = np.array(a, copy=True, order="C")  # contiguous, 0-d kept (np.ascontiguousarray makes it 1-d)
    if a.dtype.name in FLOATS:
        return mx.array(a.view(BITS[a.dtype.itemsize])).view(FLOATS[a.dtype.name])
    return mx.array(a)


def to_numpy(x, like):
    """The array's bits as NumPy (bfloat16 back through uint16, as ml_dtypes' bfloat16); evaluates it."""
    mx.eval(x)
    if x.dtype == mx.bfloat16:
        import ml_dtypes

        return np.array(x.view(mx.uint16)).view(ml_dtypes.bfloat16)
    return np.array(x)


mx.set_default_device(mx.cpu)
'''

MLX_COMPILE = '''
def prepare(call, attrs):
    """mx.compile: the op traced into a compiled graph (once per dtype and shape), the attributes constants."""
    return mx.compile(lambda data, indices: call(data, indices, attrs))
'''
"""The ``mlx-compile`` mode: what ``mx.compile(fn)`` does to a gather."""

MLX_MODES = {"eager": EAGER, "compile": MLX_COMPILE}

MLX_RUNS = {"eager": EAGER_RUN, "compile": ("out = mx.compile(lambda data, indices: {call})(data, indices)",)}
"""Each mode in a short script (:class:`~conformance.execution.glance.Snippet`): the call as it is, or compiled."""


def mlx_native(a: np.ndarray) -> str:
    """A short script's MLX array of ``a``: float64 kept float64 (``mx.array`` alone makes it float32),
    bfloat16 through its bits.

    >>> mlx_native(np.zeros(1)), mlx_native(np.zeros(1, np.int8))
    ('mx.array({array}, dtype=mx.float64)', 'mx.array({array})')
    """
    if a.dtype == BFLOAT16:
        return "mx.array({array}.view(np.uint16)).view(mx.bfloat16)"
    return "mx.array({array}, dtype=mx.float64)" if a.dtype == np.float64 else "mx.array({array})"


class MlxOracle(FrameworkOracle):
    """MLX on the CPU, eager or compiled."""

    patterns = MLX_PATTERNS

    def __init__(self, mode: str = "eager") -> None:
        from importlib.metadata import version

        name = "mlx" + ("" if mode == "eager" else f"-{mode}")
        described = "compile (mx.compile)" if mode == "compile" else mode
        info = OracleInfo(name, "mlx", version("mlx"), "cpu", described, MLX_OPS, compiles=mode == "compile")
        super().__init__(info, MLX_PRELUDE, MLX_MODES[mode], MLX_UNITS)
        self._run = MLX_RUNS[mode]

    def snippet(self, case: Case) -> Snippet:
        """MLX arrays on the CPU (:func:`mlx_native`), the answer back as NumPy (which evaluates it)."""
        bf16 = np.asarray(case.data).dtype == BFLOAT16
        output = "np.array({out}.view(mx.uint16)).view(ml_dtypes.bfloat16)" if bf16 else "np.array({out})"
        data, indices = mlx_native(np.asarray(case.data)), mlx_native(np.asarray(case.indices))
        return Snippet(
            ("import mlx.core as mx",),
            data=data,
            indices=indices,
            setup=("mx.set_default_device(mx.cpu)",),
            run=self._run,
            output=output,
        )

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        if a.dtype.kind in "USO":
            return "MLX has no string or object arrays"
        return "MLX has no complex128 arrays" if a.dtype == np.complex128 else None


def oracles_here() -> list[Oracle]:
    """ "mlx" (CPU, eager) and "mlx-compile" (CPU, ``mx.compile``)."""
    return when_installed(("mlx",), lambda: [MlxOracle(), MlxOracle("compile")])


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'mlx-gpu': 'this MLX (0.32.4) has no GPU backend: neither Metal nor CUDA is available'}
    """
    import importlib.util

    if importlib.util.find_spec("mlx") is None:
        return {"mlx-gpu": "mlx is not installed"}
    from importlib.metadata import version

    import mlx.core as mx

    if mx.metal.is_available() or mx.cuda.is_available():
        return {"mlx-gpu": "a GPU backend is available, but no oracle runs MLX on it yet"}
    return {"mlx-gpu": f"this MLX ({version('mlx')}) has no GPU backend: neither Metal nor CUDA is available"}
