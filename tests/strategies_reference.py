"""Shared test helpers for the reference: an independent, per-element oracle
of the multiaxis gather and the Hypothesis strategies that feed it.

The oracle (:func:`oracle_gather`) is a line-by-line transcription of the
seed's JavaScript ``gatherMultiaxis`` (``shared/seeds/004``): loop over every
output coordinate, mask it with the broadcasting masks of ``input`` and of the
logical ``indices`` shape, and read one index element per axis. Index values
are Python ints and each policy is applied with Python integer arithmetic, so
nothing here shares code with ``conformance.spec.policy`` or ``conformance.spec.multiaxis``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from conformance.spec.policy import POLICIES, IndexPolicy

Shape = tuple[int, ...]

INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
NUMERIC_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
DATA_DTYPES = NUMERIC_DTYPES + ("str", "object")


def np_dtype(name: str) -> np.dtype:
    """``"bfloat16"`` through ml_dtypes, ``"str"`` as a short unicode dtype."""
    if name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    if name == "str":
        return np.dtype("<U3")
    return np.dtype(name)


# -- the oracle ---------------------------------------------------------------


def expected_fill(policy: IndexPolicy, dtype: np.dtype) -> Any:
    """The documented fill (JAX's table for ``fill_value=None``), restated."""
    if policy.fill_value is not None:
        return policy.fill_value
    if dtype == np.bool_:
        return True
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    if dtype.kind in "US":
        return ""
    if dtype.kind == "O":
        return None
    return np.nan  # float, complex, bfloat16


def resolve_index(value: int, size: int, policy: IndexPolicy) -> int | None:
    """Where ``value`` reads along an axis of ``size``; None means "fill".
    Raises IndexError where the policy says an error."""
    if policy.out_of_range == "wrap":
        if size == 0:
            raise IndexError("wrap into an empty axis")
        return value % size
    if policy.negative == "wrap" and -size <= value < 0:
        value += size
    if 0 <= value < size:
        return value
    if policy.out_of_range == "error":
        raise IndexError(f"{value} out of range for size {size}")
    if policy.out_of_range == "clamp":
        if size == 0:
            raise IndexError("clamp into an empty axis")
        return 0 if value < 0 else size - 1
    return None


def oracle_shapes(in_shape: Shape, idx_shape: Shape, axes: tuple[int, ...]) -> tuple[Shape, Shape]:
    """``(logical indices shape, output shape)`` exactly as the seed computes them."""
    ncoord = max(len(axes), 1)
    assert idx_shape[-1] % ncoord == 0
    logical = idx_shape[:-1] + (idx_shape[-1] // ncoord,)
    out = []
    for d, (i, n) in enumerate(zip(in_shape, logical)):
        if d in axes:
            out.append(n)
        else:
            assert i == n or 1 in (i, n)
            out.append(n if i == 1 else i)
    return logical, tuple(out)


def oracle_gather(input: np.ndarray, indices: np.ndarray, axes: tuple[int, ...], policy: IndexPolicy) -> np.ndarray:
    """The seed's ``gatherMultiaxis``, one output element at a time.

    Every index element is checked against its axis first (ONNX: "an error if
    any of the index values are out of bounds"), whether or not the output is
    empty.
    """
    if input.ndim == 0:
        return input.copy()
    axes = tuple(a % input.ndim for a in axes)
    ncoord = max(len(axes), 1)
    logical, out_shape = oracle_shapes(input.shape, indices.shape, axes)
    for k, axis in enumerate(axes):
        for value in indices[..., k::ncoord].reshape(-1).tolist():
            resolve_index(int(value), input.shape[axis], policy)
    out = np.empty(out_shape, dtype=input.dtype)
    in_mask = [int(n > 1) for n in input.shape]
    idx_mask = [int(n > 1) for n in logical]
    fill = expected_fill(policy, input.dtype)
    for o in np.ndindex(*out_shape):
        in_coord = [c * m for c, m in zip(o, in_mask)]
        idx_coord = [c * m for c, m in zip(o, idx_mask)]
        idx_coord[-1] *= ncoord
        filled = False
        for axis in axes:
            pos = resolve_index(int(indices[tuple(idx_coord)]), input.shape[axis], policy)
            idx_coord[-1] += 1
            if pos is None:
                filled = True
            else:
                in_coord[axis] = pos
        out[o] = fill if filled else input[tuple(in_coord)]
    return out


# -- strategies ----------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One call of ``gather_multiaxis``."""

    input: np.ndarray
    indices: np.ndarray
    axes: tuple[int, ...]
    policy: IndexPolicy


def index_values(dtype: np.dtype, size_hint: int) -> st.SearchStrategy[int]:
    """Mostly small values around the valid range, sometimes the dtype's extremes."""
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -size_hint - 2), min(int(info.max), size_hint + 2)
    extremes = sorted(
        {int(info.min), int(info.max), max(int(info.min), -1), min(int(info.max), 2**31 - 1), int(info.max) // 2 + 1}
    )
    return st.one_of(st.integers(lo, hi), st.integers(lo, hi), st.integers(lo, hi), st.sampled_from(extremes))


def data_array(dtype_name: str, shape: Shape) -> st.SearchStrategy[np.ndarray]:
    """Arbitrary bits for numeric dtypes (NaN payloads, -0.0, subnormals all
    appear), short strings for ``str``, mixed Python objects for ``object``."""
    n = math.prod(shape)
    dtype = np_dtype(dtype_name)
    if dtype_name == "bool":
        return st.binary(min_size=n, max_size=n).map(
            lambda b: (np.frombuffer(b, np.uint8) & 1).astype(bool).reshape(shape)
        )
    if dtype_name == "str":
        return st.lists(st.text("ab\u00e9\u4e2d", max_size=3), min_size=n, max_size=n).map(
            lambda v: np.array(v, dtype=dtype).reshape(shape)
        )
    if dtype_name == "object":
        objects = st.one_of(st.integers(-3, 3), st.text("xy", max_size=2), st.none())
        return st.lists(objects, min_size=n, max_size=n).map(lambda v: _object_array(v, shape))
    nbytes = n * dtype.itemsize
    return st.binary(min_size=nbytes, max_size=nbytes).map(
        lambda b: np.frombuffer(b, dtype=dtype).reshape(shape).copy()
    )


def _object_array(values: list[Any], shape: Shape) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


LAYOUTS = ("C", "F", "strided", "reversed")


def with_layout(a: np.ndarray, layout: str) -> np.ndarray:
    """The same values in another memory layout: Fortran order, a
    non-contiguous slice of a bigger buffer, or negative strides."""
    if a.ndim == 0:
        return a  # (np.asfortranarray would make it 1-d)
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        big = np.empty((a.shape[0] * 2,) + a.shape[1:], dtype=a.dtype)
        big[::2] = a
        return big[::2]
    if layout == "reversed":
        flipped = np.ascontiguousarray(a[::-1, ...])
        return flipped[::-1, ...]
    return a


@st.composite
def multiaxis_cases(
    draw: st.DrawFn,
    dtypes: tuple[str, ...] = DATA_DTYPES,
    index_dtypes: tuple[str, ...] = INDEX_DTYPES,
    policies: tuple[IndexPolicy, ...] | None = None,
    layouts: tuple[str, ...] = LAYOUTS,
    max_rank: int = 5,
) -> Case:
    """Random shapes (rank 0..max_rank, sizes 0..4), a random subset of axes in
    random order (negative half the time), bidirectional broadcasting of the
    other dimensions, any index dtype, policy and memory layout."""
    rank = draw(st.integers(0, max_rank))
    in_shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    axes = tuple(draw(st.permutations(range(rank)).flatmap(lambda p: st.integers(0, len(p)).map(lambda k: p[:k]))))
    logical = []
    for d, n in enumerate(in_shape):
        if d in axes or n == 1:
            logical.append(draw(st.integers(0, 4)))
        else:
            logical.append(draw(st.sampled_from((n, 1))))
    while math.prod(logical) * max(len(axes), 1) > 256 or math.prod(in_shape) > 512:
        # keep the per-element oracle fast: cap every size at 2, which keeps
        # each pair (input, logical indices) as broadcastable as it was
        in_shape = tuple(min(n, 2) for n in in_shape)
        logical = [min(n, 2) for n in logical]
    idx_shape = tuple(logical)
    if rank:
        idx_shape = idx_shape[:-1] + (idx_shape[-1] * max(len(axes), 1),)
    index_dtype = np.dtype(draw(st.sampled_from(index_dtypes)))
    size_hint = max((in_shape[a] for a in axes), default=1)
    n = math.prod(idx_shape)
    values = draw(st.lists(index_values(index_dtype, size_hint), min_size=n, max_size=n))
    indices = np.array(values, dtype=index_dtype).reshape(idx_shape)
    data = draw(data_array(draw(st.sampled_from(dtypes)), in_shape))
    signed_axes = tuple(a - rank if draw(st.booleans()) else a for a in axes)
    policy = draw(st.sampled_from(policies or tuple(POLICIES.values())))
    return Case(
        with_layout(data, draw(st.sampled_from(layouts))),
        with_layout(indices, draw(st.sampled_from(layouts))),
        signed_axes,
        policy,
    )
