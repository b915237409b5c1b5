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
checked per axis, then ``xp.take`` reads the output from ``input`` viewed as
``(lead, middle, block)`` with flat offsets over the middle dimensions, so
that whole trailing blocks are copied when the indices do not vary along them
(an embedding lookup copies rows). Checks, positions and offsets are computed
a block of :data:`~conformance.spec.policy.CHUNK` output positions at a time, so
the extra memory stays near the size of the output whatever its size.

>>> import numpy as np
>>> x = np.arange(8).reshape(2, 2, 2)
>>> gather_multiaxis(x, np.array([[[0, 1], [1, 0]]]), axes=[0, 1]).tolist()
[[[2, 3], [4, 5]]]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import array_api_compat
import numpy as np

from conformance.spec import policy as _policies
from conformance.spec.policy import (
    ONNX,
    IndexPolicy,
    Key,
    blocks,
    check_indices,
    default_fill_value,
    place_indices,
    policy_named,
)

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
    Besides its output it allocates a few blocks of :data:`~conformance.spec.policy.CHUNK`
    elements, whatever the size of the gather.

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
    _check_array(input, "input")
    _check_array(indices, "indices")
    xp = array_api_compat.array_namespace(input, indices)
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
    tuples = xp.reshape(indices, logical + (max(len(axes), 1),))  # coordinate k of each tuple at [..., k]
    components = [tuples[..., k] for k in range(len(axes))]
    # Every index is checked before any output is written (errors in axes order).
    empty = math.prod(out_shape) == 0  # nothing is read: a clamp or wrap has nothing to place
    within = [check_indices(c, in_shape[a], policy, a, xp, empty_output=empty) for c, a in zip(components, axes)]
    if empty:
        return xp.zeros(out_shape, dtype=input.dtype)
    fill = None
    if policy.out_of_range == "fill" and not all(within):
        fill = xp.asarray(_fill_value(policy, input), dtype=input.dtype)
        if any(in_shape[a] == 0 for a in axes):
            # An empty gathered axis has no element to read: every index is out of
            # range, so the whole output is the fill value.
            return xp.asarray(xp.broadcast_to(fill, out_shape), copy=True)
    coords = [_Coordinate(c, in_shape[a], w) for c, a, w in zip(components, axes, within)]
    return _fetch(input, dict(zip(axes, coords)), logical, out_shape, policy, fill, xp)


def _fill_value(policy: IndexPolicy, input: Any) -> Any:
    """The policy's fill value, or the dtype's default (see :func:`default_fill_value`)."""
    return policy.fill_value if policy.fill_value is not None else default_fill_value(np_dtype(input))


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


@overload
def as_int(value: Any, name: str, *, op: str = "", none: Literal[False] = False) -> int: ...


@overload
def as_int(value: Any, name: str, *, op: str = "", none: bool) -> int | None: ...


def as_int(value: Any, name: str, *, op: str = "", none: bool = False) -> int | None:
    """``value`` as a Python int: an integer of any type (``int``, NumPy's
    ``int8`` to ``uint64``, a 0-d integer array), never a bool or a float. With
    ``none``, None passes through. Otherwise a TypeError naming ``name``
    (prefixed with ``op``). The one check behind every integer argument and
    attribute (``axes`` items, ``axis``, ``dim``, ``batch_dims``).

    >>> as_int(np.int8(-1), "axis"), as_int(None, "axis", none=True)
    (-1, None)
    >>> as_int(0.0, "batch_dims", op="onnx.GatherND")
    Traceback (most recent call last):
    TypeError: onnx.GatherND: batch_dims must be an integer, got float 0.0
    >>> as_int(True, "dim", none=True)
    Traceback (most recent call last):
    TypeError: dim must be an integer or None, got bool True
    """
    if value is None and none:
        return None
    dtype = str(getattr(value, "dtype", ""))
    if not isinstance(value, bool) and not dtype.endswith("bool"):
        try:
            return operator.index(value)
        except TypeError:
            pass
    prefix, rule = f"{op}: " if op else "", "an integer or None" if none else "an integer"
    raise TypeError(f"{prefix}{name} must be {rule}, got {type(value).__name__} {value!r}")


def normalize_axes(axes: Sequence[int], ndim: int, argname: str = "axes") -> tuple[int, ...]:
    """Axes as non-negative ints, each in range and none repeated; each item
    an integer of any type (see :func:`as_int`).

    >>> normalize_axes([-1, np.int8(0)], 3)
    (2, 0)
    """
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        raise TypeError(f"{argname} must be a sequence of ints, got the int {axes!r} (write [{axes}])")
    if isinstance(axes, str) or not isinstance(axes, Iterable):
        raise TypeError(f"{argname} must be a sequence of ints, got {type(axes).__name__} {axes!r}")
    out: list[int] = []
    for k, a in enumerate(axes):
        a = as_int(a, f"{argname}[{k}]")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"{argname}[{k}] = {a} is out of range for rank {ndim} (valid: [{-ndim}, {ndim - 1}])"
                if ndim
                else f"{argname}[{k}] = {a}: a 0-d input has no axes to gather along"
            )
        a %= ndim
        if a in out:
            raise ValueError(f"{argname} names axis {a} twice: each axis can be gathered along once")
        out.append(a)
    return tuple(out)


@dataclass(frozen=True)
class _Coordinate:
    """The raw index component for one gathered axis: its values (shaped like
    the logical indices), the axis size, and whether they are already positions."""

    values: Any
    size: int
    within: bool


@dataclass(frozen=True)
class _Term:
    """One window dimension's share of the flat offsets, ``values * stride``:
    an int64 ``arange`` (``size == 0``) or a raw index component of an axis of
    ``size``; ``keep`` marks the dimensions along which ``values`` varies (it
    has size 1 elsewhere and broadcasts); ``spans``: it broadcasts along no
    dimension of the window, so a block of it has the block's shape."""

    values: Any
    stride: int
    keep: tuple[bool, ...]
    spans: bool
    size: int = 0
    within: bool = True
    cast: bool = False

    def part(self, key: Key) -> Any:
        """Its values at a :func:`~conformance.spec.policy.blocks` key of the window:
        where it has size 1, an int selects 0 and a slice keeps the dimension."""
        if self.spans:
            return self.values[key]
        return self.values[tuple(k if kp else (0 if isinstance(k, int) else _ALL) for k, kp in zip(key, self.keep))]


_ALL = slice(None)


def _fetch(
    input: Any, coords: dict[int, _Coordinate], logical: Shape, out_shape: Shape, policy: IndexPolicy, fill: Any,
    xp: Any,
) -> Any:
    """Read the output: ``input`` viewed as ``(lead, middle, block)`` and
    ``xp.take`` along the middle with flat offsets, a block of output
    positions at a time.

    Dimensions at either end that are not gathered and along which the indices
    do not vary form ``lead`` and ``block``: ``take`` copies each block whole (an
    embedding lookup copies rows). The offsets over the middle dimensions (the
    window) are computed for one :func:`~conformance.spec.policy.blocks` key of the
    window at a time, into an output allocated once, so the int64 temporaries
    never exceed a few :data:`~conformance.spec.policy.CHUNK`.
    """
    in_shape = tuple(input.shape)
    rank = len(in_shape)
    plain = [d not in coords and logical[d] == 1 for d in range(rank)]
    lo = next((d for d in range(rank) if not plain[d]), rank)
    hi = next((d + 1 for d in reversed(range(rank)) if not plain[d]), lo)
    if lo == hi:
        return xp.asarray(input, copy=True)
    mid_in, window = in_shape[lo:hi], out_shape[lo:hi]
    lead, block, total = math.prod(in_shape[:lo]), math.prod(in_shape[hi:]), math.prod(window)
    device = array_api_compat.device(input)
    if 0 in (lead, block, total):
        return xp.empty(out_shape, dtype=input.dtype, device=device)
    source = xp.reshape(input, (lead, math.prod(mid_in), block))
    strides = [math.prod(mid_in[d - lo + 1 :]) for d in range(lo, hi)]
    terms = [t for d, s in zip(range(lo, hi), strides) if (t := _term(input, coords, d, lo, window, s, xp))]
    terms.sort(key=lambda t: not t.spans)  # one that spans the block first: the offsets start as a copy of it
    limit = _policies.CHUNK  # window positions per block: the int64 offsets and their temporaries
    if total <= limit:  # one block: no copy into a preallocated output
        return xp.reshape(_read(source, terms, (_ALL,) * len(window), window, policy, fill, xp), out_shape)
    if array_api_compat.is_jax_array(input):  # immutable arrays: join the blocks instead
        parts = [_read(source, terms, key, window, policy, fill, xp) for key, _ in blocks(window, limit)]
        return xp.reshape(xp.concat(parts, axis=1), out_shape)
    out = xp.empty((lead, total, block), dtype=input.dtype, device=device)
    for key, start in blocks(window, limit):
        part = _read(source, terms, key, window, policy, fill, xp)
        out[:, start : start + int(part.shape[1]), :] = part
    return xp.reshape(out, out_shape)


def _read(source: Any, terms: list[_Term], key: Key, window: Shape, policy: IndexPolicy, fill: Any, xp: Any) -> Any:
    """``(lead, n, block)``: the output at the ``n`` window positions ``key``
    selects, with offsets summed from ``terms`` (see :func:`_term`)."""
    offsets, mask = None, None
    for t in terms:
        pos, own = t.part(key), False
        if t.size and not t.within:
            pos, m = place_indices(pos, t.size, policy, xp)
            if m is not None:
                mask = m if mask is None else (mask | m)
        elif t.cast:
            pos, own = xp.astype(pos, xp.int64), True
        if t.stride != 1:
            pos, own = pos * t.stride, True
        if offsets is None and t.spans:
            # Accumulate in place into one buffer of our own (never the caller's indices).
            offsets = pos if own else xp.asarray(pos, copy=True)
            continue
        if offsets is None:
            offsets = xp.zeros(_selected_shape(key, window), dtype=xp.int64)
        offsets += pos
    if offsets is None:  # every coordinate is 0 (size-1 input dimensions)
        offsets = xp.zeros(_selected_shape(key, window), dtype=xp.int64)
    out = xp.take(source, xp.reshape(offsets, (-1,)), axis=1)
    if mask is not None and bool(xp.any(mask)):
        out = xp.where(xp.reshape(xp.broadcast_to(mask, tuple(offsets.shape)), (1, -1, 1)), fill, out)
    return out


def _term(
    input: Any, coords: dict[int, _Coordinate], d: int, lo: int, window: Shape, stride: int, xp: Any
) -> _Term | None:
    """What window dimension ``d`` adds to the offsets (the window is output
    dimensions ``lo .. lo + len(window)``): the raw index component of a gathered axis, an
    int64 ``arange`` otherwise, or None where the coordinate is always 0 (the
    input has size 1 there)."""
    if d in coords:
        c = coords[d]
        rank, hi = len(tuple(c.values.shape)), lo + len(window)
        # the dimensions outside the window have size 1: drop them (a view)
        values = c.values[(0,) * lo + (_ALL,) * (hi - lo) + (0,) * (rank - hi)]
        keep = tuple(n != 1 for n in tuple(values.shape))
        spans = all(k or n == 1 for k, n in zip(keep, window))
        return _Term(values, stride, keep, spans, c.size, c.within, c.within and values.dtype != xp.int64)
    size = int(input.shape[d])
    if size == 1:
        return None
    keep = tuple(k == d - lo for k in range(len(window)))
    spans = all(k or n == 1 for k, n in zip(keep, window))
    values = xp.reshape(xp.arange(size, dtype=xp.int64), tuple(size if k else 1 for k in keep))
    return _Term(values, stride, keep, spans)


def _selected_shape(key: Key, shape: Shape) -> Shape:
    """The shape ``array[key]`` has for an array of ``shape``.

    >>> _selected_shape((1, slice(2, 4), slice(None)), (3, 5, 6))
    (2, 6)
    """
    return tuple(len(range(*k.indices(n))) for k, n in zip(key, shape) if isinstance(k, slice))


def _check_array(a: Any, name: str) -> None:
    if not array_api_compat.is_array_api_obj(a):
        raise TypeError(
            f"gather_multiaxis: {name} must be an array (numpy ndarray or array-API array), got {type(a).__name__}"
        )


def _check_index_dtype(indices: Any, xp: Any) -> None:
    ok = xp.isdtype(indices.dtype, "integral") if not isinstance(indices, np.ndarray) else indices.dtype.kind in "iu"
    if not ok:
        raise TypeError(f"indices must have an integer dtype (int8 to uint64), got {indices.dtype}")


def np_dtype(a: Any) -> np.dtype:
    if isinstance(a, np.ndarray):
        return a.dtype
    name = str(a.dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends

        return np.dtype(getattr(ml_dtypes, name))
