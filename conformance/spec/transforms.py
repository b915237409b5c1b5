"""The reference under the transformations users apply to a gather (issue 41): its VJP, its JVP and its vmap, each
derived from the one reference (:func:`~conformance.spec.reference.reference`), never written per op.

**Which positions each output element read.** A gather's output elements are each a copy of one data element, or
of nothing (a fill). :func:`read_positions` finds which by running the reference twice on the data's flat positions,
counted from 1 and from 2: an element that read position ``p`` answers ``p + 1`` and ``p + 2``, one apart; a fill
answers its fill value both times (the same, or NaN), never one apart. Under any index policy (error, wrap, clamp,
fill), whatever the op, with no code of its own.

**The VJP** scatters the cotangent onto those positions, adding where several elements read one (``np.add.at``): the
gradient of an embedding lookup. A fill reads nothing and sends nothing back. **The JVP** is the gather of the
tangent with its fills read as 0: a gather is linear in its data, so that is its derivative. **vmap** is the op
applied to each batch element and stacked.

>>> import numpy as np
>>> read_positions("numpy.take", (5,), np.array([4, 1, 1]), ).tolist()
[4, 1, 1]
>>> vjp("numpy.take", np.zeros(5), np.array([4, 1, 1]), np.array([1.0, 10.0, 100.0])).tolist()
[0.0, 110.0, 0.0, 0.0, 1.0]
>>> read_positions("jax.numpy.take", (5,), np.array([7, -1]), mode="fill").tolist()   # 7 fills, -1 wraps
[-1, 4]
>>> vjp("jax.numpy.take", np.zeros(5), np.array([7, -1]), np.array([3.0, 4.0]), mode="fill").tolist()
[0.0, 0.0, 0.0, 0.0, 4.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.spec.policy import IndexPolicy
from conformance.spec.reference import reference

NOTHING = -1
"""The position of an output element that read nothing (a fill)."""


def read_positions(
    op: str,
    data_shape: tuple[int, ...],
    indices: Any,
    *,
    policy: IndexPolicy | str | None = None,
    opset: int | None = None,
    **attrs: Any,
) -> np.ndarray:
    """For each output element of ``op`` on data of ``data_shape``, the flat position of the data element it read,
    or :data:`NOTHING` where it read none (a fill), under ``policy`` (default: the op's documented one). Raises what
    the reference raises where the op must fail.

    >>> read_positions("onnx.GatherElements", (2, 2), np.array([[1, 0]]), axis=0).tolist()
    [[2, 1]]
    """
    size = math.prod(data_shape)
    if size >= 2**52:  # float64 counts exactly up to 2**53
        raise ValueError(f"read_positions: {size} data elements are too many to count in float64")
    counted = np.arange(size, dtype=np.float64).reshape(data_shape)
    kw = {"policy": policy, "opset": opset, "check_dtypes": False, **attrs}
    return positions_read(reference(op, counted + 1, indices, **kw), reference(op, counted + 2, indices, **kw))


def positions_read(first: Any, second: Any) -> np.ndarray:
    """The flat data position each output element read, from a forward's answers on the data's positions counted from
    1 (``first``) and from 2 (``second``): ``p + 1`` and ``p + 2`` where it read position ``p``; anything else (a fill,
    the same both times; a stray read) read :data:`NOTHING`. The reference's own forward, or a framework's: the
    positions its forward *showed*, which its gradient must follow (:func:`gradient_departures`).

    >>> positions_read(np.array([1.0, 0.0, 5.0]), np.array([2.0, 0.0, 6.0])).tolist()
    [0, -1, 4]
    """
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    read = (second - first) == 1
    return np.where(read, first - 1, NOTHING).astype(np.int64)


def vjp(
    op: str,
    data: np.ndarray,
    indices: Any,
    cotangent: np.ndarray,
    *,
    policy: IndexPolicy | str | None = None,
    opset: int | None = None,
    **attrs: Any,
) -> np.ndarray:
    """The gradient with respect to ``data`` of ``<cotangent, op(data, indices)>``: ``cotangent`` scattered, added,
    onto the positions each output element read (:func:`read_positions`); in ``data``'s dtype.

    >>> vjp("numpy.take", np.zeros((2, 2)), np.array([1, 1]), np.ones((2, 2)), axis=1).tolist()
    [[0.0, 2.0], [0.0, 2.0]]
    """
    data = np.asarray(data)
    positions = read_positions(op, data.shape, indices, policy=policy, opset=opset, **attrs)
    return scattered(positions, cotangent, data.shape).astype(data.dtype, copy=False)


def scattered(positions: np.ndarray, cotangent: Any, data_shape: tuple[int, ...]) -> np.ndarray:
    """``cotangent`` added onto the flat ``positions`` (:data:`NOTHING`: none) of data of ``data_shape``: the
    gradient of a gather that read ``positions``, whether the reference's (:func:`read_positions`) or the ones a
    framework's own forward showed (its answer on the data's positions counted from 1, less 1), which is the
    consistency law of issue 41: a gradient is the derivative of the forward that was computed, whatever the docs.

    >>> scattered(np.array([2, NOTHING, 2]), np.array([1.0, 5.0, 3.0]), (1, 3)).tolist()
    [[0.0, 0.0, 4.0]]
    """
    positions, cotangent = np.asarray(positions), np.asarray(cotangent)
    if cotangent.shape != positions.shape:
        raise ValueError(f"vjp: cotangent.shape {cotangent.shape} must be the output's shape {positions.shape}")
    read = positions != NOTHING
    gradient = np.zeros(math.prod(data_shape), dtype=np.result_type(cotangent.dtype, np.float64))
    np.add.at(gradient, positions[read], cotangent[read])
    return gradient.reshape(data_shape)


def cotangent(shape: tuple[int, ...]) -> np.ndarray:
    """The cotangent a transformation oracle pulls back through a gather's output of ``shape``: element ``k`` (in C
    order) holds ``k + 1``, all distinct and none 0, so that a gradient sent to the wrong position, or dropped, shows;
    float64, exact up to 2**53 elements. Derived from the shape alone: the same case gives the same cotangent on every
    machine and in every reproducer.

    >>> cotangent((2, 2)).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    return np.arange(1, math.prod(shape) + 1, dtype=np.float64).reshape(shape)


@dataclass(frozen=True)
class GradientDeparture:
    """Where a gradient is not the derivative of the forward that was computed: at flat data ``position``, the
    forward read it for the output elements ``outputs`` (flat; none: it read it for none), so the gradient there must
    be their cotangents' sum ``expected``; it is ``got``."""

    position: int
    outputs: tuple[int, ...]
    expected: float
    got: float

    def words(self) -> str:
        """What a maintainer reads.

        >>> GradientDeparture(0, (0,), 1.0, 0.0).words()
        'the forward read data element 0 for output element 0, yet the gradient there is 0 (it should be 1)'
        >>> GradientDeparture(3, (), 0.0, 2.0).words()
        'the forward read data element 3 for no output element, yet the gradient there is 2 (it should be 0)'
        """
        read_for = ", ".join(str(o) for o in self.outputs) if self.outputs else ""
        which = (
            f"output element{'s' if len(self.outputs) > 1 else ''} {read_for}" if self.outputs else "no output element"
        )
        return (
            f"the forward read data element {self.position} for {which}, yet the gradient there is {self.got:g} "
            f"(it should be {self.expected:g})"
        )


def gradient_departures(positions: np.ndarray, gradient: Any, seed: np.ndarray) -> list[GradientDeparture]:
    """The consistency law of issue 41, apart from any docs: a gather's gradient for the cotangent ``seed`` is
    ``seed`` added onto the ``positions`` its own forward read (:func:`positions_read` of that forward's answers), so
    every data position where ``gradient`` differs from that is a departure. Empty where the law holds.

    TensorFlow 2.21 under XLA, ``tf.gather(x, [-1, 1])`` on 5 elements: the forward clamps -1 to 0 (it read positions
    0 and 1), the gradient sends nothing to 0 (checked by hand, stop 51):

    >>> [d.words() for d in gradient_departures(np.array([0, 1]), np.array([0.0, 2.0, 0, 0, 0]), cotangent((2,)))]
    ['the forward read data element 0 for output element 0, yet the gradient there is 0 (it should be 1)']
    """
    gradient = np.asarray(gradient, dtype=np.float64).reshape(-1)
    expected = scattered(positions, seed, gradient.shape).reshape(-1)
    flat = np.asarray(positions).reshape(-1)
    return [
        GradientDeparture(
            int(p), tuple(int(o) for o in np.flatnonzero(flat == p)), float(expected[p]), float(gradient[p])
        )
        for p in np.flatnonzero(~((gradient == expected) | (np.isnan(gradient) & np.isnan(expected))))
    ]


def jvp(
    op: str,
    data_shape: tuple[int, ...],
    indices: Any,
    tangent: np.ndarray,
    *,
    policy: IndexPolicy | str | None = None,
    opset: int | None = None,
    **attrs: Any,
) -> np.ndarray:
    """The derivative of ``op`` along ``tangent`` (of ``data_shape``): the gathered tangent, a fill read as 0.

    >>> jvp("jax.numpy.take", (3,), np.array([2, 9]), np.array([1.0, 2.0, 3.0]), mode="fill").tolist()
    [3.0, 0.0]
    """
    tangent = np.asarray(tangent)
    if tangent.shape != tuple(data_shape):
        raise ValueError(f"jvp: tangent.shape {tangent.shape} must be the data's shape {tuple(data_shape)}")
    positions = read_positions(op, tuple(data_shape), indices, policy=policy, opset=opset, **attrs)
    flat = tangent.reshape(-1)
    return np.where(positions != NOTHING, flat[np.maximum(positions, 0)], 0).astype(flat.dtype, copy=False)


def vmapped(
    op: str,
    data: np.ndarray,
    indices: np.ndarray,
    *,
    data_axis: int | None = 0,
    indices_axis: int | None = 0,
    opset: int | None = None,
    **attrs: Any,
) -> np.ndarray:
    """``op`` mapped over a batch dimension (``data_axis`` of the data, ``indices_axis`` of the indices; None: not
    batched, the same for every element), the answers stacked along a new leading axis: what ``vmap`` must give.

    >>> vmapped("numpy.take", np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 0]), indices_axis=None).tolist()
    [[3, 1], [6, 4]]
    """
    sizes = {a.shape[axis] for a, axis in ((data, data_axis), (indices, indices_axis)) if axis is not None}
    if len(sizes) != 1:
        raise ValueError(f"vmapped: the batched axes must have one size, got {sorted(sizes)}")
    (batch,) = sizes

    def element(a: np.ndarray, axis: int | None, b: int) -> np.ndarray:
        return a if axis is None else np.take(a, b, axis=axis)

    return np.stack(
        [
            reference(op, element(data, data_axis, b), element(indices, indices_axis, b), opset=opset, **attrs)
            for b in range(batch)
        ]
    )
