"""A class case, in the convention of every catalog op that can express it.

One drawn :class:`~conformance.cases.class_case.ClassCase` becomes one
:class:`~conformance.core.case.Case` per catalog op of its equivalence class
(and, for the flattened class, per op that flattens with ``axis=None``): the
class's axis under the op's own name (``axis`` or ``dim``), ``batch_dims``
where the op has it, the mode selector mapped onto the op's modes. Data and
indices reach every op as drawn, in their own dtypes, documented or not: what
a framework accepts is part of what the campaign learns (the judge knows
which dtypes the docs promise). An op that cannot express the case
(``batch_dims > 0`` and no such attribute) gets no case. Precondition
violations are translated all the same: the reference raises on them, and an
op that accepts them is a finding.

Every attribute is passed explicitly (the catalog's defaults bound), so an
oracle calls its framework with exactly the attributes the reference used.
Each case is tagged (:func:`case_tags`, a :class:`~conformance.core.case.CaseTags`):
index regime, index dtype, data family, broadcasting pattern and the flags
``empty-data``, ``0-d``, ``batch_dims>0``, ``non-contiguous``.

>>> from conformance.cases.class_case import ClassCase
>>> cc = ClassCase(EqClass.ELEMENT, (2, 3), (2, 1), 1, 0, "float32", "int32", "in-range", False, "contiguous", 0, 0)
>>> "torch.gather" in [c.op for c in translate(cc)], "numpy.take" in [c.op for c in translate(cc)]
(True, False)
>>> [c.attrs for c in translate(cc) if c.op == "torch.gather"]
[{'dim': 1}]
>>> [c.attrs for c in translate(cc) if c.op == "jax.numpy.take_along_axis"]
[{'axis': 1, 'mode': None, 'fill_value': None}]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from conformance.cases.class_case import ClassCase, axis_sizes, index_regime, materialize
from conformance.cases.counterfactual import retagged
from conformance.core.arrays import dtype_family
from conformance.core.case import Case, CaseTags
from conformance.core.vocabulary import AttrRole, AttrValue, Flag, Pattern
from conformance.spec.catalog import OpSpec, specs
from conformance.spec.plans import EqClass

AXIS_NAMES = ("axis", "dim")


def _axis_attr(s: OpSpec) -> str | None:
    return next((a.name for a in s.attrs if a.name in AXIS_NAMES), None)


def _flattens(s: OpSpec) -> bool:
    """True if the op gathers from the flattened input, natively or with
    ``axis=None`` (a domain that starts "None (flatten")."""
    return s.eq_class is EqClass.FLAT or any(
        a.name in AXIS_NAMES and a.domain.startswith("None (flatten") for a in s.attrs
    )


def targets(eq_class: EqClass, ops: Iterable[str] | None = None) -> list[OpSpec]:
    """The catalog entries a case of ``eq_class`` translates into.

    >>> [s.key for s in targets(EqClass.FLAT,
    ...     ["torch.take", "numpy.take", "onnx.Gather"])]   # np.take flattens with axis=None
    ['numpy.take', 'torch.take']
    """
    wanted = set(ops) if ops is not None else None
    chosen = [s for s in specs() if (s.eq_class is eq_class if eq_class is not EqClass.FLAT else _flattens(s))]
    return [s for s in chosen if wanted is None or s.key in wanted or s.name in wanted]


def op_attrs(cc: ClassCase, s: OpSpec) -> dict[str, Any] | None:
    """``cc``'s attributes in ``s``'s convention, or None if ``s`` cannot express them.

    >>> from conformance.spec.catalog import spec
    >>> cc = ClassCase(EqClass.BLOCK, (2, 3), (2,), -1, 0, "int32", "int64", "in-range", False, "contiguous", 2, 0)
    >>> op_attrs(cc, spec("numpy.take")), op_attrs(cc, spec("torch.index_select"))
    ({'axis': -1, 'mode': 'clip'}, {'dim': -1})
    >>> from dataclasses import replace
    >>> word = replace(cc, mode_word="promise_in_bounds")  # a mode word: only an op with a mode can take it
    >>> op_attrs(word, spec("jax.numpy.take")), op_attrs(word, spec("torch.index_select"))
    ({'axis': -1, 'mode': 'promise_in_bounds'}, None)
    """
    names = {a.name for a in s.attrs}
    attrs: dict[str, Any] = {}
    axis_name = _axis_attr(s)
    if cc.eq_class is EqClass.FLAT:
        if s.eq_class is not EqClass.FLAT:
            attrs[axis_name] = None  # type: ignore[index]
    elif axis_name is not None:
        attrs[axis_name] = cc.axis
    if cc.batch_dims:
        if "batch_dims" not in names:
            return None
        attrs["batch_dims"] = cc.batch_dims
    if s.mode_attr:
        modes = list(s.mode_policies)
        attrs[s.mode_attr] = modes[cc.mode % len(modes)] if cc.mode_word is None else cc.mode_word
    elif cc.mode_word is not None:
        return None  # a mode word, and the op has no mode to give it to
    if cc.attr_domain is not None:
        role, value = cc.attr_domain
        name = role_attr(s, role)
        if name is None or (role is AttrRole.AXIS and cc.eq_class is EqClass.FLAT):
            return None  # the op has no such attribute, or flattens (its axis is None)
        attrs[name] = domain_value(role, value, cc)
    return attrs


OUTSIDE_WORD = "bogus"
"""``mode`` just outside its domain: a word that names no mode."""


FIXED_VALUES: dict[AttrValue, Any] = {
    AttrValue.BOOL: True,
    AttrValue.FLOAT: 1.5,
    AttrValue.STR: "1",
    AttrValue.NONE: None,
    AttrValue.NUMPY_INT: np.int64(1),
    AttrValue.ZERO_D: np.array(1),
    AttrValue.INT64_MIN: -(2**63),
    AttrValue.INT64_MAX: 2**63 - 1,
}
"""The value of each type of the attribute domain but ``just outside`` (which depends on the case)."""


def domain_value(role: AttrRole, value: AttrValue, cc: ClassCase) -> Any:
    """The value of type ``value`` an attribute of ``role`` is given (issue 22's attribute domain):
    ``True``, ``1.5``, ``"1"``, ``None``, ``np.int64(1)``, a 0-d array ``np.array(1)``, the int64
    extremes, and just outside the valid range (an axis ``rank``, ``batch_dims`` one more than the
    index rank, a ``mode`` that names none, a ``fill_value`` beyond every integer dtype, ``broadcast=2``).

    >>> cc = ClassCase(EqClass.BLOCK, (2, 3), (2,), 1, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
    >>> [domain_value(AttrRole.AXIS, v, cc) for v in (AttrValue.FLOAT, AttrValue.INT64_MIN, AttrValue.OUTSIDE)]
    [1.5, -9223372036854775808, 2]
    """
    if value is not AttrValue.OUTSIDE:
        return FIXED_VALUES[value]
    outside: dict[AttrRole, Any] = {
        AttrRole.AXIS: len(cc.data_shape),
        AttrRole.BATCH_DIMS: len(cc.index_shape) + 1,
        AttrRole.MODE: OUTSIDE_WORD,
        AttrRole.FILL_VALUE: 2**64,
        AttrRole.BROADCAST: 2,
    }
    return outside[role]


def role_attr(s: OpSpec, role: AttrRole) -> str | None:
    """The name of ``s``'s attribute in ``role`` (``dim`` for torch's axis), or None."""
    names = {a.name for a in s.attrs}
    return next((n for n in role.names if n in names), None)


@functools.cache
def domain_classes(role: AttrRole) -> tuple[EqClass, ...]:
    """The classes with an op that has an attribute in ``role`` (never the flattened one for an axis).

    >>> [c.name for c in domain_classes(AttrRole.BATCH_DIMS)]
    ['BLOCK', 'ND']
    """
    return tuple(
        eq
        for eq in EqClass
        if not (role is AttrRole.AXIS and eq is EqClass.FLAT) and any(role_attr(s, role) for s in targets(eq))
    )


def broadcast_pattern(cc: ClassCase) -> Pattern | None:
    """How an element case's non-axis dimensions relate: ``same-shape``,
    ``bcast`` (some size-1 dimension stretches), ``window`` (indices smaller),
    ``mismatch`` (rank or sizes violate every rule); None for other classes.

    >>> cc = ClassCase(EqClass.ELEMENT, (2, 3), (1, 3), 1, 0, "int8", "int8", "in-range", False, "contiguous", 0, 0)
    >>> broadcast_pattern(cc)
    <Pattern.BCAST: 'bcast'>
    """
    if cc.eq_class is not EqClass.ELEMENT:
        return None
    d, i = cc.data_shape, cc.index_shape
    if len(d) != len(i):
        return Pattern.MISMATCH
    axis = cc.axis % len(d) if d and cc.axis is not None and -len(d) <= cc.axis < len(d) else None
    pairs = [(a, b) for k, (a, b) in enumerate(zip(d, i)) if k != axis]
    if all(a == b for a, b in pairs):
        return Pattern.SAME_SHAPE
    if all(a == b or a == 1 or b == 1 for a, b in pairs):
        return Pattern.BCAST
    if all(b <= a for a, b in pairs):
        return Pattern.WINDOW
    return Pattern.MISMATCH


def case_tags(cc: ClassCase, data: np.ndarray, indices: np.ndarray) -> CaseTags:
    """The tags of a translated case (see the module docstring).

    >>> cc = ClassCase(EqClass.FLAT, (0,), (), None, 0, "float32", "uint8", "in-range", False, "contiguous", 0, 0)
    >>> case_tags(cc, *materialize(cc)).words()
    'oob-above, idx:uint8, data:float, 0-d, empty-data'
    """
    flags = set()
    if data.size == 0:
        flags.add(Flag.EMPTY_DATA)
    if data.ndim == 0 or indices.ndim == 0:
        flags.add(Flag.ZERO_D)
    if cc.batch_dims > 0:
        flags.add(Flag.BATCH_DIMS)
    if not (data.flags.c_contiguous and indices.flags.c_contiguous) and math.prod(data.shape) > 1:
        flags.add(Flag.NON_CONTIGUOUS)
    regime = index_regime(indices, axis_sizes(cc))
    return CaseTags(regime, indices.dtype.name, dtype_family(data.dtype), broadcast_pattern(cc), frozenset(flags))


def translate(
    cc: ClassCase, ops: Iterable[str] | None = None, arrays: tuple[np.ndarray, np.ndarray] | None = None
) -> list[Case]:
    """One :class:`Case` per catalog op that can express ``cc`` (see the module docstring)."""
    data, indices = arrays if arrays is not None else materialize(cc)
    tags = case_tags(cc, data, indices)
    cases = []
    for s in targets(cc.eq_class, ops):
        attrs = op_attrs(cc, s)
        if attrs is not None:
            case = Case(s.key, data, indices, s.bind(attrs), tags)
            # an attribute given another value may move the axis its indices are read on (tf.gather's axis=None
            # is its first non-batch axis): the regime is read off the case the op gets (audit of stop 46)
            cases.append(case if cc.attr_domain is None else retagged(case, tags))
    return cases
