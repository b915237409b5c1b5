"""A drawn case in its equivalence class's convention (:class:`ClassCase`):
shapes, a class-level axis and ``batch_dims``, dtype names, an index regime,
a layout, a mode selector and a seed; and the arrays derived from it
(:func:`materialize`), cheaply and deterministically, so that shrinking the
seed to 0 or a shape to rank 1 keeps every other choice. No Hypothesis here:
the judge, the results and the report read class cases too.

* index regimes (:data:`~conformance.core.vocabulary.REGIMES`): in range, negative in range, out of range
  above, below ``-size``, the index dtype's extremes, empty;
* data: values unique across the tensor (as far as the dtype has values),
  optionally NaN with distinct payloads, ``-0.0`` and inf;
* layouts: C-contiguous, strided (every other element of a buffer) and Fortran.

>>> cc = ClassCase(EqClass.BLOCK, (2, 3), (2,), 1, 0, "float32", "int8", "oob-above", False, "contiguous", 0, 0)
>>> data, idx = materialize(cc)
>>> data.shape, idx.dtype.name, bool((idx >= 3).any())
((2, 3), 'int8', True)
>>> str(index_regime(idx, axis_sizes(cc)))
'oob-above'
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from conformance.cases.values import data_values, with_layout
from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES
from conformance.core.vocabulary import DRAWN_LAYOUTS, POLICY_REGIMES, AttrRole, AttrValue, Layout, Regime
from conformance.spec.plans import EqClass

Shape = tuple[int, ...]


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
    regime: Regime
    special: bool
    layout: Layout
    mode: int
    seed: int
    attr_domain: tuple[AttrRole, AttrValue] | None = None
    """An attribute given a value of this type instead of the class's own
    (:func:`~conformance.cases.translate.domain_value`): ``(axis, float)`` passes ``axis=1.5``."""
    mode_word: str | None = None
    """A mode word given to every op that has a ``mode`` instead of the selector's mode (``"promise_in_bounds"``,
    which only ``jnp.take_along_axis`` lists, given to ``jnp.take``): an op without one cannot express it."""

    def __post_init__(self) -> None:
        """The regime, layout and attribute domain given as words become vocabulary members (a ValueError for an unknown
        one)."""
        object.__setattr__(self, "regime", Regime(self.regime))
        object.__setattr__(self, "layout", Layout(self.layout))
        if self.attr_domain is not None:
            role, value = self.attr_domain
            object.__setattr__(self, "attr_domain", (AttrRole(role), AttrValue(value)))

    def to_json(self) -> dict[str, Any]:
        """The case as JSON: its class, regime and layout by name.

        >>> ClassCase(EqClass.FLAT, (3,), (1,), None, 0, "int8", "int8", "in-range", False, "contiguous", 0,
        ...     0).to_json()["eq_class"]
        'flattened 1-D'
        """
        words = {"eq_class": self.eq_class.value, "regime": self.regime.value, "layout": self.layout.value}
        return {**asdict(self), **words}

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
            _rank(DRAWN_LAYOUTS, self.layout),
            self.mode,
            self.seed,
        )


def _rank(names: tuple[str, ...], name: str) -> int:
    """A name's place in a shrink order; names outside it (a probe's bool
    indices, a negative-stride layout) come last."""
    return names.index(name) if name in names else len(names)


# -- derived values ------------------------------------------------------------


def valid_axis(axis: int | None, rank: int) -> int | None:
    """``axis`` normalized into ``[0, rank)``, or None if it is outside the domain."""
    if axis is None or not -rank <= axis < rank:
        return None
    return axis % rank


def axis_sizes(cc: ClassCase) -> np.ndarray:
    """The size of the axis each index element addresses, broadcastable to the
    indices (for ND: one size per coordinate along the last dimension).
    Where the case's own axis is outside its domain, sizes fall back to 1.

    >>> axis_sizes(ClassCase(EqClass.ND, (2, 5, 7), (4, 2), None, 1, "int8", "int8", "in-range", False, "contiguous", 0,
    ...     0)).tolist()
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
    axis = valid_axis(cc.axis, len(d))
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
    sizes = (
        np.broadcast_to(axis_sizes(cc), shape)
        if shape and shape[-1:] != (0,) or cc.eq_class is not EqClass.ND
        else np.ones(shape, np.int64)
    )
    vals = rng.integers(0, 2**31, size=shape) % np.maximum(sizes, 1)
    dtype = np.dtype(cc.index_dtype)
    if dtype.kind == "b":  # bad input whatever the values: True and False
        return (vals % 2).astype(bool)
    info = np.iinfo(dtype)
    extreme = None
    if vals.size and cc.regime in POLICY_REGIMES:
        pos = int(rng.integers(vals.size))
        s = int(np.asarray(sizes).reshape(-1)[pos]) if np.ndim(sizes) else int(sizes)
        flat = vals.reshape(-1)
        if cc.regime is Regime.NEGATIVE:
            mask = rng.random(vals.shape).reshape(-1) < 0.5
            mask[pos] = True
            flat = np.where(mask, flat - np.asarray(sizes).reshape(-1) if np.ndim(sizes) else flat - s, flat)
        elif cc.regime is Regime.OOB_ABOVE:
            extreme = (pos, min(s + _beyond(rng), int(info.max)))
        elif cc.regime is Regime.OOB_BELOW:
            extreme = (pos, max(-s - 1 - _beyond(rng), int(info.min)))
        else:
            extreme = (pos, _extreme(dtype, rng))
        vals = flat.reshape(shape)
    out = np.clip(vals, info.min, info.max).astype(dtype)
    if extreme is not None:
        out.reshape(-1)[extreme[0]] = extreme[1]
    return out


def index_regime(indices: np.ndarray, sizes: np.ndarray | int) -> Regime:
    """The regime tag of actual index values (what a case *is*, whatever was drawn).

    >>> [str(index_regime(np.array(i, np.int8), 3)) for i in ([0, -1], [127], [3], np.zeros((0, 2)))]
    ['negative', 'extreme', 'oob-above', 'empty']
    >>> str(index_regime(np.array(2**64 - 1, np.uint64), 3)), str(index_regime(np.array(1, np.uint64), 3))  # 0-d uint64
    ('extreme', 'in-range')
    >>> index_regime(np.array([True]), 3)
    <Regime.NON_INTEGER: 'non-integer'>
    """
    if indices.size == 0:
        return Regime.EMPTY
    if indices.dtype.kind not in "iu":
        return Regime.NON_INTEGER  # bool or float indices: bad input, whatever the values
    sizes = np.broadcast_to(np.asarray(sizes), indices.shape)
    info = np.iinfo(indices.dtype)
    wide = indices.astype(object) if indices.dtype == np.uint64 else indices.astype(np.int64)
    extreme = ((wide == int(info.max)) | ((wide == int(info.min)) & (info.min < 0))) & (
        (wide >= sizes) | (wide < -sizes)
    )
    if np.any(extreme):  # np.any: a 0-d object array compares to a plain bool
        return Regime.EXTREME
    if np.any(wide < -sizes):
        return Regime.OOB_BELOW
    if np.any(wide >= sizes):
        return Regime.OOB_ABOVE
    if np.any(wide < 0):
        return Regime.NEGATIVE
    return Regime.IN_RANGE


def materialize(cc: ClassCase) -> tuple[np.ndarray, np.ndarray]:
    """``(data, indices)`` derived from a drawn case (see the module docstring)."""
    data = with_layout(data_values(cc.data_dtype, cc.data_shape, cc.seed, cc.special), cc.layout)
    return data, with_layout(index_values(cc), cc.layout)
