"""CuPy, as a NumPy on a CUDA device: ``numpy.take``, ``numpy.take_along_axis``
and advanced indexing through the NumPy units spelled ``cp.`` (see
:func:`oracles.numpy_oracle.numpy_units`).

The module imports without CuPy; :func:`oracles_here` is then empty, as it is
when CuPy imports but sees no CUDA device.

>>> isinstance(oracles_here(), list)
True
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np

from conformance.core.arrays import BFLOAT16
from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import Snippet
from conformance.execution.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, when_installed
from oracles.base import Oracle
from oracles.numpy_oracle import NUMPY_OPS, NUMPY_PATTERNS, numpy_units

CUPY_PRELUDE = """
import cupy as cp
import numpy as np


def to_native(a):
    return cp.asarray(a)


def to_numpy(x, like):
    return cp.asnumpy(x)
"""

TAKE_WITHOUT_MODE = OpUnit("numpy.take", 'cp.take(data, indices, **{k: v for k, v in attrs.items() if k != "mode"})')
"""For a ``cupy.take`` with no ``mode`` argument: the NumPy call minus ``mode="raise"`` (other modes are
unsupported)."""


class CupyOracle(FrameworkOracle):
    """``numpy.*`` semantics on CuPy's device 0."""

    patterns = NUMPY_PATTERNS

    def __init__(self, cupy: Any) -> None:
        self._take_has_mode = "mode" in inspect.signature(cupy.take).parameters
        units = numpy_units("cp")
        if not self._take_has_mode:
            units = (TAKE_WITHOUT_MODE,) + units[1:]
        super().__init__(
            OracleInfo("cupy", "cupy", cupy.__version__, "cuda:0", "eager", NUMPY_OPS), CUPY_PRELUDE, EAGER, units
        )

    def snippet(self, case: Case) -> Snippet:
        native = "cp.asarray({array})"
        return Snippet(("import cupy as cp",), data=native, indices=native, output="cp.asnumpy({out})")

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        if a.dtype.kind in "USO":
            return "CuPy has no string or object arrays"
        if a.dtype == BFLOAT16:
            return "CuPy has no bfloat16"
        return None

    def unsupported_reason(
        self, op: str, data: np.ndarray, indices: np.ndarray, attrs: Mapping[str, Any]
    ) -> str | None:
        reason = super().unsupported_reason(op, data, indices, attrs)
        if reason is None and op == "numpy.take" and not self._take_has_mode and attrs.get("mode", "raise") != "raise":
            return "cupy.take has no mode argument"
        return reason


def _device_count() -> tuple[int, str]:
    """CUDA devices CuPy sees, and why none when there are none."""
    import cupy

    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except cupy.cuda.runtime.CUDARuntimeError as exc:  # no driver: no device
        return 0, f"CuPy {cupy.__version__} finds no CUDA driver or device ({exc})"
    return count, "" if count else f"CuPy {cupy.__version__} sees no CUDA device"


def _build() -> list[Oracle]:
    import cupy

    return [CupyOracle(cupy)] if _device_count()[0] else []


def oracles_here() -> list[Oracle]:
    """The CuPy oracle when CuPy is installed and a CUDA device exists, else []."""
    return when_installed(("cupy",), _build)


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'cupy': 'cupy is not installed (it needs a CUDA machine: pip install cupy-cuda12x)'}
    """
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        return {"cupy": "cupy is not installed (it needs a CUDA machine: pip install cupy-cuda12x)"}
    count, why = _device_count()
    return {} if count else {"cupy": why}
