"""``gather_multiaxis``: the one gather every framework op is mapped onto.

Semantics (design draft "Gather Multiaxis Operator", D. Robinson, 2025-02-19,
``shared/seeds/004``), stated once:

* ``input.ndim == indices.ndim == output.ndim``;
* the coordinates for ``len(axes)`` axes are folded into the last dimension of
  ``indices``: its *logical* shape is its shape with the last dimension divided
  by ``max(len(axes), 1)``, and coordinate ``k`` of a tuple is element
  ``[..., j * len(axes) + k]``;
* dimensions not in ``axes`` broadcast bidirectionally between ``input`` and
  the logical indices; dimensions in ``axes`` take their size from the logical
  indices;
* ``output[o] = input[c]`` with ``c[d] = o[d]`` (masked to 0 where
  ``input.shape[d] == 1``) for ``d`` not in ``axes`` and
  ``c[axes[k]] = indices[o masked, k-th coordinate]``.

The implementation is vectorized and never materializes a broadcast of
``input``. It is array-namespace generic (NumPy, CuPy, torch, any array-API
namespace through ``array-api-compat``): where the namespace supports NumPy's
mixed advanced indexing (NumPy, CuPy, torch) the gather is one indexing
expression that copies whole trailing blocks when the indices do not vary
along them; elsewhere it computes flat offsets and calls ``xp.take``.

>>> import numpy as np
>>> x = np.arange(8).reshape(2, 2, 2)
>>> gather_multiaxis(x, np.array([[[0, 1], [1, 0]]]), axes=[0, 1]).tolist()
[[[2, 3], [4, 5]]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import array_api_compat
import numpy as np

from conformance.policy import ONNX, IndexPolicy, default_fill_value, normalize_indices, policy_named

Shape = tuple[int, ...]


def gather_multiaxis(
    input: Any,
    indices: Any,
    axes: Sequence[int],
    *,
    policy: IndexPolicy | str = ONNX,
) -> Any:
    """Gather ``input`` at the coordinates in ``indices`` along ``axes``.

    ``policy`` says what negative and out-of-range indices do (default: the
    ONNX one, negatives wrap once and out of range raises ``IndexError``).
    Returns an array of the caller's namespace and device, of ``input``'s dtype.

    The seed's own example: input ``[4,2,1,2]``, indices ``[1,3,2,2]``, axes
    ``[1]`` gives an output of shape ``[4,3,2,2]``.

    >>> import numpy as np
    >>> gather_multiaxis(np.zeros((4, 2, 1, 2)), np.zeros((1, 3, 2, 2), int), [1]).shape
    (4, 3, 2, 2)
    >>> x = np.array([[0, 1, 2], [10, 11, 12]])
    >>> gather_multiaxis(x, np.array([[2, 0]]), [1]).tolist()   # broadcast over dim 0
    [[2, 0], [12, 10]]
    """
    policy = policy_named(policy)
    xp = _namespace(input, indices)
    if not _is_array(input):
        input = xp.asarray(input)
    if not _is_array(indices):
        indices = xp.asarray(indices)
    _check_index_dtype(indices, xp)
    axes = normalize_axes(axes, input.ndim, "axes")
    in_shape, idx_shape = tuple(input.shape), tuple(indices.shape)
    if len(in_shape) != len(idx_shape):
        raise ValueError(
            f"input.ndim ({len(in_shape)}) must equal indices.ndim ({len(idx_shape)}): "
            "gather_multiaxis keeps the rank (pad with size-1 dimensions)"
        )
    if not in_shape:
        return xp.asarray(input, copy=True)
    logical, out_shape = multiaxis_shapes(in_shape, idx_shape, axes)
    ncoord = max(len(axes), 1)
    positions, fill_mask = [], None
    for k, axis in enumerate(axes):
        component = indices[..., k::ncoord] if ncoord > 1 else indices
        pos, mask = _positions(component, in_shape[axis], policy, axis, xp)
        positions.append(pos)
        if mask is not None:
            fill_mask = mask if fill_mask is None else (fill_mask | mask)
    out = _fetch(input, positions, axes, logical, out_shape, xp)
    if fill_mask is not None and bool(xp.any(fill_mask)):
        fill = policy.fill_value if policy.fill_value is not None else default_fill_value(_np_dtype(input))
        out = xp.where(fill_mask, xp.asarray(fill, dtype=out.dtype), out)
    return out


def multiaxis_shapes(in_shape: Shape, idx_shape: Shape, axes: Sequence[int]) -> tuple[Shape, Shape]:
    """``(logical indices shape, output shape)``, checking every shape rule.

    >>> multiaxis_shapes((10, 9, 8), (1, 5, 12), [1, 2])
    ((1, 5, 6), (10, 5, 6))
    >>> multiaxis_shapes((2, 3, 1), (1, 1, 4), [1])
    ((1, 1, 4), (2, 1, 4))
    """
    ncoord = max(len(axes), 1)
    if idx_shape[-1] % ncoord:
        raise ValueError(
            f"indices.shape[-1] = {idx_shape[-1]} must be a multiple of len(axes) = {len(axes)}: "
            "the coordinates of each index tuple are folded into the last dimension"
        )
    logical = idx_shape[:-1] + (idx_shape[-1] // ncoord,)
    out = []
    for d, (i, n) in enumerate(zip(in_shape, logical)):
        if d in axes:
            out.append(n)
        elif i == n or n == 1:
            out.append(i)
        elif i == 1:
            out.append(n)
        else:
            raise ValueError(
                f"input.shape[{d}] = {i} and the logical indices shape[{d}] = {n} are not broadcastable: "
                f"dimension {d} is not in axes, so the sizes must match or one must be 1"
            )
    return logical, tuple(out)


def normalize_axes(axes: Sequence[int], ndim: int, argname: str = "axes") -> tuple[int, ...]:
    """Axes as non-negative ints, each in range and none repeated.

    >>> normalize_axes([-1, 0], 3)
    (2, 0)
    """
    if isinstance(axes, (int, np.integer)):
        raise TypeError(f"{argname} must be a sequence of ints, got the int {axes!r} (write [{axes}])")
    out = []
    for k, a in enumerate(axes):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{argname}[{k}] must be an int, got {type(a).__name__} {a!r}")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"{argname}[{k}] = {a} is out of range for rank {ndim} (valid: [{-ndim}, {ndim - 1}])"
                if ndim
                else f"{argname}[{k}] = {a}: a 0-d input has no axes to gather along"
            )
        a = int(a) % ndim
        if a in out:
            raise ValueError(f"{argname} names axis {a} twice: each axis can be gathered along once")
        out.append(a)
    return tuple(out)


def _positions(component: Any, size: int, policy: IndexPolicy, axis: int, xp: Any) -> tuple[Any, Any]:
    """Positions for one axis. NumPy's own advanced indexing *is* the ONNX
    policy (negatives wrap once, out of range raises), so for signed NumPy
    indices under that policy the raw values go straight to the fetch."""
    if policy == ONNX and isinstance(component, np.ndarray) and component.dtype.kind == "i":
        return component, None
    return normalize_indices(component, size, policy, axis, xp)


def _fetch(input: Any, positions: list[Any], axes: tuple[int, ...], logical: Shape, out_shape: Shape, xp: Any) -> Any:
    in_shape = tuple(input.shape)
    rank = len(in_shape)
    # Dimensions at either end that are not gathered and along which the
    # indices do not vary are copied as whole blocks (plain slices).
    plain = [d not in axes and logical[d] == 1 for d in range(rank)]
    lo = next((d for d in range(rank) if not plain[d]), rank)
    hi = next((d + 1 for d in reversed(range(rank)) if not plain[d]), lo)
    if lo == hi:
        return xp.asarray(input, copy=True)
    if _has_mixed_indexing(xp):
        mid = out_shape[lo:hi]
        key = [_coordinate(input, positions, axes, d, lo, mid, xp) for d in range(lo, hi)]
        try:
            return input[(slice(None),) * lo + tuple(key) + (slice(None),) * (rank - hi)]
        except IndexError:
            # Only reachable on the raw NumPy fast path: redo the check to
            # raise the error that names the axis, size, value and position.
            for p, a in zip(positions, axes):
                normalize_indices(p, in_shape[a], ONNX, a, xp)
            raise
    strides = [int(np.prod(in_shape[d + 1 :], dtype=np.int64)) for d in range(rank)]
    offset = xp.zeros((1,) * rank, dtype=xp.int64)
    for d in range(rank):
        c = _coordinate(input, positions, axes, d, 0, out_shape, xp)
        offset = offset + xp.astype(c, xp.int64) * strides[d]
    offset = xp.broadcast_to(offset, out_shape)
    flat = xp.take(xp.reshape(input, (-1,)), xp.reshape(offset, (-1,)), axis=0)
    return xp.reshape(flat, out_shape)


def _coordinate(input: Any, positions: list[Any], axes: tuple[int, ...], d: int, lo: int, window: Shape, xp: Any) -> Any:
    """The input coordinate along dimension ``d``, shaped to broadcast over
    ``window`` (the output dimensions ``lo .. lo + len(window)``)."""
    if d in axes:
        pos = positions[axes.index(d)]
        return xp.reshape(pos, tuple(pos.shape)[lo : lo + len(window)])
    shape = tuple(window[k] if k == d - lo else 1 for k in range(len(window)))
    size = int(input.shape[d])
    if size == 1:
        return xp.broadcast_to(xp.zeros((1,) * len(window), dtype=xp.int64), shape)
    return xp.reshape(xp.arange(size, dtype=xp.int64), shape)


def _namespace(input: Any, indices: Any) -> Any:
    arrays = [a for a in (input, indices) if array_api_compat.is_array_api_obj(a)]
    return array_api_compat.array_namespace(*arrays) if arrays else array_api_compat.array_namespace(np.empty(0))


def _is_array(a: Any) -> bool:
    return array_api_compat.is_array_api_obj(a)


def _has_mixed_indexing(xp: Any) -> bool:
    return (
        array_api_compat.is_numpy_namespace(xp)
        or array_api_compat.is_cupy_namespace(xp)
        or array_api_compat.is_torch_namespace(xp)
    )


def _check_index_dtype(indices: Any, xp: Any) -> None:
    ok = xp.isdtype(indices.dtype, "integral") if not isinstance(indices, np.ndarray) else indices.dtype.kind in "iu"
    if not ok:
        raise TypeError(f"indices must have an integer dtype (int8 to uint64), got {indices.dtype}")


def _np_dtype(a: Any) -> np.dtype:
    if isinstance(a, np.ndarray):
        return a.dtype
    name = str(a.dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends

        return np.dtype(getattr(ml_dtypes, name))
