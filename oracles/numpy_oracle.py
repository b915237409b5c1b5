"""NumPy's own gathers, ``numpy.take`` (every ``mode``, ``axis=None`` too),
``numpy.take_along_axis`` (``axis=None`` too) and integer-array (advanced)
indexing with an index-tuple array, on any array namespace that
spells them the NumPy way (CuPy reuses this, see :mod:`oracles.cupy_oracle`).

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("numpy.take", np.array([5, 6, 7]), np.array([-1, 0]), {}).value.tolist()
[7, 5]
>>> o.run_in_process("numpy.take", np.array([5, 6, 7]), np.array([3]), {}).error_class.name
'INDEX_OUT_OF_RANGE'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from conformance.arrays import to_numpy
from oracles._common import FrameworkOracle, Patterns, bound, safely
from conformance.model import ErrorClass
from oracles.base import Oracle

NUMPY_OPS = ("numpy.take", "numpy.take_along_axis", "numpy.advanced_indexing")

NUMPY_PATTERNS: Patterns = (
    (ErrorClass.INDEX_OUT_OF_RANGE, ("is out of bounds for axis", "out of range")),  # AxisError: see FrameworkOracle.classify
    (ErrorClass.DTYPE_UNSUPPORTED, ("cannot cast", "must be integer", "only integer", "cannot be safely cast")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis ", "clipmode", "mode must be")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "broadcast", "shape", "1d", "1-d")),
)


def numpy_style_call(xp: Any, op: str, data: Any, indices: Any, attrs: Mapping[str, Any]) -> Any:
    """Call ``xp.take`` / ``xp.take_along_axis`` / ``data[...]`` as a NumPy user would.

    >>> numpy_style_call(np, "numpy.take_along_axis", np.array([[1, 2]]), np.array([[1, 1]]), {"axis": 1}).tolist()
    [[2, 2]]
    >>> numpy_style_call(np, "numpy.advanced_indexing", np.arange(4).reshape(2, 2), np.array([[1, 0]]), {}).tolist()
    [2]
    """
    if op == "numpy.advanced_indexing":  # the GatherND users write: x[i0, i1, ...]
        return data[tuple(xp.moveaxis(indices, -1, 0))]
    a = bound(op, attrs)
    if op == "numpy.take":
        return xp.take(data, indices, axis=a["axis"], mode=a["mode"])
    return xp.take_along_axis(data, indices, axis=a["axis"])


class NumpyOracle(FrameworkOracle):
    """NumPy on the CPU: it holds every input, so nothing is unsupported."""

    patterns = NUMPY_PATTERNS

    def __init__(self) -> None:
        super().__init__("numpy", "numpy", np.__version__, "cpu", "eager", NUMPY_OPS)

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        return to_numpy(numpy_style_call(np, op, np.asarray(data), np.asarray(indices), attrs))


def oracles_here() -> list[Oracle]:
    """The NumPy oracle (always available)."""
    return safely(lambda: [NumpyOracle()])
