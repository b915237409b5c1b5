"""JAX on the CPU: ``jax.numpy.take`` and ``jax.numpy.take_along_axis``
(``axis`` incl. None, ``mode`` None/"fill"/"clip"/"wrap", ``fill_value``).

64-bit types are switched on (``jax_enable_x64``) when the oracle is made, so
int64/uint64/float64 inputs stay what they are. JAX has no string or object
arrays. ``mode="raise"`` is JAX's own NotImplementedError (an outcome).

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("jax.numpy.take", np.arange(3.0), np.array([5, -1]), {}).value.tolist()
[nan, 2.0]
>>> o.run_in_process("jax.numpy.take", np.arange(3), np.array([1]), {}).value.dtype
dtype('int64')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.arrays import to_numpy
from oracles._common import FrameworkOracle, Patterns, bound, safely
from conformance.model import ErrorClass
from oracles.base import Oracle

JAX_OPS = ("jax.numpy.take", "jax.numpy.take_along_axis")

JAX_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("is out of bounds for array of dimension", "mode", "axis")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("must be integer", "integer type", "dtype")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "shape", "rank", "broadcast")),
)


class JaxOracle(FrameworkOracle):
    """jax.numpy, eager dispatch on the first CPU device."""

    patterns = JAX_PATTERNS

    def __init__(self) -> None:
        import jax

        jax.config.update("jax_enable_x64", True)
        super().__init__("jax", "jax", jax.__version__, "cpu", "eager", JAX_OPS)
        self.device = jax.devices("cpu")[0]

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        return "JAX has no string or object arrays" if a.dtype.kind in "USO" else None

    def call(self, op: str, data: np.ndarray, indices: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
        import jax
        import jax.numpy as jnp

        a = bound(op, attrs)
        d, i = jax.device_put(data, self.device), jax.device_put(indices, self.device)
        fn = jnp.take if op == "jax.numpy.take" else jnp.take_along_axis
        return to_numpy(fn(d, i, axis=a["axis"], mode=a["mode"], fill_value=a["fill_value"]))


def oracles_here() -> list[Oracle]:
    """The JAX CPU oracle when JAX imports."""
    return safely(lambda: [JaxOracle()])
