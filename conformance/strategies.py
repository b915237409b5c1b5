"""Hypothesis strategies for gather cases, generated from the op catalog.

A campaign draws a :class:`ClassCase`: a small, shrinkable description of one
case *in the convention of an equivalence class* (element, block, ND,
flattened): shapes, a class-level axis and ``batch_dims``, dtype names, an
index regime, a layout and a seed. Only that description is drawn (and
shrunk); the arrays are derived from it by :func:`materialize`, cheaply and
deterministically, so shrinking the seed to 0 or a shape to rank 1 keeps every
other choice.

* shapes: rank 0 to 6, size-0 and size-1 dimensions included; element-class
  pairs come from ``mutually_broadcastable_shapes`` (then aligned to one rank),
  block and ND pairs share their ``batch_dims`` leading dimensions; about one
  draw in eight deliberately breaks the class's preconditions (rank mismatch,
  non-broadcastable or larger dimensions, unequal batch dimensions);
* index regimes (:data:`REGIMES`): in range, negative in range, out of range
  above, below ``-size``, the index dtype's extremes, empty;
* data: every catalog dtype, values unique across the tensor (as far as the
  dtype has values), optionally NaN with distinct payloads, ``-0.0`` and inf;
* attributes across their domain and just outside it (``axis = -rank - 1``
  and ``rank``, ``batch_dims`` negative or too large);
* layouts: C-contiguous, strided (every other element of a buffer) and Fortran.

>>> cc = ClassCase(EqClass.BLOCK, (2, 3), (2,), 1, 0, "float32", "int8", "oob-above", False, "contiguous", 0, 0)
>>> data, idx = materialize(cc)
>>> data.shape, idx.dtype.name, bool((idx >= 3).any())
((2, 3), 'int8', True)
>>> index_regime(idx, axis_sizes(cc))
'oob-above'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from conformance.arrays import DATA_DTYPES, INDEX_DTYPES, as_dtype
from conformance.catalog import specs
from conformance.plans import EqClass
from conformance.values import data_values, with_layout

Shape = tuple[int, ...]

REGIMES: tuple[str, ...] = ("in-range", "negative", "oob-above", "oob-below", "extreme", "empty")
"""Index regimes, as case tags. ``negative``: every bad index in ``[-size, -1]``."""
POLICY_REGIMES = frozenset({"negative", "oob-above", "oob-below", "extreme"})
"""Regimes where the index policy decides the result."""
LAYOUTS: tuple[str, ...] = ("contiguous", "strided", "fortran")
SIGNED_INDEX = tuple(d for d in INDEX_DTYPES if d.startswith("int"))
COMMON_INDEX = ("int64", "int32")
"""Half the draws take one of these, which every framework documents: indices
reach frameworks in their drawn dtype, and the rest explore what else they accept."""
MAX_DATA = 64
MAX_RANK = 9
LONG_AXIS = (65, 100)
"""One draw in eight gets a gathered axis this long (the rest of the data then has size 1)."""
MAX_INDICES = 24
MODES = 4  # a mode selector; translate.py maps it onto each op's own modes


@dataclass(frozen=True)
class ClassCase:
    """One drawn case in its equivalence class's convention (see the module docstring).

    ``axis`` is the gathered axis (``None`` only for the flattened class),
    ``batch_dims`` the leading dimensions shared by data and indices, ``mode``
    a selector each op maps onto its own ``mode`` attribute, ``seed`` the
    source of every derived value.
    """

    eq_class: EqClass
    data_shape: Shape
    index_shape: Shape
    axis: int | None
    batch_dims: int
    data_dtype: str
    index_dtype: str
    regime: str
    special: bool
    layout: str
    mode: int
    seed: int

    def size(self) -> tuple[int, ...]:
        """A shrink order: elements, then rank, then everything else.

        >>> ClassCase(EqClass.FLAT, (3,), (2,), None, 0, "int8", "int8", "in-range", False, "contiguous", 0, 0).size()
        (5, 2, 0, 1, 0, 0, 0, 0, 0)
        """
        return (
            math.prod(self.data_shape) + math.prod(self.index_shape),
            len(self.data_shape) + len(self.index_shape),
            abs(self.axis or 0) + abs(self.batch_dims),
            _rank(DATA_DTYPES, self.data_dtype),
            _rank(INDEX_DTYPES, self.index_dtype),
            int(self.special),
            _rank(LAYOUTS, self.layout),
            self.mode,
            self.seed,
        )


def _rank(names: tuple[str, ...], name: str) -> int:
    """A name's place in a shrink order; names outside it (a probe's bool
    indices, a negative-stride layout) come last."""
    return names.index(name) if name in names else len(names)


# -- derived values ------------------------------------------------------------


def _valid_axis(axis: int | None, rank: int) -> int | None:
    """``axis`` normalized into ``[0, rank)``, or None if it is outside the domain."""
    if axis is None or not -rank <= axis < rank:
        return None
    return axis % rank


def axis_sizes(cc: ClassCase) -> np.ndarray:
    """The size of the axis each index element addresses, broadcastable to the
    indices (for ND: one size per coordinate along the last dimension).
    Where the case's own axis is outside its domain, sizes fall back to 1.

    >>> axis_sizes(ClassCase(EqClass.ND, (2, 5, 7), (4, 2), None, 1, "int8", "int8", "in-range", False, "contiguous", 0, 0)).tolist()
    [5, 7]
    """
    d = cc.data_shape
    if cc.eq_class is EqClass.FLAT:
        return np.array(math.prod(d))
    if cc.eq_class is EqClass.ND:
        if not cc.index_shape:  # 0-d indices (a shrink candidate): no coordinate tuple at all
            return np.array(1)
        k = cc.index_shape[-1]
        b = max(cc.batch_dims, 0)
        sizes = [d[b + j] if b + j < len(d) else 1 for j in range(k)]
        return np.array(sizes, dtype=np.int64)
    axis = _valid_axis(cc.axis, len(d))
    return np.array(d[axis] if axis is not None else 1)


def _extreme(dtype: np.dtype, rng: np.random.Generator) -> int:
    info = np.iinfo(dtype)
    return int(info.min) if info.min < 0 and rng.random() < 0.5 else int(info.max)


def _beyond(rng: np.random.Generator) -> int:
    """How far past the axis a bad index lies: mostly just past it (0 to 2),
    otherwise across the whole int64 range: past 2**31 and 2**32 (where 32-bit
    index arithmetic wraps), or anywhere up to 2**63 (clipped to the dtype)."""
    pick = int(rng.integers(0, 6))
    if pick < 3:
        return pick
    return (2**31, 2**32 + 1, int(rng.integers(0, 2**63 - 1, dtype=np.int64)))[pick - 3]


def index_values(cc: ClassCase) -> np.ndarray:
    """Indices of ``cc.index_dtype``: in range, except for what the regime asks
    (one bad element, or for ``negative`` a random half wrapped below zero).

    >>> cc = ClassCase(EqClass.FLAT, (4,), (3,), None, 0, "int64", "int16", "oob-below", False, "contiguous", 0, 0)
    >>> bool((index_values(cc) < -4).any())
    True
    """
    rng = np.random.default_rng(cc.seed)
    shape = cc.index_shape
    sizes = np.broadcast_to(axis_sizes(cc), shape) if shape and shape[-1:] != (0,) or cc.eq_class is not EqClass.ND else np.ones(shape, np.int64)
    vals = rng.integers(0, 2**31, size=shape) % np.maximum(sizes, 1)
    dtype = np.dtype(cc.index_dtype)
    info = np.iinfo(dtype)
    extreme = None
    if vals.size and cc.regime in POLICY_REGIMES:
        pos = int(rng.integers(vals.size))
        s = int(np.asarray(sizes).reshape(-1)[pos]) if np.ndim(sizes) else int(sizes)
        flat = vals.reshape(-1)
        if cc.regime == "negative":
            mask = rng.random(vals.shape).reshape(-1) < 0.5
            mask[pos] = True
            flat = np.where(mask, flat - np.asarray(sizes).reshape(-1) if np.ndim(sizes) else flat - s, flat)
        elif cc.regime == "oob-above":
            extreme = (pos, min(s + _beyond(rng), int(info.max)))
        elif cc.regime == "oob-below":
            extreme = (pos, max(-s - 1 - _beyond(rng), int(info.min)))
        else:
            extreme = (pos, _extreme(dtype, rng))
        vals = flat.reshape(shape)
    out = np.clip(vals, info.min, info.max).astype(dtype)
    if extreme is not None:
        out.reshape(-1)[extreme[0]] = extreme[1]
    return out


def index_regime(indices: np.ndarray, sizes: np.ndarray | int) -> str:
    """The regime tag of actual index values (what a case *is*, whatever was drawn).

    >>> index_regime(np.array([0, -1], np.int8), 3), index_regime(np.array([127], np.int8), 3)
    ('negative', 'extreme')
    >>> index_regime(np.array([3], np.int64), 3), index_regime(np.zeros((0, 2), np.int32), 3)
    ('oob-above', 'empty')
    >>> index_regime(np.array(2**64 - 1, np.uint64), 3), index_regime(np.array(1, np.uint64), 3)   # 0-d uint64
    ('extreme', 'in-range')
    >>> index_regime(np.array([True]), 3)
    'non-integer'
    
    """
    if indices.size == 0:
        return "empty"
    if indices.dtype.kind not in "iu":
        return "non-integer"  # bool or float indices: bad input, whatever the values
    sizes = np.broadcast_to(np.asarray(sizes), indices.shape)
    info = np.iinfo(indices.dtype)
    wide = indices.astype(object) if indices.dtype == np.uint64 else indices.astype(np.int64)
    extreme = ((wide == int(info.max)) | ((wide == int(info.min)) & (info.min < 0))) & ((wide >= sizes) | (wide < -sizes))
    if np.any(extreme):  # np.any: a 0-d object array compares to a plain bool
        return "extreme"
    if np.any(wide < -sizes):
        return "oob-below"
    if np.any(wide >= sizes):
        return "oob-above"
    if np.any(wide < 0):
        return "negative"
    return "in-range"


def materialize(cc: ClassCase) -> tuple[np.ndarray, np.ndarray]:
    """``(data, indices)`` derived from a drawn case (see the module docstring)."""
    data = with_layout(data_values(cc.data_dtype, cc.data_shape, cc.seed, cc.special), cc.layout)
    return data, with_layout(index_values(cc), cc.layout)


# -- strategies ------------------------------------------------------------------


def _cap(shape: Shape, limit: int) -> Shape:
    """Shrink dimensions above 1 (from the front) to 1 until the product fits.

    >>> _cap((4, 4, 4, 4), 20)
    (1, 1, 4, 4)
    """
    dims = list(shape)
    for i, n in enumerate(dims):
        if math.prod(dims) <= limit:
            break
        if n > 1:
            dims[i] = 1
    return tuple(dims)


_SHAPE = array_shapes(min_dims=0, max_dims=MAX_RANK, min_side=0, max_side=4)
_SMALL_SHAPE = array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def _long_axis(shape: Shape, axis: int, n: int) -> Shape:
    """``shape`` with the gathered axis ``n`` long and every other dimension 1 (or 0).

    >>> _long_axis((2, 3, 4), -1, 70)
    (1, 1, 70)
    """
    if not -len(shape) <= axis < len(shape):
        return shape
    a = axis % len(shape)
    return tuple(n if d == a else min(m, 1) for d, m in enumerate(shape))


def _class_dtypes(eq_class: EqClass) -> tuple[str, ...]:
    """Every data dtype some catalog op of the class documents."""
    seen = {d for s in specs() if s.eq_class is eq_class or eq_class is EqClass.FLAT for d in s.data_dtypes}
    return tuple(d for d in DATA_DTYPES if d in seen)


def _axis(draw: st.DrawFn, rank: int) -> int:
    """Mostly a valid axis; one draw in eight just outside (``-rank - 1`` or ``rank``)."""
    if draw(st.integers(0, 7)) == 0:
        return draw(st.sampled_from((rank, -rank - 1)))
    return draw(st.integers(-max(rank, 1), max(rank, 1) - 1))


@st.composite
def _element_shapes(draw: st.DrawFn, violate: bool) -> tuple[Shape, Shape, int]:
    pair = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=MAX_RANK, min_side=0, max_side=4))
    data, idx = (_cap(s, MAX_DATA) for s in pair.input_shapes)
    rank = len(data)
    idx = _cap((1,) * (rank - len(idx)) + idx, MAX_INDICES)[-rank:] if rank else idx
    axis = _axis(draw, rank)
    a = _valid_axis(axis, rank)
    if a is not None:
        idx = idx[:a] + (draw(st.integers(0, 4)),) + idx[a + 1 :]
    if violate:
        kind = draw(st.integers(0, 1))
        if kind == 0 or not rank:
            idx = idx + (2,)  # rank mismatch
        else:
            d = draw(st.integers(0, rank - 1))
            idx = idx[:d] + (data[d] + 1 if data[d] != 1 else 3,) + idx[d + 1 :]  # larger / not broadcastable
    return data, idx, axis


@st.composite
def _block_shapes(draw: st.DrawFn, violate: bool) -> tuple[Shape, Shape, int, int]:
    data = _cap(draw(_SHAPE), MAX_DATA)
    idx = _cap(draw(_SMALL_SHAPE), MAX_INDICES)
    b = 0
    if draw(st.integers(0, 3)) == 0:  # batch_dims: tf.gather
        b = draw(st.integers(-len(idx) - 1, len(idx) + 1)) if violate else draw(st.integers(0, min(len(data), 2)))
        if not violate and b > 0:
            idx = _cap(data[:b] + idx, MAX_INDICES * 4)
    axis = _axis(draw, len(data))
    valid = _valid_axis(axis, len(data))
    if b > 0 and not violate and valid is not None and valid < b:
        axis = b if b < len(data) else axis
    return data, idx, axis, b


def _batch_violations(batch: Shape) -> list[Shape]:
    """Index batch dimensions that break "equal to the data's": one more,
    twice as many, 1 where the data has more, more where the data has 1
    (and the data's own, so that a violation may lie elsewhere).

    >>> _batch_violations((2,))
    [(2,), (3,), (4,), (1,)]
    """
    out = [batch, tuple(n + 1 for n in batch), tuple(2 * n for n in batch)]
    out.append(tuple(1 if n > 1 else 3 for n in batch))
    return list(dict.fromkeys(out))


@st.composite
def _nd_shapes(draw: st.DrawFn, violate: bool) -> tuple[Shape, Shape, int]:
    data = _cap(draw(array_shapes(min_dims=1, max_dims=MAX_RANK, min_side=0, max_side=4)), MAX_DATA)
    b = draw(st.integers(0, min(2, len(data) - 1))) if draw(st.integers(0, 3)) == 0 else 0
    k = draw(st.integers(0, len(data) - b)) + (1 if violate else 0)
    middle = _cap(draw(array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4)), 8)
    lead = data[:b] if not violate else draw(st.sampled_from(_batch_violations(data[:b])))
    if violate and draw(st.integers(0, 3)) == 0:
        b = -draw(st.integers(1, 2))  # a negative batch_dims
    return data, lead + middle + (k,), b


@st.composite
def _flat_shapes(draw: st.DrawFn, violate: bool) -> tuple[Shape, Shape]:
    return _cap(draw(_SHAPE), MAX_DATA), _cap(draw(_SMALL_SHAPE), MAX_INDICES)


@st.composite
def class_cases(draw: st.DrawFn, eq_classes: tuple[EqClass, ...] = tuple(EqClass)) -> ClassCase:
    """A :class:`ClassCase` of one of ``eq_classes`` (see the module docstring).

    >>> from hypothesis import find
    >>> find(class_cases((EqClass.ND,)), lambda c: c.regime == "negative").index_dtype
    'int8'
    """
    eq_class = draw(st.sampled_from(eq_classes))
    violate = draw(st.integers(0, 7)) == 0
    axis, b = None, 0
    if eq_class is EqClass.ELEMENT:
        data, idx, axis = draw(_element_shapes(violate))
    elif eq_class is EqClass.BLOCK:
        data, idx, axis, b = draw(_block_shapes(violate))
    elif eq_class is EqClass.ND:
        data, idx, b = draw(_nd_shapes(violate))
    else:
        data, idx = draw(_flat_shapes(violate))
    if eq_class is not EqClass.FLAT and axis is not None and draw(st.integers(0, 7)) == 0:
        data = _long_axis(data, axis, draw(st.integers(*LONG_AXIS)))
    regime = draw(st.sampled_from(REGIMES))
    if regime == "empty" and idx and 0 not in idx:
        d = draw(st.integers(0, len(idx) - 1 if eq_class is not EqClass.ND else max(len(idx) - 2, 0)))
        idx = idx[:d] + (0,) + idx[d + 1 :]
    pool = SIGNED_INDEX if regime in ("negative", "oob-below") else INDEX_DTYPES
    index_dtype = draw(st.sampled_from(COMMON_INDEX)) if draw(st.booleans()) else draw(st.sampled_from(pool))
    data_dtype = draw(st.sampled_from(_class_dtypes(eq_class)))
    special = as_dtype(data_dtype).kind in "fcV" and draw(st.integers(0, 3)) == 0
    layout = draw(st.sampled_from(LAYOUTS)) if draw(st.integers(0, 4)) == 0 else "contiguous"
    mode = draw(st.integers(0, MODES - 1))
    seed = draw(st.integers(0, 2**16))
    return ClassCase(eq_class, data, idx, axis, b, data_dtype, index_dtype, regime, special, layout, mode, seed)
