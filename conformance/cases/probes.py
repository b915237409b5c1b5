"""The probe atlas's conditions: a declared, ordered list of the corners of
the behaviour space, and for each equivalence class small, hand-designed,
deterministic cases (*probes*) that put one op of the class in that corner.

Each :class:`AtlasCondition` is one row of the atlas (in :data:`CONDITIONS` order),
in one :class:`Group` (index values, emptiness, ranks, broadcasting, batch
dimensions, attributes, dtypes, layouts), and applies to the classes it names
(a condition that means nothing for a class, e.g. ``batch_dims`` for the
flattened class, has no probe there). A :class:`Probe` is a structural
:class:`~conformance.cases.class_case.ClassCase` plus its explicit arrays;
:func:`cases_of` turns it into one :class:`~conformance.core.case.Case` per op
through :func:`~conformance.cases.translate.translate`.

How the probes are built, per class (``float32`` data unless the condition is
about dtypes; ``int64`` indices unless it is about index dtypes):

* a base case with a gathered axis of 5 (flattened: 6 elements) and data
  values all distinct and non-zero (a permutation of ``±1..n``), so that two
  index policies that read different elements (or fill) give different outputs:
  element ``data (2, 5, 2)``, ``indices (2, 3, 2)``, axis 1; block ``data
  (2, 5, 2)``, ``indices (3,)``, axis 1; ND ``data (5, 4)``, ``indices (3, 1)``;
  flattened ``data (2, 3)``, ``indices (4,)``;
* in-range indices are ``(2 i + 1) mod size`` (position ``i``); an index-value
  condition overwrites the first positions of the first gathered axis (for ND,
  the first coordinate of the first tuples) with its values, and nothing
  else is out of range, so each probe shows one thing (``-size`` comes with
  ``-1``, without which wrapping it and clamping it raw both read element 0);
* modes: for the *policy* conditions (:attr:`AtlasCondition.policy`: the index
  values decide what the op returns; and :attr:`AtlasCondition.every_mode`
  ones, bool indices and empty gathered axes) there is one probe per mode selector
  (:func:`mode_selectors`: as many as the class's op with the most modes
  has, e.g. ``0..3`` for block, where ``jnp.take`` has four), and
  :func:`cases_of` keeps an op's case at selector ``m > 0`` only if ``m``
  names a mode of its own (``mode = modes[m]``): every mode of
  ``numpy.take``, ``jnp.take`` and ``jnp.take_along_axis`` runs once, every
  other op once. Every other condition runs the default mode (selector 0).
  An empty gathered axis runs every mode: a wrapping mode divides by its
  length (``paddle.take`` and ``tnp.take`` fail inside, ``jnp.take_along_axis``
  returns a value), and without a probe only some seeds drew it.

>>> [c.key for c in CONDITIONS][:6]
['in-range', 'negative', 'minus-size', 'size', 'size-plus-k', 'below-minus-size']
>>> p = next(p for p in probes(EqClass.BLOCK) if p.condition == "size")
>>> p.data.shape, p.indices.tolist(), p.class_case.axis
((2, 5, 2), [5, 3, 0], 1)
>>> {"numpy.take", "onnx.Gather-13", "tensorflow.gather"} <= {c.op for c in cases_of(p)}
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from conformance.cases.class_case import ClassCase, axis_sizes, index_regime
from conformance.cases.translate import domain_classes, domain_value, targets, translate
from conformance.cases.values import data_values, with_layout
from conformance.core.arrays import DATA_DTYPES, INDEX_DTYPES, as_dtype
from conformance.core.case import Case, int_reading
from conformance.core.vocabulary import AttrRole, AttrValue, Layout, Regime
from conformance.spec.catalog import spec, specs
from conformance.spec.errors import IndexOutOfRangeError, PreconditionError
from conformance.spec.plans import EqClass
from conformance.spec.reference import reference

Shape = tuple[int, ...]
E, F, B, N = EqClass.ELEMENT, EqClass.FLAT, EqClass.BLOCK, EqClass.ND
ALL = (E, F, B, N)


class Group(str, Enum):
    """The kinds of condition, in the atlas's order."""

    INDEX = "index values"
    EMPTY = "emptiness"
    RANK = "ranks"
    BROADCAST = "broadcasting"
    BATCH = "batch dimensions"
    ATTRIBUTE = "attributes"
    DTYPE = "dtypes"
    LAYOUT = "layouts"


@dataclass(frozen=True)
class AtlasCondition:
    """One row of the atlas: ``key`` (stable, in JSON), ``words`` (for people),
    the classes it applies to, ``policy``: the index values decide the
    result (every mode of an op runs; the probe discriminates index policies),
    and ``every_mode``: every mode of an op runs although the values decide
    nothing (bool indices: bad input in every mode).

    >>> condition("uint64-high").words
    'uint64 indices at and above 2**63'
    """

    key: str
    words: str
    group: Group
    eq_classes: tuple[EqClass, ...]
    policy: bool = False
    every_mode: bool = False
    shaped: bool = False
    """The condition is an attribute's value itself (an axis): like a rank, a broadcast or batch dimensions."""

    @property
    def revertible(self) -> bool:
        """Whether the condition is a feature its probes can revert (:func:`ordinary`): index values, an index or
        data dtype, emptiness, an attribute's type, a layout. A shape (ranks, broadcasting, batch dimensions) or an
        attribute's value (an axis) is the condition itself: its probe is the base case with that one change, and
        there is nothing to revert it to.

        >>> condition("attr-batch-dims-str").revertible, condition("batch-mismatch").revertible
        (True, False)
        """
        return not self.shaped and self.group not in (Group.RANK, Group.BROADCAST, Group.BATCH)

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "words": self.words,
            "group": self.group.value,
            "eq_classes": [c.value for c in self.eq_classes],
            "policy": self.policy,
            "every_mode": self.every_mode or self.policy,
            "revertible": self.revertible,
            "unisolated": {f"{eq.value}: {op}": why for (key, eq, op), why in isolation().items() if key == self.key},
        }


@dataclass(frozen=True, eq=False)
class Probe:
    """One probe: the condition's key, its class, the structural case
    (shapes, axis, ``batch_dims``, dtype names, mode selector, layout, seed)
    and the explicit arrays (compare probes with :meth:`same`)."""

    condition: str
    eq_class: EqClass
    class_case: ClassCase
    data: np.ndarray
    indices: np.ndarray

    def same(self, other: Probe) -> bool:
        """Equal condition, case, arrays (values, dtype, shape and strides).

        >>> all(p.same(q) for p, q in zip(probes(EqClass.ND), probes(EqClass.ND)))
        True
        """
        return (self.condition, self.eq_class, self.class_case) == (
            other.condition,
            other.eq_class,
            other.class_case,
        ) and all(
            a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides and a.tobytes() == b.tobytes()
            for a, b in ((self.data, other.data), (self.indices, other.indices))
        )


# -- how a probe is specified --------------------------------------------------

Put = Callable[[int], tuple[int, ...]]
"""The values a condition writes over the first index positions, from the axis size."""


@dataclass(frozen=True)
class _Spec:
    data_shape: Shape
    index_shape: Shape
    axis: int | None = None
    batch_dims: int = 0
    put: Put | None = None
    index_dtype: str = "int64"
    data_dtype: str = "float32"
    data: str = ""  # "nan" (distinct NaN payloads) or "-0" (signed zeros)
    layout: Layout = Layout.CONTIGUOUS
    attr_domain: tuple[AttrRole, AttrValue] | None = None
    mode_word: str | None = None


_BASE = {
    E: _Spec((2, 5, 2), (2, 3, 2), 1),
    F: _Spec((2, 3), (4,)),
    B: _Spec((2, 5, 2), (3,), 1),
    N: _Spec((5, 4), (3, 1)),
}
Build = Callable[[EqClass], list[_Spec]]


def _base(**changes: object) -> Build:
    return lambda eq: [replace(_BASE[eq], **changes)]  # type: ignore[arg-type]


def _put(put: Put, dtypes: Iterable[str] = ("int64",)) -> Build:
    return lambda eq: [replace(_BASE[eq], put=put, index_dtype=d) for d in dtypes]


def _const(*values: int) -> Put:
    return lambda size: values


def _extreme(which: str) -> Build:
    def build(eq: EqClass) -> list[_Spec]:
        return [
            replace(_BASE[eq], index_dtype=d, put=_const(int(getattr(np.iinfo(d), which))))
            for d in ("int8", "int32", "int64")
        ]

    return build


def _by_class(table: dict[EqClass, _Spec]) -> Build:
    return lambda eq: [table[eq]]


def _moved(axis: int, size: int = 5, rank: int = 3) -> Build:
    """The base element/block case with the size-``size`` axis at ``axis``."""
    place = axis % rank if -rank <= axis < rank else 1

    def shapes(eq: EqClass) -> list[_Spec]:
        data = tuple(size if d == place else 2 for d in range(rank))
        idx = tuple(3 if d == place else 2 for d in range(rank)) if eq is E else (3,)
        return [_Spec(data, idx, axis)]

    return shapes


def _high_rank(rank: int) -> Build:
    """Data of rank ``rank``: sides 1 except a leading 2, the gathered 5 and a trailing 2."""
    data = (2,) + (1,) * (rank - 3) + (5, 2)
    table = {
        E: _Spec(data, data[:-2] + (3, 2), rank - 2),
        F: _Spec(data, (4,)),
        B: _Spec(data, (3,), rank - 2),
        N: _Spec((5,) + data[1:], (3, 1)),
    }
    return _by_class(table)


def _full_tuple(rank: int) -> Build:
    """GatherND with index tuples as long as the data's rank ``rank`` (every
    other ND probe uses tuples of 1 or 2): data sides 5, 2, 1..., indices (3, rank)."""
    return _by_class({N: _Spec((5, 2) + (1,) * (rank - 2), (3, rank))})


_LONG_IN_RANGE = _const(69, 65, 67)


def _long_axis(eq: EqClass, put: Put = _LONG_IN_RANGE) -> list[_Spec]:
    table = {
        E: _Spec((2, 70, 2), (2, 3, 2), 1, put=put),
        F: _Spec((2, 35), (4,), put=put),
        B: _Spec((2, 70, 2), (3,), 1, put=put),
        N: _Spec((70, 2), (3, 1), put=put),
    }
    return [table[eq]]


def _long_axis_negative(eq: EqClass) -> list[_Spec]:
    """The long axis read from its end (``onnx.reference``'s GatherElements uses
    ``np.choose``, which takes at most 64 choices, whatever the sign)."""
    return _long_axis(eq, _const(-69, -5, -67))


def _element(data: Shape, idx: Shape, put: Put | None = None) -> Build:
    return lambda eq: [_Spec(data, idx, 1, put=put)]


def _batch(data: Shape, idx: Shape, b: int = 1, axis: int = 1, nd_idx: Shape | None = None) -> Build:
    """tf.gather's ``batch_dims`` (block: data ``data + (2,)``) and GatherND's
    (ND: data ``data + (4,)``, indices ``idx + (1,)``)."""
    return lambda eq: [
        _Spec(data + (2,), idx, axis, b) if eq is B else _Spec(data + (4,), nd_idx or idx + (1,), None, b)
    ]


# -- the conditions, in the atlas's order ----------------------------------------

_I, _EM, _R, _BC, _BA, _A, _D, _L = (
    Group.INDEX,
    Group.EMPTY,
    Group.RANK,
    Group.BROADCAST,
    Group.BATCH,
    Group.ATTRIBUTE,
    Group.DTYPE,
    Group.LAYOUT,
)
_OOB7 = _const(7)


def attr_condition_key(role: AttrRole, value: AttrValue) -> str:
    """The atlas key of an attribute-domain condition: ``attr-axis-int64-min``."""
    return f"attr-{role.value.replace('_', '-')}-{value.name.lower().replace('_', '-')}"


def _attr_domain(role: AttrRole, value: AttrValue) -> Build:
    """The base case with ``role``'s attribute given a value of type ``value``, on shapes where the value's int
    reading (:func:`~conformance.cases.translate.int_reading`: ``batch_dims='1'`` reads as 1) is valid, so that a
    framework that reads it answers a value, and one that refuses it refuses the type alone: ``batch_dims`` on the
    equal batch dimensions of ``batch-equal`` (the ND base, data (5, 4) and indices (3, 1), breaks
    ``batch_dims=1`` by its batch sizes 5 and 3: issue 44), ``axis=None`` on 1-D data (where it flattens the data or
    names its first axis, indices in range of either are in range of both: ``tf.gather``'s first axis of the base
    case is 2 long), every other attribute on the base case (axis 1).

    >>> [(s.data_shape, s.index_shape, s.batch_dims) for s in _attr_domain(AttrRole.BATCH_DIMS, AttrValue.STR)(N)]
    [((2, 5, 4), (2, 3, 1), 1)]
    """
    if role is AttrRole.BATCH_DIMS:
        return lambda eq: [replace(s, attr_domain=(role, value)) for s in _batch((2, 5), (2, 3))(eq)]
    if role is AttrRole.AXIS and value is AttrValue.NONE:  # 1-D data: flattening it, or its first axis, is axis 0
        return lambda eq: [_Spec((5,), (3,), 0, attr_domain=(role, value))]
    return _base(attr_domain=(role, value))


_ATTR_ROWS = [
    (
        AtlasCondition(attr_condition_key(role, value), f"{role.value} given {value.value}", _A, domain_classes(role)),
        _attr_domain(role, value),
    )
    for role in AttrRole
    for value in AttrValue
]
"""Issue 22's attribute domain: every attribute (by role) given every type of value a user can pass."""


def mode_words() -> tuple[str, ...]:
    """Every mode word some catalog op lists (catalog order), each a value a user can pass to another op's mode.

    >>> mode_words()
    ('raise', 'wrap', 'clip', 'fill', 'promise_in_bounds')
    """
    words = (m for s in specs() if s.mode_attr for m in s.mode_policies if isinstance(m, str))
    return tuple(dict.fromkeys(words))


def lacks_word(op: str, word: str) -> bool:
    """Whether ``op`` has a mode whose documented domain does not list ``word``.

    >>> lacks_word("jax.numpy.take", "promise_in_bounds"), lacks_word("jax.numpy.take_along_axis", "promise_in_bounds")
    (True, False)
    >>> lacks_word("torch.gather", "clip")  # no mode at all: nothing to give the word to
    False
    """
    s = spec(op)
    return s.mode_attr is not None and word not in s.mode_policies


def mode_word_key(word: str) -> str:
    """The atlas key of a mode-word condition: ``attr-mode-word-promise-in-bounds``."""
    return f"attr-mode-word-{word.replace('_', '-')}"


def _word_classes(word: str) -> tuple[EqClass, ...]:
    return tuple(eq for eq in EqClass if any(lacks_word(s.key, word) for s in targets(eq)))


_MODE_WORD_ROWS = [
    (
        AtlasCondition(
            mode_word_key(w),
            f'mode given "{w}", another op\'s mode word, where the op does not list it',
            _A,
            _word_classes(w),
        ),
        _base(mode_word=w),
    )
    for w in mode_words()
    if _word_classes(w)
]
"""Each mode word one op lists, given to every other op that has a mode: asked, not assumed refused
(``jnp.take`` with ``mode="promise_in_bounds"``, which ``jnp.take_along_axis`` takes)."""


_ROWS: tuple[tuple[AtlasCondition, Build], ...] = (
    (AtlasCondition("in-range", "indices in range", _I, ALL), _base()),
    (
        AtlasCondition("negative", "negative indices in range (-1, 1 - size)", _I, ALL, True),
        _put(lambda s: (-1, 1 - s)),
    ),
    (AtlasCondition("minus-size", "index -size (and -1)", _I, ALL, True), _put(lambda s: (-s, -1))),
    (AtlasCondition("size", "index size", _I, ALL, True), _put(lambda s: (s,))),
    (AtlasCondition("size-plus-k", "index size + 2", _I, ALL, True), _put(lambda s: (s + 2,))),
    (AtlasCondition("below-minus-size", "index -size - 1", _I, ALL, True), _put(lambda s: (-s - 1,))),
    (AtlasCondition("dtype-min", "the index dtype's minimum (int8, int32, int64)", _I, ALL, True), _extreme("min")),
    (AtlasCondition("dtype-max", "the index dtype's maximum (int8, int32, int64)", _I, ALL, True), _extreme("max")),
    (
        AtlasCondition("beyond-int32", "int64 indices beyond int32 (2**31, 2**32 + 1)", _I, ALL, True),
        _put(_const(2**31, 2**32 + 1)),
    ),
    (
        AtlasCondition("uint64-high", "uint64 indices at and above 2**63", _I, ALL, True),
        _put(_const(2**63, 2**64 - 1), ("uint64",)),
    ),
    (
        AtlasCondition(
            "empty-axis",
            "an empty gathered axis, non-empty indices, under every mode of an op",
            _EM,
            ALL,
            every_mode=True,
        ),
        _by_class(
            {
                E: _Spec((2, 0, 2), (2, 3, 2), 1),
                F: _Spec((2, 0), (4,)),
                B: _Spec((2, 0, 2), (3,), 1),
                N: _Spec((0, 4), (3, 1)),
            }
        ),
    ),
    (
        AtlasCondition("empty-outer-oob", "an empty outer dimension, an index out of range", _EM, (E, B)),
        _by_class({E: _Spec((0, 5, 2), (1, 3, 2), 1, put=_OOB7), B: _Spec((0, 5, 2), (3,), 1, put=_OOB7)}),
    ),
    (
        AtlasCondition(
            "empty-slices-oob", "empty slices (a zero trailing dimension), an index out of range", _EM, (E, B, N)
        ),
        _by_class(
            {
                E: _Spec((2, 5, 0), (2, 3, 1), 1, put=_OOB7),
                B: _Spec((2, 5, 0), (3,), 1, put=_OOB7),
                N: _Spec((5, 0), (3, 1), put=_OOB7),
            }
        ),
    ),
    (
        AtlasCondition("empty-indices", "empty indices", _EM, ALL),
        _by_class(
            {
                E: _Spec((2, 5, 2), (2, 0, 2), 1),
                F: _Spec((2, 3), (0,)),
                B: _Spec((2, 5, 2), (0,), 1),
                N: _Spec((5, 4), (0, 1)),
            }
        ),
    ),
    (
        AtlasCondition("empty-axis-2d-oob", "2-D data with an empty gathered axis, one index out of range", _EM, (E,)),
        _by_class({E: _Spec((2, 0), (2, 1), 1, put=_OOB7)}),
    ),
    (
        AtlasCondition(
            "empty-indices-wider", "empty indices wider than empty data (data (3, 0), indices (0, 1))", _EM, (E,)
        ),
        _by_class({E: _Spec((3, 0), (0, 1), 0)}),
    ),
    (
        AtlasCondition(
            "empty-slices-oob-2d", "empty slices of 2-D data (gathered axis 0), one index out of range", _EM, (B,)
        ),
        _by_class({B: _Spec((2, 0), (1,), 0, put=_OOB7)}),
    ),
    (AtlasCondition("zero-batch", "a zero batch dimension", _EM, (B, N)), _batch((0, 5), (0, 3))),
    (
        AtlasCondition(
            "empty-axis-scalar-oob", "a 0-d (ND: one-coordinate) index into an empty last axis", _EM, (F, B, N)
        ),
        _by_class(
            {
                F: _Spec((0,), (), put=_const(1)),
                B: _Spec((2, 0), (), 1, put=_const(1)),
                N: _Spec((0,), (1,), put=_const(1)),
            }
        ),
    ),
    (
        AtlasCondition("empty-outer-scalar", "a 0-d index in range, an empty outer dimension", _EM, (B,)),
        _by_class({B: _Spec((0, 2), (), 1, put=_const(1))}),
    ),
    (
        AtlasCondition("empty-outer-scalar-negative", "a 0-d index of -1, an empty outer dimension", _EM, (B,)),
        _by_class({B: _Spec((0, 1), (), 1, put=_const(-1))}),
    ),
    (
        AtlasCondition("data-0d", "0-d data", _R, ALL),
        _by_class({E: _Spec((), (), 0), F: _Spec((), (2,)), B: _Spec((), (1,), 0), N: _Spec((), (1, 1))}),
    ),
    (
        AtlasCondition("index-0d", "a 0-d index", _R, ALL),
        _by_class({E: _Spec((5,), (), 0), F: _Spec((2, 3), ()), B: _Spec((2, 5, 2), (), 1), N: _Spec((5, 4), ())}),
    ),
    (
        AtlasCondition("index-rank-high", "indices of a higher rank than the op documents", _R, ALL),
        _by_class(
            {
                E: _Spec((2, 5, 2), (2, 3, 2, 1), 1),
                F: _Spec((2, 3), (2, 2)),
                B: _Spec((2, 5, 2), (3, 2), 1),
                N: _Spec((5, 4), (2, 1, 2, 1)),
            }
        ),
    ),
    (
        AtlasCondition("index-rank-high-empty", "empty indices of a higher rank than the op documents", _R, ALL),
        _by_class(
            {
                E: _Spec((2, 5, 2), (2, 0, 2, 1), 1),
                F: _Spec((2, 3), (0, 2)),
                B: _Spec((2, 5, 2), (0, 2), 1),
                N: _Spec((5, 4), (2, 0, 2, 1)),
            }
        ),
    ),
    (
        AtlasCondition("index-trailing-1", "indices of shape (3, 1) where an op documents 1-D ones", _R, (B,)),
        _by_class({B: _Spec((2, 5, 2), (3, 1), 1)}),
    ),
    (
        AtlasCondition("data-0d-empty-indices", "0-d data, empty indices", _R, ALL),
        _by_class({E: _Spec((), (0,), 0), F: _Spec((), (0,)), B: _Spec((), (0,), 0), N: _Spec((), (0, 1))}),
    ),
    (AtlasCondition("rank-7", "data of rank 7", _R, ALL), _high_rank(7)),
    (AtlasCondition("rank-8", "data of rank 8", _R, ALL), _high_rank(8)),
    (AtlasCondition("rank-9", "data of rank 9", _R, ALL), _high_rank(9)),
    (AtlasCondition("rank-30", "data of rank 30, tiny sides", _R, ALL), _high_rank(30)),
    *(
        (
            AtlasCondition(f"nd-tuple-rank-{r}", f"ND index tuples as long as the data rank ({r})", _R, (N,)),
            _full_tuple(r),
        )
        for r in (7, 8, 9)
    ),
    (
        AtlasCondition("block-1d-oob", "a block gather on 1-D data, indices size + 2 and -size - 2", _R, (B,), True),
        _by_class({B: _Spec((5,), (3,), 0, put=_const(7, -7))}),
    ),
    (AtlasCondition("long-axis", "a gathered axis longer than 64 (reads past 64)", _R, ALL), _long_axis),
    (
        AtlasCondition("long-axis-negative", "negative indices into a gathered axis longer than 64", _R, ALL),
        _long_axis_negative,
    ),
    (
        AtlasCondition("bcast-index-1", "a size-1 index dimension against a larger data dimension", _BC, (E,)),
        _element((3, 5, 2), (1, 3, 2)),
    ),
    (
        AtlasCondition("bcast-data-1", "a size-1 data dimension against a larger index dimension", _BC, (E,)),
        _element((1, 5, 2), (3, 3, 2)),
    ),
    (
        AtlasCondition("index-dim-smaller", "an index dimension smaller than the data's (not 1)", _BC, (E,)),
        _element((3, 5, 2), (2, 3, 2)),
    ),
    (
        AtlasCondition("index-dim-larger", "an index dimension larger than the data's", _BC, (E,)),
        _element((2, 5, 2), (3, 3, 2)),
    ),
    (AtlasCondition("batch-equal", "batch_dims 1, equal batch dimensions", _BA, (B, N)), _batch((2, 5), (2, 3))),
    (
        AtlasCondition("batch-empty-slices-oob", "batch_dims 1, empty slices, one index out of range", _BA, (N,)),
        _by_class({N: _Spec((1, 0), (1, 1), None, 1, put=_OOB7)}),
    ),
    (AtlasCondition("batch-mismatch", "batch_dims 1, batch dimensions 2 and 3", _BA, (B, N)), _batch((2, 5), (3, 3))),
    (
        AtlasCondition("batch-multiple", "batch_dims 1, an index batch twice the data batch", _BA, (B, N)),
        _batch((2, 5), (4, 3)),
    ),
    (AtlasCondition("batch-data-1", "batch_dims 1, a data batch of 1", _BA, (B, N)), _batch((1, 5), (3, 3))),
    (
        AtlasCondition("batch-index-zero", "batch_dims 1, an index batch of 0 against a data batch of 2", _BA, (B, N)),
        _batch((2, 5), (0, 3)),
    ),
    (AtlasCondition("batch-negative", "batch_dims -1", _BA, (B, N)), _batch((2, 5), (2, 3), b=-1)),
    (AtlasCondition("batch-above-axis", "batch_dims 1 greater than axis 0", _BA, (B,)), _batch((2, 5), (2, 3), axis=0)),
    (AtlasCondition("k-zero", "indices.shape[-1] of 0", _BA, (N,)), _by_class({N: _Spec((5, 4), (3, 0))})),
    (AtlasCondition("k-full", "indices.shape[-1] of the full rank", _BA, (N,)), _by_class({N: _Spec((5, 4), (3, 2))})),
    (AtlasCondition("axis-minus-r", "axis -r", _A, (E, B), shaped=True), _moved(-3)),
    (AtlasCondition("axis-minus-1", "axis -1", _A, (E, B), shaped=True), _moved(-1)),
    (AtlasCondition("axis-r-minus-1", "axis r - 1", _A, (E, B), shaped=True), _moved(2)),
    (AtlasCondition("axis-r", "axis r (out of range)", _A, (E, B), shaped=True), _moved(3)),
    (AtlasCondition("axis-minus-r-minus-1", "axis -r - 1 (out of range)", _A, (E, B), shaped=True), _moved(-4)),
    *_ATTR_ROWS,
    *_MODE_WORD_ROWS,
    *((AtlasCondition(f"index-{d}", f"{d} indices", _D, ALL), _base(index_dtype=d)) for d in INDEX_DTYPES),
    (
        AtlasCondition("index-bool", "bool indices (bad input), under every mode of an op", _D, ALL, every_mode=True),
        _base(index_dtype="bool"),
    ),
    (AtlasCondition("index-float", "float32 indices (bad input)", _D, ALL), _base(index_dtype="float32")),
    *((AtlasCondition(f"data-{d}", f"{d} data", _D, ALL), _base(data_dtype=d)) for d in DATA_DTYPES),
    (
        AtlasCondition("data-nan-payloads", "float32 NaN data with distinct payloads and signs", _D, ALL),
        _base(data="nan"),
    ),
    (
        AtlasCondition("data-nan-payloads-bf16", "bfloat16 NaN data with distinct payloads and signs", _D, ALL),
        _base(data="nan", data_dtype="bfloat16"),
    ),
    (AtlasCondition("data-negative-zero", "float32 data of -0.0 and 0.0", _D, ALL), _base(data="-0")),
    (AtlasCondition("layout-strided", "non-contiguous (every other element)", _L, ALL), _base(layout=Layout.STRIDED)),
    (AtlasCondition("layout-negative-stride", "a negative stride", _L, ALL), _base(layout=Layout.NEGATIVE_STRIDE)),
    (AtlasCondition("layout-fortran", "Fortran order", _L, ALL), _base(layout=Layout.FORTRAN)),
    (AtlasCondition("layout-broadcast", "a stride-0 broadcast view", _L, ALL), _base(layout=Layout.BROADCAST)),
)


CONDITIONS: tuple[AtlasCondition, ...] = tuple(c for c, _ in _ROWS)
"""Every condition, in the atlas's row order."""
_BUILD: dict[str, Build] = {c.key: b for c, b in _ROWS}
_ORDER = {c.key: i for i, c in enumerate(CONDITIONS)}


def condition(key: str) -> AtlasCondition:
    """The condition named ``key`` (a KeyError naming the known ones otherwise)."""
    for c in CONDITIONS:
        if c.key == key:
            return c
    raise KeyError(f"unknown condition {key!r}; known: {', '.join(_ORDER)}")


def condition_order(key: str) -> int:
    """The row of ``key`` in :data:`CONDITIONS` (unknown keys last)."""
    return _ORDER.get(key, len(_ORDER))


# -- arrays ------------------------------------------------------------------------


def _indices(cc: ClassCase, put: Put | None) -> np.ndarray:
    """In-range indices ``(2 i + 1) mod size``, then ``put``'s values over the
    first positions that address the first gathered axis."""
    shape = cc.index_shape
    n = math.prod(shape)
    sizes = np.broadcast_to(axis_sizes(cc), shape).reshape(-1) if n else np.zeros(0, np.int64)
    values = (np.arange(n) * 2 + 1) % np.maximum(sizes, 1)
    out = values.astype(cc.index_dtype).reshape(-1)
    if put is not None and n:
        first = np.arange(n) % shape[-1] == 0 if cc.eq_class is N and shape else np.ones(n, bool)
        positions = np.flatnonzero(first)
        for pos, v in zip(positions, put(int(sizes[positions[0]]))):
            out[pos] = v
    return out.reshape(shape)


def _data(s: _Spec) -> np.ndarray:
    n = math.prod(s.data_shape)
    if s.data == "nan":  # quiet NaNs, each its own payload, signs alternating (float32 or bfloat16 bits)
        wide = s.data_dtype != "bfloat16"
        bits = (0x7FC00001 if wide else 0x7FC1) + np.arange(n) | np.arange(n) % 2 << (31 if wide else 15)
        return (
            bits.astype(np.uint32 if wide else np.uint16)
            .view(np.float32 if wide else as_dtype("bfloat16"))
            .reshape(s.data_shape)
        )
    if s.data == "-0":
        return np.where(np.arange(n) % 2 == 0, -0.0, 0.0).astype(np.float32).reshape(s.data_shape)
    return data_values(s.data_dtype, s.data_shape, 0)


def _layout(a: np.ndarray, layout: Layout) -> np.ndarray:
    """``a``'s values in ``layout``: ``strided`` / ``fortran`` (as drawn cases),
    ``negative-stride`` (a reversed view of a reversed copy), ``broadcast`` (a
    stride-0 view along the last dimension longer than 1; its values repeat)."""
    if layout is Layout.NEGATIVE_STRIDE and a.ndim:
        return np.flip(np.flip(a, -1).copy(), -1)
    if layout is Layout.BROADCAST:
        long = [d for d in range(a.ndim) if a.shape[d] > 1]
        if long:
            d = long[-1]
            return np.broadcast_to(a[tuple(slice(0, 1) if k == d else slice(None) for k in range(a.ndim))], a.shape)
        return a
    return with_layout(a, layout)


def _probe(key: str, eq: EqClass, s: _Spec, mode: int) -> Probe:
    cc = ClassCase(
        eq,
        s.data_shape,
        s.index_shape,
        s.axis,
        s.batch_dims,
        s.data_dtype,
        s.index_dtype,
        Regime.IN_RANGE,
        bool(s.data),
        s.layout,
        mode,
        0,
        s.attr_domain,
        s.mode_word,
    )
    idx = _indices(cc, s.put)
    if idx.dtype.kind in "iu":
        cc = replace(cc, regime=index_regime(idx, axis_sizes(cc)))
    return Probe(key, eq, cc, _layout(_data(s), s.layout), _layout(idx, s.layout))


def mode_selectors(eq_class: EqClass) -> range:
    """The mode selectors a policy condition runs in ``eq_class``: as many as
    the op of the class with the most modes has (1 where none has a mode).

    >>> len(mode_selectors(EqClass.BLOCK))     # jnp.take: None, "fill", "clip", "wrap"
    4
    """
    return range(max((len(s.mode_policies) for s in targets(eq_class) if s.mode_attr), default=1))


def probes(eq_class: EqClass) -> list[Probe]:
    """Every probe of ``eq_class``, in condition order (policy conditions: one per mode selector).

    >>> ps = probes(EqClass.ELEMENT)
    >>> len({p.condition for p in ps}) < len(CONDITIONS), sum(p.condition == "size" for p in ps)
    (True, 4)
    """
    out = []
    for c in CONDITIONS:
        if eq_class in c.eq_classes:
            for s in _BUILD[c.key](eq_class):
                modes = mode_selectors(eq_class) if c.policy or c.every_mode else (0,)
                out += [_probe(c.key, eq_class, s, m) for m in modes]
    return out


def all_probes() -> list[Probe]:
    """Every probe of every class, class by class (:class:`EqClass` order)."""
    return [p for eq in EqClass for p in probes(eq)]


def ordinary(probe: Probe) -> Probe:
    """``probe`` with its condition's features back at their ordinary values (issue 44): the attribute at its int
    reading (:func:`~conformance.cases.translate.int_reading`; a value without one, at the base case's), no mode
    word, indices in range (``(2 i + 1) mod size``), int64 indices, float32 data of distinct values, every
    dimension non-empty (a 0 made 1), a contiguous layout; the shapes otherwise, the axis, ``batch_dims`` and the
    mode selector kept. A probe isolates its condition where this is a case the reference gives a value for.

    >>> p = next(p for p in probes(N) if p.condition == "attr-batch-dims-str")
    >>> [(c.attrs, c.indices.shape) for c in cases_of(p, ["tensorflow.gather_nd"])]
    [({'batch_dims': '1'}, (2, 3, 1))]
    >>> [(c.attrs, c.indices.shape) for c in cases_of(ordinary(p), ["tensorflow.gather_nd"])]
    [({'batch_dims': 1}, (2, 3, 1))]
    """
    cc = probe.class_case
    axis, batch_dims = cc.axis, cc.batch_dims
    if cc.attr_domain is not None:
        role, value = cc.attr_domain
        read = int_reading(domain_value(role, value, cc))
        axis = read if read is not None and role is AttrRole.AXIS else axis
        batch_dims = read if read is not None and role is AttrRole.BATCH_DIMS else batch_dims
    data, idx = (tuple(n or 1 for n in shape) for shape in (cc.data_shape, cc.index_shape))
    return _probe(probe.condition, probe.eq_class, _Spec(data, idx, axis, batch_dims), cc.mode)


def _refusal(case: Case, group: Group | None = None) -> str | None:
    """Why the reference refuses ``case`` (its error's words); None where it gives a value, or, given the
    condition's ``group``, where it refuses for that condition: an index out of range (index values, emptiness),
    a rule that blames the attribute (attributes), any refusal of a dtype (dtypes)."""
    try:
        reference(case.op, case.data, case.indices, check_dtypes=False, **case.attrs)
    except (PreconditionError, IndexOutOfRangeError, IndexError, ValueError, TypeError) as exc:
        own = (
            group is Group.DTYPE
            or (group in (Group.INDEX, Group.EMPTY) and isinstance(exc, IndexOutOfRangeError))
            or (group is Group.ATTRIBUTE and isinstance(exc, PreconditionError) and exc.blames_attribute)
        )
        return None if own else f"{type(exc).__name__}: {exc}"
    return None


@functools.cache
def isolation() -> dict[tuple[str, EqClass, str], str]:
    """Where a probe of a revertible condition does not isolate it (issue 44): (condition, class, op) with why.
    A probe isolates its condition for an op where the reference refuses its case for that condition alone (an
    index out of range for an index value; a rule of the attribute for an attribute's value) or gives a value, and
    gives a value with the condition reverted (:func:`ordinary`). What is left comes with another rule of the op:
    a 0-d index where the op takes 1-D ones (``paddle.index_select``), an empty outer dimension of the data where
    the indices may not be larger (``onnx.GatherElements``); the atlas says so beside the cell.

    >>> sorted(op for k, _, op in isolation() if k == "empty-outer-scalar")
    ['array_api.take', 'paddle.index_select']
    """
    out: dict[tuple[str, EqClass, str], str] = {}
    for p in all_probes():
        c = condition(p.condition)
        if c.revertible:
            cases = cases_of(p)
            back = {b.op: b for b in cases_of(ordinary(p), [a.op for a in cases])}
            for case in cases:
                why = _refusal(case, c.group) or _refusal(back[case.op])
                if why is not None:
                    out.setdefault((p.condition, p.eq_class, case.op), why)
    return out


def runs_mode(op: str, mode: int) -> bool:
    """True if ``op`` (a catalog key) runs at mode selector ``mode``: selector
    0 always; another only when it names a mode of the op's own.

    >>> runs_mode("numpy.take", 2), runs_mode("numpy.take", 3), runs_mode("torch.gather", 1)
    (True, False, False)
    """
    s = spec(op)
    return mode == 0 or (s.mode_attr is not None and mode < len(s.mode_policies))


def cases_of(probe: Probe, ops: Iterable[str] | None = None) -> list[Case]:
    """The probe's cases, one per op that can express it (:func:`~conformance.cases.translate.translate`),
    restricted to ``ops`` and to the ops that run its mode selector (:func:`runs_mode`); a mode word goes to
    the ops that do not list it (:func:`lacks_word`: the others run it under their own mode selectors).

    >>> p = next(p for p in probes(EqClass.BLOCK) if p.condition == "attr-mode-word-promise-in-bounds")
    >>> [(c.op, c.attrs["mode"]) for c in cases_of(p)]  # doctest: +NORMALIZE_WHITESPACE
    [('numpy.take', 'promise_in_bounds'), ('jax.numpy.take', 'promise_in_bounds'),
     ('tensorflow.experimental.numpy.take', 'promise_in_bounds')]
    """
    cases = translate(probe.class_case, ops, arrays=(probe.data, probe.indices))
    word = probe.class_case.mode_word
    return [c for c in cases if runs_mode(c.op, probe.class_case.mode) and (word is None or lacks_word(c.op, word))]
