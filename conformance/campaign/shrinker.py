"""Shrinking a drawn case to a minimal one that keeps its signature.

:func:`shrink` walks :func:`simpler` candidates
greedily to a fixed point: take the first (simplest) candidate that keeps the
property, start again from it; stop when no candidate does, when the
evaluation budget is spent, or at the deadline. Every candidate is evaluated
at most once (a cache keyed by the drawn case), so repeats cost nothing.

>>> from conformance.spec.plans import EqClass
>>> from conformance.cases.class_case import ClassCase
>>> cc = ClassCase(EqClass.FLAT, (4, 3), (2, 2), None, 0, "int32", "int64", "in-range", False, "strided", 3, 99)
>>> small = shrink(cc, lambda c: len(c.data_shape) >= 1)
>>> small.data_shape, small.index_shape, small.seed, str(small.layout)
((1,), (), 0, 'contiguous')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import TypeVar

from conformance.cases.class_case import ClassCase, Shape
from conformance.core.vocabulary import Layout

T = TypeVar("T")

SHRINK_EVALS = 60
"""Most distinct candidates evaluated while shrinking one signature."""


def _drop(shape: Shape, d: int) -> Shape:
    return shape[:d] + shape[d + 1 :]


def _resize(shape: Shape, d: int, n: int) -> Shape:
    return shape[:d] + (n,) + shape[d + 1 :]


def simpler(cc: ClassCase) -> list[ClassCase]:
    """Candidate one-step simplifications of ``cc``, simplest first: drop or
    shrink a dimension of one shape, or drop the same dimension of both (the
    axis moved along, so equal-rank classes lose rank), simplify the seed,
    layout, specials, mode and dtypes.
    Used by the campaign's per-signature shrink (keep a candidate only if it
    still has the signature).

    >>> from conformance.spec.plans import EqClass
    >>> cc = ClassCase(EqClass.FLAT, (3,), (2,), None, 0, "int8", "int8", "in-range", False, "contiguous", 0, 5)
    >>> any(c.data_shape == (2,) for c in simpler(cc)), any(c.seed == 0 for c in simpler(cc))
    (True, True)
    """
    out: list[ClassCase] = []
    data, idx = cc.data_shape, cc.index_shape
    for d in range(len(data)):
        out.append(replace(cc, data_shape=_drop(data, d)))
        out += [replace(cc, data_shape=_resize(data, d, n)) for n in range(data[d] - 1, 0, -1)]
    for d in range(len(idx)):
        out.append(replace(cc, index_shape=_drop(idx, d)))
        out += [replace(cc, index_shape=_resize(idx, d, n)) for n in range(idx[d] - 1, 0, -1)]
    for d in range(min(len(data), len(idx))):  # coordinated: the same dimension of both (equal-rank classes)
        axis = cc.axis - 1 if cc.axis is not None and cc.axis > d else cc.axis
        out.append(replace(cc, data_shape=_drop(data, d), index_shape=_drop(idx, d), axis=axis))
        if data[d] == idx[d] > 1:
            out.append(replace(cc, data_shape=_resize(data, d, 1), index_shape=_resize(idx, d, 1)))
    if cc.axis not in (None, 0):
        out.append(replace(cc, axis=0))
        out.append(replace(cc, axis=cc.axis - 1 if cc.axis > 0 else cc.axis + 1))
    if cc.batch_dims:
        out.append(replace(cc, batch_dims=0))
        out.append(replace(cc, batch_dims=cc.batch_dims - 1 if cc.batch_dims > 0 else cc.batch_dims + 1))
    out += [replace(cc, seed=s) for s in (0, 1, cc.seed // 2) if s < cc.seed]
    if cc.layout is not Layout.CONTIGUOUS:
        out.append(replace(cc, layout=Layout.CONTIGUOUS))
    if cc.special:
        out.append(replace(cc, special=False))
    if cc.mode:
        out.append(replace(cc, mode=0))
    for name in ("int64", "float32", "int32"):
        if name != cc.data_dtype:
            out.append(replace(cc, data_dtype=name))
    for name in ("int64", "int32"):
        if name != cc.index_dtype:
            out.append(replace(cc, index_dtype=name))
    return sorted((c for c in out if c.size() < cc.size()), key=ClassCase.size)


def widened(cc: ClassCase, side: int = 5) -> list[ClassCase]:
    """Cases that may tell index policies apart where ``cc`` cannot: one data
    dimension at a time made ``side`` long (the gathered axis among them), each
    with a few seeds. Used when a behaviour is ``ambiguous``.

    >>> from conformance.spec.plans import EqClass
    >>> cc = ClassCase(EqClass.FLAT, (1,), (1,), None, 0, "int8", "int8", "oob-above", False, "contiguous", 0, 7)
    >>> [(c.data_shape, c.seed) for c in widened(cc)][:2]
    [((5,), 7), ((5,), 0)]
    """
    out: list[ClassCase] = []
    for d, n in enumerate(cc.data_shape):
        if 0 < n < side:
            wide = replace(cc, data_shape=_resize(cc.data_shape, d, side))
            out += [replace(wide, seed=s) for s in dict.fromkeys((cc.seed, 0, 1, 2))]
    return out


def greedy(
    start: T,
    steps: Callable[[T], list[T]],
    keeps: Callable[[T], bool],
    max_evals: int,
    deadline: float | None = None,
    key: Callable[[T], Hashable] = lambda c: c,
) -> T:
    """The fixed point of taking the first of ``steps(current)`` that ``keeps``
    accepts and starting again from it; ``start`` if none is. Each distinct
    candidate (by ``key``) is evaluated at most once: a repeat can only be an
    earlier rejection (an accepted candidate is larger than every later one).
    Stops before the evaluation after ``max_evals`` distinct ones, or past
    ``deadline`` (a :func:`time.monotonic` value). Serves :func:`shrink` and
    :func:`conformance.campaign.array_shrinker.shrink_arrays`.

    >>> greedy(10, lambda n: [n - 3, n - 2], lambda n: n >= 0 and n % 2 == 0, max_evals=20)
    0
    """
    seen: dict[Hashable, bool] = {}
    best = start
    improved = True
    while improved:
        improved = False
        for candidate in steps(best):
            k = key(candidate)
            if k not in seen:
                if len(seen) >= max_evals or (deadline is not None and time.monotonic() > deadline):
                    return best
                seen[k] = keeps(candidate)
            if seen[k]:
                best, improved = candidate, True
                break
    return best


def shrink(
    cc: ClassCase,
    keeps: Callable[[ClassCase], bool],
    max_evals: int = SHRINK_EVALS,
    deadline: float | None = None,
) -> ClassCase:
    """The smallest case reachable from ``cc`` by :func:`simpler` steps that
    ``keeps`` accepts (see the module docstring, and :func:`greedy`);
    ``deadline`` is a :func:`time.monotonic` value."""
    return greedy(cc, simpler, keeps, max_evals, deadline)
