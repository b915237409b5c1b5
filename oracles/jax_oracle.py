"""JAX on the CPU: ``jax.numpy.take`` and ``jax.numpy.take_along_axis``
(``axis`` incl. None, ``mode`` None/"fill"/"clip"/"wrap", ``fill_value``).

64-bit types are switched on (``jax_enable_x64``, process-wide) when the
oracle is made, so int64/uint64/float64 inputs stay what they are. JAX has no
string or object arrays. ``mode="raise"`` is JAX's own NotImplementedError
(an outcome).

>>> import numpy as np
>>> (o,) = oracles_here()
>>> o.run_in_process("jax.numpy.take", np.arange(3.0), np.array([5, -1]), {}).value.tolist()
[nan, 2.0]
>>> o.run_in_process("jax.numpy.take", np.arange(3), np.array([1]), {}).value.dtype
dtype('int64')
"""

from __future__ import annotations

import numpy as np

from conformance.model import ErrorClass, OracleInfo
from conformance.scripts import EAGER
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

JAX_OPS = ("jax.numpy.take", "jax.numpy.take_along_axis")

JAX_UNITS = (
    OpUnit("jax.numpy.take", "jnp.take(data, indices, **attrs)"),
    OpUnit("jax.numpy.take_along_axis", "jnp.take_along_axis(data, indices, **attrs)"),
)

JAX_PATTERNS: Patterns = (
    (ErrorClass.ATTRIBUTE_INVALID, ("is out of bounds for array of dimension", "mode", "axis")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("must be integer", "integer type", "dtype")),
    (ErrorClass.SHAPE_INVALID, ("same number of dimensions", "shape", "rank", "broadcast")),
)

JAX_PRELUDE = '''
import jax
import numpy as np

jax.config.update("jax_enable_x64", True)  # int64, uint64 and float64 stay what they are
import jax.numpy as jnp  # noqa: E402

DEVICE = jax.devices("cpu")[0]


def to_native(a):
    return jax.device_put(a, DEVICE)


def to_numpy(x, like):
    return np.asarray(x)
'''


class JaxOracle(FrameworkOracle):
    """jax.numpy, eager dispatch on the first CPU device."""

    patterns = JAX_PATTERNS

    def __init__(self) -> None:
        import jax

        info = OracleInfo("jax", "jax", jax.__version__, "cpu", "eager", JAX_OPS)
        super().__init__(info, JAX_PRELUDE, EAGER, JAX_UNITS)

    def dtype_problem(self, op: str, arg: str, a: np.ndarray) -> str | None:
        return "JAX has no string or object arrays" if a.dtype.kind in "USO" else None


def oracles_here() -> list[Oracle]:
    """The JAX CPU oracle when JAX is installed (an installed JAX that fails to import raises)."""
    return when_installed(("jax",), lambda: [JaxOracle()])
