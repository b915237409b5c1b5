"""NumPy's own gathers, ``numpy.take`` (every ``mode``, ``axis=None`` too),
``numpy.take_along_axis`` (``axis=None`` too) and integer-array (advanced)
indexing with an index-tuple array, as units any array namespace that
spells them the NumPy way can reuse (CuPy does, see :mod:`oracles.cupy_oracle`).

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("numpy.take", np.array([5, 6, 7]), np.array([-1, 0]), {}).value.tolist()
[7, 5]
>>> o.run_in_process("numpy.take", np.array([5, 6, 7]), np.array([3]), {}).error_class.name
'INDEX_OUT_OF_RANGE'
>>> o.run_in_process("numpy.take", np.array([1, "x"], dtype=object), np.array(1), {}).value.dtype
dtype('O')
"""

from __future__ import annotations

import numpy as np

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.execution.glance import Snippet
from conformance.execution.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

NUMPY_OPS = ("numpy.take", "numpy.take_along_axis", "numpy.advanced_indexing")

NUMPY_PATTERNS: Patterns = (
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        ("is out of bounds for axis", "out of range"),
    ),  # AxisError: see FrameworkOracle.classify
    (ErrorClass.DTYPE_UNSUPPORTED, ("cannot cast", "must be integer", "only integer*", "cannot be safely cast")),
    (ErrorClass.ATTRIBUTE_INVALID, ("axis ", "clipmode", "mode must be")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "broadcast*", "shape*", "1d", "1-d")),
)

NUMPY_PRELUDE = '''
import numpy as np


def to_native(a):
    return a


def to_numpy(x, like):
    """NumPy's answer as an array: a 0-d gather of an object array answers the element itself."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    out = np.empty((), dtype=like.dtype)
    out[()] = x
    return out
'''


def numpy_units(xp: str) -> tuple[OpUnit, ...]:
    """The NumPy gathers as called on the namespace imported as ``xp``.

    >>> numpy_units("cp")[2].call
    'data[tuple(cp.moveaxis(indices, -1, 0))]'
    """
    return (
        OpUnit("numpy.take", f"{xp}.take(data, indices, **attrs)"),
        OpUnit("numpy.take_along_axis", f"{xp}.take_along_axis(data, indices, **attrs)"),
        OpUnit("numpy.advanced_indexing", f"data[tuple({xp}.moveaxis(indices, -1, 0))]"),  # GatherND as users write it
    )


class NumpyOracle(FrameworkOracle):
    """NumPy on the CPU: it holds every input, so nothing is unsupported."""

    patterns = NUMPY_PATTERNS

    def __init__(self) -> None:
        info = OracleInfo("numpy", "numpy", np.__version__, "cpu", "eager", NUMPY_OPS)
        super().__init__(info, NUMPY_PRELUDE, EAGER, numpy_units("np"))

    def snippet(self, case: Case) -> Snippet:
        """NumPy's own arrays, called as they are."""
        return Snippet(())


def oracles_here() -> list[Oracle]:
    """The NumPy oracle (always available)."""
    return when_installed(("numpy",), lambda: [NumpyOracle()])
