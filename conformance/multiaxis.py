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
namespace through ``array-api-compat``), one code path for all: indices are
checked and normalized per axis, then one ``xp.take`` reads the output from
``input`` viewed as ``(lead, middle, block)`` with flat offsets over the middle
dimensions, so that whole trailing blocks are copied when the indices do not
vary along them (an embedding lookup copies rows).

>>> import numpy as np
>>> x = np.arange(8).reshape(2, 2, 2)
>>> gather_multiaxis(x, np.array([[[0, 1], [1, 0]]]), axes=[0, 1]).tolist()
[[[2, 3], [4, 5]]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import array_api_compat
import numpy as np

from conformance.arrays import size_of
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
    tuples = xp.reshape(indices, logical + (ncoord,))  # coordinate k of each tuple at [..., k]
    for k, axis in enumerate(axes):
        component = tuples[..., k]
        pos, mask = normalize_indices(component, in_shape[axis], policy, axis, xp)
        positions.append(pos)
        if mask is not None:
            fill_mask = mask if fill_mask is None else (fill_mask | mask)
    if fill_mask is None or not bool(xp.any(fill_mask)):
        return _fetch(input, positions, axes, logical, out_shape, xp)
    fill = xp.asarray(_fill_value(policy, input), dtype=input.dtype)
    if any(in_shape[a] == 0 for a in axes):
        # An empty gathered axis has no element to read: every index is out of
        # range, so the whole output is the fill value.
        return xp.asarray(xp.broadcast_to(fill, out_shape), copy=True)
    return xp.where(fill_mask, fill, _fetch(input, positions, axes, logical, out_shape, xp))


def _fill_value(policy: IndexPolicy, input: Any) -> Any:
    """The policy's fill value, or the dtype's default (see :func:`default_fill_value`)."""
    return policy.fill_value if policy.fill_value is not None else default_fill_value(_np_dtype(input))


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


def _fetch(input: Any, positions: list[Any], axes: tuple[int, ...], logical: Shape, out_shape: Shape, xp: Any) -> Any:
    """Read the output: ``input`` viewed as ``(lead, middle, block)`` and one
    ``xp.take`` along the middle with flat offsets.

    Dimensions at either end that are not gathered and along which the indices
    do not vary form ``lead`` and ``block``: ``take`` copies each block whole (an
    embedding lookup copies rows). Offsets are computed only over the middle
    dimensions, from positions already checked to lie in range.
    """
    in_shape = tuple(input.shape)
    rank = len(in_shape)
    plain = [d not in axes and logical[d] == 1 for d in range(rank)]
    lo = next((d for d in range(rank) if not plain[d]), rank)
    hi = next((d + 1 for d in reversed(range(rank)) if not plain[d]), lo)
    if lo == hi:
        return xp.asarray(input, copy=True)
    mid_in, mid_out = in_shape[lo:hi], out_shape[lo:hi]
    terms = [(_coordinate(input, positions, axes, d, lo, mid_out, xp), math.prod(mid_in[d - lo + 1 :])) for d in range(lo, hi)]
    terms = sorted(((t, s) for t, s in terms if t is not None), key=lambda ts: -size_of(ts[0]))
    # Accumulate in place into one buffer of our own (never the caller's indices),
    # starting from the largest term when it already spans the whole window.
    if terms and size_of(terms[0][0]) == math.prod(mid_out):
        (first, stride), terms = terms[0], terms[1:]
        offsets = xp.reshape(first * stride if stride != 1 else xp.asarray(first, copy=True), mid_out)
    else:
        offsets = xp.zeros(mid_out, dtype=xp.int64)
    for term, stride in terms:
        offsets += term * stride if stride != 1 else term
    offsets = xp.reshape(offsets, (-1,))
    lead, block = math.prod(in_shape[:lo]), math.prod(in_shape[hi:])
    out = xp.take(xp.reshape(input, (lead, math.prod(mid_in), block)), offsets, axis=1)
    return xp.reshape(out, out_shape)


def _coordinate(input: Any, positions: list[Any], axes: tuple[int, ...], d: int, lo: int, window: Shape, xp: Any) -> Any:
    """The int64 input coordinate along dimension ``d``, shaped to broadcast
    over ``window`` (output dimensions ``lo .. lo + len(window)``), or None
    where it is always 0 (the input has size 1 there)."""
    if d in axes:
        pos = positions[axes.index(d)]
        return xp.astype(xp.reshape(pos, tuple(pos.shape)[lo : lo + len(window)]), xp.int64, copy=False)
    size = int(input.shape[d])
    if size == 1:
        return None
    return xp.reshape(xp.arange(size, dtype=xp.int64), tuple(size if k == d - lo else 1 for k in range(len(window))))


def _namespace(input: Any, indices: Any) -> Any:
    arrays = [a for a in (input, indices) if array_api_compat.is_array_api_obj(a)]
    return array_api_compat.array_namespace(*arrays) if arrays else array_api_compat.array_namespace(np.empty(0))


def _is_array(a: Any) -> bool:
    return array_api_compat.is_array_api_obj(a)


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
