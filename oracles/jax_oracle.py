"""JAX: ``jax.numpy.take`` and ``jax.numpy.take_along_axis`` (``axis`` incl.
None, ``mode`` None/"fill"/"clip"/"wrap", ``fill_value``), indexing
``x[i0, i1, ...]`` ("jax.advanced_indexing") and ``jax.lax.gather`` in its
default mode (with the dimension numbers of that indexing, see
:data:`LAX_GATHER_ND`), eager dispatch on the first CPU device, in two
configurations:

* "jax": 64-bit types on (``jax_enable_x64``), so int64/uint64/float64 inputs
  stay what they are;
* "jax-default": JAX as most users run it, 64-bit types off: a 64-bit input is
  canonicalized to 32 bits when it becomes a JAX array (silently: int64
  ``2**40`` becomes ``0``). Nothing is cast here; that conversion is JAX's and
  its result is the outcome. JAX documents it (``OracleInfo.bits`` 32), so
  the judge also holds the answer to the reference on the inputs as JAX
  receives them (:func:`conformance.judge.verdict.judge`).

The setting is scoped, not process-wide: ``to_native`` and the call run
inside ``with jax.enable_x64(X64)``, so both oracles can live in one process
and each reproducer states its own configuration. "jax-gpu" runs the x64
configuration on the first GPU where JAX has one (:func:`unavailable_here`
says why not). JAX has no string or object arrays. ``mode="raise"`` is JAX's
own NotImplementedError (an outcome).

>>> import numpy as np
>>> x64, default = oracles_here()
>>> x64.run_in_process("jax.numpy.take", np.arange(3.0), np.array([5, -1]), {}).value.tolist()
[nan, 2.0]
>>> x64.run_in_process("jax.numpy.take", np.arange(3), np.array([1]), {}).value.dtype
dtype('int64')
>>> default.run_in_process("jax.numpy.take", np.arange(3), np.array([1]), {}).value.dtype
dtype('int32')
>>> x64.run_in_process("jax.lax.gather", np.arange(6).reshape(2, 3), np.array([[-1], [5]]), {}).value.tolist()
[[0, 1, 2], [3, 4, 5]]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conformance.core.case import Case
from conformance.core.oracle import OracleInfo
from conformance.core.outcome import ErrorClass
from conformance.core.vocabulary import DtypeArg
from conformance.execution.glance import Snippet
from oracles._common import FrameworkOracle, OpUnit, Patterns, when_installed
from oracles.base import Oracle

CACHE_EVENTS = {"/jax/compilation_cache/cache_misses": 0, "/jax/compilation_cache/cache_hits": 1}
"""The events ``jax.monitoring`` records for an executable compiled afresh (0) and one taken from the persistent
compilation cache (1)."""

JAX_OPS = ("jax.numpy.take", "jax.numpy.take_along_axis", "jax.advanced_indexing", "jax.lax.gather")

JAX_UNITS = (
    OpUnit("jax.numpy.take", "jnp.take(data, indices, **attrs)"),
    OpUnit("jax.numpy.take_along_axis", "jnp.take_along_axis(data, indices, **attrs)"),
    OpUnit("jax.advanced_indexing", "data[tuple(jnp.moveaxis(indices, -1, 0))]"),  # GatherND as users write it
    OpUnit("jax.lax.gather", "lax_gather_nd(data, indices)"),
)

JAX_PATTERNS: Patterns = (
    (
        ErrorClass.INDEX_OUT_OF_RANGE,
        ("is out of bounds for axis", "from an empty axis"),
    ),  # before "axis": x[0] of an empty axis
    (ErrorClass.ATTRIBUTE_INVALID, ("is out of bounds for array of dimension", "mode", "axis")),
    (ErrorClass.DTYPE_UNSUPPORTED, ("must be integer", "integer type", "dtype*")),
    (
        ErrorClass.SHAPE_INVALID,
        ("same number of dimensions", "shape*", "rank*", "broadcast*", "too many indices", "slice_sizes"),
    ),
)

LAX_GATHER_ND = '''

def lax_gather_nd_numbers(data_shape, indices_shape):
    """The dimension numbers (as GatherDimensionNumbers' keywords) and slice sizes of
    data[tuple(jnp.moveaxis(indices, -1, 0))]: the k index columns address data's first k
    dimensions, which collapse; the rest come whole."""
    k, q, r = indices_shape[-1] if indices_shape else 1, len(indices_shape), len(data_shape)
    numbers = dict(
        offset_dims=tuple(range(max(q - 1, 0), max(q - 1, 0) + r - k)),
        collapsed_slice_dims=tuple(range(k)),
        start_index_map=tuple(range(k)),
    )
    return numbers, (1,) * k + tuple(data_shape[k:])


def lax_gather_nd(data, indices):
    """lax.gather as data[tuple(jnp.moveaxis(indices, -1, 0))] spelled out (lax_gather_nd_numbers).
    0-d indices (no index column at all) go to JAX as they are: it raises its own error."""
    numbers, slice_sizes = lax_gather_nd_numbers(data.shape, indices.shape)
    dimension_numbers = jax.lax.GatherDimensionNumbers(**numbers)
    return jax.lax.gather(data, indices, dimension_numbers, slice_sizes=slice_sizes)
'''
"""Prelude text: ``jax.lax.gather`` with the dimension numbers of ``x[i0, ..., ik-1]``
(``index_vector_dim`` the last, as the default), its mode left at the default."""

JAX_PRELUDE = (
    '''
import jax
import jax.numpy as jnp
import numpy as np


def to_native(a):
    """a on DEVICE as JAX makes it under X64 (with X64 off, JAX itself narrows 64-bit types to 32 bits)."""
    with jax.enable_x64(X64):
        return jax.device_put(a, DEVICE)


def to_numpy(x, like):
    return np.asarray(x)
'''
    + LAX_GATHER_ND
)

JAX_SCOPED = '''
def prepare(call, attrs):
    """Eager dispatch, inside jax.enable_x64(X64) (False is JAX's default)."""
    def run(data, indices):
        with jax.enable_x64(X64):
            return call(data, indices, attrs)
    return run
'''


class JaxOracle(FrameworkOracle):
    """JAX with 64-bit types on (``x64``) or as configured by default, on one device."""

    patterns = JAX_PATTERNS

    def __init__(self, x64: bool = True, platform: str = "cpu") -> None:
        import jax

        name = "jax" + ("" if x64 else "-default") + ("" if platform == "cpu" else f"-{platform}")
        mode = "eager" if x64 else "eager (x64 off)"
        info = OracleInfo(
            name,
            "jax",
            jax.__version__,
            f"{platform}:0" if platform != "cpu" else "cpu",
            mode,
            JAX_OPS,
            64 if x64 else 32,
            compiles=True,  # eager dispatch compiles each op with XLA, once per shape signature
        )
        settings = f'\n\nX64 = {x64!r}  # jax_enable_x64\nDEVICE = jax.devices("{platform}")[0]\n'
        super().__init__(info, JAX_PRELUDE + settings, JAX_SCOPED, JAX_UNITS)
        self.x64, self.platform = x64, platform
        self._counts: list[int] = []

    def keep_compilations(self, folder: Path) -> None:
        """JAX's persistent compilation cache in ``folder``, for every compilation however short (JAX keeps only
        those over 1 s by default: a gather compiles in milliseconds), its misses and hits counted
        (:meth:`compilations`)."""
        import jax
        from jax import monitoring

        jax.config.update("jax_compilation_cache_dir", str(folder))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        self._counts = [0, 0]
        monitoring.register_event_listener(self._event)

    def _event(self, event: str, **kwargs: object) -> None:
        if event in CACHE_EVENTS:
            self._counts[CACHE_EVENTS[event]] += 1

    def compilations(self) -> tuple[int, int] | None:
        """``(compiled afresh, taken from the persistent cache)`` so far (JAX's ``cache_misses`` and ``cache_hits``
        events); None until :meth:`keep_compilations`."""
        return (self._counts[0], self._counts[1]) if self._counts else None

    def snippet(self, case: Case) -> Snippet:
        """JAX with 64-bit types on where this oracle has them (off is JAX's default), on its platform."""
        setup: tuple[str, ...] = ('jax.config.update("jax_enable_x64", True)',) if self.x64 else ()
        if self.platform == "cpu":
            setup += ('jax.config.update("jax_platforms", "cpu")',)
        native = "jnp.asarray({array})"
        return Snippet(("import jax", "import jax.numpy as jnp"), data=native, indices=native, setup=setup)

    def call_snippet(self, case: Case) -> Snippet | None:
        """``jax.lax.gather`` written out with the case's own dimension numbers (the prelude's
        ``lax_gather_nd_numbers``); every other op as its unit calls it.

        >>> s = JaxOracle().call_snippet(Case("jax.lax.gather", np.zeros((2, 3)), np.array([[1]])))
        >>> print(s.call)
        jax.lax.gather(data, indices, jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), \
start_index_map=(0,)), slice_sizes=(1, 3))
        """
        if case.op != "jax.lax.gather":
            return super().call_snippet(case)
        numbers, sizes = self._namespace["lax_gather_nd_numbers"](np.shape(case.data), np.shape(case.indices))
        words = ", ".join(f"{k}={v!r}" for k, v in numbers.items())
        call = f"jax.lax.gather(data, indices, jax.lax.GatherDimensionNumbers({words}), slice_sizes={sizes!r})"
        return self.snippet(case).with_call(call)

    def dtype_problem(self, op: str, arg: DtypeArg, a: np.ndarray) -> str | None:
        return "JAX has no string or object arrays" if a.dtype.kind in "USO" else None


def _gpu_problem() -> str | None:
    """Why JAX has no GPU here, or None when it has one."""
    import jax

    try:
        return None if jax.devices("gpu") else "JAX sees no GPU"
    except (
        RuntimeError
    ) as exc:  # "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present"
        return f"JAX has no GPU backend here ({str(exc).splitlines()[0]})"


def _build() -> list[Oracle]:
    gpu = [JaxOracle(True, "gpu")] if _gpu_problem() is None else []
    return [JaxOracle(True), JaxOracle(False), *gpu]


def oracles_here() -> list[Oracle]:
    """ "jax" (x64) and "jax-default" on the CPU, and "jax-gpu" where JAX has a GPU."""
    return when_installed(("jax",), _build)


def unavailable_here() -> dict[str, str]:
    """The oracles this module offers elsewhere but not here, each with the reason.

    >>> unavailable_here()                               # doctest: +SKIP
    {'jax-gpu': "JAX has no GPU backend here (Unknown backend: 'gpu' requested, ...)"}
    """
    import importlib.util

    if importlib.util.find_spec("jax") is None:
        return {"jax-gpu": "jax is not installed"}
    problem = _gpu_problem()
    return {"jax-gpu": problem} if problem else {}
