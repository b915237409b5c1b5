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
checked and folded into flat offsets, and ``xp.take`` reads the output from ``input`` viewed as
``(lead, middle, block)`` with flat offsets over the middle dimensions, so
that whole trailing blocks are copied when the indices do not vary along them
(an embedding lookup copies rows). Checks, positions and offsets are computed
a block of :data:`~conformance.policy.CHUNK` output positions at a time, so
the extra memory stays near the size of the output whatever its size; each
block's indices are checked as its offsets are built, and where an index
varies along rows that are read a few elements at a time (an element gather
along a leading axis), NumPy walks the output in tiles that keep the rows'
cache lines in cache.

>>> import numpy as np
>>> x = np.arange(8).reshape(2, 2, 2)
>>> gather_multiaxis(x, np.array([[[0, 1], [1, 0]]]), axes=[0, 1]).tolist()
[[[2, 3], [4, 5]]]
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import array_api_compat
import numpy as np

from conformance import policy as _policies
from conformance.policy import (
    ONNX,
    IndexPolicy,
    Key,
    blocks,
    check_indices,
    default_fill_value,
    place_indices,
    policy_named,
    scaled_positions,
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
    Besides its output it allocates a few blocks of :data:`~conformance.policy.CHUNK`
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
    coords = [_Coordinate(tuples[..., k], in_shape[a], a) for k, a in enumerate(axes)]
    empty = math.prod(out_shape) == 0
    if empty or any(c.size == 0 for c in coords):
        # Nothing is read (an empty output) or nothing can be (an empty gathered axis): every index is
        # checked first (errors in axes order); what is left is an empty output or, under a fill policy,
        # only the fill value (every index into an empty axis is out of range).
        _check_all(coords, policy, xp, empty)
        if empty:
            return xp.zeros(out_shape, dtype=input.dtype)
        return xp.asarray(xp.broadcast_to(_fill_array(policy, input, xp), out_shape), copy=True)
    return _fetch(input, coords, logical, out_shape, policy, xp)


def _fill_array(policy: IndexPolicy, input: Any, xp: Any) -> Any:
    """The policy's fill value as a 0-d array of ``input``'s dtype, or the
    dtype's default (see :func:`default_fill_value`).

    >>> from conformance.policy import WRAP_THEN_FILL, ZERO_FILL
    >>> _fill_array(WRAP_THEN_FILL, np.zeros(2, np.int8), np), _fill_array(ZERO_FILL, np.ones(2), np)
    (array(-128, dtype=int8), array(0.))
    """
    value = policy.fill_value if policy.fill_value is not None else default_fill_value(_np_dtype(input))
    return xp.asarray(value, dtype=input.dtype)


def _check_all(coords: Sequence[_Coordinate], policy: IndexPolicy, xp: Any, empty: bool = False) -> None:
    """Raise what ``policy`` raises for the first bad index, in axes order and
    then in C order (see :func:`~conformance.policy.check_indices`)."""
    for c in coords:
        check_indices(c.values, c.size, policy, c.axis, xp, empty_output=empty)


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
    the logical indices), the axis size and the axis."""

    values: Any
    size: int
    axis: int


@dataclass(frozen=True)
class _Term:
    """One window dimension's share of the flat offsets, ``values * stride``:
    an int64 ``arange`` (``coord`` None) or the raw index component of a
    gathered axis; ``dim`` is its dimension in the window, ``keep`` marks the
    dimensions along which ``values`` varies (it has size 1 elsewhere and
    broadcasts); ``spans``: it broadcasts along no dimension of the window, so
    a block of it has the block's shape."""

    values: Any
    stride: int
    dim: int
    keep: tuple[bool, ...]
    spans: bool
    coord: _Coordinate | None = None

    def part(self, key: Key) -> Any:
        """Its values at a :func:`~conformance.policy.blocks` key of the window:
        where it has size 1, an int selects 0 and a slice keeps the dimension."""
        if self.spans:
            return self.values[key]
        return self.values[tuple(k if kp else (0 if isinstance(k, int) else _ALL) for k, kp in zip(key, self.keep))]


_ALL = slice(None)


def _fetch(
    input: Any, coords: list[_Coordinate], logical: Shape, out_shape: Shape, policy: IndexPolicy, xp: Any
) -> Any:
    """Read the output: ``input`` viewed as ``(lead, middle, block)`` and
    ``xp.take`` along the middle with flat offsets, a block of output
    positions at a time.

    Dimensions at either end that are not gathered and along which the indices
    do not vary form ``lead`` and ``block``: ``take`` copies each block whole (an
    embedding lookup copies rows). The offsets over the middle dimensions (the
    window) are computed for one block of the window at a time (:func:`_keys`),
    checking its indices on the way (:meth:`_Gather.offsets`), into an output
    allocated once, so the int64 temporaries never exceed a few blocks.
    """
    in_shape = tuple(input.shape)
    rank, gathered = len(in_shape), {c.axis: c for c in coords}
    plain = [d not in gathered and logical[d] == 1 for d in range(rank)]
    lo = next((d for d in range(rank) if not plain[d]), rank)
    hi = next((d + 1 for d in reversed(range(rank)) if not plain[d]), lo)
    if lo == hi:
        return xp.asarray(input, copy=True)
    mid_in, window = in_shape[lo:hi], out_shape[lo:hi]
    lead, block = math.prod(in_shape[:lo]), math.prod(in_shape[hi:])
    source = xp.reshape(input, (lead, math.prod(mid_in), block))
    strides = [math.prod(mid_in[d - lo + 1 :]) for d in range(lo, hi)]
    terms = [t for d, s in zip(range(lo, hi), strides) if (t := _term(input, gathered, d, lo, window, s, xp))]
    terms.sort(key=lambda t: not t.spans)  # one that spans the block first: the offsets start as its share
    gather = _Gather(source, terms, window, policy, coords, lambda: _fill_array(policy, input, xp), xp)
    numpy = isinstance(source, np.ndarray)
    limit = _policies.CHUNK  # window positions per block: the int64 offsets and their temporaries
    if not numpy and (math.prod(window) <= limit or array_api_compat.is_jax_array(input)):
        # One block, or immutable arrays: nothing is written into an output, the blocks are joined.
        parts = [xp.reshape(gather.read(key), (lead, -1, block)) for key, _ in blocks(window, limit)]
        return xp.reshape(parts[0] if len(parts) == 1 else xp.concat(parts, axis=1), out_shape)
    out = xp.empty((lead, *window, block), dtype=input.dtype, device=array_api_compat.device(input))
    width = _tile_width(terms, window, block * _itemsize(input)) if numpy and math.prod(window) > limit else 0
    for key in _keys(window, limit, width):
        gather.read(key, out)
    return xp.reshape(out, out_shape)


def _keys(window: Shape, limit: int, width: int) -> Iterator[Key]:
    """The blocks of ``window`` a gather walks, as :func:`~conformance.policy.blocks`
    keys of at most ``limit`` positions each: in C order or, with a tile
    ``width`` (see :func:`_tile_width`), its last dimension cut into tiles of
    ``width`` and each tile walked in C order over the other dimensions.

    >>> list(_keys((2, 3), 4, 0))
    [(slice(0, 1, None), slice(None, None, None)), (slice(1, 2, None), slice(None, None, None))]
    >>> list(_keys((2, 3), 4, 2))
    [(slice(0, 2, None), slice(0, 2, None)), (slice(0, 2, None), slice(2, 3, None))]
    """
    if not width:
        yield from (key for key, _ in blocks(window, limit))
        return
    for j in range(0, window[-1], width):
        tile = slice(j, min(j + width, window[-1]))
        yield from (key + (tile,) for key, _ in blocks(window[:-1], max(limit // width, 1)))


TILE_BYTES = 256
"""The width of a tile of the output's last dimension, in bytes of input read
(:func:`_tile_width`): four cache lines."""


def _tile_width(terms: list[_Term], window: Shape, position_bytes: int) -> int:
    """Positions per tile of the window's last dimension, or 0 for blocks in
    C order. Tiles pay where consecutive positions along the last dimension
    read consecutive input (an ``arange`` term with stride 1 there) but an
    index varies along it too, so that C order jumps between far rows of the
    input at each step (an element gather along a leading axis): a tile of
    :data:`TILE_BYTES` walked over every row reads the same few cache lines of
    each input row again and again, while they are still in cache.

    >>> x = np.zeros((3, 1000))
    >>> rows = _Term(np.zeros((3, 1000), np.int64), 1000, 0, (True, True), True, _Coordinate(x, 3, 0))
    >>> cols = _Term(np.arange(1000).reshape(1, 1000), 1, 1, (False, True), False)
    >>> _tile_width([rows, cols], (3, 1000), 4), _tile_width([cols], (3, 1000), 4)
    (64, 0)
    """
    last = len(window) - 1
    contiguous = any(t.coord is None and t.dim == last and t.stride == 1 for t in terms)
    scattered = any(t.coord is not None and t.keep[last] for t in terms)
    width = TILE_BYTES // position_bytes  # under 2: each position reads a run of its own already
    return width if contiguous and scattered and 2 <= width < window[last] // 2 else 0


@dataclass(frozen=True)
class _Gather:
    """What every block of one gather reads from: ``source`` viewed as ``(lead,
    middle, block)``, the offset ``terms`` over the ``window`` (the middle
    dimensions of the output), the policy with the coordinates in axes order
    (to report the first bad index) and its fill value made on demand."""

    source: Any
    terms: list[_Term]
    window: Shape
    policy: IndexPolicy
    coords: list[_Coordinate]
    fill: Callable[[], Any]
    xp: Any

    def read(self, key: Key, out: Any = None) -> Any:
        """``(lead, *shape, block)``: the output at the window positions ``key``
        selects (of ``shape``), also written into ``out`` (shaped ``(lead,
        *window, block)``) there when given."""
        xp, shape = self.xp, _selected_shape(key, self.window)
        offsets, mask = self.offsets(key, shape)
        fill = None if mask is None or not bool(xp.any(mask)) else xp.reshape(mask, (1, *tuple(mask.shape), 1))
        where = (_ALL, *key, _ALL)
        if out is not None and isinstance(out, np.ndarray):
            # The offsets are checked: "wrap" skips NumPy's own check (which would also buffer every write).
            part = np.take(self.source, _full(offsets, shape, xp), axis=1, mode="wrap", out=out[where])
            if fill is not None:
                np.copyto(part, self.fill(), where=fill)
            return part
        flat = xp.reshape(_full(offsets, shape, xp), (-1,))
        lead, block = int(self.source.shape[0]), int(self.source.shape[2])
        part = xp.reshape(xp.take(self.source, flat, axis=1), (lead, *shape, block))
        if fill is not None:
            part = xp.where(fill, self.fill(), part)
        if out is not None:
            out[where] = part
        return part

    def offsets(self, key: Key, shape: Shape) -> tuple[Any, Any]:
        """``(offsets, fill mask)`` of the block ``key`` selects (of ``shape``):
        int64 offsets into the middle of ``source`` (broadcastable to ``shape``),
        every index checked on the way; the mask (None unless the policy fills)
        marks the positions to fill."""
        xp, offsets, mask = self.xp, None, None
        for n, t in enumerate(self.terms):
            raw = t.part(key)
            # The first share that spans the block becomes the buffer the others are added to in place:
            # one of our own (never the caller's indices) unless no other follows.
            own = offsets is None and t.spans and n + 1 < len(self.terms)
            if t.coord is None:  # an arange: a view
                share = raw * t.stride if t.stride != 1 else raw
            else:
                share, m = _share(raw, t.coord, t.stride, self.policy, self.coords, xp, copy=own)
                if m is not None:
                    mask = m if mask is None else (mask | m)
            if offsets is None and t.spans:
                offsets = xp.asarray(share, copy=True) if own and share is raw else share
                continue
            if offsets is None:
                offsets = xp.zeros(shape, dtype=xp.int64)
            offsets += share
        if offsets is None:  # every coordinate is 0 (size-1 input dimensions)
            offsets = xp.zeros(shape, dtype=xp.int64)
        return offsets, mask


def _share(
    raw: Any, c: _Coordinate, stride: int, policy: IndexPolicy, coords: list[_Coordinate], xp: Any, copy: bool
) -> tuple[Any, Any]:
    """``(positions * stride, fill mask)`` of a block of a coordinate term's
    indices: :func:`~conformance.policy.scaled_positions` where the block
    needs at most a wrap once (the common case, decided by one or two
    reductions of the block), else checked by :func:`~conformance.policy.check_indices` and placed by
    :func:`~conformance.policy.place_indices`. An index ``policy`` rejects
    raises the error of the first bad index of the whole gather, in axes
    order and then in C order, as a check of every index before any reading
    would."""
    if (share := scaled_positions(raw, c.size, policy, stride, xp, copy=copy)) is not None:
        return share, None
    try:
        within = check_indices(raw, c.size, policy, c.axis, xp)
    except IndexError:
        _check_all(coords, policy, xp)
        raise
    pos, mask = (xp.astype(raw, xp.int64), None) if within else place_indices(raw, c.size, policy, xp)
    return (pos * stride if stride != 1 else pos), mask


def _full(offsets: Any, shape: Shape, xp: Any) -> Any:
    """``offsets`` broadcast to ``shape`` (a view), or themselves where they have it.

    >>> _full(np.arange(3), (2, 3), np).shape
    (2, 3)
    """
    return offsets if tuple(offsets.shape) == shape else xp.broadcast_to(offsets, shape)


def _itemsize(a: Any) -> int:
    """Bytes per element of an array of any namespace.

    >>> _itemsize(np.zeros(2, np.float32))
    4
    """
    return _np_dtype(a).itemsize


def _term(
    input: Any, gathered: dict[int, _Coordinate], d: int, lo: int, window: Shape, stride: int, xp: Any
) -> _Term | None:
    """What window dimension ``d`` adds to the offsets (the window is output
    dimensions ``lo .. lo + len(window)``): the raw index component of a gathered axis, an
    int64 ``arange`` otherwise, or None where the coordinate is always 0 (the
    input has size 1 there)."""
    if d in gathered:
        c = gathered[d]
        rank, hi = len(tuple(c.values.shape)), lo + len(window)
        # the dimensions outside the window have size 1: drop them (a view)
        values = c.values[(0,) * lo + (_ALL,) * (hi - lo) + (0,) * (rank - hi)]
        keep = tuple(n != 1 for n in tuple(values.shape))
        spans = all(k or n == 1 for k, n in zip(keep, window))
        return _Term(values, stride, d - lo, keep, spans, c)
    size = int(input.shape[d])
    if size == 1:
        return None
    keep = tuple(k == d - lo for k in range(len(window)))
    spans = all(k or n == 1 for k, n in zip(keep, window))
    values = xp.reshape(xp.arange(size, dtype=xp.int64), tuple(size if k else 1 for k in keep))
    return _Term(values, stride, d - lo, keep, spans)


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


def _np_dtype(a: Any) -> np.dtype:
    if isinstance(a, np.ndarray):
        return a.dtype
    name = str(a.dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends

        return np.dtype(getattr(ml_dtypes, name))
