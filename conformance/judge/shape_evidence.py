"""Whether an answer's rank proves that its framework read outside the
input's shape: the one piece of evidence that makes an op's answers on an
input undefined in every execution mode of its framework.

A value returned for an axis attribute out of range (below ``-rank`` or at
``rank`` and above) is the gather of no axis when its rank is the output
rank of none of the data's axes. Paddle 3.3.1's ``paddle.gather`` with
``axis=-4`` on data of shape (2, 5, 2) returns a value of shape
(3, 2, 5, 2), its last 40 elements stray floats (1e-44, -2e-33); as a static
graph it returns such a value on one run and raises an IndexError on the
next in the same process (checked by hand, a new program each call: value,
error, value, error in one process; value, error, error, error in two
others), its check reading the same stray memory. Such an answer is a fact
of memory, not of the version. A value of a rank some axis gives (an axis
read modulo the rank, TensorFlow's ``axis=None`` read as 0) proves nothing
of the kind; nor does an answer to a case the axis alone does not make
invalid (``batch_dims``, an empty axis).

>>> import numpy as np
>>> from conformance.core.outcome import Outcome
>>> case = Case("numpy.take", np.zeros((2, 5, 2)), np.zeros(3, np.int64), {"axis": -4})
>>> print(unexplained_shape(case, Outcome.returned(np.zeros((3, 2, 5, 2)))))  # doctest: +NORMALIZE_WHITESPACE
its output has rank 4, which the gather of no axis of data of shape (2, 5, 2) has (axis -4):
it read outside the input's shape
>>> unexplained_shape(case, Outcome.returned(np.zeros((2, 5, 3))))  # axis -4 read as axis 2 (wraps): explained
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from conformance.cases.translate import AXIS_NAMES
from conformance.core.blame import Rule
from conformance.core.case import Case
from conformance.core.outcome import ErrorClass, Kind, Outcome
from conformance.judge.verdict import reference_outcome


def _out_of_range_axis(case: Case) -> tuple[str, int] | None:
    """The case's axis attribute and its value where that is an int outside
    ``[-rank, rank)`` and nothing else (``batch_dims``) shapes the output."""
    if case.attrs.get("batch_dims"):
        return None
    name = next((n for n in AXIS_NAMES if n in case.attrs), None)
    axis = case.attrs.get(name) if name else None
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer) or -case.data.ndim <= axis < case.data.ndim:
        return None
    assert name is not None
    return name, int(axis)


def axis_ranks(case: Case, name: str) -> set[int]:
    """The output ranks the reference gives ``case``'s shapes with attribute
    ``name`` set to each axis of the data in turn (zeros for data and
    indices, every side at least 1, so that each axis is valid).

    >>> sorted(axis_ranks(Case("numpy.take", np.zeros((2, 0)), np.ones((3, 1), np.int64), {"axis": 7}), "axis"))
    [3]
    """
    data = np.zeros(tuple(max(n, 1) for n in case.data.shape), case.data.dtype)
    ranks = set()
    for axis in range(case.data.ndim):
        out = reference_outcome(Case(case.op, data, np.zeros_like(case.indices), {**case.attrs, name: axis}))
        if out.kind is Kind.VALUE and out.value is not None:
            ranks.add(out.value.ndim)
    return ranks


def unexplained_shape(case: Case, got: Outcome) -> str | None:
    """Why ``got`` proves its framework read outside the input's shape
    (see the module docstring), or None."""
    axis = _out_of_range_axis(case)
    if axis is None or got.kind is not Kind.VALUE or got.value is None:
        return None
    ranks = axis_ranks(case, axis[0])
    rank = np.ndim(got.value)
    if not ranks or rank in ranks:
        return None
    return (
        f"its output has rank {rank}, which the gather of no axis of data of shape {tuple(case.data.shape)} has "
        f"(axis {axis[1]}): it read outside the input's shape"
    )


def waived_for_empty(case: Case) -> Rule | None:
    """The shape rule the reference waives for ``case``'s empty indices: the one the same call breaks with each
    empty dimension of its indices made 1 (the data kept; not where the data's own dimension there is empty too,
    which an index dimension of 1 would outgrow: GatherND's batch dimensions of 0 are equal), where ``case`` itself
    is answered; None otherwise. A refusal of such a call departs from no sentence the docs state for empty indices
    (onnxruntime refuses GatherElements' empty indices (4, 0) larger than data (1, 1) off the axis: audit of stop 47,
    9A n=44).

    >>> c = Case("onnx.GatherElements-11", np.zeros((1, 1), np.float32), np.zeros((4, 0), np.int64), {"axis": 1})
    >>> waived_for_empty(c).value, waived_for_empty(replace(c, indices=np.zeros((1, 0), np.int64)))
    ('index larger than input', None)
    >>> nd = Case("onnx.GatherND-13", np.zeros((0, 5, 4)), np.zeros((0, 3, 1), np.int64), {"batch_dims": 1})
    >>> waived_for_empty(nd) is None
    True
    """
    indices, data = np.asarray(case.indices), np.shape(case.data)
    if indices.size or reference_outcome(case).kind is not Kind.VALUE:
        return None
    shape = tuple(n or int(d >= len(data) or data[d] != 0) for d, n in enumerate(indices.shape))
    if shape == indices.shape:
        return None
    out = reference_outcome(replace(case, indices=np.zeros(shape, indices.dtype)))
    shaped = out.kind is Kind.ERROR and out.error_class is ErrorClass.SHAPE_INVALID and out.rule is not None
    return Rule(out.rule) if shaped else None
