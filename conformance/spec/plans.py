"""Reshape plans: how each equivalence class of gather maps onto
:func:`~conformance.spec.multiaxis.gather_multiaxis` (seed ``004``, "Operator mappings").

A :class:`Plan` is pure shape arithmetic: which view of ``data`` and which
reshape of ``indices`` to hand to the multiaxis operator, along which axes, and
how to reshape its output. Plans do not check an op's preconditions (the
catalog does); they only assume the shapes fit the class.

>>> p = block_plan((4, 3), (2, 2), axis=1)      # seed: Gather, axis 1, indices [2,2]
>>> p.input_shape, p.indices_shape, p.output_shape, p.axes, p.final_shape
((4, 3, 1), (1, 2, 2), (4, 2, 2), (1,), (4, 2, 2))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

from conformance.spec.multiaxis import Shape, gather_multiaxis, multiaxis_shapes, namespace
from conformance.spec.policy import IndexPolicy


class EqClass(str, Enum):
    """The seed's equivalence classes of gather."""

    ELEMENT = "element gather"
    FLAT = "flattened 1-D"
    BLOCK = "block gather"
    ND = "ND block gather"


@dataclass(frozen=True)
class Plan:
    """One call of the multiaxis operator that computes an op.

    ``data_window``, when set, is the leading-corner window of ``data`` to use
    (``torch.gather``'s index may be smaller than its input). When ``axes`` is
    empty the indices' values are never read (a GatherND tuple of length 0).
    """

    eq_class: EqClass
    input_shape: Shape
    indices_shape: Shape
    axes: tuple[int, ...]
    output_shape: Shape
    final_shape: Shape
    data_window: Shape | None = None

    def run(self, data: Any, indices: Any, policy: IndexPolicy) -> Any:
        """Execute the plan on arrays of any namespace.

        >>> import numpy as np
        >>> from conformance.spec.policy import ONNX
        >>> flat_plan((2, 2), (3,)).run(np.array([[1, 2], [3, 4]]), np.array([3, 0, 3]), ONNX).tolist()
        [4, 1, 4]
        """
        xp = namespace(data, indices)
        if self.eq_class is EqClass.ELEMENT and math.prod(self.output_shape) == 0:
            # an element gather's output has the (broadcast) indices' shape: empty, no index is left to check or read
            return xp.zeros(self.final_shape, dtype=data.dtype)
        if self.data_window is not None:
            data = data[tuple(slice(0, n) for n in self.data_window)]
        data = xp.reshape(data, self.input_shape)
        if self.axes:
            indices = xp.reshape(indices, self.indices_shape)
        else:
            indices = xp.zeros(self.indices_shape, dtype=xp.int64)
        out = gather_multiaxis(data, indices, self.axes, policy=policy)
        return xp.reshape(out, self.final_shape)


def _plan(
    eq_class: EqClass,
    input_shape: Shape,
    indices_shape: Shape,
    axes: tuple[int, ...],
    final: Shape,
    window: Shape | None = None,
) -> Plan:
    _, out = multiaxis_shapes(input_shape, indices_shape, axes)
    return Plan(eq_class, input_shape, indices_shape, axes, out, final, window)


def element_plan(data_shape: Shape, indices_shape: Shape, axis: int, window: bool = False) -> Plan:
    """Single-axis element gather (GatherElements, take_along_axis, gather):
    the multiaxis operator with one axis, unchanged shapes. With ``window``,
    ``data`` is first cut to ``indices``' size in every other dimension
    (torch.gather's rule).

    >>> element_plan((4, 3), (4, 1), 1).output_shape
    (4, 1)
    >>> element_plan((4, 3), (2, 2), 0, window=True).data_window
    (4, 2)
    """
    if not data_shape:
        return _plan(EqClass.ELEMENT, (1,), (1,), (0,), ())
    win = tuple(n if d == axis else i for d, (n, i) in enumerate(zip(data_shape, indices_shape))) if window else None
    return _plan(
        EqClass.ELEMENT,
        win or data_shape,
        indices_shape,
        (axis,),
        _broadcast_final(win or data_shape, indices_shape, axis),
        win,
    )


def _broadcast_final(data_shape: Shape, indices_shape: Shape, axis: int) -> Shape:
    return multiaxis_shapes(data_shape, indices_shape, (axis,))[1]


def flat_plan(data_shape: Shape, indices_shape: Shape) -> Plan:
    """Gather from the flattened input (torch.take, ``np.take(axis=None)``).

    >>> flat_plan((2, 3), (2, 2)).input_shape, flat_plan((2, 3), (2, 2)).final_shape
    ((6,), (2, 2))
    """
    return _plan(EqClass.FLAT, (math.prod(data_shape),), (math.prod(indices_shape),), (0,), indices_shape)


def block_plan(data_shape: Shape, indices_shape: Shape, axis: int, batch_dims: int = 0) -> Plan:
    """Single-axis block gather (ONNX Gather, np.take, tf.gather with
    ``batch_dims``): ``output = data[:axis] ~ indices[batch_dims:] ~ data[axis+1:]``.

    The index dimensions start at the gathered axis; the input gets size-1
    filler for the extra index dimensions just after it (the layout of the
    seed's Gather examples 1, 2, 5 and 6):

    * input   ``B ~ M ~ [A] ~ 1 * (|J|-1) ~ T``
    * indices ``B ~ 1 * |M| ~ J ~ 1 * |T|``

    where ``B`` are the batch dimensions, ``M`` the rest before the axis, ``A``
    the axis, ``T`` the trailing dimensions and ``J`` the non-batch index
    dimensions (a scalar's ``J`` is ``[1]``, removed again in the final shape).

    >>> p = block_plan((2, 2), (2, 2), axis=0)
    >>> p.input_shape, p.indices_shape, p.output_shape
    ((2, 1, 2), (2, 2, 1), (2, 2, 2))
    >>> block_plan((2, 2), (), axis=0).indices_shape      # scalar index
    (1, 1)
    """
    b = batch_dims
    batch, middle, size, trailing = data_shape[:b], data_shape[b:axis], data_shape[axis], data_shape[axis + 1 :]
    j = indices_shape[b:]
    jj = j or (1,)
    input_shape = batch + middle + (size,) + (1,) * (len(jj) - 1) + trailing
    idx_shape = indices_shape[:b] + (1,) * len(middle) + jj + (1,) * len(trailing)
    return _plan(EqClass.BLOCK, input_shape, idx_shape, (axis,), data_shape[:axis] + j + trailing)


def whole_plan(data_shape: Shape) -> Plan:
    """``data`` itself, whatever the indices: NumPy's ``x[()]``, which is what
    ``x[tuple(np.moveaxis(i, -1, 0))]`` is for ``i.shape[-1] == 0``. No axis is
    gathered and the indices are never read; unlike :func:`nd_plan`'s whole
    slices, nothing is broadcast over the index dimensions.

    >>> p = whole_plan((3, 4))
    >>> p.indices_shape, p.axes, p.final_shape
    ((1, 1), (), (3, 4))
    """
    return _plan(EqClass.ND, data_shape, (1,) * len(data_shape), (), data_shape)


def nd_plan(data_shape: Shape, indices_shape: Shape, batch_dims: int = 0) -> Plan:
    """Multi-axis block gather (ONNX GatherND, tf.gather_nd), the seed's
    ``gatherNdBlocks``: the ``k = indices.shape[-1]`` axes after the batch
    dimensions are gathered; index dimensions and the input's indexed
    dimensions are left-aligned, and filler pads whichever is shorter.

    ``k = 0`` (whole slices, which the seed's mapping gets wrong) gathers along
    no axis: the output is the input broadcast over the index dimensions.

    >>> p = nd_plan((2, 2, 2), (5, 3))                    # seed example
    >>> p.input_shape, p.indices_shape, p.output_shape, p.axes, p.final_shape
    ((2, 2, 2), (5, 1, 3), (5, 1, 1), (0, 1, 2), (5,))
    >>> nd_plan((2, 3), (4, 0)).final_shape
    (4, 2, 3)
    """
    b, k = batch_dims, indices_shape[-1]
    lead_in, trailing, lead_idx = data_shape[: b + k], data_shape[b + k :], indices_shape[:-1]
    width = max(len(lead_in), len(lead_idx))
    input_shape = lead_in + (1,) * (width - len(lead_in)) + trailing
    idx_shape = list(lead_idx + (1,) * (width + len(trailing) - len(lead_idx)))
    if k:
        idx_shape[-1] *= k
    return _plan(EqClass.ND, input_shape, tuple(idx_shape), tuple(range(b, b + k)), lead_idx + trailing)
