"""Shrinking a drawn case to a minimal one that keeps its signature.

:func:`shrink` walks :func:`~conformance.strategies.simpler` candidates
greedily to a fixed point: take the first (simplest) candidate that keeps the
property, start again from it; stop when no candidate does, when the
evaluation budget is spent, or at the deadline. Every candidate is evaluated
at most once (a cache keyed by the drawn case), so repeats cost nothing.

>>> from conformance.plans import EqClass
>>> from conformance.strategies import ClassCase
>>> cc = ClassCase(EqClass.FLAT, (4, 3), (2, 2), None, 0, "int32", "int64", "in-range", False, "strided", 3, 99)
>>> small = shrink(cc, lambda c: len(c.data_shape) >= 1)
>>> small.data_shape, small.index_shape, small.seed, small.layout
((1,), (), 0, 'contiguous')
"""

from __future__ import annotations

import time
from collections.abc import Callable

from conformance.strategies import ClassCase, simpler

SHRINK_EVALS = 60
"""Most distinct candidates evaluated while shrinking one signature."""


def shrink(
    cc: ClassCase,
    keeps: Callable[[ClassCase], bool],
    max_evals: int = SHRINK_EVALS,
    deadline: float | None = None,
) -> ClassCase:
    """The smallest case reachable from ``cc`` by :func:`simpler` steps that
    ``keeps`` accepts (see the module docstring); ``deadline`` is a
    :func:`time.monotonic` value."""
    seen: dict[ClassCase, bool] = {}

    def test(candidate: ClassCase) -> bool:
        if candidate not in seen:
            seen[candidate] = keeps(candidate)
        return seen[candidate]

    improved = True
    while improved:
        improved = False
        for candidate in simpler(cc):
            if len(seen) >= max_evals or (deadline is not None and time.monotonic() > deadline):
                return cc
            if test(candidate):
                cc, improved = candidate, True
                break
    return cc
