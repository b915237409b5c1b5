"""Whether an answer's shape proves that its framework read outside the
input's shape: the one piece of evidence that makes an op's answers on an
input undefined in every execution mode of its framework.

A value returned for an axis out of range is the gather of no axis when its
shape is the output shape of none of the data's axes. Paddle 3.3.1's
``paddle.gather`` with ``axis=-4`` on data of shape (2, 5, 2) returns a value
of shape (3, 2, 5, 2), its last 40 elements stray floats (1e-44, -2e-33); as
a static graph it returns such a value on one run and raises an IndexError on
the next in the same process (checked by hand, a new program each call:
value, error, value, error in one process; value, error, error, error in
two others), its check reading the same stray memory. Such an answer is a
fact of memory, not of the version.

>>> import numpy as np
>>> from conformance.core.outcome import Outcome
>>> case = Case("numpy.take", np.zeros((2, 5, 2)), np.zeros(3, np.int64), {"axis": -4})
>>> print(unexplained_shape(case, Outcome.returned(np.zeros((3, 2, 5, 2)))))
its output shape (3, 2, 5, 2) is the gather of no axis of data of shape (2, 5, 2): it read outside the input's shape
>>> unexplained_shape(case, Outcome.returned(np.zeros((2, 5, 3))))  # axis -4 read as axis 2 (wraps): explained
"""

from __future__ import annotations

from conformance.cases.translate import AXIS_NAMES
from conformance.core.case import Case
from conformance.core.outcome import Kind, Outcome
from conformance.judge.verdict import reference_outcome


def axis_shapes(case: Case) -> set[tuple[int, ...]]:
    """The output shapes the reference gives ``case`` with its axis attribute
    set to each axis of the data in turn (none where the op has no axis attribute).

    >>> import numpy as np
    >>> sorted(axis_shapes(Case("numpy.take", np.zeros((2, 5)), np.zeros(3, np.int64), {"axis": 7})))
    [(2, 3), (3, 5)]
    """
    name = next((n for n in AXIS_NAMES if n in case.attrs), None)
    if name is None:
        return set()
    shapes = set()
    for axis in range(case.data.ndim):
        out = reference_outcome(Case(case.op, case.data, case.indices, {**case.attrs, name: axis}))
        if out.kind is Kind.VALUE and out.value is not None:
            shapes.add(tuple(out.value.shape))
    return shapes


def unexplained_shape(case: Case, got: Outcome) -> str | None:
    """Why ``got`` proves its framework read outside the input's shape
    (see the module docstring), or None: only a value, for a case the
    reference refuses, whose shape no axis of the data gives."""
    if got.kind is not Kind.VALUE or got.value is None or reference_outcome(case).kind is Kind.VALUE:
        return None
    shapes = axis_shapes(case)
    shape = tuple(got.value.shape)
    if not shapes or shape in shapes:
        return None
    return (
        f"its output shape {shape} is the gather of no axis of data of shape {tuple(case.data.shape)}: "
        "it read outside the input's shape"
    )
