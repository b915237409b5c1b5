"""The array API standard's gathers, ``take`` (``axis`` incl. None for 1-D
input) and ``take_along_axis``, as its strict reference implementation
``array-api-strict`` runs them ("array-api-strict": its default API version,
on its default ``CPU_DEVICE``, eager: there is nothing else to run).

array-api-strict holds only the standard's dtypes (bool, int8-64, uint8-64,
float32, float64, complex64, complex128): float16, bfloat16, string and
object inputs are unsupported. The standard leaves out-of-bounds indices
unspecified; array-api-strict (NumPy underneath) raises IndexError on them.
It has no GPU.

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("array_api.take", np.arange(6).reshape(2, 3), np.array([-1, 0]), {"axis": 1}).value.tolist()
[[2, 0], [5, 3]]
>>> o.run_in_process("array_api.take_along_axis", np.arange(3.0), np.array([3]), {"axis": 0}).error_class.name
'INDEX_OUT_OF_RANGE'
>>> o.run_in_process("array_api.take", np.arange(3, dtype=np.float16), np.array([0]), {}).describe()
'not supported: array-api-strict: data dtype float16: the array API standard has no float16 (array-api-strict refuses
it)'
"""

from __future__ import annotations

import numpy as np

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import Snippet
from conformance.execution.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

ARRAY_API_OPS = ("array_api.take", "array_api.take_along_axis")

ARRAY_API_UNITS = (
    OpUnit("array_api.take", "xp.take(data, indices, **attrs)"),
    OpUnit("array_api.take_along_axis", "xp.take_along_axis(data, indices, **attrs)"),
)

ARRAY_API_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("is out of bounds for axis", "from an empty axis")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis must be specified", "out of bounds for array of dimension*", "axis")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("integer data type", "only integer*", "dtype*")),
    (ErrorClass.SHAPE_INVALID, ("1-dim indices", "broadcast*", "same number of dimensions", "shape*", "ndim")),
)

ARRAY_API_PRELUDE = '''
import array_api_strict as xp
import numpy as np


def to_native(a):
    """An array-api-strict array holding a copy of a (its dtype, the default CPU_DEVICE)."""
    return xp.asarray(a, copy=True)


def to_numpy(x, like):
    return np.asarray(x)
'''

STANDARD_DTYPES = frozenset(
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
    | {"float32", "float64", "complex64", "complex128"}
)


class ArrayApiStrictOracle(FrameworkOracle):
    """array-api-strict, the array API standard's reference implementation."""

    patterns = ARRAY_API_PATTERNS

    def __init__(self) -> None:
        import array_api_strict as xp

        mode = f"eager (API {xp.__array_api_version__})"
        info = OracleInfo("array-api-strict", "array-api-strict", xp.__version__, "cpu", mode, ARRAY_API_OPS)
        super().__init__(info, ARRAY_API_PRELUDE, EAGER, ARRAY_API_UNITS)

    def snippet(self, case: Case) -> Snippet:
        native = "xp.asarray({array})"
        return Snippet(("import array_api_strict as xp",), data=native, indices=native)

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        if a.dtype.name in STANDARD_DTYPES:
            return None
        name = "string or object dtypes" if a.dtype.kind in "USO" else a.dtype.name
        return f"the array API standard has no {name} (array-api-strict refuses it)"


def oracles_here() -> list[Oracle]:
    """ "array-api-strict" (always on its CPU device)."""
    return when_installed(("array_api_strict",), lambda: [ArrayApiStrictOracle()])
