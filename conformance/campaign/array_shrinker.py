"""Shrinking explicit arrays (a probe's data and indices) to a minimal pair.

:mod:`conformance.campaign.shrinker` shrinks a :class:`~conformance.cases.class_case.ClassCase`
and re-derives the arrays from it; a finding first seen on a hand-designed
probe has arrays no class case derives, so this module shrinks the arrays
themselves. :func:`slimmer` cuts one dimension (of the data, of the indices,
or the same dimension of both) down to one slice or to its first few;
:func:`shrink_arrays` walks those candidates greedily to a fixed point, like
:func:`conformance.campaign.shrinker.shrink`: take the first (smallest) candidate that
keeps the property, start again from it; stop when none does, when the
evaluation budget is spent, or at the deadline. Rank, values, dtypes and
attributes never change; ``cc``'s shapes always follow the arrays.

>>> from conformance.spec.plans import EqClass
>>> cc = ClassCase(EqClass.ELEMENT, (2, 5), (2, 3), 1, 0, "float32", "int64", "oob-above", False, "contiguous", 0, 0)
>>> data = np.arange(10, dtype=np.float32).reshape(2, 5)
>>> indices = np.array([[0, 1, 2], [3, 7, 4]])
>>> small, d, i = shrink_arrays(cc, data, indices, lambda c, d, i: bool((i >= 5).any()))
>>> small.data_shape, small.index_shape, d.dtype.name, i.tolist(), small.axis
((1, 1), (1, 1), 'float32', [[7]], 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from conformance.campaign.shrinker import greedy
from conformance.cases.class_case import ClassCase

Arrays = tuple[ClassCase, np.ndarray, np.ndarray]
"""A case's structure and its explicit arrays: ``(cc, data, indices)``, with
``cc.data_shape == data.shape`` and ``cc.index_shape == indices.shape``."""
SLICES = 5
"""Along one dimension, each of the first this many slices is tried alone."""
PREFIXES = (2, 3)
"""Along a data dimension, the first this many slices are tried too (a gathered
axis of 3 is the smallest that tells index policies apart)."""
SHRINK_ARRAY_EVALS = 40
"""Most distinct candidates evaluated while shrinking one pair of arrays."""

_Key = tuple[object, ...]


def _take(arr: np.ndarray, d: int, keep: Sequence[int]) -> np.ndarray:
    """The slices ``keep`` of ``arr`` along dimension ``d`` (same rank and dtype)."""
    return np.take(arr, list(keep), axis=d)


def _cuts(n: int, prefixes: Sequence[int]) -> list[list[int]]:
    """Which slices of a dimension of size ``n`` to keep: each of the first few alone, then the first k."""
    if n <= 1:
        return []
    return [[j] for j in range(min(n, SLICES))] + [list(range(k)) for k in prefixes if k < n]


def _key(data: np.ndarray, indices: np.ndarray) -> _Key:
    return (data.shape, indices.shape, data.dtype, indices.dtype, data.tobytes(), indices.tobytes())


def slimmer(cc: ClassCase, data: np.ndarray, indices: np.ndarray) -> list[Arrays]:
    """Candidate one-step cuts of ``(data, indices)``, each with fewer elements
    in all, smallest first (ties in the order made), without duplicates: for a
    data dimension, one of its first 5 slices or its first 2 or 3; for an index
    dimension, one of its first 5 slices (which index is the bad one matters)
    or its first 2; for a dimension both have (equal ranks, as in element
    gather) at the same size, one of its first 5 slices of both at once.
    Dimensions of size 0 or 1 are left alone.

    >>> from conformance.spec.plans import EqClass
    >>> cc = ClassCase(EqClass.BLOCK, (3,), (2,), 0, 0, "int8", "int64", "in-range", False, "contiguous", 0, 0)
    >>> [(d.tolist(), i.tolist()) for _, d, i in slimmer(cc, np.arange(3, dtype=np.int8), np.array([2, 0]))]
    [([0], [2, 0]), ([1], [2, 0]), ([2], [2, 0]), ([0, 1], [2, 0]), ([0, 1, 2], [2]), ([0, 1, 2], [0])]
    """
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for d, n in enumerate(data.shape):
        pairs += [(_take(data, d, keep), indices) for keep in _cuts(n, PREFIXES)]
    for d, n in enumerate(indices.shape):
        pairs += [(data, _take(indices, d, keep)) for keep in _cuts(n, PREFIXES[:1])]
    if data.ndim == indices.ndim:
        for d, (n, m) in enumerate(zip(data.shape, indices.shape)):
            if n == m:
                pairs += [(_take(data, d, keep), _take(indices, d, keep)) for keep in _cuts(n, ())]
    size = data.size + indices.size
    unique: dict[_Key, tuple[np.ndarray, np.ndarray]] = {}
    for new_data, new_indices in pairs:
        if new_data.size + new_indices.size < size:
            unique.setdefault(_key(new_data, new_indices), (new_data, new_indices))
    # fresh C-contiguous copies: no candidate shares a buffer with the input (or another candidate)
    out = [
        (replace(cc, data_shape=d.shape, index_shape=i.shape), np.array(d, order="C"), np.array(i, order="C"))
        for d, i in unique.values()
    ]
    return sorted(out, key=lambda c: c[1].size + c[2].size)


def shrink_arrays(
    cc: ClassCase,
    data: np.ndarray,
    indices: np.ndarray,
    keeps: Callable[[ClassCase, np.ndarray, np.ndarray], bool],
    max_evals: int = SHRINK_ARRAY_EVALS,
    deadline: float | None = None,
) -> Arrays:
    """The smallest ``(cc, data, indices)`` reachable by :func:`slimmer` steps
    that ``keeps`` accepts (see the module docstring), the input if none is;
    ``deadline`` is a :func:`time.monotonic` value. Each distinct candidate
    (shapes, dtypes and bytes) is evaluated at most once, at most ``max_evals``
    of them in all.

    >>> from conformance.spec.plans import EqClass
    >>> cc = ClassCase(EqClass.BLOCK, (4,), (2,), 0, 0, "int32", "int64", "in-range", False, "contiguous", 0, 0)
    >>> small, d, i = shrink_arrays(cc, np.arange(4, dtype=np.int32), np.array([0, 3]), lambda c, d, i: d.size >= 3)
    >>> small.data_shape, d.tolist(), i.tolist()
    ((3,), [0, 1, 2], [0])
    """
    return greedy(
        (cc, data, indices),
        lambda a: slimmer(*a),
        lambda a: keeps(*a),
        max_evals,
        deadline,
        key=lambda a: _key(a[1], a[2]),
    )
