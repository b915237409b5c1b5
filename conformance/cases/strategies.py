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
  non-broadcastable or larger dimensions, unequal batch dimensions, an index
  batch of 0);
* index regimes (:data:`~conformance.core.vocabulary.REGIMES`): in range, negative in range, out of range
  above, below ``-size``, the index dtype's extremes, empty; one draw in sixteen takes bool indices
  (bad input) under whatever mode selector is drawn;
* data: every catalog dtype, values unique across the tensor (as far as the
  dtype has values), optionally NaN with distinct payloads, ``-0.0`` and inf;
* attributes across their domain and just outside it (``axis = -rank - 1``
  and ``rank``, ``batch_dims`` negative or too large); one draw in sixteen gives
  an attribute a value of another type (:class:`~conformance.core.vocabulary.AttrValue`:
  bool, float, str, None, a NumPy integer, a 0-d array, the int64 extremes, just outside);
* layouts: C-contiguous, strided (every other element of a buffer) and Fortran.

>>> from hypothesis import find
>>> cc = find(class_cases((EqClass.BLOCK,)), lambda c: c.regime == "oob-above" and len(c.data_shape) == 2)
>>> cc.eq_class.value, len(cc.data_shape), str(cc.regime)
('block gather', 2, 'oob-above')
"""

from __future__ import annotations

import math

from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from conformance.cases.class_case import ClassCase, Shape, valid_axis
from conformance.cases.translate import FIXED_VALUES, domain_classes
from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES, as_dtype
from conformance.core.case import int_reading
from conformance.core.vocabulary import DRAWN_LAYOUTS, REGIMES, AttrRole, AttrValue, Layout, Regime
from conformance.spec.catalog import specs
from conformance.spec.plans import EqClass

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
    a = valid_axis(axis, rank)
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
    valid = valid_axis(axis, len(data))
    if b > 0 and not violate and valid is not None and valid < b:
        axis = b if b < len(data) else axis
    return data, idx, axis, b


def _batch_violations(batch: Shape) -> list[Shape]:
    """Index batch dimensions that break "equal to the data's": one more,
    twice as many, 1 where the data has more, more where the data has 1, 0
    (and the data's own, so that a violation may lie elsewhere).

    >>> _batch_violations((2,))
    [(2,), (3,), (4,), (1,), (0,)]
    """
    out = [batch, tuple(n + 1 for n in batch), tuple(2 * n for n in batch)]
    out.append(tuple(1 if n > 1 else 3 for n in batch))
    out.append(tuple(0 for _ in batch))  # an index batch of 0 against a data batch that is not
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
    >>> find(class_cases((EqClass.ND,)), lambda c: c.regime is Regime.NEGATIVE).index_dtype
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
    if regime is Regime.EMPTY and idx and 0 not in idx:
        d = draw(st.integers(0, len(idx) - 1 if eq_class is not EqClass.ND else max(len(idx) - 2, 0)))
        idx = idx[:d] + (0,) + idx[d + 1 :]
    pool = SIGNED_INDEX if regime in (Regime.NEGATIVE, Regime.OOB_BELOW) else INDEX_DTYPES
    index_dtype = draw(st.sampled_from(COMMON_INDEX)) if draw(st.booleans()) else draw(st.sampled_from(pool))
    if draw(st.integers(0, 15)) == 0:  # bool indices (bad input), under whatever mode is drawn
        index_dtype, regime = "bool", Regime.IN_RANGE
    data_dtype = draw(st.sampled_from(_class_dtypes(eq_class)))
    special = as_dtype(data_dtype).kind in "fcV" and draw(st.integers(0, 3)) == 0
    layout = draw(st.sampled_from(DRAWN_LAYOUTS)) if draw(st.integers(0, 4)) == 0 else Layout.CONTIGUOUS
    mode = draw(st.integers(0, MODES - 1))
    seed = draw(st.integers(0, 2**16))
    domain = draw(_attr_domains(eq_class)) if draw(st.integers(0, 15)) == 0 else None
    domain = domain if domain is None or carries_reading(domain, data, axis, b) else None
    return ClassCase(eq_class, data, idx, axis, b, data_dtype, index_dtype, regime, special, layout, mode, seed, domain)


def carries_reading(domain: tuple[AttrRole, AttrValue], data: tuple[int, ...], axis: int | None, b: int) -> bool:
    """Whether a drawn case can take ``domain``: a value with an int reading (``'1'``, ``1.5``, ``True`` read as 1:
    :func:`~conformance.cases.translate.int_reading`) goes only to a case whose axis or ``batch_dims`` is that
    int, so a framework that reads it answers the case's own value and one that refuses it refuses the type alone
    (issue 44); any other value (None, the int64 extremes, just outside) goes to any case. A domain drawn for
    another case is dropped, not redrawn: the draws, and so every later case of a seed, stay as they were.

    >>> carries_reading((AttrRole.BATCH_DIMS, AttrValue.STR), (2, 5), None, 1)
    True
    >>> carries_reading((AttrRole.BATCH_DIMS, AttrValue.STR), (5, 4), None, 0)
    False
    >>> carries_reading((AttrRole.AXIS, AttrValue.FLOAT), (2, 5, 2), -2, 0)  # axis -2 of rank 3 is axis 1
    True
    >>> carries_reading((AttrRole.AXIS, AttrValue.NONE), (3,), 0, 0)
    True
    """
    role, value = domain
    read = int_reading(FIXED_VALUES.get(value))
    if read is None or role not in (AttrRole.AXIS, AttrRole.BATCH_DIMS):
        return True
    if role is AttrRole.BATCH_DIMS:
        return b == read
    return axis is not None and -len(data) <= axis < len(data) and axis % len(data) == read


def _attr_domains(eq_class: EqClass) -> st.SearchStrategy[tuple[AttrRole, AttrValue]]:
    """An attribute role of the class's ops and a type of value to give it (issue 22's attribute domain).

    >>> from hypothesis import find
    >>> find(_attr_domains(EqClass.BLOCK), lambda d: d[1] is AttrValue.FLOAT and d[0] is AttrRole.BATCH_DIMS)
    (<AttrRole.BATCH_DIMS: 'batch_dims'>, <AttrValue.FLOAT: 'float'>)
    """
    roles = [r for r in AttrRole if eq_class in domain_classes(r)]
    return st.tuples(st.sampled_from(roles), st.sampled_from(list(AttrValue)))
