"""CuPy, as a NumPy on a CUDA device: ``numpy.take`` and
``numpy.take_along_axis`` through ``cupy.take`` / ``cupy.take_along_axis``.

The module imports without CuPy; :func:`oracles_here` is then empty, as it is
when CuPy imports but sees no CUDA device.

>>> isinstance(oracles_here(), list)
True
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from conformance.arrays import BFLOAT16, to_numpy
from oracles._common import FrameworkOracle, bound, safely
from oracles.base import Oracle
from oracles.numpy_oracle import NUMPY_OPS, NUMPY_PATTERNS, numpy_style_call


class CupyOracle(FrameworkOracle):
    """``numpy.*`` semantics on CuPy's device 0."""

    patterns = NUMPY_PATTERNS

    def __init__(self, cupy: Any) -> None:
        self.cp = cupy
        super().__init__("cupy", "cupy", cupy.__version__, "cuda:0", "eager", NUMPY_OPS)
        self._take_has_mode = "mode" in inspect.signature(cupy.take).parameters

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        if a.dtype.kind in "USO":
            return "CuPy has no string or object arrays"
        if a.dtype == BFLOAT16:
            return "CuPy has no bfloat16"
        return None

    def unsupported_reason(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> str | None:
        reason = super().unsupported_reason(op, data, indices, attrs)
        if reason is None and op == "numpy.take" and not self._take_has_mode and bound(op, attrs)["mode"] != "raise":
            return "cupy.take has no mode argument"
        return reason

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        cp = self.cp
        d, i = cp.asarray(data), cp.asarray(indices)
        if op == "numpy.take" and not self._take_has_mode:  # the NumPy call minus mode="raise"
            return to_numpy(cp.take(d, i, axis=bound(op, attrs)["axis"]))
        return to_numpy(numpy_style_call(cp, op, d, i, attrs))


def _build() -> list[Oracle]:
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 1:
        return []
    return [CupyOracle(cupy)]


def oracles_here() -> list[Oracle]:
    """The CuPy oracle when CuPy imports and a CUDA device exists, else []."""
    return safely(_build)
