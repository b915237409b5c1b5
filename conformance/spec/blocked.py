"""The blocked read behind :func:`~conformance.spec.multiaxis.gather_multiaxis`:
flat offsets built a block of output positions at a time, each block's
indices checked on the way, written into an output allocated once.

``input`` is viewed as ``(lead, middle, block)``: dimensions at either end that
are not gathered and along which the indices do not vary form ``lead`` and
``block``, and ``take`` copies each block whole (an embedding lookup copies
rows). The offsets over the middle dimensions (the window) are summed from one
term per dimension (:func:`_term`): an index component times its stride, or an
``arange``. A block of :data:`~conformance.spec.policy.CHUNK` positions is read at a
time (:func:`_keys`), so the extra memory stays near the size of the output;
where an index varies along rows read a few elements at a time (an element
gather along a leading axis), NumPy walks the window in tiles
(:func:`_tile_width`). One code path for every namespace; NumPy alone writes
with ``take(out=...)``, walks tiles, sums the offsets in place in buffers
reused by every block (:class:`Buffers`), and hands a block gather under its
own index rule to one ``np.take`` (:func:`_taken`).

>>> import numpy as np
>>> from conformance.spec.policy import ONNX
>>> x = np.arange(6).reshape(2, 3)
>>> c = Coordinate(np.array([[1, 0, -1]]), 2, 0)
>>> fetch(x, [c], (1, 3), (1, 3), ONNX, np, lambda: None).tolist()
[[3, 1, 5]]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np

from conformance.spec import policy as _policies
from conformance.spec.policy import (
    IndexPolicy,
    Key,
    Negative,
    OutOfRange,
    blocks,
    check_indices,
    extremes,
    place_indices,
)

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Coordinate:
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
    coord: Coordinate | None = None

    def part(self, key: Key) -> Any:
        """Its values at a :func:`~conformance.spec.policy.blocks` key of the window:
        where it has size 1, an int selects 0 and a slice keeps the dimension."""
        if self.spans:
            return self.values[key]
        return self.values[tuple(k if kp else (0 if isinstance(k, int) else _ALL) for k, kp in zip(key, self.keep))]


_ALL = slice(None)


def fetch(
    input: Any,
    coords: list[Coordinate],
    logical: Shape,
    out_shape: Shape,
    policy: IndexPolicy,
    xp: Any,
    fill: Callable[[], Any],
) -> Any:
    """Read the output of shape ``out_shape``: ``input`` viewed as ``(lead,
    middle, block)`` and ``xp.take`` along the middle with flat offsets, a
    block of output positions at a time. ``coords``: the index components
    (shaped like the ``logical`` indices) in axes order; ``fill()`` makes the
    policy's fill value, called only where an index is filled.

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
    numpy, positions = isinstance(source, np.ndarray), math.prod(window)
    limit = _policies.CHUNK  # window positions per block: the int64 offsets and their temporaries
    if numpy and len(terms) == 1 and (whole := _taken(source, terms[0], policy, coords, limit)) is not None:
        return xp.reshape(whole, out_shape)
    width = _tile_width(terms, window, block * source.dtype.itemsize) if numpy and positions > limit else 0
    # a block has at most max(limit, width) positions (a tile is at least one row of the window's width)
    buffers = Buffers(min(positions, max(limit, width))) if numpy and len(terms) > 1 else None
    gather = _Gather(source, terms, window, policy, coords, fill, xp, buffers)
    if not numpy and (positions <= limit or array_api_compat.is_jax_array(input)):
        # One block, or immutable arrays: nothing is written into an output, the blocks are joined.
        parts = [xp.reshape(gather.read(key), (lead, -1, block)) for key, _ in blocks(window, limit)]
        return xp.reshape(parts[0] if len(parts) == 1 else xp.concat(parts, axis=1), out_shape)
    out = xp.empty((lead, *window, block), dtype=input.dtype, device=array_api_compat.device(input))
    for key in _keys(window, limit, width):
        gather.read(key, out)
    return xp.reshape(out, out_shape)


def _taken(source: np.ndarray, t: _Term, policy: IndexPolicy, coords: list[Coordinate], limit: int) -> Any:
    """The whole gather as one call of NumPy's own ``take`` in its raise mode,
    or None where that is not the gather: a single coordinate term (a block
    gather, such as an embedding lookup) under a policy whose rule is NumPy's
    (negatives in ``[-size, 0)`` wrap once, anything else outside the range
    raises), with signed indices that ``take`` reads without a copy of more
    than a block (int64 in C order, or at most ``limit`` of them). No pass
    over the indices besides ``take``'s own, no copy of the output; an index
    ``take`` rejects raises the reference's own error (:func:`check_all`).

    >>> from conformance.spec.policy import NONNEGATIVE, ONNX
    >>> rows = _Term(np.array([2, -1]), 1, 0, (True,), True, Coordinate(np.array([2, -1]), 3, 0))
    >>> _taken(np.arange(6).reshape(1, 3, 2), rows, ONNX, [rows.coord], 8).tolist()
    [[[4, 5], [4, 5]]]
    >>> _taken(np.arange(6).reshape(1, 3, 2), rows, NONNEGATIVE, [rows.coord], 8) is None
    True
    """
    values = t.values
    if t.coord is None or t.stride != 1 or not t.spans:
        return None
    if policy.negative is not Negative.WRAP or policy.out_of_range is not OutOfRange.ERROR:
        return None
    if not (
        (values.dtype == np.intp and values.flags.c_contiguous) or (values.dtype.kind == "i" and values.size <= limit)
    ):
        return None
    try:
        return np.take(source, values, axis=1)
    except IndexError:
        check_all(coords, policy, np)
        raise


def _keys(window: Shape, limit: int, width: int) -> Iterator[Key]:
    """The blocks of ``window`` a gather walks, as :func:`~conformance.spec.policy.blocks`
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
    >>> rows = _Term(np.zeros((3, 1000), np.int64), 1000, 0, (True, True), True, Coordinate(x, 3, 0))
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
    coords: list[Coordinate]
    fill: Callable[[], Any]
    xp: Any
    buffers: Buffers | None = None
    """NumPy with more than one term: the int64 buffers every block's offsets
    are summed in place with (:meth:`_summed`)."""

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
        if self.buffers is not None:
            return self._summed(key, shape)
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

    def _summed(self, key: Key, shape: Shape) -> tuple[np.ndarray, Any]:
        """:meth:`offsets` for NumPy arrays with more than one term, summed in
        place into the offsets buffer of :attr:`buffers`: each term's block is copied
        once from the caller's indices into a buffer as int64 (one strided
        read, whatever their dtype), checked and placed there
        (:meth:`_place`), scaled by its stride and added, with no temporaries.

        >>> from conformance.spec.policy import ONNX
        >>> x = np.arange(24).reshape(2, 3, 4)
        >>> rows, cols = Coordinate(np.array([[[1]], [[-3]]]), 3, 1), Coordinate(np.array([[[2]], [[0]]]), 4, 2)
        >>> fetch(x, [rows, cols], (2, 1, 1), (2, 1, 1), ONNX, np, lambda: None).ravel().tolist()
        [6, 12]
        """
        buffers = self.buffers
        assert buffers is not None
        total = buffers.get(Buffers.OFFSETS, shape)
        mask = None
        for n, t in enumerate(self.terms):
            raw = t.part(key)
            if n and t.coord is None and t.stride == 1:  # an arange adds itself
                total += raw
                continue
            part = buffers.get(Buffers.SHARE, shape) if n else total
            np.copyto(part, raw, casting="unsafe")
            if t.coord is not None and (m := self._place(part, raw, t.coord, buffers)) is not None:
                mask = m if mask is None else (mask | m)
            if t.stride != 1:
                part *= t.stride
            if n:
                total += part
        return total, mask

    def _place(self, part: np.ndarray, raw: Any, c: Coordinate, buffers: Buffers) -> Any:
        """Make ``part`` (a block of coordinate ``c``'s indices ``raw``, copied
        as int64) positions in place, checking them: nothing to do where they
        are positions already (one reduction); negatives in ``[-size, 0)`` of
        a signed dtype that the policy wraps get ``size`` added (a min and a
        max decide; an arithmetic shift of the sign into a spare buffer, no mask);
        any other block is placed by :func:`_share`, which raises
        for a bad index. The reductions read the caller's ``raw`` indices
        where their rows are contiguous (an int8 block is an eighth of its
        copy), else the copy (a column of index tuples is strided).
        Returns the fill mask, None unless the policy fills."""
        probe = raw if _rows_contiguous(raw) else part
        if _are_positions(probe, c.size):
            return None
        p = self.policy
        if raw.dtype.kind == "i" and (p.negative is Negative.WRAP or p.out_of_range is OutOfRange.WRAP):
            low, high = int(probe.min()), int(probe.max())
            if -c.size <= low and high < c.size:
                spare = buffers.get(Buffers.SPARE, part.shape)
                np.right_shift(part, 63, out=spare)  # -1 for a negative, 0 otherwise
                spare &= c.size
                part += spare
                return None
        share, mask = _share(raw, c, 1, p, self.coords, np, copy=False)
        np.copyto(part, share)
        return mask


def _rows_contiguous(a: np.ndarray) -> bool:
    """Whether the innermost dimension of ``a`` longer than 1 is contiguous
    (NumPy then reduces it as fast as a contiguous array).

    >>> tuples = np.zeros((5, 3), np.int64)
    >>> _rows_contiguous(tuples[:, 0]), _rows_contiguous(tuples[1:3, :2]), _rows_contiguous(np.zeros((4, 1)))
    (False, True, True)
    """
    inner = [stride for n, stride in zip(a.shape, a.strides) if n > 1]
    return not inner or inner[-1] == a.itemsize


class Buffers:
    """int64 buffers of one block's ``capacity`` positions, each made on its
    first use and reused by every block: the offsets, a term's share (only
    where a second term is copied) and a spare (only where negatives wrap).

    >>> b = Buffers(6)
    >>> b.get(Buffers.OFFSETS, (2, 3)).shape, b.get(Buffers.OFFSETS, (4,)).base is b.get(Buffers.OFFSETS, (1,)).base
    ((2, 3), True)
    """

    OFFSETS, SHARE, SPARE = range(3)

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._made: dict[int, np.ndarray] = {}

    def get(self, which: int, shape: Shape) -> np.ndarray:
        """Buffer ``which`` viewed as an array of ``shape`` (at most ``capacity`` positions)."""
        if which not in self._made:
            self._made[which] = np.empty(self.capacity, np.int64)
        return np.reshape(self._made[which][: math.prod(shape)], shape)


def _share(
    raw: Any, c: Coordinate, stride: int, policy: IndexPolicy, coords: list[Coordinate], xp: Any, copy: bool
) -> tuple[Any, Any]:
    """``(positions * stride, fill mask)`` of a block of a coordinate term's
    indices: :func:`~conformance.spec.policy.scaled_positions` where the block
    needs at most a wrap once (the common case, decided by one or two
    reductions of the block), else checked by :func:`~conformance.spec.policy.check_indices` and placed by
    :func:`~conformance.spec.policy.place_indices`. An index ``policy`` rejects
    raises the error of the first bad index of the whole gather, in axes
    order and then in C order, as a check of every index before any reading
    would."""
    if (share := scaled_positions(raw, c.size, policy, stride, xp, copy=copy)) is not None:
        return share, None
    try:
        within = check_indices(raw, c.size, policy, c.axis, xp)
    except IndexError:
        check_all(coords, policy, xp)
        raise
    pos, mask = (xp.astype(raw, xp.int64), None) if within else place_indices(raw, c.size, policy, xp)
    return (pos * stride if stride != 1 else pos), mask


def _full(offsets: Any, shape: Shape, xp: Any) -> Any:
    """``offsets`` broadcast to ``shape`` (a view), or themselves where they have it.

    >>> _full(np.arange(3), (2, 3), np).shape
    (2, 3)
    """
    return offsets if tuple(offsets.shape) == shape else xp.broadcast_to(offsets, shape)


def _term(
    input: Any, gathered: dict[int, Coordinate], d: int, lo: int, window: Shape, stride: int, xp: Any
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


def check_all(coords: Sequence[Coordinate], policy: IndexPolicy, xp: Any, empty: bool = False) -> None:
    """Raise what ``policy`` raises for the first bad index, in axes order and
    then in C order (see :func:`~conformance.spec.policy.check_indices`)."""
    for c in coords:
        check_indices(c.values, c.size, policy, c.axis, xp, empty_output=empty)


def scaled_positions(
    indices: Any, size: int, policy: IndexPolicy, stride: int = 1, xp: Any = np, *, copy: bool = True
) -> Any:
    """``positions * stride`` as int64 for a block of non-empty ``indices``
    that needs no more than a wrap once, or None where it does (an index
    outside ``[-size, size)``, or a negative one under a policy that does not
    wrap negatives: :func:`check_indices` and :func:`place_indices` decide).
    One max of the bits read as unsigned (:func:`_are_positions`), or else one
    min and one max, decide; then one pass casts and scales and, only where
    there is a negative, one more adds ``size`` to each (an arithmetic shift
    of the sign, no mask). With ``copy=False`` indices that are already int64
    positions, unscaled, come back as they are.

    >>> from conformance.spec.policy import MODULO, NONNEGATIVE, ONNX
    >>> scaled_positions(np.array([[2, -1]], np.int8), 3, ONNX, stride=10)
    array([[20, 20]])
    >>> scaled_positions(np.array([-1]), 3, NONNEGATIVE), scaled_positions(np.array([3]), 3, MODULO)
    (None, None)
    """
    low = 0
    if not _are_positions(indices, size):
        bounds = extremes(indices, xp)
        if bounds is None or not (-size <= bounds[0] and bounds[1] < size):
            return None
        if bounds[0] < 0 and policy.negative is not Negative.WRAP and policy.out_of_range is not OutOfRange.WRAP:
            return None
        low = bounds[0]
    if indices.dtype != xp.int64:
        pos = xp.astype(indices, xp.int64)
        if stride != 1:
            pos *= stride
    elif stride != 1:
        pos = indices * stride
    elif low >= 0 and not copy:
        return indices
    else:
        pos = xp.asarray(indices, copy=True)
    if low < 0:
        sign = pos >> (xp.iinfo(pos.dtype).bits - 1)  # -1 for a negative, 0 otherwise
        sign &= size * stride
        pos += sign
    return pos


def _are_positions(indices: Any, size: int) -> bool:
    """Whether a NumPy array of indices holds positions only (every one in
    ``[0, size)``), in one reduction: read as unsigned, a negative index is
    at least ``2**(bits - 1)``, above every non-negative one. False for
    other namespaces (they take a min and a max).

    >>> _are_positions(np.array([0, 2], np.int8), 3), _are_positions(np.array([-1], np.int8), 200)
    (True, False)
    """
    if not isinstance(indices, np.ndarray):
        return False
    if indices.dtype.kind == "u":
        return int(indices.max()) < size
    bits = 8 * indices.dtype.itemsize
    return int(indices.view(indices.dtype.str.replace("i", "u")).max()) < min(size, 2 ** (bits - 1))
